#include "core/map_settings.hpp"

#include <cmath>
#include <cstring>

#include "core/colour.hpp"

namespace tonekit::core {

CurveKind curve_kind_for(const OperatorDesc& op) {
  const std::string_view id = op.id;
  if (id == "log") return CurveKind::log;
  if (id == "drago") return CurveKind::drago;
  if (id == "reinhard") return CurveKind::reinhard;
  if (id == "histeq") return CurveKind::histeq;
  return CurveKind::linear;
}

double estimate_key(const FrameStats& stats) {
  double lmin = stats.min_positive_luminance > 0 ? stats.min_positive_luminance : kLogDelta;
  double lmax = stats.max_luminance;
  if (!(lmax > lmin) || !(stats.log_average > 0)) return 0.18;
  double l2min = std::log2(lmin), l2max = std::log2(lmax), l2avg = std::log2(stats.log_average);
  return 0.18 * std::pow(4.0, (2.0 * l2avg - l2min - l2max) / (l2max - l2min));
}

HistogramRange histogram_range(const FrameStats& stats) {
  HistogramRange r;
  if (stats.max_luminance > 0 && stats.min_positive_luminance > 0) {
    r.log_min = std::log(stats.min_positive_luminance);
    double range = std::log(stats.max_luminance) - r.log_min;
    r.inv_log_range = range > 0 ? 1.0 / range : 0.0;
  }
  return r;
}

CurveSettings make_curve_settings(const Params& p, const FrameStats& stats, const float* hist_table) {
  CurveSettings s;
  s.kind = curve_kind_for(p.op());
  const double lmax = stats.max_luminance;
  switch (s.kind) {
    case CurveKind::linear: {
      double exposure = p.get("exposure");
      if (p.get("normalize") != 0) {
        double range = lmax - stats.min_luminance;
        if (range > 0) {
          s.linear_offset = stats.min_luminance;
          s.linear_scale = exposure / range;
        } else {  // flat image: map it to `exposure`
          s.linear_scale = lmax > 0 ? exposure / lmax : exposure;
        }
      } else {
        s.linear_scale = exposure;
      }
      break;
    }
    case CurveKind::log: {
      s.log_exposure = p.get("exposure");
      double denominator = std::log1p(s.log_exposure * lmax);
      s.log_inv_denominator = denominator > 0 ? 1.0 / denominator : 1.0;
      break;
    }
    case CurveKind::drago: {
      double e = p.get("exposure");
      double lwa = stats.log_average > 0 ? stats.log_average : 1.0;
      s.drago_input_scale = e / lwa;
      double scaled_max = lmax * s.drago_input_scale;
      if (!(scaled_max > 0)) scaled_max = 1.0;
      s.drago_inv_lwmax = 1.0 / scaled_max;
      s.drago_output_scale = 0.01 * p.get("ld_max") / std::log10(scaled_max + 1.0);
      s.drago_bias_power = std::log(p.get("bias")) / std::log(0.5);
      break;
    }
    case CurveKind::reinhard: {
      double key = p.get("auto_key") != 0 ? estimate_key(stats) : p.get("key");
      double lavg = stats.log_average > 0 ? stats.log_average : 1.0;
      s.reinhard_scale = key / lavg;
      double white = p.get("white");
      if (white == 0) white = lmax * s.reinhard_scale;
      s.reinhard_inv_white_sq = white > 0 ? 1.0 / (white * white) : 0.0;
      break;
    }
    case CurveKind::histeq: {
      HistogramRange r = histogram_range(stats);
      s.hist_log_min = r.log_min;
      s.hist_inv_log_range = r.inv_log_range;
      s.hist_bins = static_cast<int>(p.get("bins"));
      s.hist_table = hist_table;
      break;
    }
  }
  return s;
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
