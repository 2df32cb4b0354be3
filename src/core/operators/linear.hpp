// Linear scaling: the baseline every paper compares against.
#pragma once
#include "core/operators/operator_kit.hpp"

namespace tonekit::core {

struct LinearOperator : GlobalOperator {
  static const OperatorDesc& descriptor() {
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

  struct Settings {
    double exposure = 1.0;
    double normalize = 1.0;
  };
  static Settings settings_from(const Params& p) { return {p.get("exposure"), p.get("normalize")}; }

  // L_d = (L_w - offset) * scale
  template <class T>
  struct Curve {
    T offset = 0;
    T scale = 1;
    TK_HD T operator()(T lw) const { return (lw - offset) * scale; }
    template <class U>
    TK_HD Curve<U> cast() const {
      return {U(offset), U(scale)};
    }
  };

  TK_HD static Curve<double> prepare(const Settings& p, const CurveStats& st, const float*) {
    Curve<double> c;
    const double lmax = st.max_luminance;
    if (p.normalize != 0) {
      double range = lmax - st.min_luminance;
      if (range > 0) {
        c.offset = st.min_luminance;
        c.scale = p.exposure / range;
      } else {
        c.scale = lmax > 0 ? p.exposure / lmax : p.exposure;
      }
    } else {
      c.scale = p.exposure;
    }
    return c;
  }
};

}  // namespace tonekit::core
