// The temporal adaptation model of tonekit/temporal.hpp as __host__ __device__ maths: the CPU
// reference calls it per frame; the CUDA backend runs it in the last block of the statistics
// pass, so the adapted key never leaves the device. Double precision throughout, the same
// operations in the same order on both, so the states agree bit for bit.
#pragma once
#include <math.h>

#include "core/colour.hpp"
#include "core/curve_setup.hpp"
#include "core/hd.hpp"
#include "tonekit/temporal.hpp"

namespace tonekit::core {

// Plain copy of TemporalParams for kernels (the public struct is plain data too).
using TemporalModel = TemporalParams;

// ln of a luminance kept finite: black frames have L = 0.
TK_HD double temporal_log(double l) { return log(l > kLogDelta ? l : kLogDelta); }

// 1 - exp(-dt / tau): the share of the gap closed in dt seconds; tau = 0 adapts at once.
TK_HD double adaptation_share(double dt, double tau) { return tau > 0.0 ? -expm1(-dt / tau) : 1.0; }

// libplacebo-style hysteresis between the two thresholds (stops).
TK_HD double scene_cut_weight(double jump_stops, double low, double high) {
  if (jump_stops >= high) return 1.0;
  if (jump_stops <= low) return 0.0;
  return (jump_stops - low) / (high - low);
}

// One step of ln x toward ln target.
TK_HD double adapt_log(double current, double target, double dt, const TemporalModel& m, double cut) {
  const double share = adaptation_share(dt, target > current ? m.tau_brighten : m.tau_darken);
  const double rate = cut >= 1.0 ? 1.0 : share + (1.0 - share) * cut;
  return current + (target - current) * rate;
}

// Folds a frame (its curve statistics) into the state; returns the statistics the curves use.
// On the device it runs in a one-thread kernel of its own (cuda::launch_temporal_step).
TK_HD CurveStats temporal_step(TemporalState& s, const CurveStats& frame, const TemporalModel& m, double dt) {
  const double frame_key = temporal_log(frame.log_average);
  const double frame_peak = temporal_log(frame.max_luminance);
  double cut = 1.0;
  if (s.seeded) {
    const double jump = fabs(frame_key - s.last_frame_log_key) * 1.4426950408889634;  // 1 / ln 2
    cut = scene_cut_weight(jump, m.cut_low_stops, m.cut_high_stops);
  }
  if (cut >= 1.0) {
    if (s.seeded) ++s.cuts;
    s.log_key = frame_key;
    s.log_peak = frame_peak;
    s.frames = 0;
    s.last_cut = 1;
  } else {
    s.log_key = adapt_log(s.log_key, frame_key, dt, m, cut);
    s.log_peak = adapt_log(s.log_peak, frame_peak, dt, m, cut);
    s.last_cut = 0;
  }
  s.seeded = 1;
  s.last_frame_log_key = frame_key;
  ++s.frames;
  CurveStats out = frame;
  out.log_average = exp(s.log_key);
  // A black frame keeps max 0 (the curves map it to black); otherwise the adapted peak.
  out.max_luminance = frame.max_luminance > 0.0 ? exp(s.log_peak) : 0.0;
  return out;
}

}  // namespace tonekit::core
