// Temporal adaptation for video and real-time scenes: the adapted log-average
// luminance (the "key" the operators scale by) and the adapted peak follow each frame's own
// values with exponential time constants, separate for brightening and darkening, driven by the
// frame's time step in seconds, so the result does not depend on the frame rate.
//
// Model (src/core/temporal_model.hpp, one definition for the CPU and the device), in the log
// domain, the domain of the log-average:
//   a = 1 - exp(-dt / tau),  tau = tau_brighten when the frame is brighter than the state, else tau_darken
//   ln L_adapt <- ln L_adapt + (ln L_frame - ln L_adapt) * (a + (1 - a) * w)
// the exponential feedback of the average-luminance seed (MJP: lum + (target - lum)(1 - exp(-dt tau))),
// with the time constants of Krawczyk, Myszkowski & Seidel 2005 (cones 0.1 s for brightening,
// rods 0.4 s for darkening; Pattanaik et al. 2000: dark adaptation is the slower one). For a
// still scene the state converges monotonically (no overshoot: 0 <= a + (1-a) w <= 1).
// w is the scene-cut weight, libplacebo's hysteresis: d = |log2 L_frame(n) - log2 L_frame(n-1)|
// (the jump between consecutive frames' own log-averages), w = clamp((d - cut_low) / (cut_high - cut_low), 0, 1):
// 0 below cut_low (normal adaptation), 1 at or above cut_high (the state resets to the new frame).
// Frame N is mapped with the state after folding in frame N (no one-frame delay).
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "tonekit/operators.hpp"
#include "tonekit/status.hpp"
#include "tonekit/tonemap.hpp"

namespace tonekit {

// User-tunable, part of the look. Defaults and ranges come from temporal_params().
struct TemporalParams {
  double tau_brighten = 0.1;    // s
  double tau_darken = 0.4;      // s
  double cut_low_stops = 3.0;   // jumps below this adapt normally
  double cut_high_stops = 5.0;  // jumps at or above this reset the state
};

// The registry of the temporal parameters (name, default, range, help): CLI flags, studio
// sliders and benchmarks read it.
const std::vector<ParamDesc>& temporal_params();
// Defaults filled, then NAME=VALUE settings applied and validated (ranges, cut_low <= cut_high).
Result<TemporalParams> prepare_temporal(const std::vector<std::pair<std::string, std::string>>& settings = {});

// Per-stream state: plain data, readable, resettable (= {}) and seedable.
struct TemporalState {
  std::uint32_t seeded = 0;      // 0: the next frame seeds the state (first frame, after reset)
  std::uint32_t last_cut = 0;    // 1 when the last frame reset the state (a scene cut or the seed)
  double log_key = 0.0;          // ln of the adapted log-average luminance
  double log_peak = 0.0;         // ln of the adapted peak luminance
  double last_frame_log_key = 0.0;  // ln of the previous frame's own log-average (cut detector)
  std::uint64_t frames = 0;      // frames folded in since the last reset
  std::uint64_t cuts = 0;        // scene cuts detected since the state was created or seeded
};

// A state seeded as if `frame` had been seen alone.
TemporalState seeded_state(const FrameStats& frame);

// Folds one frame (its own statistics, dt seconds after the previous one) into `state` and
// returns the statistics the curves use for it: the frame's, with log_average and
// max_luminance replaced by the adapted key and peak.
FrameStats temporal_update(TemporalState& state, const FrameStats& frame, const TemporalParams& params, double dt);

// One frame of a stream through the host API (tonemap.hpp's tone_map) with temporal adaptation.
// `state` is the stream's state before the frame (TemporalState{}: this frame seeds it) and after
// it on return; `dt` the seconds since the previous frame. The same model on both backends: on
// the CPU through tone_map's curve hook (temporal_update), on CUDA on the device (ToneMapper's
// temporal mode, seeded with `state`, the state read back after the frame). *stats gets the
// frame's own statistics, as tone_map's.
Status tone_map_temporal(const ImageView& input, const Params& params, OutputFormat format, Backend backend,
                         TemporalState& state, const TemporalParams& temporal, double dt, OutputImage& out,
                         FrameStats* stats = nullptr, MapTimings* timings = nullptr);

}  // namespace tonekit
