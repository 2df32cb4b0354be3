// exposure-fusion on the CPU: Mertens et al. 2007 on synthetic exposures of one HDR frame
// (core/fusion.hpp), the reference the CUDA pass matches. Planes: p = L_w^(1/2.2), the channels'
// q_k = c_k^(1/2.2), the N normalised weights at level 0; then 2N pyramids above level 0 (planes
// 0..N-1: the exposures v_i, decimated from p through min(1, a_i p); planes N..2N-1: the weights),
// and the output pyramid. The decimation is local-laplacian's (pyramid_rows.hpp). Built with
// -ffp-contract=off (CMakeLists.txt) so every float is the GPU's.
#include <chrono>
#include <cmath>
#include <vector>

#include "core/fusion.hpp"
#include "core/laplacian.hpp"
#include "cpu/local/local_common.hpp"
#include "cpu/local/local_tone_map.hpp"
#include "cpu/local/pyramid_rows.hpp"

namespace tonekit::cpu::local {

void exposure_fusion_weights(const float* p, const float* q, int w, int h, const core::FusionFrame& f, float* weights) {
  parallel_rows(h, [&](int, int y0, int y1) {
    for (int y = y0; y < y1; ++y)
      for (int x = 0; x < w; ++x) core::fusion_pixel_weights(p, q, w, h, x, y, f, weights);
  });
}

void exposure_fusion_output(const float* p, const float* weights, int w, int h, const core::FusionFrame& f, float* out) {
  const int N = f.n;
  const std::size_t count = static_cast<std::size_t>(w) * h;
  const core::LlfGeometry geo = core::llf_geometry(w, h, 2 * N);
  const core::LlfGeometry og = core::llf_geometry(w, h, 1);
  const int J = geo.depth;
  std::vector<float> pyr(geo.total()), opyr(og.total());
  if (J >= 1) {
    std::vector<float> tmp(static_cast<std::size_t>(geo.w[1]) * h);
    for (int k = 0; k < 2 * N; ++k) {
      if (k < N) {
        const float a = f.a[k];
        decimate_rows(p, w, h, pyr.data() + geo.at(1, k), tmp.data(), [&](float v) { return core::fusion_value(v, a); });
      } else {
        decimate_rows(weights + (k - N) * count, w, h, pyr.data() + geo.at(1, k), tmp.data(), [](float v) { return v; });
      }
      for (int j = 2; j <= J; ++j)
        decimate_rows(pyr.data() + geo.at(j - 1, k), geo.w[j - 1], geo.h[j - 1], pyr.data() + geo.at(j, k), tmp.data(),
                      [](float v) { return v; });
    }
  }
  // Level j's value of exposure e and of its weight (level 0 from the planes).
  auto value = [&](int j, int e, std::size_t i) { return j == 0 ? core::fusion_value(p[i], f.a[e]) : pyr[geo.at(j, e) + i]; };
  auto weight = [&](int j, int e, std::size_t i) { return j == 0 ? weights[e * count + i] : pyr[geo.at(j, N + e) + i]; };
  float* o_top = J >= 1 ? opyr.data() + og.at(J, 0) : out;
  for (std::size_t i = 0; i < geo.size(J); ++i) {
    float acc = 0.0f;
    for (int e = 0; e < N; ++e) acc = acc + weight(J, e, i) * value(J, e, i);
    o_top[i] = acc;
  }
  collapse_rows(geo, og, opyr.data(), out, [&](int j, int x, int y, std::size_t i) {
    const int wc = geo.w[j + 1], hc = geo.h[j + 1];
    float acc = 0.0f;
    for (int e = 0; e < N; ++e) {
      const float* vc = pyr.data() + geo.at(j + 1, e);
      const float up = core::llf_up_at([&](int xx, int yy) { return vc[static_cast<std::size_t>(yy) * wc + xx]; }, wc, hc, x, y);
      acc = acc + weight(j, e, i) * (value(j, e, i) - up);
    }
    return acc;
  });
}

FrameStats exposure_fusion_map(const ImageView& in, const Params& params, const core::ColourSettings& c,
                               const ImageView& out, double* stats_ms, const CurveStatsHook* hook) {
  const int w = in.width, h = in.height;
  const std::size_t count = static_cast<std::size_t>(w) * h;
  auto lw = scratch<float>(count);
  const auto t0 = std::chrono::steady_clock::now();
  const FrameStats stats = stats_with_luminance_plane(in, lw.get());
  if (stats_ms) *stats_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  const FrameStats used = hook && *hook ? (*hook)(stats) : stats;
  const core::FusionFrame f =
      core::make_fusion_frame(core::local_params_from(params).fusion, used.max_luminance, used.log_average);
  // p from L_w, q from the sanitised channels (a second read of the input).
  auto q = scratch<float>(3 * count);
  parallel_rows(h, [&](int, int y0, int y1) {
    Chunk chunk;
    for (int y = y0; y < y1; ++y)
      for (int x0 = 0; x0 < w; x0 += kChunk) {
        const int n = std::min(kChunk, w - x0);
        load_chunk(in.row<const void>(y), x0, n, in.channels, in.type, chunk);
        const std::size_t at = static_cast<std::size_t>(y) * w + x0;
        for (int i = 0; i < n; ++i) {
          q[at + i] = core::fusion_encode(chunk.r[i]);
          q[count + at + i] = core::fusion_encode(chunk.g[i]);
          q[2 * count + at + i] = core::fusion_encode(chunk.b[i]);
          lw[at + i] = core::fusion_encode(lw[at + i]);  // p, in place
        }
      }
  });
  auto weights = scratch<float>(static_cast<std::size_t>(f.n) * count);
  exposure_fusion_weights(lw.get(), q.get(), w, h, f, weights.get());
  q.reset();
  auto o = scratch<float>(count);
  exposure_fusion_output(lw.get(), weights.get(), w, h, f, o.get());
  map_rows(in, c, out, [&](int y, int x0, int n, Chunk& chunk) {
    const float* v = o.get() + static_cast<std::size_t>(y) * w + x0;
    for (int i = 0; i < n; ++i) chunk.ld[i] = core::fusion_display(v[i]);
  });
  return stats;
}

}  // namespace tonekit::cpu::local
