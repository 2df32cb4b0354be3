// Local Laplacian tone mapping (Paris, Hasinoff, Kautz 2011; fast form: Aubry et al. 2014) on
// log luminance (local; its maths: core/laplacian.hpp).
#pragma once
#include "core/operators/operator_kit.hpp"

namespace tonekit::core {

struct LocalLaplacianOperator {
  static const OperatorDesc& descriptor() {
    static const OperatorDesc desc{
        "local-laplacian",
        "Local Laplacian filter tone mapping (edge-aware Laplacian pyramid on log luminance)",
        "Paris, Hasinoff, Kautz, Local Laplacian Filters: Edge-aware Image Processing with a "
        "Laplacian Pyramid, SIGGRAPH 2011; Aubry, Paris, Hasinoff, Kautz, Durand, Fast Local "
        "Laplacian Filters: Theory and Applications, ACM TOG 33(5), 2014",
        "On l = ln L_w: each output Laplacian coefficient at level j is the coefficient of a "
        "remapped copy r(l; g) with g = G_j(x), the Gaussian pyramid's value there; r(i; g) = g + "
        "sign(d) sigma_r (|d| / sigma_r)^alpha for |d| = |i - g| < sigma_r (detail), g + sign(d) "
        "(sigma_r + beta (|d| - sigma_r)) beyond (edges). Fast form: K levels g_k over the frame's "
        "log range, each with its remapped pyramid, coefficients interpolated linearly between the "
        "two levels around g. The top level is compressed by beta around its mean, the result "
        "collapsed and exp'd with the compressed peak at white. beta is `range`, or with `contrast` "
        "C > 0 the smaller of range and C ln 2 / ln(L_max / L_avg) (Durand and Dorsey 2002's target "
        "contrast: a scene that fits keeps its contrast, one that does not is compressed to C stops "
        "from its log-average to its peak). Defaults measured on the synthetic scenes and 25 real "
        "images (docs/performance.md, Looks). No halos at hard edges (their "
        "differences exceed sigma_r and are only scaled by beta); the cost is K pyramids.",
        Locality::local,
        {
            {"detail", 0.85, 0.1, 2.0, "alpha: detail exponent; < 1 enhances local contrast under sigma_r, > 1 smooths it"},
            {"range", 1.0, 0.0, 1.0, "beta: range compression of differences over sigma_r (edges and the large scale); 1 keeps the scene's range; with contrast > 0 beta's upper bound"},
            {"contrast", 2.9, 0.0, 10.0, "C: stops from the log-average to the peak after compression; beta = min(range, C ln 2 / ln(L_max / L_avg)); 0: beta = range"},
            {"sigma", 1.5, 0.1, 3.0, "sigma_r: edge threshold in ln units of luminance (1 = a factor e); differences under it are detail"},
            {"levels", 16.0, 2.0, 16.0, "K: sampled intensity levels over the frame's log range; more is closer to the exact filter and slower", true},
            {"exposure", 0.0, -4.0, 4.0, "stops added to the result"},
        }};
    return desc;
  }
};

}  // namespace tonekit::core
