// Presets: an operator, its parameters and the glare settings as one JSON document, the file
// `tonekit map --preset FILE` reads and the studio saves, loads and writes beside an export:
//   {"operator": "reinhard", "params": {"key": 0.12, "saturation": 0.8},
//    "glare": {"strength": 0.1, "threshold": 30, "radius": 0.01},
//    "night": {"acuity": 0.002, "blur": "separable"}}
// "params", "glare" and "night" are optional (registry defaults, glare off, night vision off; a
// "night" object switches it on, its fields are night_params()' names and "blur"). Every value is
// checked here, through the registry (prepare_params), the glare's validator (plan_glare) and
// night's (prepare_night), so a preset that loads is one that maps.
#pragma once
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tonekit/blur.hpp"
#include "tonekit/night.hpp"
#include "tonekit/operators.hpp"
#include "tonekit/status.hpp"

namespace tonekit::cli {

struct Preset {
  std::string op = "reinhard";
  // NAME=VALUE as --set takes them; numbers in the shortest text that reads back exactly.
  std::vector<std::pair<std::string, std::string>> settings;
  GlareParams glare;  // strength 0: off
  NightParams night;  // on false: off
};

// Shortest round-trip text of a number (parsed back to the same double).
std::string number_text(double v);

// From a parsed JSON object (the studio's requests carry the same fields).
Result<Preset> preset_from_json(const nlohmann::json& doc);
Result<Preset> parse_preset(std::string_view text);
Result<Preset> load_preset(const std::string& path);

// The validated parameters of a preset (unknown operator or out-of-range value: the registry's
// invalid_argument message).
Result<Params> preset_params(const Preset& preset);

// The preset of a validated parameter set, glare and night vision, as JSON text (what
// parse_preset reads); "night" only when it is on.
std::string preset_json(const Params& params, const GlareParams& glare, const NightParams& night = {});

}  // namespace tonekit::cli
