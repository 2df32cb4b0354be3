// reinhard-local on the CPU: Reinhard et al. 2002 automatic dodging-and-burning with the paper's
// Gaussian kernels (thesis Eq 4.4-4.7), the exact reference. One separable convolution per
// scale s_i = 1.6^i (kernel core::reinhard_kernel_factor, truncated at ceil(4 sigma), normalised
// to unit sum, borders clamped, float accumulation), computed row by row and consumed at once by
// the scale search: the plane `centre` holds V1 at the current level for pixels still searching
// and V1(s_m) for the others, so memory stays at three planes for any number of scales. Rows (and
// whole levels) where no pixel is still searching are skipped.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <vector>

#include "cpu/isa_level.hpp"
#include "cpu/local/local_common.hpp"
#include "cpu/local/local_tone_map.hpp"

// blur_row and search_row are compiled once per instruction-set level (cpu/isa_level.hpp:
// reinhard_gauss_cpu_v3.cpp, _v4.cpp; the level options: no contraction, so every level gives the
// same bytes), every call in them inlined (TK_ISA_INLINE_ALL).

namespace tonekit::cpu::local {
namespace detail {

#if TK_ISA_PRIMARY
// Symmetric 1-D weights wt[0..r] of scale level i (core::gaussian_weight), as float.
std::vector<float> gaussian_weights(int level) {
  const int r = core::gaussian_radius(level);
  std::vector<float> wt(r + 1);
  for (int k = 0; k <= r; ++k) wt[k] = static_cast<float>(core::gaussian_weight(level, k));
  return wt;
}

TK_ISA_DECLARE(void blur_row(const float* lum, int w, int h, int y, const float* wt, const float* wh, int r, float* padded,
                            float* row_out);
               int search_row(float* centre, std::int32_t* active, const float* next, int w, float k, float eps);)
#endif

// One output row of the separable blur: vertical pass (weights wt) into `padded` (w + 2r
// floats, borders replicated), then the horizontal pass (weights wh) into `row_out`. Blocks of
// kBlock outputs accumulate in registers over all taps (each output is summed in the same tap
// order as a plain loop would, so blocking changes no bits); the remainder runs unblocked.
constexpr int kBlock = 64;
constexpr int kMaxRadius = 32;  // >= core::gaussian_radius(7) = 27 (checked in test_local_operators)
// kLanes floats, unaligned; GCC gives vector types the alias set of their element type. At
// x86-64-v3 (16 registers of 8 floats) 8 vectors of 8: vectors of 16 were split through the stack
// there (4K reinhard-local 1.20 CPU-s against 0.45 at v4); 4 vectors of 16 elsewhere.
#if TK_ISA_LEVEL == 1
constexpr int kLanes = 8;
#else
constexpr int kLanes = 16;
#endif
constexpr int kVectors = kBlock / kLanes;
typedef float vlanes __attribute__((vector_size(kLanes * sizeof(float)), aligned(4)));
#define TK_VEC(p) (*reinterpret_cast<const vlanes*>(p))
#define TK_VEC_OUT(p) (*reinterpret_cast<vlanes*>(p))

TK_ISA_BEGIN

TK_ISA_INLINE_ALL void blur_row(const float* lum, int w, int h, int y, const float* wt, const float* wh, int r,
                              float* padded, float* row_out) {
  float* mid = padded + r;
  const float* c = lum + static_cast<std::size_t>(y) * w;
  const float* above[kMaxRadius + 1];
  const float* below[kMaxRadius + 1];
  for (int k = 1; k <= r; ++k) {
    above[k] = lum + static_cast<std::size_t>(std::max(y - k, 0)) * w;
    below[k] = lum + static_cast<std::size_t>(std::min(y + k, h - 1)) * w;
  }
  int x = 0;
  for (; x + kBlock <= w; x += kBlock) {
    vlanes acc[kVectors];
#pragma GCC unroll 8
    for (int j = 0; j < kVectors; ++j) acc[j] = wt[0] * TK_VEC(c + x + j * kLanes);
    for (int k = 1; k <= r; ++k) {
      const float* a = above[k] + x;
      const float* b = below[k] + x;
      const float wk = wt[k];
#pragma GCC unroll 8
      for (int j = 0; j < kVectors; ++j) acc[j] += wk * (TK_VEC(a + j * kLanes) + TK_VEC(b + j * kLanes));
    }
#pragma GCC unroll 8
    for (int j = 0; j < kVectors; ++j) TK_VEC_OUT(mid + x + j * kLanes) = acc[j];
  }
  for (int xr = x; xr < w; ++xr) mid[xr] = wt[0] * c[xr];
  for (int k = 1; k <= r; ++k)
    for (int xr = x; xr < w; ++xr) mid[xr] += wt[k] * (above[k][xr] + below[k][xr]);
  for (int k = 1; k <= r; ++k) {
    padded[r - k] = mid[0];
    mid[w - 1 + k] = mid[w - 1];
  }
  x = 0;
  for (; x + kBlock <= w; x += kBlock) {
    const float* m = mid + x;
    vlanes acc[kVectors];
#pragma GCC unroll 8
    for (int j = 0; j < kVectors; ++j) acc[j] = wh[0] * TK_VEC(m + j * kLanes);
    for (int k = 1; k <= r; ++k) {
      const float wk = wh[k];
#pragma GCC unroll 8
      for (int j = 0; j < kVectors; ++j) acc[j] += wk * (TK_VEC(m + j * kLanes - k) + TK_VEC(m + j * kLanes + k));
    }
#pragma GCC unroll 8
    for (int j = 0; j < kVectors; ++j) TK_VEC_OUT(row_out + x + j * kLanes) = acc[j];
  }
  for (int xr = x; xr < w; ++xr) row_out[xr] = wh[0] * mid[xr];
  for (int k = 1; k <= r; ++k)
    for (int xr = x; xr < w; ++xr) row_out[xr] += wh[k] * (mid[xr - k] + mid[xr + k]);
}

// The search step between level `level` (centre) and level + 1 (next) for one row.
TK_ISA_INLINE_ALL int search_row(float* centre, std::int32_t* active, const float* next, int w, float k, float eps) {
  int still = 0;
  for (int x = 0; x < w; ++x) {
    const float c = centre[x];
    const std::int32_t keep = active[x] & static_cast<std::int32_t>(core::activity_below(c, next[x], k, eps));
    centre[x] = keep ? next[x] : c;
    active[x] = keep;
    still += keep;
  }
  return still;
}

TK_ISA_END

#if TK_ISA_PRIMARY
void blur_row(const float* lum, int w, int h, int y, const float* wt, const float* wh, int r, float* padded,
              float* row_out) {
  TK_ISA_DISPATCH(blur_row(lum, w, h, y, wt, wh, r, padded, row_out));
}
int search_row(float* centre, std::int32_t* active, const float* next, int w, float k, float eps) {
  TK_ISA_DISPATCH(search_row(centre, active, next, w, k, eps));
}
#endif

}  // namespace detail

#if TK_ISA_PRIMARY

void reinhard_gauss_response(const float* plane, int w, int h, const core::LocalSettings& s, float* centre,
                             float plane_scale) {
  const std::size_t count = static_cast<std::size_t>(w) * h;
  auto active = scratch<std::int32_t>(count);
  std::vector<int> row_active(h, w);
  // The plane's scale rides on the horizontal weights: V1 comes out in units of L.
  auto weights = [&](int level, std::vector<float>& wt, std::vector<float>& wh) {
    wt = detail::gaussian_weights(level);
    wh = wt;
    for (float& v : wh) v *= plane_scale;
    return static_cast<int>(wt.size()) - 1;
  };
  std::vector<float> wt, wh;
  {  // level 0
    const int r = weights(0, wt, wh);
    parallel_rows(h, [&](int, int y0, int y1) {
      std::vector<float> padded(w + 2 * r);
      for (int y = y0; y < y1; ++y) {
        detail::blur_row(plane, w, h, y, wt.data(), wh.data(), r, padded.data(), centre + static_cast<std::size_t>(y) * w);
        std::fill(active.get() + static_cast<std::size_t>(y) * w, active.get() + static_cast<std::size_t>(y + 1) * w, 1);
      }
    });
  }
  for (int level = 0; level + 1 < s.scales; ++level) {
    const int r = weights(level + 1, wt, wh);
    const float k = static_cast<float>(core::activity_offset(s, level));
    const float eps = static_cast<float>(s.epsilon);
    std::atomic<long long> still{0};
    parallel_rows(h, [&](int, int y0, int y1) {
      std::vector<float> padded(w + 2 * r), next(w);
      long long band_still = 0;
      for (int y = y0; y < y1; ++y) {
        if (row_active[y] == 0) continue;
        detail::blur_row(plane, w, h, y, wt.data(), wh.data(), r, padded.data(), next.data());
        const std::size_t at = static_cast<std::size_t>(y) * w;
        row_active[y] = detail::search_row(centre + at, active.get() + at, next.data(), w, k, eps);
        band_still += row_active[y];
      }
      still += band_still;
    });
    if (still.load() == 0) break;
  }
}

FrameStats reinhard_gauss_map(const ImageView& in, const Params& params, const core::ColourSettings& c,
                              const ImageView& out, double* stats_ms, const CurveStatsHook* hook) {
  const int w = in.width, h = in.height;
  const std::size_t count = static_cast<std::size_t>(w) * h;
  auto lw = scratch<float>(count);
  auto v1 = scratch<float>(count);
  const auto t0 = std::chrono::steady_clock::now();
  const FrameStats stats = stats_with_luminance_plane(in, lw.get());
  if (stats_ms) *stats_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  const core::LocalSettings s = core::make_local_settings(params, hook && *hook ? (*hook)(stats) : stats);
  const float scale = static_cast<float>(s.lum_scale);
  reinhard_gauss_response(lw.get(), w, h, s, v1.get(), scale);
  map_rows(in, c, out, [&](int y, int x0, int n, Chunk& chunk) {
    const float* v = v1.get() + static_cast<std::size_t>(y) * w + x0;
    for (int i = 0; i < n; ++i) chunk.ld[i] = core::reinhard_local_ld(chunk.lw[i] * scale, v[i]);
  });
  return stats;
}

#endif  // TK_ISA_PRIMARY

}  // namespace tonekit::cpu::local
