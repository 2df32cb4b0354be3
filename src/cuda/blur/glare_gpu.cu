// GlareEngine (cuda/blur/glare_engine.hpp): apply_glare (src/cpu/blur/glare.cpp) on the device.
// One frame is a fixed sequence of launches on one stream, with no host synchronisation:
//   1. row_log_sum_kernel: each own row's double sum of log(1e-6 + L), in a fixed order;
//      (a frame part: the rows gathered from the other parts, StatsExchange::gather_rows);
//      a surface source (GlareSource::surface: a GL texture or Vulkan image) is read here only,
//      its texels stored into the output buffer, which the later steps read as the source;
//   2. key_kernel (one block): the rows in a fixed order -> log-average and threshold, which
//      stay in device memory for the next launch (the host never sees them unless it asks).
//      Per-row sums make the key independent of how the frame is split between GPUs.
//   3. shared pyramid (blur/glare_pyramid.hpp; pyramid methods): bright_down_kernel (the bright
//      pass straight into level 1), down_rows_kernel per level, each octave's coarse Gaussian,
//      the synthesis up_rows_kernel with the octaves' weighted terms, and add_glare_kernel
//      (frame + up(G_1), written once). A frame part runs the analysis below the exchange level
//      on its own rows, gathers that level and the synthesis below it on its buffer's rows.
//   4. otherwise (other methods, tiny radii; whole frames only), octave by octave: bright_kernel,
//      BlurEngine k (the octave's BlurPlan), accumulate_kernel, in the CPU's order.
// The per-pixel maths (pixel_luminance, glare_log_term, glare_bright_factor, glare_accumulate)
// is blur/blur_math.hpp's, shared with the CPU. Deterministic: fixed grids, fixed-order sums.
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cpu/blur/blur_math.hpp"
#include "cpu/blur/glare_pyramid.hpp"
#include "cpu/blur/methods.hpp"
#include "cuda/blur/blur_kernels.hpp"
#include "cuda/blur/block_sum.cuh"
#include "cuda/blur/pixel.cuh"
#include "cuda/check.hpp"
#include "cuda/device_allocations.hpp"
#include "cuda/pdl.cuh"
#include "tonekit/blur_cuda.hpp"
#include "tonekit/tone_mapper.hpp"
#include "api/cuda_entry.hpp"
#include "cuda/blur/glare_engine.hpp"

