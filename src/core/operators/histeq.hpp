// Histogram equalisation of log luminance (Ward Larson et al. 1997; the CUDA/Thrust seed).
#pragma once
#include "core/operators/operator_kit.hpp"

namespace tonekit::core {

// bin = floor((log L - log_min) * inv_range * bins), clamped to [0, bins - 1]. The statistics
// passes bin with it too (in double), so the table and the curve agree on every pixel's bin.
template <class T>
TK_HD int histeq_bin(T log_l, T log_min, T inv_range, int bins) {
  T t = (log_l - log_min) * inv_range * T(bins);
  int b = t <= T(0) ? 0 : static_cast<int>(t);
  return b >= bins ? bins - 1 : b;
}

struct HisteqOperator : GlobalOperator {
  static const OperatorDesc& descriptor() {
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

  struct Settings {
    int bins = 1024;
  };
  static Settings settings_from(const Params& p) { return {static_cast<int>(p.get("bins"))}; }
  static int histogram_bins(const Settings& s) { return s.bins; }

  // L_d = table[bin(log L_w)]; black -> 0.
  template <class T>
  struct Curve {
    T log_min = 0;
    T inv_log_range = 0;
    int bins = 0;
    const float* table = nullptr;  // host or device pointer, `bins` entries
    TK_HD T operator()(T lw) const {
      if (!(lw > T(0))) return T(0);
#if defined(__CUDA_ARCH__)
      return T(__ldg(table + histeq_bin<T>(tk_log(lw), log_min, inv_log_range, bins)));
#else
      return T(table[histeq_bin<T>(tk_log(lw), log_min, inv_log_range, bins)]);
#endif
    }
    template <class U>
    TK_HD Curve<U> cast() const {
      return {U(log_min), U(inv_log_range), bins, table};
    }
  };

  TK_HD static Curve<double> prepare(const Settings& p, const CurveStats& st, const float* table) {
    Curve<double> c;
    histogram_range_hd(st, c.log_min, c.inv_log_range);
    c.bins = p.bins;
    c.table = table;
    return c;
  }
};

}  // namespace tonekit::core
