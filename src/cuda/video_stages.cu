// Video layouts on the device (issue 14 item 2), the ToneMapper's first and last stages:
//   decode: rgb48, gbrpf32, P010, yuv420p10, and float RGB(A) in PQ / HLG / BT.2020 -> the
//           scene-linear BT.709 float RGB frame the operator passes read (rgb_f32);
//   encode: the passes' linear display float RGB -> 8-bit yuv420p or NV12 (BT.709, limited).
// The per-pixel maths is core/video_colour.hpp's, the functions the CPU reference
// (cpu/video_decode.cpp, cpu/video_encode.cpp) calls, in the same order: chroma blended vertically
// then horizontally (exact in float: integer codes, weights 0 or 1/2), block means in a fixed order.
// The 4:2:0 layouts decode a 2 x 2 block per thread (decode420_kernel), and for whole frames
// without glare gather the frame's statistics on the way (decode420_stats_kernel), so no
// statistics pass reads the decoded frame again. The encode stage serves the local operators but
// reinhard-sat's tile-local path (the global operators' map and that tile map encode the 4:2:0
// frame themselves: cuda/encode420.cuh). docs/performance.md has the stages' costs.
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <mutex>
#include <vector>

#include "core/colour.hpp"
#include "core/video_colour.hpp"
#include "cuda/check.hpp"
#include "cuda/encode420.cuh"
#include "cuda/stats_reduce.cuh"
#include "cuda/video_stages.hpp"

