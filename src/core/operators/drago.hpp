// Drago 2003 adaptive logarithmic mapping (the Drago GPU seed, Eq 4).
#pragma once
#include "core/operators/operator_kit.hpp"

namespace tonekit::core {

// L_d = output_scale * log(L + 1) / log(2 + 8 (L inv_lwmax)^bias_power) with L = input_scale L_w.
// drago-local (core/local_settings.hpp) calls it with per-pixel constants.
template <class T>
TK_HD T drago_curve(T lw, T input_scale, T inv_lwmax, T output_scale, T bias_power) {
  T l = lw * input_scale;
  T base = T(2) + T(8) * tk_pow(l * inv_lwmax, bias_power);
  return output_scale * tk_log1p(l) / tk_log(base);
}

struct DragoOperator : GlobalOperator {
  static const OperatorDesc& descriptor() {
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

  struct Settings {
    double exposure = 1.0;
    double bias = 0.85;
    double ld_max = 100.0;
  };
  static Settings settings_from(const Params& p) { return {p.get("exposure"), p.get("bias"), p.get("ld_max")}; }

  template <class T>
  struct Curve {
    T input_scale = 1;   // e / L_wa
    T inv_lwmax = 1;     // 1 / L'_max
    T output_scale = 1;  // 0.01 L_dmax / log10(L'_max + 1)
    T bias_power = 0;    // log(b) / log(0.5)
    TK_HD T operator()(T lw) const { return drago_curve<T>(lw, input_scale, inv_lwmax, output_scale, bias_power); }
    template <class U>
    TK_HD Curve<U> cast() const {
      return {U(input_scale), U(inv_lwmax), U(output_scale), U(bias_power)};
    }
  };

  TK_HD static Curve<double> prepare(const Settings& p, const CurveStats& st, const float*) {
    Curve<double> c;
    double lwa = st.log_average > 0 ? st.log_average : 1.0;
    c.input_scale = p.exposure / lwa;
    double scaled_max = st.max_luminance * c.input_scale;
    if (!(scaled_max > 0)) scaled_max = 1.0;
    c.inv_lwmax = 1.0 / scaled_max;
    c.output_scale = 0.01 * p.ld_max / log10(scaled_max + 1.0);
    c.bias_power = log(p.bias) / log(0.5);
    return c;
  }
};

}  // namespace tonekit::core
