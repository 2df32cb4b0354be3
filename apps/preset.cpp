#include "preset.hpp"

#include <charconv>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace tonekit::cli {
namespace {

using nlohmann::json;

Result<double> glare_number(const json& glare, const char* name, double fallback) {
  auto it = glare.find(name);
  if (it == glare.end()) return fallback;
  if (!it->is_number()) return invalid_argument(std::string("preset: glare.") + name + " must be a number");
  return it->get<double>();
}

}  // namespace

// Shortest round-trip text: Params::set parses it back to the same double, so the studio's
// export and `tonekit map --preset` of its sidecar run on identical values.
std::string number_text(double v) {
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return ec == std::errc{} ? std::string(buf, end) : std::string("nan");
}

Result<Preset> preset_from_json(const json& doc) {
  if (!doc.is_object()) return invalid_argument("preset: expected a JSON object");
  Preset preset;
  auto op = doc.find("operator");
  if (op != doc.end()) {
    if (!op->is_string()) return invalid_argument("preset: \"operator\" must be a string (an operator id)");
    preset.op = op->get<std::string>();
  }
  if (auto params = doc.find("params"); params != doc.end() && !params->is_null()) {
    if (!params->is_object()) return invalid_argument("preset: \"params\" must be an object of NAME: number");
    for (const auto& [name, value] : params->items()) {
      if (value.is_boolean()) preset.settings.emplace_back(name, value.get<bool>() ? "1" : "0");
      else if (value.is_number()) preset.settings.emplace_back(name, number_text(value.get<double>()));
      else return invalid_argument("preset: parameter '" + name + "' must be a number");
    }
  }
  if (auto glare = doc.find("glare"); glare != doc.end() && !glare->is_null()) {
    if (!glare->is_object()) return invalid_argument("preset: \"glare\" must be an object (strength, threshold, radius)");
    for (const auto& [name, value] : glare->items())
      if (name != "strength" && name != "threshold" && name != "radius")
        return invalid_argument("preset: unknown glare setting '" + name + "' (known: strength, threshold, radius)");
    auto strength = glare_number(*glare, "strength", preset.glare.strength);
    auto threshold = glare_number(*glare, "threshold", preset.glare.threshold);
    auto radius = glare_number(*glare, "radius", preset.glare.radius);
    for (auto* r : {&strength, &threshold, &radius})
      if (!r->ok()) return r->status();
    preset.glare.strength = *strength;
    preset.glare.threshold = *threshold;
    preset.glare.radius = *radius;
    // The glare's own validator, as the mapping will run it (the ranges of map's --glare flags).
    if (auto plan = plan_glare(preset.glare, 1, 1); !plan.ok())
      return invalid_argument("preset: " + plan.status().message());
  }
  if (auto night = doc.find("night"); night != doc.end() && !night->is_null()) {
    if (!night->is_object()) return invalid_argument("preset: \"night\" must be an object of NAME: number (and \"blur\")");
    std::vector<std::pair<std::string, std::string>> settings;
    std::string blur = "separable";
    for (const auto& [name, value] : night->items()) {
      if (name == "blur" && value.is_string()) blur = value.get<std::string>();
      else if (value.is_number()) settings.emplace_back(name, number_text(value.get<double>()));
      else return invalid_argument("preset: night." + name + " must be a number");
    }
    auto params = prepare_night(settings, blur);  // night's own validator, as the mapping runs it
    if (!params.ok()) return invalid_argument("preset: " + params.status().message());
    preset.night = *params;
  }
  for (const auto& [key, value] : doc.items())
    if (key != "operator" && key != "params" && key != "glare" && key != "night")
      return invalid_argument("preset: unknown field '" + key + "' (known: operator, params, glare, night)");
  if (auto params = preset_params(preset); !params.ok()) return params.status();
  return preset;
}

Result<Preset> parse_preset(std::string_view text) {
  json doc = json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return invalid_argument("preset: not valid JSON");
  return preset_from_json(doc);
}

Result<Preset> load_preset(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return bad_input(path + ": cannot open the preset");
  std::ostringstream text;
  text << in.rdbuf();
  auto preset = parse_preset(text.str());
  if (!preset.ok()) return Status(preset.status().code(), path + ": " + preset.status().message());
  return preset;
}

Result<Params> preset_params(const Preset& preset) { return prepare_params(preset.op, preset.settings); }

std::string preset_json(const Params& params, const GlareParams& glare, const NightParams& night) {
  json doc;
  doc["operator"] = params.op().id;
  json values = json::object();
  for (const auto& [name, value] : params.values()) values[name] = value;
  doc["params"] = values;
  doc["glare"] = {{"strength", glare.strength}, {"threshold", glare.threshold}, {"radius", glare.radius}};
  if (night.on) {
    json n = json::object();
    for (const auto& [name, value] : night.values()) n[name] = value;
    n["blur"] = night.blur_method;
    doc["night"] = n;
  }
  return doc.dump(2) + "\n";
}

}  // namespace tonekit::cli