namespace tonekit::cuda {
namespace {

__device__ __forceinline__ const unsigned char* plane_row(const VideoPlanes& p, int plane, int y) {
  return static_cast<const unsigned char*>(p.data[plane]) + static_cast<std::size_t>(y) * p.stride[plane];
}

template <class S>
__device__ __forceinline__ S load_at(const unsigned char* row, std::size_t index) {
  return reinterpret_cast<const S*>(row)[index];
}

__device__ __forceinline__ float code10(bool p010, std::uint16_t s) {
  return p010 ? static_cast<float>(s >> 6) : static_cast<float>(s > 1023 ? 1023 : s);
}

// One thread per pixel; a block is a run of one row. Bad float samples are sanitised (and
// counted once per pixel, as the CPU decoder counts them) before the transfer.
__global__ void decode_kernel(VideoPlanes p, InputFormat f, core::VideoLinearise lin, bool full_range,
                              core::YcbcrCoeffs<float> k, int width, int height, float* out, unsigned* counts) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  unsigned kind = 0;
  if (x < width) {
    float r = 0.0f, g = 0.0f, b = 0.0f;
    if (f == InputFormat::p010 || f == InputFormat::yuv420p10) {
      const bool nv = f == InputFormat::p010;
      const int cw = (width + 1) / 2, ch = (height + 1) / 2;
      const core::ChromaTaps tx = core::chroma_taps_cosited(x, cw), ty = core::chroma_taps_cosited(y, ch);
      const float wx = core::chroma_tap_weight<float>(tx), wy = core::chroma_tap_weight<float>(ty);
      float c[2];
#pragma unroll
      for (int plane = 0; plane < 2; ++plane) {
        const unsigned char* top = plane_row(p, nv ? 1 : 1 + plane, ty.i0);
        const unsigned char* bottom = plane_row(p, nv ? 1 : 1 + plane, ty.i1);
        const std::size_t step = nv ? 2 : 1, off = nv ? plane : 0;
        const float t0 = code10(nv, load_at<std::uint16_t>(top, step * tx.i0 + off));
        const float b0 = code10(nv, load_at<std::uint16_t>(bottom, step * tx.i0 + off));
        const float t1 = code10(nv, load_at<std::uint16_t>(top, step * tx.i1 + off));
        const float b1 = code10(nv, load_at<std::uint16_t>(bottom, step * tx.i1 + off));
        const float left = t0 + wy * (b0 - t0), right = t1 + wy * (b1 - t1);
        c[plane] = left + wx * (right - left);
      }
      core::ycbcr10_codes_to_rgb(code10(nv, load_at<std::uint16_t>(plane_row(p, 0, y), x)), c[0], c[1], full_range, k, r,
                                 g, b);
    } else if (f == InputFormat::rgb48) {
      const unsigned char* row = plane_row(p, 0, y);
      r = static_cast<float>(load_at<std::uint16_t>(row, 3 * static_cast<std::size_t>(x) + 0)) * (1.0f / 65535.0f);
      g = static_cast<float>(load_at<std::uint16_t>(row, 3 * static_cast<std::size_t>(x) + 1)) * (1.0f / 65535.0f);
      b = static_cast<float>(load_at<std::uint16_t>(row, 3 * static_cast<std::size_t>(x) + 2)) * (1.0f / 65535.0f);
    } else if (f == InputFormat::rgb_f32 || f == InputFormat::rgba_f32 || f == InputFormat::rgba_f16) {
      // Float RGB(A) in PQ / HLG / BT.2020 colour: sanitised like every float input.
      const unsigned char* row = plane_row(p, 0, y);
      const int c = f == InputFormat::rgb_f32 ? 3 : 4;
      float v[3];
#pragma unroll
      for (int i = 0; i < 3; ++i) {
        const std::size_t at = static_cast<std::size_t>(c) * x + i;
        v[i] = f == InputFormat::rgba_f16 ? __half2float(load_at<__half>(row, at)) : load_at<float>(row, at);
      }
      unsigned flags = 0;
      r = core::sanitise_channel(v[0], flags);
      g = core::sanitise_channel(v[1], flags);
      b = core::sanitise_channel(v[2], flags);
      kind = core::classify_flags(flags);
    } else {  // gbrpf32: planes G, B, R
      unsigned flags = 0;
      g = core::sanitise_channel(load_at<float>(plane_row(p, 0, y), x), flags);
      b = core::sanitise_channel(load_at<float>(plane_row(p, 1, y), x), flags);
      r = core::sanitise_channel(load_at<float>(plane_row(p, 2, y), x), flags);
      kind = core::classify_flags(flags);
    }
    core::linearise_pixel(lin, r, g, b);
    float* o = out + 3 * (static_cast<std::size_t>(y) * width + x);
    o[0] = r;
    o[1] = g;
    o[2] = b;
  }
  // One atomic per warp and kind that saw a bad pixel.
  const unsigned nan = __ballot_sync(0xFFFFFFFFu, kind == core::kPixelNaN);
  const unsigned inf = __ballot_sync(0xFFFFFFFFu, kind == core::kPixelInf);
  const unsigned neg = __ballot_sync(0xFFFFFFFFu, kind == core::kPixelNegative);
  if ((threadIdx.x & 31) == 0) {
    if (nan) atomicAdd(&counts[0], __popc(nan));
    if (inf) atomicAdd(&counts[1], __popc(inf));
    if (neg) atomicAdd(&counts[2], __popc(neg));
  }
}

// 10-bit Y'CbCr 4:2:0 (P010 when Nv, yuv420p10 otherwise), one thread per 2 x 2 block of pixels
// (the block whose top-left pixel the chroma sample is co-sited with). The block's chroma taps are
// the same four samples per plane, s00 = (i, j), s10 = (i + 1, j), s01 = (i, j + 1),
// s11 = (i + 1, j + 1), the right and bottom ones clamped to the last column and row (where they
// equal the left and top ones, as decode_kernel's clamped taps do): 8 chroma loads serve 4 pixels
// (4 for P010, whose Cb, Cr pair is one 32-bit word), and the block's two luma codes a row are one
// 32-bit word when the rows are 4-byte aligned. The pixels' chroma values are decode_kernel's
// bilinear blends, which are exact in float (integer codes, weights 0 or 1/2): s00,
// (s00 + s10) / 2, (s00 + s01) / 2 and ((s00 + s01) + (s10 + s11)) / 4 are the same floats, bit for
// bit. The rest is decode_kernel's per-pixel maths; this file is built without contraction
// (-fmad=false), so the floats are decode_kernel's (GpuVideo.BlockDecodeSameFloatsAsPixelDecode).
// A block row's pixels go out as float2 pairs when the frame's width is even (a block's two pixels
// are 24 bytes, 8-byte aligned).
constexpr int kDecode420Threads = 128;

struct Decode420Args {
  VideoPlanes p;
  core::VideoLinearise lin;
  bool full_range;
  core::YcbcrCoeffs<float> k;
  int width, height;
  float* out;
};

// Block (bx, by) (bx < the chroma width) decoded into `out` and into rgb[row][column][channel];
// entries of pixels outside the frame are left as they were.
template <bool Nv>
__device__ __forceinline__ void decode420_block(const Decode420Args& a, int bx, int by, float (&rgb)[2][2][3]) {
  const VideoPlanes& p = a.p;
  const int width = a.width, height = a.height;
  float* __restrict__ out = a.out;
  const int cw = (width + 1) / 2, ch = (height + 1) / 2;
  const int nx = bx + 1 < cw ? bx + 1 : cw - 1, ny = by + 1 < ch ? by + 1 : ch - 1;
  // s[plane][row][column]: row 0 = by, 1 = ny; column 0 = bx, 1 = nx.
  float s[2][2][2];
  if constexpr (Nv) {
    const bool words = ((reinterpret_cast<std::uintptr_t>(p.data[1]) | p.stride[1]) & 3u) == 0;
#pragma unroll
    for (int row = 0; row < 2; ++row) {
      const unsigned char* r = plane_row(p, 1, row == 0 ? by : ny);
#pragma unroll
      for (int col = 0; col < 2; ++col) {
        const int i = col == 0 ? bx : nx;
        const std::size_t at = 2 * static_cast<std::size_t>(i);  // Cb's sample; Cr follows
        const std::uint32_t w =
            words ? load_at<std::uint32_t>(r, i)
                  : load_at<std::uint16_t>(r, at) | static_cast<std::uint32_t>(load_at<std::uint16_t>(r, at + 1)) << 16;
        s[0][row][col] = code10(true, static_cast<std::uint16_t>(w & 0xFFFFu));
        s[1][row][col] = code10(true, static_cast<std::uint16_t>(w >> 16));
      }
    }
  } else {
#pragma unroll
    for (int plane = 0; plane < 2; ++plane) {
      const unsigned char* r0 = plane_row(p, 1 + plane, by);
      const unsigned char* r1 = plane_row(p, 1 + plane, ny);
      s[plane][0][0] = code10(false, load_at<std::uint16_t>(r0, bx));
      s[plane][0][1] = code10(false, load_at<std::uint16_t>(r0, nx));
      s[plane][1][0] = code10(false, load_at<std::uint16_t>(r1, bx));
      s[plane][1][1] = code10(false, load_at<std::uint16_t>(r1, nx));
    }
  }
  const bool pairs = (width & 1) == 0;  // both pixels of every block row present
  const bool store_pairs = pairs && (reinterpret_cast<std::uintptr_t>(out) & 7u) == 0;
  const bool luma_words = pairs && ((reinterpret_cast<std::uintptr_t>(p.data[0]) | p.stride[0]) & 3u) == 0;
#pragma unroll
  for (int dy = 0; dy < 2; ++dy) {
    const int y = 2 * by + dy;
    if (y >= height) break;
    const unsigned char* luma = plane_row(p, 0, y);
    float codes[2];
    if (luma_words) {
      const std::uint32_t w = load_at<std::uint32_t>(luma, bx);
      codes[0] = code10(Nv, static_cast<std::uint16_t>(w & 0xFFFFu));
      codes[1] = code10(Nv, static_cast<std::uint16_t>(w >> 16));
    } else {
      codes[0] = code10(Nv, load_at<std::uint16_t>(luma, 2 * static_cast<std::size_t>(bx)));
      codes[1] = 2 * bx + 1 < width ? code10(Nv, load_at<std::uint16_t>(luma, 2 * static_cast<std::size_t>(bx) + 1))
                                    : 0.0f;
    }
    float (&px)[2][3] = rgb[dy];
#pragma unroll
    for (int dx = 0; dx < 2; ++dx) {
      if (2 * bx + dx >= width) break;
      float c[2];
#pragma unroll
      for (int plane = 0; plane < 2; ++plane) {
        const float s00 = s[plane][0][0], s10 = s[plane][0][1], s01 = s[plane][1][0], s11 = s[plane][1][1];
        if (dy == 0) c[plane] = dx == 0 ? s00 : (s00 + s10) * 0.5f;
        else c[plane] = dx == 0 ? (s00 + s01) * 0.5f : ((s00 + s01) + (s10 + s11)) * 0.25f;
      }
      float r, g, b;
      core::ycbcr10_codes_to_rgb(codes[dx], c[0], c[1], a.full_range, a.k, r, g, b);
      core::linearise_pixel(a.lin, r, g, b);
      px[dx][0] = r;
      px[dx][1] = g;
      px[dx][2] = b;
    }
    float* o = out + 3 * (static_cast<std::size_t>(y) * width + 2 * bx);
    if (store_pairs) {
      float2* o2 = reinterpret_cast<float2*>(o);
      o2[0] = make_float2(px[0][0], px[0][1]);
      o2[1] = make_float2(px[0][2], px[1][0]);
      o2[2] = make_float2(px[1][1], px[1][2]);
    } else {
      o[0] = px[0][0];
      o[1] = px[0][1];
      o[2] = px[0][2];
      if (2 * bx + 1 < width) {
        o[3] = px[1][0];
        o[4] = px[1][1];
        o[5] = px[1][2];
      }
    }
  }
}

template <bool Nv>
__global__ void __launch_bounds__(kDecode420Threads) decode420_kernel(Decode420Args a) {
  const int bx = blockIdx.x * blockDim.x + threadIdx.x, by = blockIdx.y;
  if (bx >= (a.width + 1) / 2) return;
  float rgb[2][2][3];
  decode420_block<Nv>(a, bx, by, rgb);
}

// The decode with the statistics of the pixels it decodes (cuda::Tuning::decode_statistics):
// no pass of its own over the decoded frame (100 MB at 4K). The groups are the statistics kernels'
// (4 pixels of a row from x = 4i: lane 2i holds the first two, lane 2i + 1 the other two, which it
// hands over by shuffle), each summed by group_stats_values, so the totals are those of the decode
// followed by the statistics pass, bit for bit (that function is contraction-free: the same floats
// in this -fmad=false file; GpuVideo.DecodeStatisticsSameAsStatisticsPass). Blocks walk the tiles
// (a block row of kDecode420Threads blocks each) in a grid-stride loop, so the grid's finish takes
// one set of atomics a block; the last block leaves the totals in frame->exchange, which
// launch_finish_exchanged finishes (the global pass, GlobalPass::process with totals_in_exchange).
template <bool Nv>
__global__ void __launch_bounds__(kDecode420Threads) decode420_stats_kernel(Decode420Args a, unsigned tiles_x,
                                                                            unsigned tiles, DeviceFrame* frame) {
  const int cw = (a.width + 1) / 2;
  StatsPartial acc = identity_partial();
  const bool first = (threadIdx.x & 1) == 0;  // a group's first half (blockDim.x is even)
  for (unsigned tile = blockIdx.x; tile < tiles; tile += gridDim.x) {  // block-uniform
    const int by = static_cast<int>(tile / tiles_x);
    const int bx =
        static_cast<int>(tile - static_cast<unsigned>(by) * tiles_x) * kDecode420Threads + static_cast<int>(threadIdx.x);
    float rgb[2][2][3] = {};  // pixels past the row's end stay 0, as group_stats_values expects
    if (bx < cw) decode420_block<Nv>(a, bx, by, rgb);
#pragma unroll
    for (int dy = 0; dy < 2; ++dy) {
      if (2 * by + dy >= a.height) break;  // block-uniform
      float v[kGroup * 3];
#pragma unroll
      for (int i = 0; i < 6; ++i) {
        v[i] = rgb[dy][i / 3][i % 3];
        v[6 + i] = __shfl_down_sync(0xFFFFFFFFu, v[i], 1);
      }
      if (first && bx < cw) combine(acc, group_stats_values<InF32x3>(v, 2 * bx, a.width));
    }
  }
  acc = block_reduce<kDecode420Threads>(acc);
  if (threadIdx.x == 0 && add_block_total(acc, frame->acc))
    defer_totals(frame->acc, frame->exchange, static_cast<unsigned long long>(a.width) * a.height);
}

// One thread per 4:2:0 block: its (up to) four Y' codes and one Cb, Cr pair (encode420_block).
__global__ void encode_kernel(const float* display, int width, int height, OutputLayout layout, float gamma, bool dither,
                              const core::LerpPair* __restrict__ oetf_table, std::uint8_t* out) {
  const int cw = (width + 1) / 2, ch = (height + 1) / 2;
  const int bx = blockIdx.x * blockDim.x + threadIdx.x, by = blockIdx.y;
  if (bx >= cw || by >= ch) return;
  // Packed rows: a block row's pair is 8-byte aligned when the width is even.
  const bool load_pairs =
      2 * bx + 1 < width && (width & 1) == 0 && (reinterpret_cast<std::uintptr_t>(display) & 7u) == 0;
  encode420_block(
      bx, by, width, height, layout, dither, load_pairs,
      [&](int y) { return display + 3 * (static_cast<std::size_t>(y) * width + 2 * bx); },
      [&](const float (&px)[3], float& luma, float& cb, float& cr) {
        core::display_pixel_ycbcr(px[0], px[1], px[2], gamma, oetf_table, luma, cb, cr);
      },
      out);
}

}  // namespace

