// local-laplacian on the CPU: the fast local Laplacian filter (Aubry et al. 2014) of
// core/laplacian.hpp, the reference the CUDA pass matches. Scratch: the log plane, the K + 1
// pyramids above level 0 (plane k < K: the level-k remapped image's Gaussian pyramid; plane K:
// the image's own), one decimation buffer and the output pyramid. Each decimation is separable
// over whole rows (the horizontal taps of every input row, then the vertical taps), which is
// core::llf_down_at's order of operations; level 1 of the remapped pyramids remaps each input row
// once into a buffer. Compiled with -ffp-contract=off (CMakeLists.txt) so every float is the GPU's.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <vector>

#include "core/laplacian.hpp"
#include "cpu/local/local_common.hpp"
#include "cpu/local/local_tone_map.hpp"
#include "cpu/local/pyramid_rows.hpp"

namespace tonekit::cpu::local {
core::LlfFrame local_laplacian_output(const float* lw, int w, int h, const core::LlfCurve& c, double max_luminance,
                                      double min_positive, float* out, double log_average) {
  const int K = c.levels;
  const std::size_t n = static_cast<std::size_t>(w) * h;
  core::LlfFrame f = core::make_llf_frame(max_luminance, min_positive, log_average, c);
  const core::LlfGeometry geo = core::llf_geometry(w, h, K + 1);
  const core::LlfGeometry og = core::llf_geometry(w, h, 1);
  const int J = geo.depth;
  auto l = scratch<float>(n);
  parallel_rows(h, [&](int, int y0, int y1) {
    for (std::size_t i = static_cast<std::size_t>(y0) * w; i < static_cast<std::size_t>(y1) * w; ++i)
      l[i] = core::llf_log(lw[i], f.floor_lum);
  });
  std::vector<float> pyr(geo.total());
  std::vector<float> opyr(og.total());
  if (J >= 1) {
    std::vector<float> tmp(static_cast<std::size_t>(geo.w[1]) * h);
    for (int k = 0; k <= K; ++k) {
      float* dst = pyr.data() + geo.at(1, k);
      if (k == K) {
        decimate_rows(l.get(), w, h, dst, tmp.data(), [](float v) { return v; });
      } else {
        const float g = core::llf_level(f, k);
        decimate_rows(l.get(), w, h, dst, tmp.data(), [&](float v) { return core::llf_remap(v, g, c, f); });
      }
      for (int j = 2; j <= J; ++j)
        decimate_rows(pyr.data() + geo.at(j - 1, k), geo.w[j - 1], geo.h[j - 1], pyr.data() + geo.at(j, k), tmp.data(),
                 [](float v) { return v; });
    }
  }
  // The top: its mean and the compressed residual.
  const float* g_top = J >= 1 ? pyr.data() + geo.at(J, K) : l.get();
  core::llf_finish_top(f, g_top, static_cast<int>(geo.size(J)), c);
  float* o_top = J >= 1 ? opyr.data() + og.at(J, 0) : out;
  for (std::size_t i = 0; i < geo.size(J); ++i) o_top[i] = core::llf_top_value(g_top[i], f);
  // Collapse from J - 1 to 0: the blended coefficient + up(O_{j+1}).
  collapse_rows(geo, og, opyr.data(), out, [&](int j, int x, int y, std::size_t i) {
    const int wc = geo.w[j + 1], hc = geo.h[j + 1];
    const float g = j == 0 ? l[i] : pyr[geo.at(j, K) + i];
    float t;
    const int k0 = core::llf_bracket(g, f, K, t);
    float coef[2];
    for (int e = 0; e < 2; ++e) {
      const int k = k0 + e;
      const float* rc = pyr.data() + geo.at(j + 1, k);
      const float rj = j == 0 ? core::llf_remap(g, core::llf_level(f, k), c, f) : pyr[geo.at(j, k) + i];
      const float up = core::llf_up_at([&](int xx, int yy) { return rc[static_cast<std::size_t>(yy) * wc + xx]; }, wc, hc, x, y);
      coef[e] = rj - up;
    }
    return core::llf_blend(coef[0], coef[1], t);
  });
  return f;
}

FrameStats local_laplacian_map(const ImageView& in, const Params& params, const core::ColourSettings& c,
                               const ImageView& out, double* stats_ms, const CurveStatsHook* hook) {
  const int w = in.width, h = in.height;
  const std::size_t count = static_cast<std::size_t>(w) * h;
  auto lw = scratch<float>(count);
  auto o = scratch<float>(count);
  const auto t0 = std::chrono::steady_clock::now();
  const FrameStats stats = stats_with_luminance_plane(in, lw.get());
  if (stats_ms) *stats_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  const FrameStats used = hook && *hook ? (*hook)(stats) : stats;
  const core::LlfCurve curve = core::llf_curve_from(core::local_params_from(params));
  const core::LlfFrame f =
      local_laplacian_output(lw.get(), w, h, curve, used.max_luminance, used.min_positive_luminance, o.get(),
                             used.log_average);
  map_rows(in, c, out, [&](int y, int x0, int n, Chunk& chunk) {
    const float* v = o.get() + static_cast<std::size_t>(y) * w + x0;
    for (int i = 0; i < n; ++i) chunk.ld[i] = core::llf_display(v[i], f);
  });
  return stats;
}

}  // namespace tonekit::cpu::local
