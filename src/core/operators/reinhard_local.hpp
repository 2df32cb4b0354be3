// Reinhard 2002 dodging-and-burning with a Gaussian pyramid (local; its maths: core/local_settings.hpp).
#pragma once
#include "core/operators/operator_kit.hpp"

namespace tonekit::core {

struct ReinhardLocalOperator {
  static const OperatorDesc& descriptor() {
    static const OperatorDesc desc{
        "reinhard-local",
        "Reinhard photographic tone reproduction, automatic dodging-and-burning (Gaussian pyramid)",
        "Reinhard, Stark, Shirley, Ferwerda, Photographic Tone Reproduction for Digital Images, "
        "SIGGRAPH 2002 (thesis seed ch. 4.1.2, Eq 4.4-4.7)",
        "L = alpha / L_w_avg * L_w (Eq 4.2); V1 = L convolved with Gaussians R(x, y, s) = "
        "exp(-(x^2 + y^2) / (alpha_1 s)^2) / (pi (alpha_1 s)^2), alpha_1 = 1 / (2 sqrt 2), at "
        "s_i = 1.6^i (1 .. 26.8 px); V2 uses alpha_2 = 1.6 alpha_1, i.e. the next scale; activity "
        "V = (V1 - V2) / (2^phi alpha / s^2 + V1) (Eq 4.5); s_m is the largest scale with |V| < "
        "epsilon (Eq 4.6); L_d = L / (1 + V1(s_m)) (Eq 4.7). The exact reference: separable "
        "convolutions truncated at 4 sigma, borders clamped. Keeps detail in the brights that the "
        "global curve loses; the cost is one blur per scale.",
        Locality::local,
        {
            {"key", 0.18, 0.001, 1.0, "alpha: the key the log-average maps to (Eq 4.2)"},
            {"phi", 8.0, 1.0, 20.0, "phi: sharpening; larger values tolerate more centre-surround difference in the darks (Eq 4.5)"},
            {"epsilon", 0.05, 0.0, 1.0, "epsilon: activity threshold of the scale search (Eq 4.6); 0 = smallest scale only"},
            {"scales", 8.0, 1.0, 8.0, "number of Gaussian scales s_i = 1.6^i searched (1 .. 8); fewer is faster with less local adaptation", true},
        }};
    return desc;
  }
};

}  // namespace tonekit::core
