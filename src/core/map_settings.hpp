// From validated Params and frame statistics to the plain settings the curves and the colour
// stage read. Shared by both backends so they derive identical constants.
#pragma once
#include <cstdint>
#include <vector>

#include "core/curve_setup.hpp"
#include "core/curves.hpp"
#include "tonekit/operators.hpp"
#include "tonekit/tonemap.hpp"

namespace tonekit::core {

struct ColourSettings {
  double saturation = 1.0;
  double gamma = 0.0;  // 0 = sRGB
  bool dither = true;
};

// The operator's Params as the plain plan of curve_setup.hpp, compiled once per call or stream:
// its global curve's settings (op -1 for a local operator), the histogram it needs, the peak.
CurvePlan compile_curve_plan(const Params& params);
// The operator's peak_percentile, 100 (the brightest pixel) for operators without one.
double peak_percentile_of(const Params& params);
CurveStats curve_stats_from(const FrameStats& stats);

// Reinhard 2002 ("Parameter estimation for photographic tone reproduction", Eq 1) automatic key.
double estimate_key(const FrameStats& stats);

// hist_table must outlive the returned settings when plan.histogram_bins > 0 (else may be null).
CurveSettings make_curve_settings(const CurvePlan& plan, const FrameStats& stats, const float* hist_table);
CurveSettings make_curve_settings(const Params& params, const FrameStats& stats, const float* hist_table);
ColourSettings make_colour_settings(const Params& params);

// histeq bin range over log luminance of positive pixels.
struct HistogramRange {
  double log_min = 0.0;
  double inv_log_range = 0.0;
};
HistogramRange histogram_range(const FrameStats& stats);

// The equalisation table from a histogram: exclusive scan (the CDF), then the mid-rank of each
// bin normalised by the count: table[b] = (cdf[b] + h[b] / 2) / total.
std::vector<float> histeq_table(const std::vector<std::uint64_t>& histogram);

}  // namespace tonekit::core