namespace tonekit {
namespace {

constexpr int kThreads = 256;            // every glare kernel; the tree reductions assume it

// The frame the glare reads (GlareSource): float with `channels` interleaved, or half RGBA;
// rows `stride` bytes apart; or, `surface` non-zero, a CUDA array of half or float RGBA (a mapped
// GL texture or an imported Vulkan image), which only row_log_sum_kernel reads (p unused).
struct Source {
  const unsigned char* p;
  std::size_t stride;
  int channels;
  unsigned long long surface = 0;
};

// A half RGBA texel's four channels as floats.
__device__ __forceinline__ void widen_half4(uint2 q, float (&v)[4]) {
  v[0] = __half2float(__ushort_as_half(static_cast<unsigned short>(q.x & 0xFFFFu)));
  v[1] = __half2float(__ushort_as_half(static_cast<unsigned short>(q.x >> 16)));
  v[2] = __half2float(__ushort_as_half(static_cast<unsigned short>(q.y & 0xFFFFu)));
  v[3] = __half2float(__ushort_as_half(static_cast<unsigned short>(q.y >> 16)));
}

// A pixel's first four channels as floats (those past `channels` are 0).
template <bool Half>
__device__ __forceinline__ void load_px(const Source& s, int x, int y, float (&v)[4]) {
  const unsigned char* row = s.p + static_cast<std::size_t>(y) * s.stride;
  if constexpr (Half) {
    widen_half4(__ldg(reinterpret_cast<const uint2*>(row) + x), v);
  } else {
    const float* px = reinterpret_cast<const float*>(row) + static_cast<std::size_t>(x) * s.channels;
#pragma unroll
    for (int c = 0; c < 4; ++c) v[c] = c < s.channels ? __ldg(px + c) : 0.0f;
  }
}

// Two floats as a half pair, round to nearest; finite values beyond half's range saturate at
// +-65504 (a lamp plus its glare must not turn into +Inf, which the statistics count as bad
// input); NaN and +-Inf stay what they were.
__device__ __forceinline__ unsigned half_bits(float v) {
  if (isfinite(v)) v = fminf(fmaxf(v, -65504.0f), 65504.0f);
  return __half_as_ushort(__float2half_rn(v));
}
__device__ __forceinline__ unsigned pack_half2(float lo, float hi) { return half_bits(lo) | (half_bits(hi) << 16); }

// row_sums[i] = the sum over buffer row first_row + i of log(1e-6 + L), threads strided over
// the row, then a fixed tree: the same bits whichever GPU sums the row. A surface
// source (src.surface; RGBA, whole frames) is read here only: each texel is also stored, bit for
// bit, into `copy` (the packed frame the later kernels read, the glare's output buffer), so the
// array is read once, by the pass that reads the whole frame anyway (read through the surface by
// the bright pass and the final add too, it cost the glare 0.035 ms more than linear memory at
// 4K on an H100: texture-path reads of 8-byte texels; docs/performance.md). The surface's
// pixels are summed in the order the packed copy's own would be, so the key has the same bits.
template <bool Half>
__global__ void __launch_bounds__(kThreads)
    row_log_sum_kernel(Source src, int width, int first_row, double* __restrict__ row_sums, void* __restrict__ copy) {
  // A programmatic dependent launch (cuda/pdl.cuh): nothing is read or written before the
  // previous grid has completed; the next kernel may be scheduled from here.
  cuda::wait_for_previous_grid();
  cuda::trigger_dependents();
  __shared__ double shared[kThreads];
  const int y = first_row + static_cast<int>(blockIdx.x);
  double sum = 0.0;
  const unsigned char* row = src.p + static_cast<std::size_t>(y) * src.stride;
  const bool surface = src.surface != 0;  // uniform
  // 16-byte aligned rows take pixel pairs; a surface is summed as its packed copy would be.
  const bool pairs = surface ? ((static_cast<std::size_t>(y) * width * 8) & 15u) == 0
                             : (reinterpret_cast<std::uintptr_t>(row) & 15u) == 0;
  if (Half && pairs) {
    // Two half RGBA pixels per 16-byte load (twice the bytes in flight per thread).
    uint2* out = surface ? reinterpret_cast<uint2*>(copy) + static_cast<std::size_t>(y) * width : nullptr;
    for (int x = 2 * threadIdx.x; x < width; x += 2 * kThreads) {
      if (x + 1 < width) {
        uint4 q;
        if (surface) {
          const uint2 l = surf2Dread<uint2>(src.surface, 8 * x, y), r = surf2Dread<uint2>(src.surface, 8 * (x + 1), y);
          q = make_uint4(l.x, l.y, r.x, r.y);
          *reinterpret_cast<uint4*>(out + x) = q;
        } else {
          q = __ldg(reinterpret_cast<const uint4*>(row) + x / 2);
        }
        float a[4], b[4];
        widen_half4(make_uint2(q.x, q.y), a);
        widen_half4(make_uint2(q.z, q.w), b);
        sum += blur_math::glare_log_term(blur_math::pixel_luminance(a, 4));
        sum += blur_math::glare_log_term(blur_math::pixel_luminance(b, 4));
      } else {
        float v[4];
        if (surface) {
          const uint2 q = surf2Dread<uint2>(src.surface, 8 * x, y);
          out[x] = q;
          widen_half4(q, v);
        } else {
          load_px<true>(src, x, y, v);
        }
        sum += blur_math::glare_log_term(blur_math::pixel_luminance(v, 4));
      }
    }
  } else {
    for (int x = threadIdx.x; x < width; x += kThreads) {
      float v[4];
      if (surface) {
        if constexpr (Half) {
          const uint2 q = surf2Dread<uint2>(src.surface, 8 * x, y);
          reinterpret_cast<uint2*>(copy)[static_cast<std::size_t>(y) * width + x] = q;
          widen_half4(q, v);
        } else {
          const float4 q = surf2Dread<float4>(src.surface, 16 * x, y);
          reinterpret_cast<float4*>(copy)[static_cast<std::size_t>(y) * width + x] = q;
          v[0] = q.x, v[1] = q.y, v[2] = q.z, v[3] = q.w;
        }
      } else {
        load_px<Half>(src, x, y, v);
      }
      sum += blur_math::glare_log_term(blur_math::pixel_luminance(v, src.channels));
    }
  }
  sum = gpu_blur::block_sum<kThreads>(sum, shared);
  if (threadIdx.x == 0) row_sums[blockIdx.x] = sum;
}

// out (packed float, `channels`) = the source's pixels (half widened), for the octave-by-octave
// path, which adds its light in place.
template <bool Half>
__global__ void __launch_bounds__(kThreads)
    copy_source_kernel(Source src, int width, int height, float* __restrict__ out) {
  const int x = blockIdx.x * 32 + threadIdx.x % 32, y = blockIdx.y * 8 + threadIdx.x / 32;
  if (x >= width || y >= height) return;
  float* o = out + (static_cast<std::size_t>(y) * width + x) * src.channels;
  if (Half || src.channels <= 4) {
    float v[4];
    load_px<Half>(src, x, y, v);
    for (int c = 0; c < src.channels; ++c) o[c] = v[c];
  } else {
    const float* px = reinterpret_cast<const float*>(src.p + static_cast<std::size_t>(y) * src.stride) +
                      static_cast<std::size_t>(x) * src.channels;
    for (int c = 0; c < src.channels; ++c) o[c] = px[c];
  }
}

// out (packed half RGBA) = image (packed float RGBA), for the octave-by-octave path with half frames.
__global__ void __launch_bounds__(kThreads) narrow_kernel(const float4* __restrict__ image, std::size_t n, uint2* __restrict__ out) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (i >= n) return;
  const float4 v = image[i];
  out[i] = make_uint2(pack_half2(v.x, v.y), pack_half2(v.z, v.w));
}

// One block: the per-row sums in a fixed order -> log-average = exp(sum / n), threshold =
// float(threshold_factor * log-average).
__global__ void __launch_bounds__(kThreads)
    key_kernel(const double* __restrict__ partials, int count, std::size_t n, double threshold_factor,
               double* __restrict__ log_average, float* __restrict__ threshold) {
  cuda::wait_for_previous_grid();  // programmatic dependent launch (see row_log_sum_kernel)
  cuda::trigger_dependents();
  __shared__ double shared[kThreads];
  double sum = 0.0;
  for (int i = threadIdx.x; i < count; i += kThreads) sum += partials[i];
  sum = gpu_blur::block_sum<kThreads>(sum, shared);
  if (threadIdx.x == 0) {
    const double la = exp(sum / static_cast<double>(n));
    *log_average = la;
    *threshold = static_cast<float>(threshold_factor * la);
  }
}

// bright (bright_channels 4: RGB + alpha 0; 1: grey) from the frame's pixels.
__global__ void __launch_bounds__(kThreads)
    bright_kernel(const float* __restrict__ image, std::size_t n, int channels, const float* __restrict__ threshold,
                  float* __restrict__ bright, int bright_channels) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (i >= n) return;
  const float* px = image + i * channels;
  const float k = blur_math::glare_bright_factor(blur_math::pixel_luminance(px, channels), __ldg(threshold));
  if (bright_channels == 4) {
    reinterpret_cast<float4*>(bright)[i] =
        make_float4(blur_math::glare_bright_sample(k, px[0]), blur_math::glare_bright_sample(k, px[1]),
                    blur_math::glare_bright_sample(k, px[2]), 0.0f);
  } else {
    bright[i] = blur_math::glare_bright_sample(k, px[0]);
  }
}

// image's colour channels += weight * blurred (alpha and any further channels untouched).
__global__ void __launch_bounds__(kThreads)
    accumulate_kernel(float* __restrict__ image, std::size_t n, int channels, const float* __restrict__ blurred,
                      int blurred_channels, float weight) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (i >= n) return;
  const int colour = blur_math::glare_colour_channels(channels);
  float* px = image + i * channels;
  const float* b = blurred + i * blurred_channels;
  for (int ch = 0; ch < colour; ++ch) px[ch] = blur_math::glare_accumulate(px[ch], weight, b[ch]);
}

// ---- The shared pyramid (blur/glare_pyramid.hpp) ----
using gpu_blur::clampi;
using gpu_blur::Pix;

// The bright pass of one frame pixel as CB floats (4: RGB + alpha 0; 1: grey).
template <int CB>
__device__ __forceinline__ Pix<CB, float> bright_pix(const float* px, int channels, float threshold) {
  const float k = blur_math::glare_bright_factor(blur_math::pixel_luminance(px, channels), threshold);
  Pix<CB, float> r;
  r.v[0] = blur_math::glare_bright_sample(k, px[0]);
  if constexpr (CB == 4) {
    r.v[1] = blur_math::glare_bright_sample(k, px[1]);
    r.v[2] = blur_math::glare_bright_sample(k, px[2]);
    r.v[3] = 0.0f;
  }
  return r;
}

