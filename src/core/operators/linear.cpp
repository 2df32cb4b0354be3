#include "core/operators/operators_internal.hpp"

namespace tonekit::core {

const OperatorDesc& linear_operator() {
  static const OperatorDesc desc{
      "linear",
      "Linear scaling",
      "-",
      "L_d = exposure * (L_w - L_min) / (L_max - L_min) with normalize=1 (min-max normalisation), "
      "or L_d = exposure * L_w with normalize=0; values above 1 clip. The baseline every paper "
      "compares against: exact where the range fits, crushed shadows where it does not.",
      Locality::global,
      {
          {"exposure", 1.0, 1e-4, 1e4, "multiplier applied to the (normalised) luminance"},
          {"normalize", 1.0, 0.0, 1.0, "1: map [L_min, L_max] onto [0, 1]; 0: scale L_w directly", true},
          peak_percentile_param(),
      }};
  return desc;
}

}  // namespace tonekit::core
