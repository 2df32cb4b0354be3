// CPU reference backend: statistics pass, (histogram pass for histeq), then one map pass per
// row: curve -> colour reconstruction -> transfer -> quantise (docs/architecture.md, a frame's
// data flow).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>

#include "core/colour.hpp"
#include "core/half.hpp"
#include "core/map_settings.hpp"
#include "cpu/parallel.hpp"
#include "cpu/pixel_access.hpp"
#include "cpu/stats.hpp"
#include "cpu/map_kernels.hpp"
#include "cpu/local/local_tone_map.hpp"
#include "tonekit/tonemap.hpp"

namespace tonekit::cpu {
namespace {

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

Status check_views(const ImageView& in, const ImageView& out) {
  if (in.space != MemorySpace::host || out.space != MemorySpace::host)
    return invalid_argument("CPU backend needs host memory views");
  if (in.type != PixelType::f32 && in.type != PixelType::f16)
    return invalid_argument("input pixel type must be float or half");
  if (in.channels != 1 && in.channels != 3 && in.channels != 4)
    return invalid_argument("input must have 1, 3 or 4 channels");
  if (out.channels != 3 && out.channels != 4) return invalid_argument("output must have 3 or 4 channels");
  if (in.width != out.width || in.height != out.height)
    return invalid_argument("input and output dimensions differ");
  if (in.width <= 0 || in.height <= 0) return invalid_argument("empty image");
  if (!in.data || !out.data) return invalid_argument("null image data");
  return {};
}

}  // namespace

core::CurveSettings global_curve(const ImageView& in, const core::CurvePlan& plan, FrameStats& stats,
                                 const CurveStatsHook* hook, std::vector<float>& hist_table) {
  apply_robust_peak(in, stats, plan.peak_percentile);
  hist_table.clear();
  if (plan.histogram_bins > 0) hist_table = core::histeq_table(log_luminance_histogram(in, stats, plan.histogram_bins));
  return core::make_curve_settings(plan, hook && *hook ? (*hook)(stats) : stats, hist_table.data());
}

Status tone_map(const ImageView& in, const Params& params, const ImageView& out, FrameStats* stats_out,
                MapTimings* timings, const CurveStatsHook* hook) {
  if (Status s = check_views(in, out); !s.ok()) return s;
  if (params.op().locality == Locality::local) return local::tone_map_local(in, params, out, stats_out, timings, hook);
  const auto t0 = Clock::now();
  FrameStats stats = compute_stats(in);
  std::vector<float> hist_table;
  const core::CurveSettings curve = global_curve(in, core::compile_curve_plan(params), stats, hook, hist_table);
  const double stats_ms = ms_since(t0);

  const auto t1 = Clock::now();
  const core::ColourSettings colour = core::make_colour_settings(params);
  parallel_row_blocks(in.height, [&](int y0, int y1) {
    Chunk chunk;
    for (int y = y0; y < y1; ++y) {
      const void* in_row = in.row<const void>(y);
      void* out_row = out.row<void>(y);
      for (int x0 = 0; x0 < in.width; x0 += kChunk) {
        const int n = std::min(kChunk, in.width - x0);
        load_chunk(in_row, x0, n, in.channels, in.type, chunk);
        map_colour_chunk(curve, chunk, n, static_cast<float>(colour.saturation));
        store_chunk(chunk, x0, n, y, out.channels, out.type, static_cast<float>(colour.gamma), colour.dither, out_row);
      }
    }
  });
  if (stats_out) *stats_out = stats;
  if (timings) {
    timings->stats_ms = stats_ms;
    timings->map_ms = ms_since(t1);
    timings->total_ms = ms_since(t0);
  }
  return {};
}

}  // namespace tonekit::cpu