// Level 1 of the padded bright plane, straight from the frame: coarse (i, j) = sum_a sum_b
// w[a] w[b] bright(2i - 1 + b - pad, 2j - 1 + a - pad), each coordinate clamped to the padded
// plane and then to the frame (the replicated margin), vertical sums first as the CPU's
// pyramid_down. The bright plane is never stored.
// Shared-memory planes of CB floats per pixel (float4 for RGBA: one 16-byte access).
template <int CB>
struct SmemPix {
  using T = float;
};
template <>
struct SmemPix<4> {
  using T = float4;
};
template <int CB>
__device__ __forceinline__ void put_smem(typename SmemPix<CB>::T& d, const Pix<CB, float>& p) {
  if constexpr (CB == 4) d = make_float4(p.v[0], p.v[1], p.v[2], p.v[3]);
  else d = p.v[0];
}
template <int CB>
__device__ __forceinline__ Pix<CB, float> get_smem(const typename SmemPix<CB>::T& d) {
  Pix<CB, float> p;
  if constexpr (CB == 4) {
    p.v[0] = d.x, p.v[1] = d.y, p.v[2] = d.z, p.v[3] = d.w;
  } else {
    p.v[0] = d;
  }
  return p;
}

// The tile of pixels a block covers: 32 x 8 (256 threads, one output each).
constexpr int kTileW = 32, kTileH = 8;

// The vertical analysis sum of the bright pass at padded column `col` over the padded rows of
// `ys` (buffer rows): w0 b(row0) + w1 b(row1) + w2 b(row2) + w3 b(row3), as pyramid_down's
// vertical pass rounds it.
struct Rows4 {
  int r0, r1, r2, r3;
};
template <int CB, bool Half>
__device__ __forceinline__ Pix<CB, float> bright_at(const Source& src, int x, int y, float t) {
  float v[4];
  load_px<Half>(src, x, y, v);
  return bright_pix<CB>(v, src.channels, t);
}
template <int CB, bool Half>
__device__ __forceinline__ Pix<CB, float> bright_column(const Source& src, Rows4 ys, int col, int w, int pad, int pw,
                                                        float t, const gpu_blur::Analysis4& a) {
  const int x = clampi(clampi(col, 0, pw - 1) - pad, 0, w - 1);
  // Accumulated tap by tap (the order and contraction of w0 p0 + w1 p1 + w2 p2 + w3 p3), so that
  // one tap's bright pass is live at a time: the IEEE division's slow path is a call, and four
  // taps live across it made ptxas spill.
  Pix<CB, float> r = bright_at<CB, Half>(src, x, ys.r0, t);
#pragma unroll
  for (int c = 0; c < CB; ++c) r.v[c] = a.w[0] * r.v[c];
  const int rows[3] = {ys.r1, ys.r2, ys.r3};
#pragma unroll
  for (int k = 0; k < 3; ++k) {
    const Pix<CB, float> p = bright_at<CB, Half>(src, x, rows[k], t);
#pragma unroll
    for (int c = 0; c < CB; ++c) r.v[c] = fmaf(a.w[k + 1], p.v[c], r.v[c]);
  }
  return r;
}

// Level 1 of the padded bright plane, straight from the frame: coarse (i, j) = sum_b w[b]
// (sum_a w[a] bright(2i - 1 + b - pad, 2j - 1 + a - pad)), each coordinate clamped to the padded
// plane and then to the frame (the replicated margin), vertical sums first as the CPU's
// pyramid_down. The bright plane is never stored. Output i reads the column pairs i - 1 and i
// (columns 2i - 1, 2i and 2i + 1, 2i + 2): lane L of a warp takes the vertical sums of pair
// base + L - 1 and, from lane L - 1 by a warp shuffle, of the pair before, so 31 lanes give an
// output each from 8 bright evaluations (not 16) with no divergence and no shared memory (a
// shared tile read at a stride of two float4 was bound by its bank wavefronts; a lane 0 that
// computed its left pair itself made every warp twice as long). Rows [j0, j1) only; the taps'
// rows are capped at the last one those rows read (2 j1), so that a frame part never reads past
// the rows its buffer holds.
constexpr int kDownOutputs = kTileW - 1;  // outputs per warp
template <int CB, bool Half>
__global__ void __launch_bounds__(kThreads)
    bright_down_kernel(Source src, int w, int frame_h, int frame_row0, int pad, int pw, int ph,
                       const float* __restrict__ threshold, float* __restrict__ coarse, int cw, int j0, int j1,
                       gpu_blur::Analysis4 a) {
  cuda::wait_for_previous_grid();  // programmatic dependent launch (see row_log_sum_kernel)
  cuda::trigger_dependents();
  const int lane = threadIdx.x % kTileW;
  const int i = static_cast<int>(blockIdx.x) * kDownOutputs + lane - 1;  // this lane's pair, and output (lanes >= 1)
  const int j = j0 + static_cast<int>(blockIdx.y) * kTileH + threadIdx.x / kTileW;
  const float t = __ldg(threshold);
  const int last = min(ph - 1, 2 * j1);
  auto row = [&](int k) { return clampi(clampi(min(2 * j - 1 + k, last), 0, ph - 1) - pad, 0, frame_h - 1) - frame_row0; };
  const Rows4 ys{row(0), row(1), row(2), row(3)};
  const Pix<CB, float> v2 = bright_column<CB, Half>(src, ys, 2 * i + 1, w, pad, pw, t, a),
                       v3 = bright_column<CB, Half>(src, ys, 2 * i + 2, w, pad, pw, t, a);
  Pix<CB, float> v0, v1;
#pragma unroll
  for (int c = 0; c < CB; ++c) {
    v0.v[c] = __shfl_up_sync(0xFFFFFFFFu, v2.v[c], 1);
    v1.v[c] = __shfl_up_sync(0xFFFFFFFFu, v3.v[c], 1);
  }
  if (lane == 0 || i >= cw || j >= j1) return;
  Pix<CB, float> acc = gpu_blur::pix_zero<CB, float>();
#pragma unroll
  for (int c = 0; c < CB; ++c) {
    acc.v[c] += a.w[0] * v0.v[c];
    acc.v[c] += a.w[1] * v1.v[c];
    acc.v[c] += a.w[2] * v2.v[c];
    acc.v[c] += a.w[3] * v3.v[c];
  }
  gpu_blur::store_pix<CB, float>(coarse + (static_cast<std::size_t>(j) * cw + i) * CB, acc);
}

