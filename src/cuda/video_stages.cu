// Video layouts on the device (issue 14 item 2), the ToneMapper's first and last stages:
//   decode: rgb48, gbrpf32, P010, yuv420p10, and float RGB(A) in PQ / HLG / BT.2020 -> the
//           scene-linear BT.709 float RGB frame the operator passes read (rgb_f32);
//   encode: the passes' linear display float RGB -> 8-bit yuv420p or NV12 (BT.709, limited).
// The per-pixel maths is core/video_colour.hpp's, the functions the CPU reference
// (cpu/video_decode.cpp, cpu/video_encode.cpp) calls, in the same order: chroma blended vertically
// then horizontally (exact in float: integer codes, weights 0 or 1/2), block means in a fixed order.
// Both are one extra pass over memory (decode writes 12 bytes a pixel, encode reads 12): the
// stages are kept apart from the tuned statistics and map kernels for now; bench/NOTES.md has
// their cost and the fused plan.
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <mutex>
#include <vector>

#include "core/colour.hpp"
#include "core/video_colour.hpp"
#include "cuda/check.hpp"
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

// One thread per 4:2:0 block: its (up to) four Y' codes and one Cb, Cr pair.
__global__ void encode_kernel(const float* display, int width, int height, OutputLayout layout, float gamma, bool dither,
                              const float* __restrict__ oetf_table, std::uint8_t* out) {
  const int cw = (width + 1) / 2, ch = (height + 1) / 2;
  const int bx = blockIdx.x * blockDim.x + threadIdx.x, by = blockIdx.y;
  if (bx >= cw || by >= ch) return;
  const int cols = 2 * bx + 1 < width ? 2 : 1, rows = 2 * by + 1 < height ? 2 : 1;
  float cb[2][2] = {}, cr[2][2] = {};
  for (int r = 0; r < rows; ++r) {
    const int y = 2 * by + r;
    for (int c = 0; c < cols; ++c) {
      const int x = 2 * bx + c;
      const float* px = display + 3 * (static_cast<std::size_t>(y) * width + x);
      float luma;
      core::display_pixel_ycbcr(px[0], px[1], px[2], gamma, oetf_table, luma, cb[r][c], cr[r][c]);
      out[static_cast<std::size_t>(y) * width + x] = static_cast<std::uint8_t>(core::luma_code8(luma, dither, x, y));
    }
  }
  const int r1 = rows - 1, c1 = cols - 1;
  const float cb_mean = core::block_mean(cb[0][0], cb[0][c1], cb[r1][0], cb[r1][c1], cols, rows);
  const float cr_mean = core::block_mean(cr[0][0], cr[0][c1], cr[r1][0], cr[r1][c1], cols, rows);
  unsigned cb_code, cr_code;
  core::chroma_codes8(cb_mean, cr_mean, dither, bx, by, cb_code, cr_code);
  std::uint8_t* chroma = out + static_cast<std::size_t>(width) * height;
  const std::size_t i = static_cast<std::size_t>(by) * cw + bx;
  if (layout == OutputLayout::yuv420p) {
    chroma[i] = static_cast<std::uint8_t>(cb_code);
    chroma[static_cast<std::size_t>(cw) * ch + i] = static_cast<std::uint8_t>(cr_code);
  } else {
    chroma[2 * i] = static_cast<std::uint8_t>(cb_code);
    chroma[2 * i + 1] = static_cast<std::uint8_t>(cr_code);
  }
}

}  // namespace

namespace {
// The transfer tables (core::pq_eotf_table, core::bt709_oetf_table) on each device: the host's
// floats, copied once per device.
__device__ float g_pq_table[core::kPqTableIntervals + 1];
__device__ float g_oetf_table[core::kOetfTableIntervals + 1];

struct DeviceTables {
  const float* pq = nullptr;
  const float* oetf = nullptr;
};

Status device_tables(DeviceTables& t) {
  static std::mutex mutex;
  static std::vector<bool> ready;
  int device = 0;
  TK_CUDA_CHECK(cudaGetDevice(&device));
  std::lock_guard<std::mutex> lock(mutex);
  if (ready.size() <= static_cast<std::size_t>(device)) ready.resize(device + 1, false);
  if (!ready[device]) {
    TK_CUDA_CHECK(cudaMemcpyToSymbol(g_pq_table, core::pq_eotf_table_host(), sizeof g_pq_table));
    TK_CUDA_CHECK(cudaMemcpyToSymbol(g_oetf_table, core::bt709_oetf_table_host(), sizeof g_oetf_table));
    ready[device] = true;
  }
  void* p = nullptr;
  TK_CUDA_CHECK(cudaGetSymbolAddress(&p, g_pq_table));
  t.pq = static_cast<const float*>(p);
  TK_CUDA_CHECK(cudaGetSymbolAddress(&p, g_oetf_table));
  t.oetf = static_cast<const float*>(p);
  return {};
}
}  // namespace

Status device_oetf_table(const float*& table) {
  DeviceTables t;
  if (Status st = device_tables(t); !st.ok()) return st;
  table = t.oetf;
  return {};
}

Status launch_video_decode(const VideoPlanes& planes, InputFormat format, const InputColour& colour, int width,
                           int height, float* out_rgb, unsigned* bad_counts, cudaStream_t s) {
  core::VideoLinearise lin = core::make_video_linearise(colour, format);
  DeviceTables tables;
  if (Status st = device_tables(tables); !st.ok()) return st;
  lin.pq_table = tables.pq;
  const auto k = core::ycbcr_coeffs<float>(colour.matrix == YuvMatrix::bt2020_ncl);
  const dim3 block(256), grid((width + 255) / 256, height);
  decode_kernel<<<grid, block, 0, s>>>(planes, format, lin, colour.range == YuvRange::full, k, width, height, out_rgb,
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
