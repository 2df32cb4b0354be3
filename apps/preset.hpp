// Presets: an operator, its parameters and the glare settings as one JSON document, the file
// `tonekit map --preset FILE` reads and the studio saves, loads and writes beside an export:
//   {"operator": "reinhard", "params": {"key": 0.12, "saturation": 0.8},
//    "glare": {"strength": 0.1, "threshold": 30, "radius": 0.01}}
// "params" and "glare" are optional (registry defaults, glare off). Every value is checked here,
// through the registry (prepare_params) and the glare's validator (plan_glare), so a preset that
// loads is one that maps.
#pragma once
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tonekit/blur.hpp"
#include "tonekit/operators.hpp"
#include "tonekit/status.hpp"

namespace tonekit::cli {

struct Preset {
  std::string op = "reinhard";
  // NAME=VALUE as --set takes them; numbers in the shortest text that reads back exactly.
  std::vector<std::pair<std::string, std::string>> settings;
  GlareParams glare;  // strength 0: off
};

// From a parsed JSON object (the studio's requests carry the same fields).
Result<Preset> preset_from_json(const nlohmann::json& doc);
Result<Preset> parse_preset(std::string_view text);
Result<Preset> load_preset(const std::string& path);

// The validated parameters of a preset (unknown operator or out-of-range value: the registry's
// invalid_argument message).
Result<Params> preset_params(const Preset& preset);

// The preset of a validated parameter set and glare, as JSON text (what parse_preset reads).
std::string preset_json(const Params& params, const GlareParams& glare);

}  // namespace tonekit::cli