// One analysis step on coarse rows [j0, j1): pyramid_down_kernel's sums (vertical first), so a
// whole frame and its parts compute each coarse pixel with the same instructions.
template <int CB>
__global__ void __launch_bounds__(kThreads)
    down_rows_kernel(const float* __restrict__ fine, int fw, int fh, float* __restrict__ coarse, int cw, int j0, int j1,
                     gpu_blur::Analysis4 a) {
  cuda::wait_for_previous_grid();  // programmatic dependent launch (see row_log_sum_kernel)
  cuda::trigger_dependents();
  const int i = blockIdx.x * 32 + threadIdx.x % 32, j = j0 + static_cast<int>(blockIdx.y) * 8 + threadIdx.x / 32;
  if (i >= cw || j >= j1) return;
  const float* r[4];
#pragma unroll
  for (int k = 0; k < 4; ++k) r[k] = fine + static_cast<std::size_t>(clampi(2 * j - 1 + k, 0, fh - 1)) * fw * CB;
  Pix<CB, float> acc = gpu_blur::pix_zero<CB, float>();
#pragma unroll
  for (int b = 0; b < 4; ++b) {
    const std::size_t x = static_cast<std::size_t>(clampi(2 * i - 1 + b, 0, fw - 1)) * CB;
    const Pix<CB, float> p0 = gpu_blur::load_pix<CB>(r[0] + x), p1 = gpu_blur::load_pix<CB>(r[1] + x),
                         p2 = gpu_blur::load_pix<CB>(r[2] + x), p3 = gpu_blur::load_pix<CB>(r[3] + x);
#pragma unroll
    for (int c = 0; c < CB; ++c) {
      const float v = a.w[0] * p0.v[c] + a.w[1] * p1.v[c] + a.w[2] * p2.v[c] + a.w[3] * p3.v[c];
      acc.v[c] += a.w[b] * v;
    }
  }
  gpu_blur::store_pix<CB, float>(coarse + (static_cast<std::size_t>(j) * cw + i) * CB, acc);
}

// The B-spline synthesis at fine pixel (x, y) from the coarse plane (cw x chh): pyramid_up_kernel's
// weights, vertical first. One function for every caller, so that each computes a synthesis value
// with the same instructions.
template <int CB>
__device__ __forceinline__ Pix<CB, float> up_value(const float* __restrict__ coarse, int cw, int chh, int x, int y) {
  constexpr float kNear = 0.75f, kFar = 0.25f;
  const int i = y >> 1, j = clampi((y & 1) ? i + 1 : i - 1, 0, chh - 1);
  const int ci = x >> 1, cj = clampi((x & 1) ? ci + 1 : ci - 1, 0, cw - 1);
  const float* ra = coarse + static_cast<std::size_t>(i) * cw * CB;
  const float* rb = coarse + static_cast<std::size_t>(j) * cw * CB;
  const Pix<CB, float> ai = gpu_blur::load_pix<CB>(ra + ci * CB), bi = gpu_blur::load_pix<CB>(rb + ci * CB),
                       aj = gpu_blur::load_pix<CB>(ra + cj * CB), bj = gpu_blur::load_pix<CB>(rb + cj * CB);
  Pix<CB, float> o;
#pragma unroll
  for (int c = 0; c < CB; ++c) {
    const float vi = kNear * ai.v[c] + kFar * bi.v[c], vj = kNear * aj.v[c] + kFar * bj.v[c];
    o.v[c] = kNear * vi + kFar * vj;
  }
  return o;
}

// One synthesis step on fine rows [j0, j1) (pyramid_up_kernel's weights, vertical first), plus
// weight * term where an octave's Gaussian sits on the fine level (term null: none), rounded as
// glare_accumulate: G_l = up(G_{l+1}) + w_k B_k.
template <int CB>
__global__ void __launch_bounds__(kThreads)
    up_rows_kernel(const float* __restrict__ coarse, int cw, int chh, float* __restrict__ fine, int fw, int j0, int j1,
                   const float* __restrict__ term, float weight) {
  cuda::wait_for_previous_grid();  // programmatic dependent launch (see row_log_sum_kernel)
  cuda::trigger_dependents();
  const int x = blockIdx.x * 32 + threadIdx.x % 32, y = j0 + static_cast<int>(blockIdx.y) * 8 + threadIdx.x / 32;
  if (x >= fw || y >= j1) return;
  const std::size_t at = (static_cast<std::size_t>(y) * fw + x) * CB;
  Pix<CB, float> o = up_value<CB>(coarse, cw, chh, x, y);
  if (term) {
    const Pix<CB, float> t = gpu_blur::load_pix<CB>(term + at);
#pragma unroll
    for (int c = 0; c < CB; ++c) o.v[c] = blur_math::glare_accumulate(o.v[c], weight, t.v[c]);
  }
  gpu_blur::store_pix<CB, float>(fine + at, o);
}

// sum = (first ? 0 : sum) + weight * blurred, rounded as glare_accumulate.
__global__ void __launch_bounds__(kThreads)
    weighted_add_kernel(float* __restrict__ sum, const float* __restrict__ blurred, std::size_t n, float weight,
                        int first) {
  cuda::wait_for_previous_grid();  // programmatic dependent launch (see row_log_sum_kernel)
  cuda::trigger_dependents();
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (i >= n) return;
  sum[i] = blur_math::glare_accumulate(first ? 0.0f : sum[i], weight, blurred[i]);
}

// out = the source + up(G_1) at (x + pad, frame_row0 + y + pad) on the colour channels (the B-spline synthesis
// of pyramid_up_kernel evaluated at the frame's own pixels only); other channels copied. out may
// be the source itself (packed float).
constexpr int kG1W = kTileW / 2 + 3, kG1H = kTileH / 2 + 3;  // the G_1 pixels a 32 x 8 block of pixels reads

