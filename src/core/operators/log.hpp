// Logarithmic mapping (Stockham 1972).
#pragma once
#include "core/operators/operator_kit.hpp"

namespace tonekit::core {

struct LogOperator : GlobalOperator {
  static const OperatorDesc& descriptor() {
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

  struct Settings {
    double exposure = 1.0;
  };
  static Settings settings_from(const Params& p) { return {p.get("exposure")}; }

  // L_d = log(1 + e L_w) / log(1 + e L_max)
  template <class T>
  struct Curve {
    T exposure = 1;
    T inv_denominator = 1;  // 1 / log(1 + e L_max)
    TK_HD T operator()(T lw) const { return tk_log1p(exposure * lw) * inv_denominator; }
    template <class U>
    TK_HD Curve<U> cast() const {
      return {U(exposure), U(inv_denominator)};
    }
  };

  TK_HD static Curve<double> prepare(const Settings& p, const CurveStats& st, const float*) {
    Curve<double> c;
    c.exposure = p.exposure;
    double denominator = log1p(c.exposure * st.max_luminance);
    c.inv_denominator = denominator > 0 ? 1.0 / denominator : 1.0;
    return c;
  }
};

}  // namespace tonekit::core