namespace {
// The transfer tables (core::pq_eotf_table, core::bt709_oetf_table) on each device, as the host's
// (value, step) pairs (core::LerpPair: one 8-byte load a lookup, table_lerp's values), copied once
// per device.
__device__ core::LerpPair g_pq_pairs[core::kPqTableIntervals];
__device__ core::LerpPair g_oetf_pairs[core::kOetfTableIntervals];

struct DeviceTables {
  const core::LerpPair* pq = nullptr;
  const core::LerpPair* oetf = nullptr;
};

// `value` for the current device: make(device, value) the first time on each device (a
// non-zero result), the kept one after. `Tag` gives each cache its own statics.
template <class Tag, class T, class Make>
Status once_per_device(T& value, Make&& make) {
  static std::mutex mutex;
  static std::vector<T> values;
  int device = 0;
  TK_CUDA_CHECK(cudaGetDevice(&device));
  std::lock_guard<std::mutex> lock(mutex);
  if (values.size() <= static_cast<std::size_t>(device)) values.resize(device + 1, T{});
  if (values[device] == T{})
    if (Status st = make(device, values[device]); !st.ok()) return st;
  value = values[device];
  return {};
}

Status device_tables(DeviceTables& t) {
  struct Tag;
  int ready = 0;  // 1 once copied (not bool: std::vector<bool> hands out no bool&)
  if (Status st = once_per_device<Tag>(ready, [](int, int& done) -> Status {
        TK_CUDA_CHECK(cudaMemcpyToSymbol(g_pq_pairs, core::pq_eotf_pairs_host(), sizeof g_pq_pairs));
        TK_CUDA_CHECK(cudaMemcpyToSymbol(g_oetf_pairs, core::bt709_oetf_pairs_host(), sizeof g_oetf_pairs));
        done = 1;
        return {};
      });
      !st.ok())
    return st;
  void* p = nullptr;
  TK_CUDA_CHECK(cudaGetSymbolAddress(&p, g_pq_pairs));
  t.pq = static_cast<const core::LerpPair*>(p);
  TK_CUDA_CHECK(cudaGetSymbolAddress(&p, g_oetf_pairs));
  t.oetf = static_cast<const core::LerpPair*>(p);
  return {};
}
}  // namespace