template <int CB, bool Half, bool kFromLevel2>
__global__ void __launch_bounds__(kThreads)
    add_glare_kernel(Source src, void* out, int w, int h, const float* __restrict__ g, int cw1, int ch1, int cw2, int ch2,
                     int pad, int frame_row0) {
  cuda::wait_for_previous_grid();  // programmatic dependent launch (see row_log_sum_kernel)
  cuda::trigger_dependents();
  constexpr float kNear = 0.75f, kFar = 0.25f;
  const int x = blockIdx.x * kTileW + threadIdx.x % kTileW, y = blockIdx.y * kTileH + threadIdx.x / kTileW;
  const int yy = frame_row0 + y + pad, xx = x + pad;
  float glare[CB];
  if constexpr (kFromLevel2) {
    // G_1 = up(G_2) (no octave on level 1): the block's 19 x 7 values of G_1 (rows and columns
    // from one before its first pixel's to one after its last's) into shared memory, each from
    // four of G_2 by the same up_value as the synthesis kernel; G_1 is never stored.
    __shared__ typename SmemPix<CB>::T g1[kG1H][kG1W];
    const int r0 = ((frame_row0 + static_cast<int>(blockIdx.y) * kTileH + pad) >> 1) - 1;
    const int c0 = ((static_cast<int>(blockIdx.x) * kTileW + pad) >> 1) - 1;
    for (int e = threadIdx.x; e < kG1W * kG1H; e += kThreads) {
      const int r = e / kG1W, c = e - r * kG1W;
      put_smem<CB>(g1[r][c], up_value<CB>(g, cw2, ch2, clampi(c0 + c, 0, cw1 - 1), clampi(r0 + r, 0, ch1 - 1)));
    }
    __syncthreads();
    if (x >= w || y >= h) return;
    const int i = yy >> 1, j = clampi((yy & 1) ? i + 1 : i - 1, 0, ch1 - 1);
    const int ci = xx >> 1, cj = clampi((xx & 1) ? ci + 1 : ci - 1, 0, cw1 - 1);
    const Pix<CB, float> ai = get_smem<CB>(g1[i - r0][ci - c0]), bi = get_smem<CB>(g1[j - r0][ci - c0]),
                         aj = get_smem<CB>(g1[i - r0][cj - c0]), bj = get_smem<CB>(g1[j - r0][cj - c0]);
#pragma unroll
    for (int c = 0; c < CB; ++c) {
      const float vi = kNear * ai.v[c] + kFar * bi.v[c], vj = kNear * aj.v[c] + kFar * bj.v[c];
      glare[c] = kNear * vi + kFar * vj;
    }
  } else {
    if (x >= w || y >= h) return;
    const Pix<CB, float> o = up_value<CB>(g, cw1, ch1, xx, yy);
#pragma unroll
    for (int c = 0; c < CB; ++c) glare[c] = o.v[c];
  }
  constexpr int colour = CB == 4 ? 3 : 1;
  const int channels = src.channels;
  if constexpr (Half) {  // half RGBA in, half RGBA out (finite sums saturate at half's largest)
    float v[4];
    load_px<true>(src, x, y, v);
#pragma unroll
    for (int c = 0; c < 3; ++c) v[c] = __fadd_rn(v[c], glare[CB == 4 ? c : 0]);
    reinterpret_cast<uint2*>(out)[static_cast<std::size_t>(y) * w + x] =
        make_uint2(pack_half2(v[0], v[1]), pack_half2(v[2], v[3]));
    return;
  }
  float* o = reinterpret_cast<float*>(out) + (static_cast<std::size_t>(y) * w + x) * channels;
  if (channels <= 4) {
    float v[4];
    load_px<Half>(src, x, y, v);
    if constexpr (CB == 4) {  // channels 3 or 4
      if (channels == 4) {
        *reinterpret_cast<float4*>(o) =
            make_float4(__fadd_rn(v[0], glare[0]), __fadd_rn(v[1], glare[1]), __fadd_rn(v[2], glare[2]), v[3]);
        return;
      }
    }
#pragma unroll
    for (int c = 0; c < 4; ++c)
      if (c < channels) o[c] = c < colour ? __fadd_rn(v[c], glare[c < CB ? c : 0]) : v[c];
  } else {
    const float* px = reinterpret_cast<const float*>(src.p + static_cast<std::size_t>(y) * src.stride) +
                      static_cast<std::size_t>(x) * channels;
    for (int c = 0; c < channels; ++c) o[c] = c < colour ? __fadd_rn(px[c], glare[c < CB ? c : 0]) : px[c];
  }
}

dim3 grid_32x8(int w, int h) { return dim3((w + 31) / 32, (h + 7) / 8); }

unsigned blocks_for(std::size_t n) { return static_cast<unsigned>((n + kThreads - 1) / kThreads); }

// create()'s frame: at least one pixel (apply_glare lets an empty image through as a no-op;
// cuda_entry::apply_glare_host does too, before it gets here), at most kMaxImagePixels.
Status check_frame(int width, int height, int channels) {
  if (width <= 0 || height <= 0 || static_cast<std::int64_t>(width) * height > kMaxImagePixels)
    return invalid_argument("glare: image size " + std::to_string(width) + "x" + std::to_string(height) +
                            " out of range");
  if (channels <= 0) return invalid_argument("glare: image has no pixels or an inconsistent size");
  return {};
}

}  // namespace

struct GlareEngine::Impl {
  GlareEngineConfig cfg;
  std::size_t n = 0;        // the buffer's pixels
  int frame_h = 0;          // the whole frame's rows (a part: FramePart::frame_height)
  int own0 = 0, own1 = 0;   // the frame rows this buffer owns (statistics, the gathers)
  bool part = false;        // rows gathered from other parts through cfg.exchange
  int bright_channels = 0;  // 4 (RGBA, alpha 0) for colour frames, 1 for grey
  std::vector<GlareOctave> octaves;
  // Octave by octave: their blur engines share one workspace for their padded planes and pyramid
  // levels (declared first, so it outlives them).
  BlurWorkspace workspace;
  std::vector<std::unique_ptr<BlurEngine>> blurs;  // one per octave
  cuda::DeviceAllocations memory;
  float* bright = nullptr;
  float* blurred = nullptr;
  float* widened = nullptr;  // half frames, octave by octave: the frame in float
  double* row_sums = nullptr;  // frame_h per-row log-sums
  double* log_average = nullptr;
  float* threshold = nullptr;
  // The shared pyramid (blur/glare_pyramid.hpp), when the octaves allow it: per level the
  // analysis plane and the synthesis sum G_l (whole levels, also for a part, which computes only
  // the rows it needs below the exchange level); per octave its coarse Gaussian's taps and output
  // (null when it has none: the level itself).
  bool shared = false;
  blur_impl::GlarePyramid pyramid;
  int exchange_level = 0;  // levels below it run on row ranges (all rows for a whole frame)
  bool fuse_level1 = false;  // the final kernel computes G_1 from G_2
  std::vector<std::pair<int, int>> down_rows, up_rows;  // per level l (index l - 1): rows computed
  gpu_blur::Analysis4 analysis{};
  std::vector<float*> level, sum, octave_out;
  std::vector<double*> octave_taps;
  std::vector<int> octave_radius;
  float* coarse_tmp = nullptr;

  std::size_t level_floats(int l) const {
    return static_cast<std::size_t>(pyramid.lw[l]) * pyramid.lh[l] * bright_channels;
  }

