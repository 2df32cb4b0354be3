// Exposure fusion of synthetic exposures of one HDR frame (Mertens, Kautz, Van Reeth 2007)
// (local; its maths: core/fusion.hpp).
#pragma once
#include "core/operators/operator_kit.hpp"

namespace tonekit::core {

struct ExposureFusionOperator {
  static const OperatorDesc& descriptor() {
    static const OperatorDesc desc{
        "exposure-fusion",
        "Exposure fusion of synthetic exposures (Mertens weights, Laplacian pyramid blend)",
        "Mertens, Kautz, Van Reeth, Exposure Fusion, Pacific Graphics 2007; Burt, Adelson, The "
        "Laplacian Pyramid as a Compact Image Code, IEEE Trans. Communications 31(4), 1983",
        "N exposures of the frame, E_i geometric from 0.7^2.2 / L_max (the peak at 0.7) to 0.5 / L_avg (the "
        "log-average at 0.5; measured on the synthetic scenes and 25 real images, docs/performance.md), each "
        "gamma 2.2 encoded and clipped: v_i = min(1, (E_i L_w)^(1/2.2)). Weights W_i = C^wc S^ws "
        "E^we: C = |Laplacian of v_i|, S = standard deviation of the exposure's clipped channels, "
        "E = exp(-(v_i - 0.5)^2 / (2 sigma^2)); normalised over i. Blend: the Laplacian pyramid of "
        "each v_i times the Gaussian pyramid of its weights, summed and collapsed; L_d = F^2.2, "
        "colour by ratio. The look of a bracketed photograph with no camera: every region takes "
        "the exposures where it is well exposed and detailed; the cost is 2N pyramids.",
        Locality::local,
        {
            {"exposures", 7.0, 2.0, 8.0, "N: synthetic exposures between the highlights' and the shadows'", true},
            {"contrast", 1.0, 0.0, 2.0, "wc: exponent of the contrast weight (|Laplacian|)"},
            {"chroma", 1.0, 0.0, 2.0, "ws: exponent of Mertens' saturation weight (the exposure's channels' standard deviation)"},
            {"exposedness", 1.0, 0.0, 2.0, "we: exponent of the well-exposedness weight"},
            {"sigma", 0.2, 0.05, 1.0, "sigma of the well-exposedness Gaussian around 0.5"},
        }};
    return desc;
  }
};

}  // namespace tonekit::core
