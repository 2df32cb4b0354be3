#include "renderer.hpp"

#include <chrono>


namespace tonekit::studio {

namespace {
double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}
}  // namespace

Status Renderer::render(const Image& scene, const Params& params, const GlareParams& glare, const NightParams& night,
                        OutputFormat format, OutputImage& out, FrameStats* stats, RenderTimings* timings, const Temporal* temporal) const {
  const auto t0 = std::chrono::steady_clock::now();
  RenderTimings t;
  MapTimings map;
  Status status;
  auto map_scene = [&](const Image& lit) {
    if (!temporal) return tone_map(lit, params, format, backend_, out, stats, &map);
    return tone_map_temporal(lit.view(), params, format, backend_, *temporal->state, temporal->params, temporal->dt, out,
                             stats, &map);
  };
  if (glare.strength > 0 || night.on) {
    // Glare and night vision edit the scene in place: they work on a copy so the cached image
    // stays clean. The order is map's (apps/batch_pipeline.cpp).
    Image lit = scene;
    if (glare.strength > 0) {
      const auto g0 = std::chrono::steady_clock::now();
      status = apply_glare(lit, glare, backend_);
      t.glare_ms = ms_since(g0);
    }
    if (status.ok() && night.on) {
      const auto n0 = std::chrono::steady_clock::now();
      status = apply_night(lit, night, backend_);
      t.night_ms = ms_since(n0);
    }
    if (status.ok()) status = map_scene(lit);
  } else {
    status = map_scene(scene);
  }
  t.stats_ms = map.stats_ms;
  t.map_ms = map.map_ms;
  t.total_ms = ms_since(t0);
  if (timings) *timings = t;
  return status;
}

}  // namespace tonekit::studio