  // Rows each level computes. Whole frame: all. A part: the analysis rows its own rows of the
  // exchange level need (each coarse row j reads fine rows 2j - 1 .. 2j + 2), and the synthesis
  // rows its buffer's rows need (fine row y reads coarse rows y/2 - 1 .. y/2 + 1).
  Status plan_rows() {
    const blur_impl::GlarePyramid& g = pyramid;
    const int nl = g.levels();
    down_rows.assign(nl, {0, 0});
    up_rows.assign(nl, {0, 0});
    for (int l = 0; l < nl; ++l) down_rows[l] = up_rows[l] = {0, g.lh[l]};
    exchange_level = part ? blur_impl::glare_exchange_level(g) : nl;
    if (!part) return {};
    const int m = exchange_level;
    down_rows[m - 1] = owned_array_rows(own0, own1, frame_h, m, g.pad, g.lh[m - 1]);
    std::pair<int, int> need = down_rows[m - 1];
    for (int l = m - 1; l >= 0; --l) {  // level l's rows that level l + 1's rows read (l 0: padded frame rows)
      const int rows = l == 0 ? g.height : g.lh[l - 1];
      if (need.second > need.first) need = {std::max(0, 2 * need.first - 1), std::min(rows, 2 * need.second + 1)};
      if (l > 0) down_rows[l - 1] = need;
    }
    // The padded rows the first step reads, as frame rows (clamped at the frame's edges as the
    // replicated margin is): the buffer must hold them.
    if (need.second > need.first) {
      const int f0 = std::clamp(need.first - g.pad, 0, frame_h - 1), f1 = std::clamp(need.second - 1 - g.pad, 0, frame_h - 1);
      const int b0 = cfg.frame_row0, b1 = cfg.frame_row0 + cfg.height - 1;
      if (f0 < b0 || f1 > b1)
        return invalid_argument("glare: this frame part reads frame rows " + std::to_string(f0) + ".." + std::to_string(f1) +
                                " but its buffer holds rows " + std::to_string(b0) + ".." + std::to_string(b1) +
                                " (context rows: glare_context_rows, tonekit/multi_gpu.hpp)");
    }
    std::pair<int, int> fine = {cfg.frame_row0 + g.pad, cfg.frame_row0 + cfg.height + g.pad};  // padded rows written
    for (int l = 0; l < m - 1; ++l) {
      up_rows[l] = {std::max(0, (fine.first >> 1) - 1), std::min(g.lh[l], ((fine.second - 1) >> 1) + 2)};
      fine = up_rows[l];
    }
    return {};
  }

  Status create_shared() {
    for (int t = 0; t < 4; ++t) analysis.w[t] = static_cast<float>(blur_math::analysis_weight(pyramid.analysis, t));
    // The last synthesis step goes into the final kernel when no octave sits on level 1 (4K
    // frames at the default radius: octaves from level 4): G_1 is neither written nor read.
    fuse_level1 = pyramid.levels() >= 2;
    for (const auto& o : pyramid.octaves) fuse_level1 = fuse_level1 && o.level >= 2;
    if (Status s = plan_rows(); !s.ok()) return s;
    const int nl = pyramid.levels();
    level.assign(nl, nullptr);
    sum.assign(nl, nullptr);
    for (int l = 0; l < nl; ++l) {
      if (Status s = memory.alloc(&level[l], level_floats(l)); !s.ok()) return s;
      if (l > 0 || !fuse_level1)
        if (Status s = memory.alloc(&sum[l], level_floats(l)); !s.ok()) return s;
    }
    std::size_t tmp_floats = 0;
    for (const auto& o : pyramid.octaves) {
      octave_out.push_back(nullptr);
      octave_taps.push_back(nullptr);
      octave_radius.push_back(0);
      if (o.coarse_sigma <= 0.0) continue;  // small_or_gaussian's copy: read the level itself
      // small_or_gaussian's kernel: 3 taps below kSmallSigma, else the 3-sigma Gaussian.
      std::vector<double> k;
      if (o.coarse_sigma < blur_math::kSmallSigma) {
        const double sw = blur_math::small_blur_side_weight(o.coarse_sigma);
        k = {sw, 1.0 - 2.0 * sw, sw};
      } else {
        k = blur_impl::gaussian_kernel_1d(o.coarse_sigma, blur_math::kernel_radius(o.coarse_sigma, 3.0));
      }
      const int r = static_cast<int>(k.size()) / 2;
      if (!gpu_blur::separable_fits(r, bright_channels))
        return invalid_argument("glare: coarse blur radius " + std::to_string(r) + " too large for the separable kernels");
      std::vector<double> taps(gpu_blur::separable_taps(r), 0.0);
      std::copy(k.begin(), k.end(), taps.begin());
      if (Status s = memory.alloc(&octave_taps.back(), taps.size()); !s.ok()) return s;
      TK_CUDA_CHECK(cudaMemcpy(octave_taps.back(), taps.data(), taps.size() * sizeof(double), cudaMemcpyHostToDevice));
      octave_radius.back() = r;
      const std::size_t floats = level_floats(o.level - 1);
      if (Status s = memory.alloc(&octave_out.back(), floats); !s.ok()) return s;
      tmp_floats = std::max(tmp_floats, floats);
    }
    if (tmp_floats > 0)
      if (Status s = memory.alloc(&coarse_tmp, tmp_floats); !s.ok()) return s;
    return {};
  }

  dim3 rows_grid(int w, std::pair<int, int> rows) const {
    return dim3(static_cast<unsigned>((w + 31) / 32), static_cast<unsigned>((rows.second - rows.first + 7) / 8));
  }

