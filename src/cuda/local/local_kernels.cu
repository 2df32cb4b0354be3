// Kernels of the CUDA local operators (docs/architecture.md stages 1-4 for local operators). The
// maths is core/local_settings.hpp and sat/box_query.hpp, the functions the CPU reference
// (src/cpu/local/) calls, evaluated in the same precision and order:
//  - luminance plane: the sanitise policy of core::sanitise_channel, core::luminance_fma (the
//    CPU's contracted luminance);
//  - reinhard-local: separable Gaussian per level (vertical then horizontal, the horizontal
//    weights pre-multiplied by float(lum_scale), clamp-to-edge, float FMA accumulation in tap
//    order as GCC contracts the CPU's loops), the search step (core::activity_below<float>)
//    fused into the horizontal pass;
//  - reinhard-sat: per pixel the search of core::select_local_response<double>, unrolled
//    (search_levels), over sat::box_sum_replicated_by box sums (float64 table, or the tiled
//    float32 pairs), box_level_response in double;
//  - drago-local: Qian 2013's fitted window, column sums then row sums in float64, borders
//    clamped to the nearest interior window; core::drago_local_ld<float>;
//  - colour and output: core::reconstruct_channel, encode_srgb / encode_gamma, core::quantise
//    (the CPU's store_chunk maths; the GPU's powf differs from libmvec's by an ulp or two).
#include <atomic>
#include <type_traits>

#include "core/colour.hpp"
#include "core/colour_parts.hpp"
#include "cuda/check.hpp"
#include "cuda/encode420.cuh"
#include "cuda/encode_fast.cuh"
#include "cuda/pdl.cuh"
#include "cuda/formats.hpp"
#include "cuda/local/local_launch.hpp"

