#include "core/operators/operators_internal.hpp"

namespace tonekit::core {

const OperatorDesc& histeq_operator() {
  static const OperatorDesc desc{
      "histeq",
      "Histogram equalisation of log luminance",
      "Ward Larson, Rushmeier, Piatko, A Visibility Matching Tone Reproduction Operator, IEEE "
      "TVCG 3(4), 1997; GPU formulation after the CUDA/Thrust seed (min/max reduction, "
      "histogram, Blelloch exclusive scan)",
      "Histogram of log L_w over [log L_min, log L_max] with N bins; its exclusive scan is the "
      "CDF; L_d = (cdf[b] + h[b] / 2) / count, the mid-rank of the pixel's bin. Spends the "
      "display range where the pixels are; can exaggerate noise in large flat regions.",
      Locality::global,
      {
          {"bins", 1024.0, 2.0, 65536.0, "N: histogram bins", true},
      }};
  return desc;
}

}  // namespace tonekit::core
