// The operator registry: one descriptor per operator (id, title, citation, locality,
// parameters with default and range), registered once. The CLI's flags and help, the
// studio's sliders, the registry-wide tests and the benchmarks all read it.
#pragma once
#include <array>
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tonekit/status.hpp"

namespace tonekit {

enum class Locality { global, local };

struct ParamDesc {
  const char* name;
  double default_value;
  double min_value;
  double max_value;
  const char* help;
  bool integer = false;  // whole numbers only (bins, scales, flags)
  bool auto_search = true;  // --auto may move it (false: a choice about the statistics, not the look's tuning)
  // Names of the values of a choice (integer) parameter, comma-separated, value 0 first
  // ("luminance,rgb,max-rgb,hybrid"): Params::set accepts a name for its number. Null: numbers only.
  const char* choices = nullptr;
};

struct OperatorDesc {
  const char* id;           // short lowercase id used by --op
  const char* title;
  const char* citation;
  const char* description;  // the paper's equations and the operator's trade-off
  Locality locality;
  std::vector<ParamDesc> params;  // the operator's own parameters (the common ones are separate)
};

// Parameters every operator takes: colour reconstruction and output transfer.
const std::vector<ParamDesc>& common_params();

// Every registered operator, in registry order.
const std::vector<const OperatorDesc*>& all_operators();
const OperatorDesc* find_operator(std::string_view id);

// Every parameter of an operator: its own, then the common ones.
std::vector<const ParamDesc*> all_params(const OperatorDesc& op);

// A validated set of parameter values for one operator (defaults filled). Built only through
// prepare_params / set, so kernels can trust every value.
class Params {
 public:
  static constexpr std::size_t kMaxParams = 24;
  const OperatorDesc& op() const { return *op_; }
  double get(std::string_view name) const;  // aborts on an unknown name: a programming error
  bool has(std::string_view name) const;     // whether the operator takes this parameter
  Status set(std::string_view name, double value);   // validates range and integrality
  Status set(std::string_view name, std::string_view text);  // parses (a number, or a choice's name), then validates
  std::vector<std::pair<std::string, double>> values() const;

 private:
  friend Result<Params> prepare_params(std::string_view, const std::vector<std::pair<std::string, std::string>>&);
  const OperatorDesc* op_ = nullptr;
  std::vector<const ParamDesc*> descs_;
  std::array<double, kMaxParams> values_{};
};

// The one place that fills defaults and validates: unknown operator, unknown parameter,
// unparsable or out-of-range value give invalid_argument with a message naming them.
Result<Params> prepare_params(std::string_view op_id,
                              const std::vector<std::pair<std::string, std::string>>& settings = {});

// Splits "NAME=VALUE" as given to --set.
Result<std::pair<std::string, std::string>> parse_setting(std::string_view text);

}  // namespace tonekit
