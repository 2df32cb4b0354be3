// A frame's curve from its statistics, the same code on both backends: the CPU reference calls
// prepare_curve_hd on the host; the CUDA backend runs it on the device, in the last block of the
// statistics pass, so the frame's key never leaves the device.
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

// An operator's Params compiled once, at the API boundary (core::compile_curve_plan), into plain
// data the kernels take by value: no strings, no registry lookups per frame.
struct CurvePlan {
  int op = -1;  // index in GlobalOperators; -1: no global curve (local operators)
  OperatorBytes<max_settings_bytes(GlobalOperators{})> settings{};  // Op::Settings
  int histogram_bins = 0;  // > 0: the curve reads the equalisation table of this many bins
  // The robust peak (core/robust_peak.hpp): below 100 the statistics pass is followed by a
  // histogram of log luminance and the curves read that percentile of it as L_max.
  double peak_percentile = 100.0;
  // Temporal adaptation (tonekit/temporal.hpp), run where the frame's statistics are finished:
  // when `temporal.state` is set, the curves read the adapted key and peak of
  // core::temporal_step(*temporal.state, frame, temporal.params, temporal.dt). Null: the frame's own.
  TemporalControl temporal{};
};

// The frame's curve: Op::prepare on the plan's settings and the frame's statistics. `hist_table`
// (the equalisation table, plan.histogram_bins entries) must outlive the curve.
TK_HD CurveSettings prepare_curve_hd(const CurvePlan& plan, const CurveStats& stats, const float* hist_table) {
  CurveSettings s;
  s.op = plan.op;
  visit_operator<GlobalOperators>(plan.op, [&](auto op) {
    using Op = decltype(op);
    s.constants.set(Op::prepare(plan.settings.template get<typename Op::Settings>(), stats, hist_table));
  });
  return s;
}

}  // namespace tonekit::core