namespace tonekit::cuda_local {

GaussWeights make_gauss_weights() {
  GaussWeights g{};
  for (int i = 0; i < core::kMaxLocalScales; ++i) {
    g.radius[i] = core::gaussian_radius(i);
    for (int k = 0; k <= g.radius[i] && k < kMaxGaussTaps; ++k) g.w[i][k] = static_cast<float>(core::gaussian_weight(i, k));
  }
  return g;
}

namespace {

using cuda::InF16x4;
using cuda::InF32x3;
using cuda::InF32x4;

constexpr int kBlockX = 32, kBlockY = 8;

// core::sanitise_channel's values without the flags: NaN, negatives (and -0) -> +0, +Inf -> 65504.
__device__ __forceinline__ float sanitise(float v) { return v > 0.0f ? (v == INFINITY ? core::kInfReplacement : v) : 0.0f; }

// One pixel's sanitised r, g, b, alpha with no branch on alignment (kVec: the frame's base and
// stride allow one 8- / 16-byte load per pixel; the kernel checks that once), so that a batch of
// these loads is issued back to back.
template <class In, bool kVec>
__device__ __forceinline__ void load_pixel_uniform(const unsigned char* row, int x, float& r, float& g, float& b,
                                                   float& a) {
  const typename In::T* q = reinterpret_cast<const typename In::T*>(row) + static_cast<std::size_t>(x) * In::channels;
  if constexpr (kVec && In::bytes == 8) {  // sanitised while packed (cuda::clamp_half2)
    const uint2 u = __ldg(reinterpret_cast<const uint2*>(q));
    const unsigned rg = cuda::clamp_half2(u.x, cuda::half2_top_rgb());
    const unsigned ba = cuda::clamp_half2(u.y, cuda::half2_top_ba());
    r = cuda::half_lo(rg);
    g = cuda::half_hi(rg);
    b = cuda::half_lo(ba);
    a = cuda::half_hi(ba);
  } else if constexpr (kVec && In::bytes == 16) {
    const float4 v = __ldg(reinterpret_cast<const float4*>(q));
    r = sanitise(v.x);
    g = sanitise(v.y);
    b = sanitise(v.z);
    a = core::clamp01(sanitise(v.w));
  } else {
    r = sanitise(cuda::load_scalar(q));
    g = sanitise(cuda::load_scalar(q + 1));
    b = sanitise(cuda::load_scalar(q + 2));
    a = In::channels == 4 ? core::clamp01(sanitise(cuda::load_scalar(q + 3))) : 1.0f;
  }
}

// One pixel; half RGBA as one 8-byte load and float RGBA as one 16-byte load where aligned.
template <class In>
__device__ __forceinline__ void load_pixel(const unsigned char* row, int x, float& r, float& g, float& b, float& a) {
  const std::uintptr_t addr = reinterpret_cast<std::uintptr_t>(row) + static_cast<std::uintptr_t>(x) * In::bytes;
  if ((In::bytes == 8 || In::bytes == 16) && addr % In::bytes == 0) load_pixel_uniform<In, true>(row, x, r, g, b, a);
  else load_pixel_uniform<In, false>(row, x, r, g, b, a);
}

template <class In>
__global__ void __launch_bounds__(kBlockX* kBlockY) luminance_plane_kernel(const unsigned char* __restrict__ in,
                                                                         std::size_t stride, int w, int h,
                                                                         float* __restrict__ plane) {
  const int x = blockIdx.x * kBlockX + threadIdx.x, y = blockIdx.y * kBlockY + threadIdx.y;
  if (x >= w || y >= h) return;
  float r, g, b, a;
  load_pixel<In>(in + static_cast<std::size_t>(y) * stride, x, r, g, b, a);
  plane[static_cast<std::size_t>(y) * w + x] = core::luminance_fma(r, g, b);
}

__global__ void local_settings_kernel(core::LocalParams p, const FrameStats* stats, core::LocalSettings* out) {
  // Launched as a programmatic dependent of the statistics pass (cuda/pdl.cuh): let the map
  // kernel start staging its tiles, then wait for the statistics.
  cuda::trigger_dependents();
  cuda::wait_for_previous_grid();
  *out = core::make_local_settings_hd(p, core::curve_stats_hd(*stats));
}

struct Taps {
  float w[kMaxGaussTaps];
  int r;
};

__global__ void __launch_bounds__(kBlockX* kBlockY) gauss_vertical(const float* __restrict__ p, int w, int h, Taps t,
                                                                 float* __restrict__ out) {
  const int x = blockIdx.x * kBlockX + threadIdx.x, y = blockIdx.y * kBlockY + threadIdx.y;
  if (x >= w || y >= h) return;
  const float* c = p + static_cast<std::size_t>(y) * w + x;
  float acc = t.w[0] * __ldg(c);
  if (y - t.r >= 0 && y + t.r < h) {  // interior rows: no clamps (the index maths was most of the pass)
    const float* up = c;
    const float* down = c;
#pragma unroll 4
    for (int k = 1; k <= t.r; ++k) {
      up -= w;
      down += w;
      acc = fmaf(t.w[k], __ldg(up) + __ldg(down), acc);
    }
  } else {
    for (int k = 1; k <= t.r; ++k) {
      const int ya = y - k < 0 ? 0 : y - k, yb = y + k > h - 1 ? h - 1 : y + k;
      acc = fmaf(t.w[k], __ldg(p + static_cast<std::size_t>(ya) * w + x) + __ldg(p + static_cast<std::size_t>(yb) * w + x), acc);
    }
  }
  out[static_cast<std::size_t>(y) * w + x] = acc;
}

// Horizontal pass of level `level` (weights times float(lum_scale): V1 in units of L) fused with
// the search step between level - 1 and level (level 0 starts the search).
__global__ void __launch_bounds__(kBlockX* kBlockY) gauss_horizontal_search(const float* __restrict__ m, int w, int h,
                                                                          Taps t, int level,
                                                                          const core::LocalSettings* ls,
                                                                          float* __restrict__ centre,
                                                                          unsigned char* __restrict__ active) {
  const int x = blockIdx.x * kBlockX + threadIdx.x, y = blockIdx.y * kBlockY + threadIdx.y;
  if (x >= w || y >= h) return;
  const std::size_t at = static_cast<std::size_t>(y) * w + x;
  if (level > 0 && !active[at]) return;  // V1(s_m) already chosen (the CPU skips these rows' results too)
  const float scale = static_cast<float>(ls->lum_scale);
  const float* row = m + static_cast<std::size_t>(y) * w;
  float acc = (t.w[0] * scale) * __ldg(row + x);
  if (x - t.r >= 0 && x + t.r < w) {
#pragma unroll 4
    for (int k = 1; k <= t.r; ++k) acc = fmaf(t.w[k] * scale, __ldg(row + x - k) + __ldg(row + x + k), acc);
  } else {
    for (int k = 1; k <= t.r; ++k) {
      const int xa = x - k < 0 ? 0 : x - k, xb = x + k > w - 1 ? w - 1 : x + k;
      acc = fmaf(t.w[k] * scale, __ldg(row + xa) + __ldg(row + xb), acc);
    }
  }
  if (level == 0) {
    centre[at] = acc;
    active[at] = 1;
    return;
  }
  const float c = centre[at];
  const float k = static_cast<float>(core::activity_offset(*ls, level - 1));
  const bool keep = core::activity_below<float>(c, acc, k, static_cast<float>(ls->epsilon));
  centre[at] = keep ? acc : c;
  active[at] = keep ? 1 : 0;
}

// Largest odd window <= n that fits a side of `size` pixels (cpu/local/drago_local_cpu.cpp).
__device__ __forceinline__ int fitted_window(int n, int size) {
  const int largest = (size & 1) ? size : size - 1;
  const int v = (n | 1) < largest ? (n | 1) : largest;
  return v < 1 ? 1 : v;
}

__global__ void __launch_bounds__(kBlockX* kBlockY) drago_columns(const float* __restrict__ p, int w, int h,
                                                                const core::LocalSettings* ls, double* __restrict__ out) {
  const int x = blockIdx.x * kBlockX + threadIdx.x, y = blockIdx.y * kBlockY + threadIdx.y;
  if (x >= w || y >= h) return;
  const int ny = fitted_window(ls->window, h), ry = ny / 2;
  const int cy = y < ry ? ry : (y > h - 1 - ry ? h - 1 - ry : y);
  double s = 0.0;
  for (int k = cy - ry; k <= cy + ry; ++k) s += static_cast<double>(__ldg(p + static_cast<std::size_t>(k) * w + x));
  out[static_cast<std::size_t>(y) * w + x] = s;
}

// ---- the map kernel ----

// The colour stage and the store (the CPU's colour_chunk + store_chunk maths), one pixel.
// core::encode_srgb / encode_gamma with cuda::transfer_pow (SFU) for powf.
__device__ __forceinline__ float encode_fast(float v, float gamma, float inv_gamma) {
  if (gamma == 0.0f) return cuda::encode_srgb_fast(v);
  return cuda::transfer_pow(core::clamp01(v), inv_gamma);
}
using cuda::kMinLuminance;

// A pixel's display colour before any output conversion: core::reconstruct_channel, with c / L_w
// as c * rcp(L_w) (within an ulp) when saturation is 1.
__device__ __forceinline__ void display_values(const LocalMapArgs& a, float r, float g, float b, float lw, float ld,
                                               float (&v)[3]) {
  if (a.saturation == 1.0f) {
    const float inv = lw >= kMinLuminance ? __frcp_rn(lw) : 0.0f;
    v[0] = ld * (r * inv);
    v[1] = ld * (g * inv);
    v[2] = ld * (b * inv);
  } else {
    v[0] = core::reconstruct_channel(r, lw, ld, a.saturation);
    v[1] = core::reconstruct_channel(g, lw, ld, a.saturation);
    v[2] = core::reconstruct_channel(b, lw, ld, a.saturation);
  }
}

// y: the row of the input (a frame part's rows outside [out_row_begin, out_row_end) are not
// stored; callers that skip them pass kGuard false). `a.out` points at row 0 of the input's rows.
// kSurface false: the caller's kernel was instantiated for linear output only (the tile kernel's
// default instantiation: the surface branch cost it registers, an 8-byte spill). kSurfaceOnly:
// instantiated for a surface only (a.out_surface set, RGBA8): no linear store code at all, which
// keeps the tile kernel's surface instantiation within the linear one's 64 registers (with both
// stores it took 98 at 64 x 64 half, one block per SM instead of two).
template <bool kGuard = true, bool kSurface = true, bool kSurfaceOnly = false>
__device__ __forceinline__ void local_store(const LocalMapArgs& a, int x, int y, float r, float g, float b, float al,
                                         float lw, float ld, std::uint32_t row_seed) {
  if (kGuard && (y < a.out_row_begin || y >= a.out_row_end)) return;  // a frame part's context row
  if (a.out_code == 0 && a.saturation == 1.0f && a.gamma == 0.0f && a.dither) {
    // The default output (8-bit sRGB, dithered, saturation 1), as the global map kernel's default
    // path (cuda/encode_fast.cuh): c * (L_d / L_w) with the ratio once per pixel on the SFU, one
    // dither hash per pixel, no conversion-pipe rounding, one 4-byte store for RGBA
    // (docs/performance.md, local operators: this epilogue was most of every local map kernel).
    const float k = lw >= cuda::kMinLuminance ? ld * cuda::rcp_approx(lw) : 0.0f;
    const std::uint32_t sums = cuda::dither_sums(core::dither_pixel_hash(x, row_seed));  // row_seed: core::dither_row_seed(frame row)
    const unsigned c0 = cuda::srgb8_dither_word(r * k, cuda::dither_offset256_from_sums(sums, 0));
    const unsigned c1 = cuda::srgb8_dither_word(g * k, cuda::dither_offset256_from_sums(sums, 1));
    const unsigned c2 = cuda::srgb8_dither_word(b * k, cuda::dither_offset256_from_sums(sums, 2));
    if (kSurfaceOnly || (kSurface && a.out_surface)) {  // a mapped RGBA8 texture (uniform branch: the kernel's argument; the handle an L1 hit)
      surf2Dwrite(cuda::pack_bytes(c0, c1, c2, cuda::alpha8_word(al)), __ldg(a.out_surface), 4 * x, y - a.out_row_begin);
      return;
    }
    unsigned char* p = a.out + static_cast<std::size_t>(y) * a.out_stride + static_cast<std::size_t>(x) * a.out_channels;
    if (a.out_channels == 4) {
      const unsigned word = cuda::pack_bytes(c0, c1, c2, cuda::alpha8_word(al));
      if ((reinterpret_cast<std::uintptr_t>(p) & 3u) == 0) {
        *reinterpret_cast<unsigned*>(p) = word;
      } else {
        for (int c = 0; c < 4; ++c) p[c] = static_cast<unsigned char>(word >> (8 * c));
      }
    } else {
      p[0] = static_cast<unsigned char>(c0);
      p[1] = static_cast<unsigned char>(c1);
      p[2] = static_cast<unsigned char>(c2);
    }
    return;
  }
  float v[3];
  display_values(a, r, g, b, lw, ld, v);
  const int C = a.out_channels;
  unsigned char* row = a.out + static_cast<std::size_t>(y) * a.out_stride;
  if (kSurfaceOnly || a.out_code <= 1) {
    const unsigned kMax = kSurfaceOnly || a.out_code == 0 ? 255u : 65535u;
    const float inv_gamma = a.gamma != 0.0f ? 1.0f / a.gamma : 0.0f;
    unsigned codes[4];
    for (int c = 0; c < 3; ++c) {
      const float e = encode_fast(v[c], a.gamma, inv_gamma);
      codes[c] = core::quantise<float>(e, kMax, a.dither != 0, x, y + a.dither_row0, c);
    }
    codes[3] = core::quantise<float>(al, kMax, false, x, y + a.dither_row0, 3);
    if (kSurfaceOnly || (kSurface && a.out_surface)) {  // u8 x 4 only (ToneMapper::process_surfaces checks)
      surf2Dwrite(codes[0] | codes[1] << 8 | codes[2] << 16 | codes[3] << 24, __ldg(a.out_surface), 4 * x,
                  y - a.out_row_begin);
      return;
    }
    if (a.out_code == 0) {
      unsigned char* p = row + static_cast<std::size_t>(x) * C;
      if (C == 4 && (reinterpret_cast<std::uintptr_t>(p) & 3u) == 0) {
        *reinterpret_cast<unsigned*>(p) = codes[0] | codes[1] << 8 | codes[2] << 16 | codes[3] << 24;
      } else {
        for (int c = 0; c < C; ++c) p[c] = static_cast<unsigned char>(codes[c]);
      }
    } else {
      unsigned short* p = reinterpret_cast<unsigned short*>(row) + static_cast<std::size_t>(x) * C;
      for (int c = 0; c < C; ++c) p[c] = static_cast<unsigned short>(codes[c]);
    }
  } else if (a.out_code == 2) {
    unsigned short* p = reinterpret_cast<unsigned short*>(row) + static_cast<std::size_t>(x) * C;
    for (int c = 0; c < 3; ++c) p[c] = __half_as_ushort(__float2half_rn(core::clamp01(v[c])));
    if (C == 4) p[3] = __half_as_ushort(__float2half_rn(al));
  } else {
    float* p = reinterpret_cast<float*>(row) + static_cast<std::size_t>(x) * C;
    for (int c = 0; c < 3; ++c) p[c] = core::clamp01(v[c]);
    if (C == 4) p[3] = al;
  }
}


template <DodgeVariant V>
__device__ __forceinline__ double table_load(const double* p) {
  if constexpr (V == DodgeVariant::readonly_cache) return __ldg(p);
  else return *p;
}

// Shared-memory window of the float64 table for a 32 x 8 block: every box (width <= 39) of its
// pixels has its corners inside; replicated-edge rows / columns outside it read global memory.
constexpr int kHalo = 19;  // box_width(7) / 2
constexpr int kWinX = kBlockX + 2 * kHalo + 1, kWinY = kBlockY + 2 * kHalo + 1;

// Thesis Algorithm 7 as core::select_local_response<double>, unrolled over the levels so every box
// width and loop bound is a compile-time constant, with the level constants from the kernel
// parameters (LocalMapArgs::level_offset = core::activity_offset(s, i), level_inv_area =
// core::box_inv_area(width): constant-bank operands, no loads, no registers, no moves of float64
// immediates; the runtime-indexed version spent two float64 divisions per level and pixel), and
// the float result kept up to date at each accepted level (one conversion) so that the exits
// share it with no moves of the float64 centre. Same operations in the same order as the CPU's
// sat_select_chunk. `lum` is level 0 (centre = double(lum)); box(width) returns the
// edge-replicated box sum.
template <bool kAllScales, class BoxSum>
__device__ __forceinline__ float search_levels(float lum, int scales, double eps, const LocalMapArgs& a,
                                               double table_scale, BoxSum&& box) {
  double centre = static_cast<double>(lum);
  float out = lum;
#pragma unroll
  for (int i = 0; i + 1 < core::kMaxLocalScales; ++i) {
    if (!kAllScales && i + 1 >= scales) break;
    // core::box_level_response: box * box_inv_area(width) * table_scale, in that order.
    const double surround = box(core::box_width(i + 1)) * a.level_inv_area[i] * table_scale;
    if (!core::activity_below<double>(centre, surround, a.level_offset[i], eps)) break;
    centre = surround;
    out = static_cast<float>(surround);
  }
  return out;
}

template <class In, LocalPath P, DodgeVariant V>
__global__ void __launch_bounds__(kBlockX* kBlockY) local_map_kernel(LocalMapArgs a) {
  const int x = blockIdx.x * kBlockX + threadIdx.x, y = blockIdx.y * kBlockY + threadIdx.y;
  const int w = a.width, h = a.height;
  const core::LocalSettings s = *a.settings;
  const std::size_t pitch = static_cast<std::size_t>(w) + 1;
  [[maybe_unused]] const int ox = static_cast<int>(blockIdx.x) * kBlockX - kHalo;
  [[maybe_unused]] const int oy = static_cast<int>(blockIdx.y) * kBlockY - kHalo;
  if constexpr (P == LocalPath::sat_f64 && V == DodgeVariant::shared_tiles) {
    __shared__ double win[kWinY][kWinX];
    const bool needed = s.scales > 1 && s.epsilon > 0;
    if (needed) {
      for (int i = threadIdx.y * kBlockX + threadIdx.x; i < kWinX * kWinY; i += kBlockX * kBlockY) {
        const int wx = i % kWinX, wy = i / kWinX;
        const int tx = ox + wx, ty = oy + wy;
        if (tx >= 0 && tx <= w && ty >= 0 && ty <= h) win[wy][wx] = __ldg(a.table + static_cast<std::size_t>(ty) * pitch + tx);
      }
    }
    __syncthreads();
    if (x >= w || y >= h) return;
    float r, g, b, al;
    load_pixel<In>(a.in + static_cast<std::size_t>(y) * a.in_stride, x, r, g, b, al);
    const float lw = core::luminance_fma(r, g, b);
    const float scale = static_cast<float>(s.lum_scale);
    const float lum = lw * scale;
    float v1 = lum;
    if (needed) {
      auto at = [&](int tx, int ty) -> double {
        const int wx = tx - ox, wy = ty - oy;
        if (wx >= 0 && wx < kWinX && wy >= 0 && wy < kWinY) return win[wy][wx];
        return __ldg(a.table + static_cast<std::size_t>(ty) * pitch + tx);
      };
      auto rect = [&](const sat::BoxRect& bx) { return (at(bx.x1, bx.y1) - at(bx.x0, bx.y1)) - (at(bx.x1, bx.y0) - at(bx.x0, bx.y0)); };
      const double tscale = static_cast<double>(scale);
      const bool interior = x >= kHalo && x + kHalo + 1 <= w && y >= kHalo && y + kHalo + 1 <= h;
      auto box = [&](int width) {
        if (interior) {
          const int rr = width >> 1;
          return sat::box_sum(win[0], kWinX, sat::BoxRect{x - rr - ox, y - rr - oy, x + rr + 1 - ox, y + rr + 1 - oy});
        }
        return sat::box_sum_replicated_by<double>(rect, x, y, width, w, h);
      };
      v1 = search_levels<false>(lum, s.scales, s.epsilon, a, tscale, box);
    }
    const float ld = core::reinhard_local_ld(lum, v1);
    local_store(a, x, y, r, g, b, al, lw, ld, core::dither_row_seed(y + a.dither_row0));
    return;
  } else {
    if (x >= w || y >= h) return;
    float r, g, b, al;
    load_pixel<In>(a.in + static_cast<std::size_t>(y) * a.in_stride, x, r, g, b, al);
    const float lw = core::luminance_fma(r, g, b);
    float ld;
    if constexpr (P == LocalPath::gauss) {
      const float scale = static_cast<float>(s.lum_scale);
      ld = core::reinhard_local_ld(lw * scale, a.centre[static_cast<std::size_t>(y) * w + x]);
    } else if constexpr (P == LocalPath::laplacian) {
      ld = core::llf_display(a.llf_out[static_cast<std::size_t>(y) * w + x], *a.llf_frame);
    } else if constexpr (P == LocalPath::fusion) {
      ld = core::fusion_display(a.llf_out[static_cast<std::size_t>(y) * w + x]);
    } else if constexpr (P == LocalPath::drago) {
      const int nx = fitted_window(s.window, w), rx = nx / 2;
      const int ny = fitted_window(s.window, h);
      const int cx = x < rx ? rx : (x > w - 1 - rx ? w - 1 - rx : x);
      const double* row = a.colsum + static_cast<std::size_t>(y) * w;
      double sum = 0.0;
      for (int k = cx - rx; k <= cx + rx; ++k) sum += row[k];
      const float lwa = static_cast<float>(sum * (1.0 / (static_cast<double>(nx) * ny)));
      ld = core::drago_local_ld<float>(lw, lwa, s);
    } else {
      const float scale = static_cast<float>(s.lum_scale);
      const float lum = lw * scale;
      float v1 = lum;
      if (s.scales > 1 && s.epsilon > 0) {
        const double tscale = static_cast<double>(scale);
        if constexpr (P == LocalPath::sat_f64) {
          auto rect = [&](const sat::BoxRect& bx) {
            const double* top = a.table + static_cast<std::size_t>(bx.y0) * pitch;
            const double* bottom = a.table + static_cast<std::size_t>(bx.y1) * pitch;
            return (table_load<V>(bottom + bx.x1) - table_load<V>(bottom + bx.x0)) -
                   (table_load<V>(top + bx.x1) - table_load<V>(top + bx.x0));
          };
          const bool interior = x >= kHalo && x + kHalo + 1 <= w && y >= kHalo && y + kHalo + 1 <= h;
          auto box = [&](int width) {
            if (interior) {  // sat::box_sum of the unclamped box
              const int rr = width >> 1;
              return rect(sat::BoxRect{x - rr, y - rr, x + rr + 1, y + rr + 1});
            }
            return sat::box_sum_replicated_by<double>(rect, x, y, width, w, h);
          };
          v1 = search_levels<false>(lum, s.scales, s.epsilon, a, tscale, box);
        } else {
          auto rect = [&](const sat::BoxRect& bx) { return sat::tiled_rect_sum(a.hi, a.lo, a.tiled, bx); };
          auto box = [&](int width) { return static_cast<double>(sat::box_sum_replicated_by<float>(rect, x, y, width, w, h)); };
          v1 = search_levels<false>(lum, s.scales, s.epsilon, a, tscale, box);
        }
      }
      ld = core::reinhard_local_ld(lum, v1);
    }
    local_store(a, x, y, r, g, b, al, lw, ld, core::dither_row_seed(y + a.dither_row0));
  }
}

// ---- reinhard-sat with tile-local tables (SatPrecision::tile_local_f64) ----
// No whole-frame table and no luminance plane: each block stages the sanitised luminance of its
// TW x TH pixels plus a kHalo border (the largest box, 39 px, reaches 19 px out) straight from
// the input, with clamped coordinates, so the staged region *is* the edge-replicated image that
// sat::box_sum_replicated describes; it builds the region's exclusive float64 table in shared
// memory (row sums, then column sums) and runs the unrolled scale search on it. The table spans
// at most (TW + 38) x (TH + 38) values, so its rounding is ~1e-16 of a tile's sum (the global
// table: ~1e-16 of the frame's sum, 2.3e-6 absolute at 8K): the same box means as the CPU's to
// within float64 rounding. Cost: the region is read ((TW + 38)(TH + 38)) / (TW TH) times over
// (4.8x for 32 x 32, 3.5x for 64 x 32, 2.5x for 64 x 64), from L2 after the first touch. 64 x 64
// (the default) runs 512 threads per block, two blocks (2 x 85 KB of table) per SM: 32 warps
// against 64 x 32's 24 (3 x 57 KB), and 27 % less staging per pixel (docs/performance.md).
template <int TW, int TH>
struct TileDims {
  static constexpr int kRegionW = TW + 2 * kHalo, kRegionH = TH + 2 * kHalo;
  // 8 pixels per thread for the large tiles (64 x 32: 256 threads, 64 x 64: 512), 4 for 32 x 32.
  static constexpr int kThreads = TW * TH >= 4096 ? 512 : 256;
  // Two 85 KB tables of 64 x 64 tiles fit an SM: <= 64 registers per thread for both blocks.
  static constexpr int kMinBlocks = kThreads == 512 ? 2 : 1;
  // Row 0 and column 0 are the exclusive table's zeros. An odd pitch (in doubles) keeps the
  // per-row scans (one thread per row) free of bank conflicts.
  static constexpr int kPitch = (kRegionW + 1) % 2 == 1 ? kRegionW + 1 : kRegionW + 2;
  static constexpr int kRows = kRegionH + 1;
  static constexpr std::size_t kBytes = static_cast<std::size_t>(kRows) * kPitch * sizeof(double);
};

// Sanitised channel for the luminance only: for half input the policy (NaN, negatives -> 0,
// +Inf -> 65504, the largest half) is one clamp; float input keeps finite values above 65504.
template <class In>
__device__ __forceinline__ float sanitise_lum(float v) {
  if constexpr (In::bytes == 8) return fminf(fmaxf(v, 0.0f), core::kInfReplacement);
  else return sanitise(v);
}

template <class In, bool kVec>
__device__ __forceinline__ float load_luminance(const unsigned char* row, int x) {
  const typename In::T* q = reinterpret_cast<const typename In::T*>(row) + static_cast<std::size_t>(x) * In::channels;
  if constexpr (kVec && In::bytes == 8) {  // sanitised while packed: the same clamp as sanitise_lum
    const uint2 u = __ldg(reinterpret_cast<const uint2*>(q));
    const unsigned rg = cuda::clamp_half2(u.x, cuda::half2_top_rgb());
    const unsigned ba = cuda::clamp_half2(u.y, cuda::half2_top_rgb());
    return core::luminance_fma(cuda::half_lo(rg), cuda::half_hi(rg), cuda::half_lo(ba));
  } else {
    float r, g, b;
    if constexpr (kVec && In::bytes == 16) {
      const float4 v = __ldg(reinterpret_cast<const float4*>(q));
      r = v.x;
      g = v.y;
      b = v.z;
    } else {
      r = cuda::load_scalar(q);
      g = cuda::load_scalar(q + 1);
      b = cuda::load_scalar(q + 2);
    }
    return core::luminance_fma(sanitise_lum<In>(r), sanitise_lum<In>(g), sanitise_lum<In>(b));
  }
}

// Stage the region's luminance into the table (entry (ry + 1, rx + 1)), warp by row: lane l
// holds region columns l, l + 32, ... (clamped once: the same in every row), warp w rows w,
// w + kWarps, ...; kBatchRows rows of loads in flight per warp, with no index division and no
// per-element clamps (v3 of the tile kernel: the first version's per-element index maths was a
// quarter of its instructions, ncu). The staging waits on memory, not on issue (H100, 4K: a block
// that skips it maps 25 % faster): in the 64 x 64 tiles' kernel, 8- and 12-byte pixels load all
// of a warp's rows (7 of 16 warps) in one batch, one round trip (4K 0.170 -> 0.164 ms against 3
// rows, docs/performance.md); float RGBA's 16-byte loads keep 3 rows, beyond which they
// spill at 64 registers, and the 256-thread shapes keep 3, which keeps their registers (and blocks
// per SM) as they were.
template <class In, bool kVec, int TW, int TH>
__device__ __forceinline__ void stage_region(const LocalMapArgs& a, int x0, int y0, double* tile) {
  using D = TileDims<TW, TH>;
  constexpr int kChunks = (D::kRegionW + 31) / 32, kWarps = D::kThreads / 32;
  constexpr int kRowsPerWarp = (D::kRegionH + kWarps - 1) / kWarps;
  constexpr int kBatchRows = D::kThreads == 512 && In::bytes != 16 ? kRowsPerWarp : 3;
  const int lane = static_cast<int>(threadIdx.x), warp = static_cast<int>(threadIdx.y);
  int gx[kChunks];
#pragma unroll
  for (int c = 0; c < kChunks; ++c) gx[c] = min(max(x0 - kHalo + c * 32 + lane, 0), a.width - 1);
  for (int k0 = 0; k0 < kRowsPerWarp; k0 += kBatchRows) {
    float lv[kBatchRows][kChunks];
#pragma unroll
    for (int kb = 0; kb < kBatchRows; ++kb) {
      const int ry = min(warp + (k0 + kb) * kWarps, D::kRegionH - 1);
      const int gy = min(max(y0 - kHalo + ry, 0), a.height - 1);
      const unsigned char* row = a.in + static_cast<std::size_t>(gy) * a.in_stride;
#pragma unroll
      for (int c = 0; c < kChunks; ++c) lv[kb][c] = load_luminance<In, kVec>(row, gx[c]);
    }
#pragma unroll
    for (int kb = 0; kb < kBatchRows; ++kb) {
      const int ry = warp + (k0 + kb) * kWarps;
      if (ry >= D::kRegionH) break;
      double* dst = tile + (ry + 1) * D::kPitch + 1;
#pragma unroll
      for (int c = 0; c < kChunks; ++c)
        if (c * 32 + lane < D::kRegionW) dst[c * 32 + lane] = static_cast<double>(lv[kb][c]);
    }
  }
}

// The block's pixels, kPx per thread: all loads first (coordinates clamped, so unconditional),
// then the search and the store for the pixels inside the frame. r, g, b are the caller's: with
// kEncode the display values (display_values clamped to [0, 1], what a float RGB output holds)
// replace the pixels' input there instead of a store, and the kernel encodes them
// (encode_tile_420, after a barrier every thread of the block reaches).
template <class In, bool kVec, int TW, int TH, bool kAllScales, bool kSurface, bool kEncode = false>
__device__ __forceinline__ void map_tile_pixels(const LocalMapArgs& a, const core::LocalSettings& s, bool needed, int x0,
                                                int y0, const double* tile, const std::uint32_t* row_seeds,
                                                float (&r)[TW * TH / TileDims<TW, TH>::kThreads],
                                                float (&g)[TW * TH / TileDims<TW, TH>::kThreads],
                                                float (&b)[TW * TH / TileDims<TW, TH>::kThreads]) {
  using D = TileDims<TW, TH>;
  constexpr int kPx = TW * TH / D::kThreads;
  constexpr int kRowsPerPass = D::kThreads / TW;
  const int tid = static_cast<int>(threadIdx.y) * kBlockX + static_cast<int>(threadIdx.x);
  const int px = tid % TW, py0 = tid / TW;
  const int x = x0 + px;
  // Float RGBA re-reads its alpha at the store (an L1 hit: the pixel's line was just loaded), so
  // that 64 x 64 tiles stay within 64 registers with no spill; the other formats keep it.
  constexpr bool kReloadAlpha = In::bytes == 16;
  float al[kReloadAlpha ? 1 : kPx];
#pragma unroll
  for (int k = 0; k < kPx; ++k) {
    const int y = min(y0 + py0 + k * kRowsPerPass, a.height - 1);
    load_pixel_uniform<In, kVec>(a.in + static_cast<std::size_t>(y) * a.in_stride, min(x, a.width - 1), r[k], g[k], b[k],
                                 al[kReloadAlpha ? 0 : k]);
  }
  if (x >= a.width) return;  // kEncode too: encode_tile_420 reads only the frame's pixels
  const float scale = static_cast<float>(s.lum_scale);
  const double tscale = static_cast<double>(scale);
#pragma unroll
  for (int k = 0; k < kPx; ++k) {
    const int py = py0 + k * kRowsPerPass, y = y0 + py;
    if (y >= a.height) break;
    const float lw = core::luminance_fma(r[k], g[k], b[k]);
    const float lum = lw * scale;
    float v1 = lum;
    if (needed) {
      // The pixel sits at region (px + kHalo, py + kHalo); a centred box of width 2 rr + 1
      // covers region rows / columns [c - rr, c + rr]: table entries c - rr and c + rr + 1.
      const int cx = px + kHalo, cy = py + kHalo;
      auto box = [&](int width) {
        const int rr = width >> 1;
        const double* top = tile + (cy - rr) * D::kPitch;
        const double* bottom = tile + (cy + rr + 1) * D::kPitch;
        return (bottom[cx + rr + 1] - bottom[cx - rr]) - (top[cx + rr + 1] - top[cx - rr]);
      };
      v1 = search_levels<kAllScales>(lum, s.scales, s.epsilon, a, tscale, box);
    }
    float alpha = al[kReloadAlpha ? 0 : k];
    if constexpr (kReloadAlpha) {
      const float* q = reinterpret_cast<const float*>(a.in + static_cast<std::size_t>(y) * a.in_stride) + 4 * static_cast<std::size_t>(x);
      alpha = core::clamp01(sanitise(__ldg(q + 3)));
    }
    // L / (1 + V1) on the SFU (within 2 ulp). __fdividef returns 0 for a divisor above 2^126: the
    // divisor is capped there (V1 that large needs scaled luminance above 8e37, float input only).
    const float ld = __fdividef(lum, fminf(1.0f + v1, 0x1p126f));
    if constexpr (kEncode) {
      float v[3];
      display_values(a, r[k], g[k], b[k], lw, ld, v);
      r[k] = core::clamp01(v[0]);
      g[k] = core::clamp01(v[1]);
      b[k] = core::clamp01(v[2]);
    } else {
      local_store<true, kSurface, kSurface>(a, x, y, r[k], g[k], b[k], alpha, lw, ld, row_seeds[py]);
    }
  }
}

// The 4:2:0 encode of a tile's display values (kEncode): staged in the tile's shared memory (the
// summed-area table is no longer read: a barrier first), then the tile's 2 x 2 blocks encoded by
// encode420_block as the encode stage encodes the display frame. Tiles have even sizes and
// offsets, so each block lies in one tile.
template <int TW, int TH>
__device__ __forceinline__ void encode_tile_420(const LocalMapArgs& a, int x0, int y0, double* tile,
                                                const float (&r)[TW * TH / TileDims<TW, TH>::kThreads],
                                                const float (&g)[TW * TH / TileDims<TW, TH>::kThreads],
                                                const float (&b)[TW * TH / TileDims<TW, TH>::kThreads]) {
  using D = TileDims<TW, TH>;
  static_assert(static_cast<std::size_t>(TW) * TH * 3 * sizeof(float) <= D::kBytes,
                "the display tile fits the table's memory");
  constexpr int kPx = TW * TH / D::kThreads;
  constexpr int kRowsPerPass = D::kThreads / TW;
  const int tid = static_cast<int>(threadIdx.y) * kBlockX + static_cast<int>(threadIdx.x);
  const int px = tid % TW, py0 = tid / TW;
  float* stage = reinterpret_cast<float*>(tile);  // TH x TW pixels x 3
  __syncthreads();
#pragma unroll
  for (int k = 0; k < kPx; ++k) {
    float* p = stage + 3 * ((py0 + k * kRowsPerPass) * TW + px);
    p[0] = r[k];
    p[1] = g[k];
    p[2] = b[k];
  }
  __syncthreads();
  const cuda::Encode420& e = a.encode;
  for (int i = tid; i < (TW / 2) * (TH / 2); i += D::kThreads) {
    const int lbx = i % (TW / 2), lby = i / (TW / 2);
    const int bx = x0 / 2 + lbx, by = y0 / 2 + lby;
    if (2 * bx >= a.width || 2 * by >= a.height) continue;
    cuda::encode420_block(
        bx, by, a.width, a.height, e.layout, e.dither, 2 * bx + 1 < a.width,
        [&](int y) { return stage + 3 * ((y - y0) * TW + 2 * lbx); },
        [&](const float (&px3)[3], float& luma, float& cb, float& cr) {
          core::display_pixel_ycbcr(px3[0], px3[1], px3[2], e.gamma, e.oetf_table, luma, cb, cr);
        },
        a.out);
  }
}

// The surface instantiation (GL interop) is compiled for at least one block per SM (the linear
// one for two at 64 x 64): within the linear one's register budget its surface store spilled.
template <class In, int TW, int TH, bool kSurface, bool kEncode = false>
__global__ void __launch_bounds__(TileDims<TW, TH>::kThreads, TileDims<TW, TH>::kMinBlocks)
    sat_tile_map_kernel(LocalMapArgs a) {
  using D = TileDims<TW, TH>;
  extern __shared__ double tile[];  // D::kRows x D::kPitch
  __shared__ std::uint32_t row_seeds[TH];  // the dither's row hashes, once per block
  // Tiles in reverse order, the frame's end first: the statistics pass leaves the last part of
  // the frame in L2 (its evict-first loads spare the last 45 % of the L2's size, for the global
  // map kernel, which also runs backwards), so the first waves stage from L2 (H100, 4K: -1 %).
  const int x0 = static_cast<int>(gridDim.x - 1 - blockIdx.x) * TW, y0 = static_cast<int>(gridDim.y - 1 - blockIdx.y) * TH;
  if (y0 + TH <= a.out_row_begin || y0 >= a.out_row_end) return;  // a tile of a frame part's context rows only
  const int tid = static_cast<int>(threadIdx.y) * kBlockX + static_cast<int>(threadIdx.x);
  if (tid < TH) row_seeds[tid] = core::dither_row_seed(y0 + tid + a.dither_row0);  // visible after the barriers below
  // One 8- / 16-byte load per pixel when the base and the stride allow it (uniform per frame).
  const bool vec = (reinterpret_cast<std::uintptr_t>(a.in) % In::bytes) == 0 && a.in_stride % In::bytes == 0 &&
                   (In::bytes == 8 || In::bytes == 16);
  // The table depends on the input only: it is built before the wait for the settings (the
  // kernel is a programmatic dependent launch, cuda/pdl.cuh), overlapping the statistics' tail.
  {
    for (int i = tid; i < D::kPitch; i += D::kThreads) tile[i] = 0.0;
    for (int i = tid; i < D::kRows; i += D::kThreads) tile[i * D::kPitch] = 0.0;
    if (vec) stage_region<In, true, TW, TH>(a, x0, y0, tile);
    else stage_region<In, false, TW, TH>(a, x0, y0, tile);
    __syncthreads();
    for (int r = tid; r < D::kRegionH; r += D::kThreads) {  // row prefix sums, a thread per row
      double* row = tile + (r + 1) * D::kPitch + 1;
      double acc = 0.0;
#pragma unroll 8
      for (int k = 0; k < D::kRegionW; ++k) {
        acc += row[k];
        row[k] = acc;
      }
    }
    __syncthreads();
    for (int c = tid; c < D::kRegionW; c += D::kThreads) {  // column prefix sums, a thread per column
      double* col = tile + D::kPitch + 1 + c;
      double acc = 0.0;
#pragma unroll 8
      for (int k = 0; k < D::kRegionH; ++k) {
        acc += col[k * D::kPitch];
        col[k * D::kPitch] = acc;
      }
    }
    __syncthreads();
  }
  cuda::wait_for_previous_grid();
  const core::LocalSettings s = *a.settings;
  const bool needed = s.scales > 1 && s.epsilon > 0;  // block-uniform
  // The default 8 scales with no per-level bound check (block-uniform choice).
  constexpr int kPx = TW * TH / D::kThreads;
  float r[kPx], g[kPx], b[kPx];
  if (s.scales == core::kMaxLocalScales) {
    if (vec) map_tile_pixels<In, true, TW, TH, true, kSurface, kEncode>(a, s, needed, x0, y0, tile, row_seeds, r, g, b);
    else map_tile_pixels<In, false, TW, TH, true, kSurface, kEncode>(a, s, needed, x0, y0, tile, row_seeds, r, g, b);
  } else {
    if (vec) map_tile_pixels<In, true, TW, TH, false, kSurface, kEncode>(a, s, needed, x0, y0, tile, row_seeds, r, g, b);
    else map_tile_pixels<In, false, TW, TH, false, kSurface, kEncode>(a, s, needed, x0, y0, tile, row_seeds, r, g, b);
  }
  if constexpr (kEncode) encode_tile_420<TW, TH>(a, x0, y0, tile, r, g, b);
}

template <class In, int TW, int TH, bool kSurface, bool kEncode = false>
Status launch_sat_tile_for(const LocalMapArgs& a, cudaStream_t s) {
  using D = TileDims<TW, TH>;
  // The shared-memory limit is a per-device attribute of the function: set once per device (a bit
  // per device; a process-wide once left a second GPU's launches invalid, issue 19).
  static std::atomic<unsigned long long> allowed{0};
  int device = 0;
  TK_CUDA_CHECK(cudaGetDevice(&device));
  const unsigned long long bit = device < 64 ? 1ull << device : 0ull;
  if (!bit || !(allowed.load(std::memory_order_relaxed) & bit)) {
    TK_CUDA_CHECK(cudaFuncSetAttribute(sat_tile_map_kernel<In, TW, TH, kSurface, kEncode>,
                                       cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(D::kBytes)));
    allowed.fetch_or(bit, std::memory_order_relaxed);
  }
  const dim3 block(32, D::kThreads / 32), grid((a.width + TW - 1) / TW, (a.height + TH - 1) / TH);
  if (Status st = cuda::launch_pdl(sat_tile_map_kernel<In, TW, TH, kSurface, kEncode>, grid, block, D::kBytes, s, true, a);
      !st.ok())
    return st;
  TK_CUDA_CHECK_LAUNCH("sat_tile_map_kernel");
  return {};
}

template <class In, int TW, int TH>
Status launch_sat_tile(const LocalMapArgs& a, cudaStream_t s) {
  if (a.encode.oetf_table) {  // the 4:2:0 encode in the map (decoded video: float RGB input only)
    if constexpr (std::is_same_v<In, InF32x3>) return launch_sat_tile_for<In, TW, TH, false, true>(a, s);
    else return invalid_argument("reinhard-sat: the 4:2:0 encode in the map takes a decoded float RGB frame");
  }
  return a.out_surface ? launch_sat_tile_for<In, TW, TH, true>(a, s) : launch_sat_tile_for<In, TW, TH, false>(a, s);
}

template <class In>
Status launch_map_in(LocalPath path, DodgeVariant v, const LocalMapArgs& a, cudaStream_t s) {
  const dim3 block(kBlockX, kBlockY), grid((a.width + kBlockX - 1) / kBlockX, (a.height + kBlockY - 1) / kBlockY);
  switch (path) {
    case LocalPath::sat_tile:
      if (a.tile_width == 64) return a.tile_height == 64 ? launch_sat_tile<In, 64, 64>(a, s) : launch_sat_tile<In, 64, 32>(a, s);
      return launch_sat_tile<In, 32, 32>(a, s);
    case LocalPath::gauss: local_map_kernel<In, LocalPath::gauss, DodgeVariant::global_loads><<<grid, block, 0, s>>>(a); break;
    case LocalPath::drago: local_map_kernel<In, LocalPath::drago, DodgeVariant::global_loads><<<grid, block, 0, s>>>(a); break;
    case LocalPath::laplacian:
      local_map_kernel<In, LocalPath::laplacian, DodgeVariant::global_loads><<<grid, block, 0, s>>>(a);
      break;
    case LocalPath::fusion:
      local_map_kernel<In, LocalPath::fusion, DodgeVariant::global_loads><<<grid, block, 0, s>>>(a);
      break;
    case LocalPath::sat_tiled:
      local_map_kernel<In, LocalPath::sat_tiled, DodgeVariant::global_loads><<<grid, block, 0, s>>>(a);
      break;
    case LocalPath::sat_f64:
      switch (v) {
        case DodgeVariant::global_loads:
          local_map_kernel<In, LocalPath::sat_f64, DodgeVariant::global_loads><<<grid, block, 0, s>>>(a);
          break;
        case DodgeVariant::readonly_cache:
          local_map_kernel<In, LocalPath::sat_f64, DodgeVariant::readonly_cache><<<grid, block, 0, s>>>(a);
          break;
        case DodgeVariant::shared_tiles:
          local_map_kernel<In, LocalPath::sat_f64, DodgeVariant::shared_tiles><<<grid, block, 0, s>>>(a);
          break;
      }
      break;
  }
  TK_CUDA_CHECK_LAUNCH("local_map_kernel");
  return {};
}

template <class In>
Status launch_lum_in(const unsigned char* src, std::size_t stride, int w, int h, float* plane, cudaStream_t s) {
  const dim3 block(kBlockX, kBlockY), grid((w + kBlockX - 1) / kBlockX, (h + kBlockY - 1) / kBlockY);
  luminance_plane_kernel<In><<<grid, block, 0, s>>>(src, stride, w, h, plane);
  TK_CUDA_CHECK_LAUNCH("luminance_plane_kernel");
  return {};
}

}  // namespace

Status launch_luminance_plane(InputFormat in, const unsigned char* src, std::size_t in_stride, int w, int h,
                              float* plane, cudaStream_t s) {
  switch (in) {
    case InputFormat::rgb_f32: return launch_lum_in<InF32x3>(src, in_stride, w, h, plane, s);
    case InputFormat::rgba_f32: return launch_lum_in<InF32x4>(src, in_stride, w, h, plane, s);
    case InputFormat::rgba_f16: return launch_lum_in<InF16x4>(src, in_stride, w, h, plane, s);
    default: break;  // planar and YUV layouts: not yet on the device
  }
  return invalid_argument("unknown input format");
}

Status launch_local_settings(const core::LocalParams& p, const FrameStats* stats, core::LocalSettings* settings,
                             cudaStream_t s) {
  if (Status st = cuda::launch_pdl(local_settings_kernel, dim3(1), dim3(1), 0, s, true, p, stats, settings);
      !st.ok())
    return st;
  TK_CUDA_CHECK_LAUNCH("local_settings_kernel");
  return {};
}

Status launch_gauss_pyramid(const float* plane, int w, int h, const GaussWeights& gw, int max_scales,
                            const core::LocalSettings* settings, float* tmp, float* centre, unsigned char* active,
                            cudaStream_t s) {
  const dim3 block(kBlockX, kBlockY), grid((w + kBlockX - 1) / kBlockX, (h + kBlockY - 1) / kBlockY);
  for (int level = 0; level < max_scales; ++level) {
    Taps t{};
    t.r = gw.radius[level];
    for (int k = 0; k <= t.r; ++k) t.w[k] = gw.w[level][k];
    gauss_vertical<<<grid, block, 0, s>>>(plane, w, h, t, tmp);
    TK_CUDA_CHECK_LAUNCH("gauss_vertical");
    gauss_horizontal_search<<<grid, block, 0, s>>>(tmp, w, h, t, level, settings, centre, active);
    TK_CUDA_CHECK_LAUNCH("gauss_horizontal_search");
  }
  return {};
}

Status launch_drago_columns(const float* plane, int w, int h, const core::LocalSettings* settings, double* colsum,
                            cudaStream_t s) {
  const dim3 block(kBlockX, kBlockY), grid((w + kBlockX - 1) / kBlockX, (h + kBlockY - 1) / kBlockY);
  drago_columns<<<grid, block, 0, s>>>(plane, w, h, settings, colsum);
  TK_CUDA_CHECK_LAUNCH("drago_columns");
  return {};
}

Status launch_local_map(InputFormat in, LocalPath path, DodgeVariant variant, const LocalMapArgs& a, cudaStream_t s) {
  switch (in) {
    case InputFormat::rgb_f32: return launch_map_in<InF32x3>(path, variant, a, s);
    case InputFormat::rgba_f32: return launch_map_in<InF32x4>(path, variant, a, s);
    case InputFormat::rgba_f16: return launch_map_in<InF16x4>(path, variant, a, s);
    default: break;  // planar and YUV layouts: not yet on the device
  }
  return invalid_argument("unknown input format");
}

}  // namespace tonekit::cuda_local
