// The registry, built from the operator lists of core/operators/registry.hpp, and the one place
// that fills defaults and validates parameters (prepared once at the API boundary; kernels then
// trust their inputs).
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "core/colour_modes.hpp"
#include "core/operators/registry.hpp"

namespace tonekit {

const std::vector<ParamDesc>& common_params() {
  static const std::vector<ParamDesc> params{
      {"saturation", 1.0, 0.0, 2.0, "s in C_out = L_d (C_in / L_w)^s: 1 keeps hue and saturation, <1 desaturates"},
      {"gamma", 0.0, 0.0, 5.0, "output transfer for 8/16-bit outputs: 0 = sRGB curve, otherwise v^(1/gamma)"},
      {"dither", 1.0, 0.0, 1.0, "1: triangular dither before quantising 8/16-bit outputs", true},
  };
  return params;
}

namespace core {
ParamDesc peak_percentile_param() {
  return {"peak_percentile", 100.0, 50.0, 100.0,
          "L_max as a percentile of the non-black pixels' luminance: 100 = the brightest pixel (the paper's "
          "L_max); 99.99 = the robust peak, which ignores the brightest 0.01 % (glints, hot pixels, the sun) "
          "so they neither dim the frame nor make video flicker. Below 100 it costs one more read of the frame",
          false, false};
}

std::vector<ParamDesc> display_curve_params(std::vector<ParamDesc> own) {
  own.push_back({"target_peak", 100.0, 10.0, 10000.0, "the display's peak in cd/m^2 (L_d = 1): 100 SDR, 1000 an HDR monitor",
                 false, false});
  own.push_back({"target_black", 0.0, 0.0, 5.0,
                 "the display's black in cd/m^2: > 0 lifts the shadows to it (BT.2390's black-level lift); black "
                 "pixels stay black", false, false});
  own.push_back({"source_peak", 0.0, 0.0, 10000.0,
                 "the source's peak in cd/m^2 (the mastering display's, e.g. 1000); 0 = the frame's L_max "
                 "(brightest pixel, or the robust peak: peak_percentile) times reference_white", false, false});
  own.push_back({"reference_white", 203.0, 1.0, 10000.0,
                 "cd/m^2 of scene-linear 1.0: 203 (BT.2408 diffuse white) as tonekit stream's --reference-white "
                 "divides PQ/HLG light by", false, false});
  own.push_back({"mode", 0.0, 0.0, 3.0,
                 "colour: luminance (0: hue and saturation kept), rgb (1: per channel, highlights desaturate), "
                 "max-rgb (2: curve of the brightest channel, nothing clips), hybrid (3: luminance below display "
                 "grey, per channel towards white)", true, false, kColourModeNames});
  own.push_back(peak_percentile_param());
  return own;
}

std::vector<ParamDesc> look_curve_params(std::vector<ParamDesc> own) {
  own.push_back({"exposure", 1.0, 0.01, 100.0, "e: scene-linear values are multiplied by e before the curve"});
  own.push_back({"mode", 0.0, 0.0, 3.0,
                 "colour: luminance (0: hue and saturation kept), rgb (1: per channel, as the look's reference "
                 "applies it), max-rgb (2: curve of the brightest channel), hybrid (3: luminance below display "
                 "grey, per channel towards white)", true, false, kColourModeNames});
  return own;
}

LookSettings look_settings_from(const Params& p) { return {p.get("exposure"), static_cast<int>(p.get("mode"))}; }

DisplayTarget display_target_from(const Params& p) {
  DisplayTarget d;
  d.target_peak = p.get("target_peak");
  d.target_black = p.get("target_black");
  d.source_peak = p.get("source_peak");
  d.reference_white = p.get("reference_white");
  d.mode = static_cast<int>(p.get("mode"));
  return d;
}
}  // namespace core

const std::vector<const OperatorDesc*>& all_operators() {
  static const std::vector<const OperatorDesc*> ops = [] {
    std::vector<const OperatorDesc*> list;
    auto add = [&](auto op, int) {
      list.push_back(&decltype(op)::descriptor());
      return false;
    };
    core::visit_all<core::GlobalOperators>(add);
    core::visit_all<core::LocalOperators>(add);
    return list;
  }();
  return ops;
}

const OperatorDesc* find_operator(std::string_view id) {
  for (const OperatorDesc* op : all_operators())
    if (id == op->id) return op;
  return nullptr;
}

std::vector<const ParamDesc*> all_params(const OperatorDesc& op) {
  std::vector<const ParamDesc*> out;
  for (const ParamDesc& p : op.params) out.push_back(&p);
  for (const ParamDesc& p : common_params()) out.push_back(&p);
  return out;
}

static std::string format_number(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

static std::string known_operator_ids() {
  std::string s;
  for (const OperatorDesc* op : all_operators()) s += (s.empty() ? "" : ", ") + std::string(op->id);
  return s;
}

bool Params::has(std::string_view name) const {
  for (const ParamDesc* d : descs_)
    if (name == d->name) return true;
  return false;
}

double Params::get(std::string_view name) const {
  for (std::size_t i = 0; i < descs_.size(); ++i)
    if (name == descs_[i]->name) return values_[i];
  std::fprintf(stderr, "tonekit: internal error: operator '%s' has no parameter '%.*s'\n", op_->id,
               static_cast<int>(name.size()), name.data());
  std::abort();
}

Status Params::set(std::string_view name, double value) {
  for (std::size_t i = 0; i < descs_.size(); ++i) {
    const ParamDesc& d = *descs_[i];
    if (name != d.name) continue;
    if (!std::isfinite(value) || value < d.min_value || value > d.max_value)
      return invalid_argument("parameter '" + std::string(name) + "' of operator '" + op_->id + "' = " +
                              format_number(value) + " is out of range [" + format_number(d.min_value) +
                              ", " + format_number(d.max_value) + "]");
    if (d.integer && value != std::floor(value))
      return invalid_argument("parameter '" + std::string(name) + "' of operator '" + op_->id +
                              "' takes whole numbers, got " + format_number(value));
    values_[i] = value;
    return {};
  }
  std::string known;
  for (const ParamDesc* d : descs_) known += (known.empty() ? "" : ", ") + std::string(d->name);
  return invalid_argument("operator '" + std::string(op_->id) + "' has no parameter '" + std::string(name) +
                          "' (it takes: " + known + ")");
}

// The index of `text` among a choice parameter's comma-separated names; -1: not one of them.
static int choice_index(const char* choices, std::string_view text) {
  if (!choices) return -1;
  std::string_view list(choices);
  for (int index = 0;; ++index) {
    const std::size_t comma = list.find(',');
    if (list.substr(0, comma) == text) return index;
    if (comma == std::string_view::npos) return -1;
    list.remove_prefix(comma + 1);
  }
}

Status Params::set(std::string_view name, std::string_view text) {
  std::string s(text);
  for (const ParamDesc* d : descs_)
    if (name == d->name && d->choices) {
      const int index = choice_index(d->choices, text);
      if (index >= 0) return set(name, static_cast<double>(index));
      char* end = nullptr;
      std::strtod(s.c_str(), &end);
      if (s.empty() || end != s.c_str() + s.size())
        return invalid_argument("parameter '" + std::string(name) + "' of operator '" + op_->id + "': '" + s +
                                "' is not one of " + d->choices + " (or their numbers 0, 1, ...)");
    }
  char* end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  if (s.empty() || end != s.c_str() + s.size())
    return invalid_argument("parameter '" + std::string(name) + "': '" + s + "' is not a number");
  return set(name, v);
}

std::vector<std::pair<std::string, double>> Params::values() const {
  std::vector<std::pair<std::string, double>> out;
  for (std::size_t i = 0; i < descs_.size(); ++i) out.emplace_back(descs_[i]->name, values_[i]);
  return out;
}

Result<Params> prepare_params(std::string_view op_id,
                              const std::vector<std::pair<std::string, std::string>>& settings) {
  const OperatorDesc* op = find_operator(op_id);
  if (!op)
    return invalid_argument("unknown operator '" + std::string(op_id) + "' (known: " + known_operator_ids() + ")");
  Params p;
  p.op_ = op;
  p.descs_ = all_params(*op);
  if (p.descs_.size() > Params::kMaxParams) return invalid_argument("operator has too many parameters");
  for (std::size_t i = 0; i < p.descs_.size(); ++i) p.values_[i] = p.descs_[i]->default_value;
  for (const auto& [name, value] : settings) {
    Status s = p.set(name, value);
    if (!s.ok()) return s;
  }
  return p;
}

Result<std::pair<std::string, std::string>> parse_setting(std::string_view text) {
  std::size_t eq = text.find('=');
  if (eq == std::string_view::npos || eq == 0 || eq + 1 == text.size())
    return invalid_argument("--set expects NAME=VALUE, got '" + std::string(text) + "'");
  return std::make_pair(std::string(text.substr(0, eq)), std::string(text.substr(eq + 1)));
}

}  // namespace tonekit