  template <bool Half>
  Status run_shared(const Source& src, void* out, cudaStream_t s) {
    const int w = cfg.width, nl = pyramid.levels(), m = exchange_level, C = bright_channels;
    const blur_impl::GlarePyramid& g = pyramid;
    const std::size_t px_bytes = static_cast<std::size_t>(C) * sizeof(float);
    // Analysis: level 1 from the frame, then each level on its rows (below the exchange level)
    // or whole (above it, once the exchange level is complete).
    for (int l = 0; l < nl; ++l) {
      const std::pair<int, int> rows = l < m ? down_rows[l] : std::pair<int, int>{0, g.lh[l]};
      if (rows.second > rows.first) {
        dim3 grid = rows_grid(g.lw[l], rows);
        if (l == 0) {
          grid.x = static_cast<unsigned>((g.lw[0] + kDownOutputs - 1) / kDownOutputs);
          if (Status st = cuda::launch_pdl(C == 4 ? bright_down_kernel<4, Half> : bright_down_kernel<1, Half>, grid, dim3(kThreads),
                                           0, s, true, src, w, frame_h, cfg.frame_row0, g.pad, g.width, g.height,
                                           static_cast<const float*>(threshold), level[0], g.lw[0], rows.first, rows.second,
                                           analysis);
              !st.ok())
            return st;
        } else {
          if (Status st = cuda::launch_pdl(C == 4 ? down_rows_kernel<4> : down_rows_kernel<1>, grid, dim3(kThreads), 0, s, true,
                                           static_cast<const float*>(level[l - 1]), g.lw[l - 1], g.lh[l - 1], level[l], g.lw[l],
                                           rows.first, rows.second, analysis);
              !st.ok())
            return st;
        }
      }
      if (part && l == m - 1)
        if (Status st = cfg.exchange->gather_rows(level[l], static_cast<std::size_t>(g.lw[l]) * px_bytes, g.lh[l], m, g.pad, s);
            !st.ok())
          return st;
    }
    // Each octave's coarse Gaussian on its (whole) level.
    std::vector<const float*> blurred(g.octaves.size());
    for (std::size_t k = 0; k < g.octaves.size(); ++k) {
      const int l = g.octaves[k].level - 1;
      if (!octave_out[k]) {
        blurred[k] = level[l];
        continue;
      }
      if (Status st = gpu_blur::separable(level[l], coarse_tmp, octave_out[k], g.lw[l], g.lh[l], C, octave_taps[k],
                                          octave_radius[k], false, s);
          !st.ok())
        return st;
      blurred[k] = octave_out[k];
    }
    // Synthesis: G_n = sum of the octaves on the top level, then G_l = up(G_{l+1}) + their terms.
    for (int l = nl - 1; l >= (fuse_level1 ? 1 : 0); --l) {
      const std::pair<int, int> rows = l < m - 1 ? up_rows[l] : std::pair<int, int>{0, g.lh[l]};
      const std::size_t row_floats = static_cast<std::size_t>(g.lw[l]) * C;
      bool first = l == nl - 1;  // the top level's sum starts from 0, the others from up(G_{l+1})
      std::size_t k = 0;
      if (!first) {
        while (k < g.octaves.size() && g.octaves[k].level != l + 1) ++k;  // the first octave here fuses
        const float* term = k < g.octaves.size() ? blurred[k] : nullptr;
        const float weight = term ? g.octaves[k].weight : 0.0f;
        if (rows.second > rows.first) {
          if (Status st = cuda::launch_pdl(C == 4 ? up_rows_kernel<4> : up_rows_kernel<1>, rows_grid(g.lw[l], rows),
                                           dim3(kThreads), 0, s, true, static_cast<const float*>(sum[l + 1]), g.lw[l + 1],
                                           g.lh[l + 1], sum[l], g.lw[l], rows.first, rows.second, term, weight);
              !st.ok())
            return st;
        }
        k = term ? k + 1 : g.octaves.size();
      } else {
        k = 0;
      }
      for (; k < g.octaves.size(); ++k) {  // the rest in order (several share the top level when it is 1 x 1)
        if (g.octaves[k].level != l + 1) continue;
        const std::size_t floats = static_cast<std::size_t>(rows.second - rows.first) * row_floats;
        const std::size_t at = static_cast<std::size_t>(rows.first) * row_floats;
        if (Status st = cuda::launch_pdl(weighted_add_kernel, dim3(blocks_for(floats)), dim3(kThreads), 0, s, true, sum[l] + at,
                                         blurred[k] + at, floats, g.octaves[k].weight, first ? 1 : 0);
            !st.ok())
          return st;
        first = false;
      }
    }
    const dim3 grid = grid_32x8(w, cfg.height);
    const int cw2 = fuse_level1 ? g.lw[1] : 0, ch2 = fuse_level1 ? g.lh[1] : 0;
    const float* gs = fuse_level1 ? sum[1] : sum[0];
    auto* add = C == 4 ? (fuse_level1 ? add_glare_kernel<4, Half, true> : add_glare_kernel<4, Half, false>)
                       : (fuse_level1 ? add_glare_kernel<1, Half, true> : add_glare_kernel<1, Half, false>);
    return cuda::launch_pdl(add, grid, dim3(kThreads), 0, s, true, src, out, w, cfg.height, gs, g.lw[0], g.lh[0], cw2, ch2,
                            g.pad, cfg.frame_row0);
  }

  Status create() {
    if (octaves.empty()) return {};
    n = static_cast<std::size_t>(cfg.width) * cfg.height;
    bright_channels = blur_math::glare_colour_channels(cfg.channels) == 3 ? 4 : 1;
    if (Status s = memory.alloc(&row_sums, static_cast<std::size_t>(frame_h)); !s.ok()) return s;
    if (Status s = memory.alloc(&log_average, 1); !s.ok()) return s;
    if (Status s = memory.alloc(&threshold, 1); !s.ok()) return s;
    TK_CUDA_CHECK(cudaMemset(log_average, 0, sizeof(double)));  // read_key before the first run: 0
    TK_CUDA_CHECK(cudaMemset(threshold, 0, sizeof(float)));
    shared = blur_impl::plan_glare_pyramid(octaves, cfg.width, frame_h, pyramid);
    if (shared) return create_shared();
    if (part)
      return unsupported("glare over a split frame needs a pyramid blur method (pyramid-quasi, pyramid-box2, pyramid-box4) "
                         "and a radius of at least ~2.5 pixels");
    for (const GlareOctave& o : octaves) {
      BlurEngineConfig bc;
      bc.width = cfg.width;
      bc.height = cfg.height;
      bc.channels = bright_channels;
      bc.plan = o.blur;
      bc.device = cfg.device;
      bc.workspace = &workspace;
      auto engine = BlurEngine::create(bc);
      if (!engine.ok()) return engine.status();
      blurs.push_back(std::move(*engine));
    }
    if (Status s = memory.alloc(&bright, n * bright_channels); !s.ok()) return s;
    if (Status s = memory.alloc(&blurred, n * bright_channels); !s.ok()) return s;
    if (cfg.half_frames)
      if (Status s = memory.alloc(&widened, n * 4); !s.ok()) return s;
    return {};
  }

  template <bool Half>
  Status run(const Source& src_in, void* out, cudaStream_t s) {
    if (octaves.empty()) return {};
    float* image = Half ? widened : static_cast<float*>(out);
    const int c = cfg.channels;
    // The shared pyramid's chain launches its kernels as programmatic dependents (cuda/pdl.cuh):
    // each may be scheduled while the one before it drains (a dozen of them move under a
    // megabyte each), and waits for its completion before touching memory.
    const bool pdl = shared;
    if (Status st = cuda::launch_pdl(row_log_sum_kernel<Half>, dim3(static_cast<unsigned>(own1 - own0)), dim3(kThreads), 0, s,
                                     pdl, src_in, cfg.width, own0 - cfg.frame_row0, row_sums + own0, out);
        !st.ok())
      return st;
    // A surface source is in `out` now (packed, bit for bit): the rest reads it there.
    const Source src = src_in.surface
                           ? Source{static_cast<const unsigned char*>(out),
                                    static_cast<std::size_t>(cfg.width) * (Half ? 8 : c * sizeof(float)), c}
                           : src_in;
    if (part)
      if (Status st = cfg.exchange->gather_rows(row_sums, sizeof(double), frame_h, 0, 0, s); !st.ok()) return st;
    if (Status st = cuda::launch_pdl(key_kernel, dim3(1), dim3(kThreads), 0, s, pdl, static_cast<const double*>(row_sums),
                                     frame_h, static_cast<std::size_t>(cfg.width) * frame_h, cfg.params.threshold, log_average,
                                     threshold);
        !st.ok())
      return st;
    if (shared) return run_shared<Half>(src, out, s);
    // Octave by octave, in place on `image`: the source copied (widened) there first.
    if (src.p != reinterpret_cast<const unsigned char*>(image) || Half ||
        src.stride != static_cast<std::size_t>(cfg.width) * c * sizeof(float)) {
      copy_source_kernel<Half><<<grid_32x8(cfg.width, cfg.height), kThreads, 0, s>>>(src, cfg.width, cfg.height, image);
      TK_CUDA_CHECK_LAUNCH("copy_source_kernel");
    }
    bright_kernel<<<blocks_for(n), kThreads, 0, s>>>(image, n, c, threshold, bright, bright_channels);
    TK_CUDA_CHECK_LAUNCH("bright_kernel");
    for (std::size_t k = 0; k < octaves.size(); ++k) {
      if (Status st = blurs[k]->run(bright, blurred, s); !st.ok()) return st;
      accumulate_kernel<<<blocks_for(n), kThreads, 0, s>>>(image, n, c, blurred, bright_channels, octaves[k].weight);
      TK_CUDA_CHECK_LAUNCH("accumulate_kernel");
    }
    if (Half) {
      narrow_kernel<<<blocks_for(n), kThreads, 0, s>>>(reinterpret_cast<const float4*>(image), n, static_cast<uint2*>(out));
      TK_CUDA_CHECK_LAUNCH("narrow_kernel");
    }
    return {};
  }