Status device_oetf_table(const core::LerpPair*& table) {
  DeviceTables t;
  if (Status st = device_tables(t); !st.ok()) return st;
  table = t.oetf;
  return {};
}

// Blocks of decode420_stats_kernel<Nv> resident at once on the current device (once per device).
template <bool Nv>
Status stats_decode_grid_cap(int& cap) {
  struct Tag;
  return once_per_device<Tag>(cap, [](int device, int& blocks) -> Status {
    int sms = 0, per_sm = 0;
    TK_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    TK_CUDA_CHECK(
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, decode420_stats_kernel<Nv>, kDecode420Threads, 0));
    blocks = std::max(1, sms * std::max(1, per_sm));
    return {};
  });
}

Status launch_video_decode(const VideoPlanes& planes, InputFormat format, const InputColour& colour, int width,
                           int height, float* out_rgb, unsigned* bad_counts, cudaStream_t s, VideoDecodeKernel kernel,
                           DeviceFrame* stats_frame) {
  core::VideoLinearise lin = core::make_video_linearise(colour, format);
  DeviceTables tables;
  if (Status st = device_tables(tables); !st.ok()) return st;
  lin.pq_table = nullptr;  // the device reads the pairs
  lin.pq_pairs = tables.pq;
  const auto k = core::ycbcr_coeffs<float>(colour.matrix == YuvMatrix::bt2020_ncl);
  const bool full = colour.range == YuvRange::full;
  const bool yuv420 = format == InputFormat::p010 || format == InputFormat::yuv420p10;
  if (stats_frame && (!yuv420 || kernel != VideoDecodeKernel::best))
    return invalid_argument("video decode: the statistics are gathered by the 4:2:0 block decode only");
  if (yuv420 && kernel == VideoDecodeKernel::best) {
    const Decode420Args a{planes, lin, full, k, width, height, out_rgb};
    const int cw = (width + 1) / 2, ch = (height + 1) / 2;
    const unsigned tiles_x = static_cast<unsigned>((cw + kDecode420Threads - 1) / kDecode420Threads);
    const bool nv = format == InputFormat::p010;
    if (stats_frame) {
      const unsigned tiles = tiles_x * static_cast<unsigned>(ch);
      int cap = 0;
      if (Status st = nv ? stats_decode_grid_cap<true>(cap) : stats_decode_grid_cap<false>(cap); !st.ok()) return st;
      const unsigned grid = std::min(tiles, static_cast<unsigned>(cap));
      if (nv)
        decode420_stats_kernel<true><<<grid, kDecode420Threads, 0, s>>>(a, tiles_x, tiles, stats_frame);
      else
        decode420_stats_kernel<false><<<grid, kDecode420Threads, 0, s>>>(a, tiles_x, tiles, stats_frame);
      TK_CUDA_CHECK_LAUNCH("video decode420_stats_kernel");
      return {};
    }
    const dim3 grid(tiles_x, ch);
    if (nv)
      decode420_kernel<true><<<grid, kDecode420Threads, 0, s>>>(a);
    else
      decode420_kernel<false><<<grid, kDecode420Threads, 0, s>>>(a);
    TK_CUDA_CHECK_LAUNCH("video decode420_kernel");
    return {};
  }
  const dim3 block(256), grid((width + 255) / 256, height);
  decode_kernel<<<grid, block, 0, s>>>(planes, format, lin, full, k, width, height, out_rgb,
                                       bad_counts);
  TK_CUDA_CHECK_LAUNCH("video decode_kernel");
  return {};
}

Status launch_video_encode(const float* display_rgb, int width, int height, OutputLayout layout, float gamma, bool dither,
                           std::uint8_t* out, cudaStream_t s) {
  const int cw = (width + 1) / 2, ch = (height + 1) / 2;
  DeviceTables tables;
  if (Status st = device_tables(tables); !st.ok()) return st;
  const dim3 block(128), grid((cw + 127) / 128, ch);
  encode_kernel<<<grid, block, 0, s>>>(display_rgb, width, height, layout, gamma, dither, tables.oetf, out);
  TK_CUDA_CHECK_LAUNCH("video encode_kernel");
  return {};
}

}  // namespace tonekit::cuda
