// Temporal parameters' registry and the host entry of the adaptation model
// (tonekit/temporal.hpp; the maths is core/temporal_model.hpp).
#include <string>

#include "core/map_settings.hpp"
#include "core/temporal_model.hpp"
#include "tonekit/temporal.hpp"

namespace tonekit {

const std::vector<ParamDesc>& temporal_params() {
  static const TemporalParams d;
  static const std::vector<ParamDesc> params{
      {"tau_brighten", d.tau_brighten, 0.0, 60.0,
       "seconds: time constant when the scene gets brighter (cones, Krawczyk et al. 2005: 0.1 s); 0 = instant"},
      {"tau_darken", d.tau_darken, 0.0, 60.0,
       "seconds: time constant when the scene gets darker (rods, Krawczyk et al. 2005: 0.4 s); 0 = instant"},
      {"cut_low", d.cut_low_stops, 0.0, 30.0,
       "stops: a jump of the frame log-average below this adapts normally (scene-cut hysteresis, low end)"},
      {"cut_high", d.cut_high_stops, 0.0, 30.0,
       "stops: a jump at or above this is a scene cut: the state resets to the new frame"},
  };
  return params;
}

Result<TemporalParams> prepare_temporal(const std::vector<std::pair<std::string, std::string>>& settings) {
  const std::vector<ParamDesc>& descs = temporal_params();
  double values[4];
  for (std::size_t i = 0; i < descs.size(); ++i) values[i] = descs[i].default_value;
  for (const auto& [name, text] : settings) {
    std::size_t i = 0;
    while (i < descs.size() && name != descs[i].name) ++i;
    if (i == descs.size()) {
      std::string known;
      for (const ParamDesc& d : descs) known += (known.empty() ? "" : ", ") + std::string(d.name);
      return invalid_argument("unknown temporal parameter '" + name + "' (known: " + known + ")");
    }
    char* end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    if (text.empty() || end != text.c_str() + text.size())
      return invalid_argument("temporal parameter '" + name + "': '" + text + "' is not a number");
    if (!(v >= descs[i].min_value && v <= descs[i].max_value))
      return invalid_argument("temporal parameter '" + name + "' = " + text + " is out of range [" +
                              std::to_string(descs[i].min_value) + ", " + std::to_string(descs[i].max_value) + "]");
    values[i] = v;
  }
  if (values[2] > values[3])
    return invalid_argument("temporal parameters: cut_low (" + std::to_string(values[2]) +
                            ") must not exceed cut_high (" + std::to_string(values[3]) + ")");
  return TemporalParams{values[0], values[1], values[2], values[3]};
}

TemporalState seeded_state(const FrameStats& frame) {
  TemporalState s;
  core::temporal_step(s, core::curve_stats_from(frame), TemporalParams{}, 0.0);
  s.cuts = 0;
  return s;
}

FrameStats temporal_update(TemporalState& state, const FrameStats& frame, const TemporalParams& params, double dt) {
  const core::CurveStats adapted = core::temporal_step(state, core::curve_stats_from(frame), params, dt < 0 ? 0 : dt);
  FrameStats out = frame;
  out.log_average = adapted.log_average;
  out.max_luminance = adapted.max_luminance;
  out.peak_luminance = adapted.max_luminance;
  return out;
}

}  // namespace tonekit