  std::size_t total_bytes() const {
    std::size_t b = memory.bytes() + workspace.bytes();
    for (const auto& e : blurs) b += e->scratch_bytes();
    return b;
  }
};

GlareEngine::GlareEngine(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
GlareEngine::~GlareEngine() = default;

Result<std::unique_ptr<GlareEngine>> GlareEngine::create(const GlareEngineConfig& config) {
  const bool part = config.frame_height > 0;
  const int frame_h = part ? config.frame_height : config.height;
  Result<std::vector<GlareOctave>> octaves = plan_glare(config.params, config.width, frame_h);
  if (!octaves.ok()) return octaves.status();
  if (Status s = check_frame(config.width, config.height, config.channels); !s.ok()) return s;
  if (part) {
    const long long own0 = static_cast<long long>(config.frame_row0) + config.own_begin,
                    own1 = static_cast<long long>(config.frame_row0) + config.own_end;
    if (!config.exchange || config.frame_row0 < 0 || config.own_begin < 0 || config.own_end <= config.own_begin ||
        config.own_end > config.height || static_cast<long long>(config.frame_row0) + config.height > config.frame_height ||
        own0 < 0 || own1 > config.frame_height)
      return invalid_argument("glare: a frame part needs an exchange and own rows inside its buffer, inside the frame (frame " +
                              std::to_string(config.frame_height) + " rows, buffer rows from " +
                              std::to_string(config.frame_row0) + ", " + std::to_string(config.height) + " rows, own " +
                              std::to_string(config.own_begin) + ".." + std::to_string(config.own_end) + ")");
  }
  if (Status s = cuda::select_device(config.device, "glare"); !s.ok()) return s;
  if (config.half_frames && config.channels != 4) return invalid_argument("glare: half frames are RGBA (4 channels)");
  auto impl = std::make_unique<Impl>();
  impl->cfg = config;
  impl->part = part;
  impl->frame_h = frame_h;
  if (!part) impl->cfg.frame_row0 = 0;
  impl->own0 = part ? config.frame_row0 + config.own_begin : 0;
  impl->own1 = part ? config.frame_row0 + config.own_end : config.height;
  impl->octaves = std::move(*octaves);
  if (Status s = impl->create(); !s.ok()) return s;
  return std::unique_ptr<GlareEngine>(new GlareEngine(std::move(impl)));
}

Status GlareEngine::run(float* device_image, CUstream_st* stream) {
  if (impl_->cfg.half_frames) return invalid_argument("glare: this engine takes half frames (run with a GlareSource)");
  return run(GlareSource{device_image, 0, false}, device_image, stream);
}

Status GlareEngine::run(const GlareSource& in, void* device_out, CUstream_st* stream) {
  if (impl_->octaves.empty()) return {};
  if ((!in.data && !in.surface) || !device_out) return invalid_argument("glare: null device image");
  const GlareEngineConfig& c = impl_->cfg;
  if (in.half != c.half_frames)
    return invalid_argument(std::string("glare: this engine takes ") + (c.half_frames ? "half" : "float") + " frames");
  if (in.surface && c.channels != 4) return invalid_argument("glare: a surface source is RGBA (4 channels)");
  if (in.surface && impl_->part) return unsupported("glare: a frame part reads linear memory, not a surface");
  const std::size_t row = static_cast<std::size_t>(c.width) * (in.half ? 8 : c.channels * sizeof(float));
  const std::size_t stride = in.stride ? in.stride : row;
  if (stride < row) return invalid_argument("glare: source stride " + std::to_string(stride) + " below the row's " + std::to_string(row) + " bytes");
  const Source src{static_cast<const unsigned char*>(in.data), stride, c.channels, in.surface};
  return in.half ? impl_->run<true>(src, device_out, stream) : impl_->run<false>(src, device_out, stream);
}

bool GlareEngine::active() const { return !impl_->octaves.empty(); }

Status GlareEngine::read_key(GlareKey& key, CUstream_st* stream) const {
  if (!active()) return invalid_argument("glare: the effect is off (strength 0 or radius too small): no key");
  TK_CUDA_CHECK(cudaMemcpyAsync(&key.log_average, impl_->log_average, sizeof(double), cudaMemcpyDeviceToHost, stream));
  TK_CUDA_CHECK(cudaMemcpyAsync(&key.threshold, impl_->threshold, sizeof(float), cudaMemcpyDeviceToHost, stream));
  TK_CUDA_CHECK(cudaStreamSynchronize(stream));
  return {};
}

const GlareEngineConfig& GlareEngine::config() const { return impl_->cfg; }
std::size_t GlareEngine::scratch_bytes() const { return impl_->total_bytes(); }

Status cuda_entry::apply_glare_host(Image& image, const GlareParams& params) {
  // apply_glare's checks (plan_glare), so that every error reads the same; the effect off
  // (strength 0, tiny radius) is a no-op that needs no device, as on the CPU.
  Result<std::vector<GlareOctave>> octaves = plan_glare(params, image);
  if (!octaves.ok()) return octaves.status();
  if (octaves->empty()) return {};
  GlareEngineConfig cfg;
  cfg.width = image.width;
  cfg.height = image.height;
  cfg.channels = image.channels;
  cfg.params = params;
  auto engine = GlareEngine::create(cfg);
  if (!engine.ok()) return engine.status();
  const std::size_t bytes = image.pixels.size() * sizeof(float);
  cuda::DeviceBuffer<float> frame;
  TK_CUDA_CHECK(cudaMalloc(&frame.p, bytes));
  TK_CUDA_CHECK(cudaMemcpy(frame.p, image.pixels.data(), bytes, cudaMemcpyHostToDevice));
  if (Status s = (*engine)->run(frame.p, nullptr); !s.ok()) return s;
  TK_CUDA_CHECK(cudaMemcpy(image.pixels.data(), frame.p, bytes, cudaMemcpyDeviceToHost));
  return {};
}

}  // namespace tonekit
