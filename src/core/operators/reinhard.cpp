#include "core/operators/operators_internal.hpp"

namespace tonekit::core {

const OperatorDesc& reinhard_operator() {
  static const OperatorDesc desc{
      "reinhard",
      "Reinhard photographic tone reproduction (global)",
      "Reinhard, Stark, Shirley, Ferwerda, Photographic Tone Reproduction for Digital Images, "
      "SIGGRAPH 2002",
      "L_w_avg = exp(mean log(delta + L_w)) (thesis Eq 4.1); L = alpha / L_w_avg * L_w (Eq 4.2); "
      "L_d = L (1 + L / L_white^2) / (1 + L) (Eq 4.3 with the paper's white point). "
      "auto_key=1 estimates alpha = 0.18 * 4^((2 log2 L_avg - log2 L_min - log2 L_max) / "
      "(log2 L_max - log2 L_min)) (Reinhard 2002, Parameter estimation for photographic tone "
      "reproduction). Natural mid-tones; the global curve loses local contrast in the brights.",
      Locality::global,
      {
          {"key", 0.18, 0.001, 1.0, "alpha: the key the log-average maps to"},
          {"auto_key", 0.0, 0.0, 1.0, "1: estimate the key from the image's dynamic range", true},
          {"white", 0.0, 0.0, 1e8,
           "L_white in scaled luminance: the smallest value mapped to white; 0 = the frame's "
           "scaled peak (L_max, or the robust peak: peak_percentile)"},
          peak_percentile_param(),
      }};
  return desc;
}

}  // namespace tonekit::core
