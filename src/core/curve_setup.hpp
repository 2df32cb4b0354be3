// __host__ __device__ twin of core::make_curve_settings (map_settings.cpp): from plain
// operator parameters and frame statistics to the curve constants. The CUDA backend runs it
// on the device, in the last block of the statistics pass, so the frame's key never leaves
// the device; the CPU can call the same function (integrator: make map_settings.cpp forward
// to it so the two cannot drift).
#pragma once
#include <cmath>

#include "core/colour.hpp"
#include "core/curves.hpp"
#include "core/hd.hpp"
#include "tonekit/temporal.hpp"

namespace tonekit::core {

// Temporal adaptation of a frame on the device: the model's parameters, the frame's time step
// and the stream's state (device memory; null: adaptation off).
struct TemporalControl {
  TemporalParams params{};
  double dt = 0.0;
  TemporalState* state = nullptr;
};

// The operator parameters the curves read, as plain data (no strings, no registry lookups).
struct CurveParams {
  CurveKind kind = CurveKind::linear;
  double exposure = 1.0;   // linear, log, drago
  double normalize = 1.0;  // linear
  double key = 0.18;       // reinhard
  double auto_key = 0.0;   // reinhard
  double white = 0.0;      // reinhard
  double bias = 0.85;      // drago
  double ld_max = 100.0;   // drago
  int bins = 1024;         // histeq
  // The robust peak (core/robust_peak.hpp): below 100 the statistics pass is followed by a
  // histogram of log luminance and the curves read that percentile of it as L_max.
  double peak_percentile = 100.0;
  // Temporal adaptation (tonekit/temporal.hpp), run where the frame's statistics are finished:
  // when `temporal_state` is set, the curves read the adapted key and peak of
  // core::temporal_step(*temporal_state, frame, temporal, temporal_dt). Null: the frame's own.
  TemporalControl temporal{};
};

// The statistics the curves read (a subset of tonekit::FrameStats).
struct CurveStats {
  double log_average = 0.0;
  double min_luminance = 0.0;
  double max_luminance = 0.0;
  double min_positive_luminance = 0.0;
};

// The statistics the curves read from a frame's: L_max is the frame's peak (the robust peak when
// one was derived, else the brightest pixel). The one conversion both backends use.
TK_HD CurveStats curve_stats_hd(const FrameStats& f) {
  CurveStats c;
  c.log_average = f.log_average;
  c.min_luminance = f.min_luminance;
  c.max_luminance = f.peak_luminance > 0.0 ? f.peak_luminance : f.max_luminance;
  c.min_positive_luminance = f.min_positive_luminance;
  return c;
}

TK_HD double estimate_key_hd(const CurveStats& s) {
  double lmin = s.min_positive_luminance > 0 ? s.min_positive_luminance : kLogDelta;
  double lmax = s.max_luminance;
  if (!(lmax > lmin) || !(s.log_average > 0)) return 0.18;
  double l2min = log2(lmin), l2max = log2(lmax), l2avg = log2(s.log_average);
  return 0.18 * pow(4.0, (2.0 * l2avg - l2min - l2max) / (l2max - l2min));
}

TK_HD void histogram_range_hd(const CurveStats& s, double& log_min, double& inv_log_range) {
  log_min = 0.0;
  inv_log_range = 0.0;
  if (s.max_luminance > 0 && s.min_positive_luminance > 0) {
    log_min = log(s.min_positive_luminance);
    double range = log(s.max_luminance) - log_min;
    inv_log_range = range > 0 ? 1.0 / range : 0.0;
  }
}

TK_HD CurveSettings make_curve_settings_hd(const CurveParams& p, const CurveStats& st, const float* hist_table) {
  CurveSettings s;
  s.kind = p.kind;
  const double lmax = st.max_luminance;
  switch (s.kind) {
    case CurveKind::linear: {
      if (p.normalize != 0) {
        double range = lmax - st.min_luminance;
        if (range > 0) {
          s.linear_offset = st.min_luminance;
          s.linear_scale = p.exposure / range;
        } else {
          s.linear_scale = lmax > 0 ? p.exposure / lmax : p.exposure;
        }
      } else {
        s.linear_scale = p.exposure;
      }
      break;
    }
    case CurveKind::log: {
      s.log_exposure = p.exposure;
      double denominator = log1p(s.log_exposure * lmax);
      s.log_inv_denominator = denominator > 0 ? 1.0 / denominator : 1.0;
      break;
    }
    case CurveKind::drago: {
      double lwa = st.log_average > 0 ? st.log_average : 1.0;
      s.drago_input_scale = p.exposure / lwa;
      double scaled_max = lmax * s.drago_input_scale;
      if (!(scaled_max > 0)) scaled_max = 1.0;
      s.drago_inv_lwmax = 1.0 / scaled_max;
      s.drago_output_scale = 0.01 * p.ld_max / log10(scaled_max + 1.0);
      s.drago_bias_power = log(p.bias) / log(0.5);
      break;
    }
    case CurveKind::reinhard: {
      double key = p.auto_key != 0 ? estimate_key_hd(st) : p.key;
      double lavg = st.log_average > 0 ? st.log_average : 1.0;
      s.reinhard_scale = key / lavg;
      double white = p.white;
      if (white == 0) white = lmax * s.reinhard_scale;
      s.reinhard_inv_white_sq = white > 0 ? 1.0 / (white * white) : 0.0;
      break;
    }
    case CurveKind::histeq: {
      histogram_range_hd(st, s.hist_log_min, s.hist_inv_log_range);
      s.hist_bins = p.bins;
      s.hist_table = hist_table;
      break;
    }
  }
  return s;
}

}  // namespace tonekit::core
