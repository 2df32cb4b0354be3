#include "cpu/local/local_tone_map.hpp"

#include <chrono>


namespace tonekit::cpu::local {
namespace {
using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }
}  // namespace

Status tone_map_local(const ImageView& in, const Params& params, const ImageView& out, FrameStats* stats_out,
                      MapTimings* timings, const CurveStatsHook* hook) {
  const auto t0 = Clock::now();
  const core::ColourSettings colour = core::make_colour_settings(params);
  double stats_ms = 0.0;
  FrameStats stats;
  switch (core::local_kind_for(params.op())) {
    case core::LocalKind::reinhard_gauss: stats = reinhard_gauss_map(in, params, colour, out, &stats_ms, hook); break;
    case core::LocalKind::reinhard_box: stats = reinhard_sat_map(in, params, colour, out, &stats_ms, hook); break;
    case core::LocalKind::drago_local: stats = drago_local_map(in, params, colour, out, &stats_ms, hook); break;
    case core::LocalKind::local_laplacian: stats = local_laplacian_map(in, params, colour, out, &stats_ms, hook); break;
    case core::LocalKind::exposure_fusion: stats = exposure_fusion_map(in, params, colour, out, &stats_ms, hook); break;
    case core::LocalKind::none:
      return invalid_argument(std::string("operator '") + params.op().id + "' has no CPU local implementation");
  }
  if (stats_out) *stats_out = stats;
  if (timings) {
    timings->stats_ms = stats_ms;  // the statistics pass, fused with the first local pass
    timings->map_ms = ms_since(t0) - stats_ms;
    timings->total_ms = ms_since(t0);
  }
  return {};
}

}  // namespace tonekit::cpu::local
