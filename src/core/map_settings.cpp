#include "core/map_settings.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "core/colour.hpp"
#include "core/curve_setup.hpp"

namespace tonekit::core {

double peak_percentile_of(const Params& p) { return p.has("peak_percentile") ? p.get("peak_percentile") : 100.0; }

CurvePlan compile_curve_plan(const Params& p) {
  CurvePlan plan;
  plan.peak_percentile = peak_percentile_of(p);
  const bool found = visit_all<GlobalOperators>([&](auto op, int index) {
    using Op = decltype(op);
    if (&Op::descriptor() != &p.op()) return false;
    const typename Op::Settings settings = Op::settings_from(p);
    plan.op = index;
    plan.settings.set(settings);
    plan.histogram_bins = Op::histogram_bins(settings);
    return true;
  });
  if (!found && p.op().locality == Locality::global) {
    // A global descriptor outside GlobalOperators cannot come from the registry (it is built
    // from the list): a programming error, not an input one.
    std::fprintf(stderr, "tonekit: internal error: global operator '%s' is not in GlobalOperators\n", p.op().id);
    std::abort();
  }
  return plan;
}

CurveStats curve_stats_from(const FrameStats& s) { return curve_stats_hd(s); }

double estimate_key(const FrameStats& stats) { return estimate_key_hd(curve_stats_from(stats)); }

HistogramRange histogram_range(const FrameStats& stats) {
  HistogramRange r;
  histogram_range_hd(curve_stats_from(stats), r.log_min, r.inv_log_range);
  return r;
}

CurveSettings make_curve_settings(const CurvePlan& plan, const FrameStats& stats, const float* hist_table) {
  return prepare_curve_hd(plan, curve_stats_from(stats), hist_table);
}

CurveSettings make_curve_settings(const Params& p, const FrameStats& stats, const float* hist_table) {
  return make_curve_settings(compile_curve_plan(p), stats, hist_table);
}

ColourSettings make_colour_settings(const Params& p) {
  ColourSettings c;
  c.saturation = p.get("saturation");
  c.gamma = p.get("gamma");
  c.dither = p.get("dither") != 0;
  return c;
}

std::vector<float> histeq_table(const std::vector<std::uint64_t>& histogram) {
  std::vector<float> table(histogram.size(), 0.0f);
  std::uint64_t total = 0;
  for (std::uint64_t h : histogram) total += h;
  if (total == 0) return table;
  std::uint64_t cdf = 0;  // exclusive scan
  for (std::size_t b = 0; b < histogram.size(); ++b) {
    table[b] = static_cast<float>((static_cast<double>(cdf) + 0.5 * static_cast<double>(histogram[b])) /
                                  static_cast<double>(total));
    cdf += histogram[b];
  }
  return table;
}

}  // namespace tonekit::core
