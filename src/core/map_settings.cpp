#include "core/map_settings.hpp"

#include <cmath>
#include <cstring>

#include "core/colour.hpp"
#include "core/curve_setup.hpp"

namespace tonekit::core {

CurveKind curve_kind_for(const OperatorDesc& op) {
  const std::string_view id = op.id;
  if (id == "log") return CurveKind::log;
  if (id == "drago") return CurveKind::drago;
  if (id == "reinhard") return CurveKind::reinhard;
  if (id == "histeq") return CurveKind::histeq;
  return CurveKind::linear;
}

double peak_percentile_of(const Params& p) { return p.has("peak_percentile") ? p.get("peak_percentile") : 100.0; }

CurveParams curve_params_from(const Params& p) {
  CurveParams c;
  c.kind = curve_kind_for(p.op());
  c.peak_percentile = peak_percentile_of(p);
  switch (c.kind) {
    case CurveKind::linear:
      c.exposure = p.get("exposure");
      c.normalize = p.get("normalize");
      break;
    case CurveKind::log:
      c.exposure = p.get("exposure");
      break;
    case CurveKind::drago:
      c.exposure = p.get("exposure");
      c.bias = p.get("bias");
      c.ld_max = p.get("ld_max");
      break;
    case CurveKind::reinhard:
      c.key = p.get("key");
      c.auto_key = p.get("auto_key");
      c.white = p.get("white");
      break;
    case CurveKind::histeq:
      c.bins = static_cast<int>(p.get("bins"));
      break;
  }
  return c;
}

CurveStats curve_stats_from(const FrameStats& s) { return curve_stats_hd(s); }

double estimate_key(const FrameStats& stats) { return estimate_key_hd(curve_stats_from(stats)); }

HistogramRange histogram_range(const FrameStats& stats) {
  HistogramRange r;
  histogram_range_hd(curve_stats_from(stats), r.log_min, r.inv_log_range);
  return r;
}

CurveSettings make_curve_settings(const Params& p, const FrameStats& stats, const float* hist_table) {
  return make_curve_settings_hd(curve_params_from(p), curve_stats_from(stats), hist_table);
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
