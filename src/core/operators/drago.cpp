#include "core/operators/operators_internal.hpp"

namespace tonekit::core {

const OperatorDesc& drago_operator() {
  static const OperatorDesc desc{
      "drago",
      "Drago adaptive logarithmic mapping",
      "Drago, Myszkowski, Annen, Chiba, Adaptive Logarithmic Mapping for Displaying High "
      "Contrast Scenes, Computer Graphics Forum 22(3), 2003",
      "L' = e L_w / L_wa with L_wa the log-average; L_d = (0.01 L_dmax / log10(L'_max + 1)) * "
      "log(L' + 1) / log(2 + 8 (L' / L'_max)^(log b / log 0.5)). The logarithm's base moves "
      "from 2 in the darks to 10 in the brights; bias b trades contrast in the darks for "
      "detail in the brights.",
      Locality::global,
      {
          {"bias", 0.85, 0.5, 1.0, "b: bias power; 0.7-0.9 as the paper recommends"},
          {"ld_max", 100.0, 1.0, 1000.0, "L_dmax: display maximum luminance in cd/m^2"},
          {"exposure", 1.0, 0.01, 100.0, "e: exposure multiplier (Qian 2013 Eq 4)"},
          peak_percentile_param(),
      }};
  return desc;
}

}  // namespace tonekit::core
