#include "core/operators/operators_internal.hpp"

namespace tonekit::core {

const OperatorDesc& log_operator() {
  static const OperatorDesc desc{
      "log",
      "Logarithmic mapping",
      "Stockham, Image processing in the context of a visual model, Proc. IEEE 60(7), 1972",
      "L_d = log(1 + e L_w) / log(1 + e L_max). Compresses all luminances alike: cheap and "
      "monotone, but flat and washed out on high dynamic range scenes.",
      Locality::global,
      {
          {"exposure", 1.0, 1e-4, 1e4, "e: multiplier on L_w before the logarithm"},
          peak_percentile_param(),
      }};
  return desc;
}

}  // namespace tonekit::core
