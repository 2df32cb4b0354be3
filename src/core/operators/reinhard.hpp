// Reinhard 2002 photographic tone reproduction, the global operator (thesis seed Eq 4.1-4.3).
#pragma once
#include "core/operators/operator_kit.hpp"

namespace tonekit::core {

struct ReinhardOperator : GlobalOperator {
  static const OperatorDesc& descriptor() {
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

  struct Settings {
    double key = 0.18;
    double auto_key = 0.0;
    double white = 0.0;
  };
  static Settings settings_from(const Params& p) { return {p.get("key"), p.get("auto_key"), p.get("white")}; }

  // L = scale L_w; L_d = L (1 + L / L_white^2) / (1 + L). With 1 / L_white^2 = 0 this is Eq 4.3.
  template <class T>
  struct Curve {
    T scale = 1;         // alpha / L_w_avg
    T inv_white_sq = 0;  // 1 / L_white^2
    TK_HD T operator()(T lw) const {
      T l = lw * scale;
      return l * (T(1) + l * inv_white_sq) / (T(1) + l);
    }
    template <class U>
    TK_HD Curve<U> cast() const {
      return {U(scale), U(inv_white_sq)};
    }
  };

  TK_HD static Curve<double> prepare(const Settings& p, const CurveStats& st, const float*) {
    Curve<double> c;
    double key = p.auto_key != 0 ? estimate_key_hd(st) : p.key;
    double lavg = st.log_average > 0 ? st.log_average : 1.0;
    c.scale = key / lavg;
    double white = p.white;
    if (white == 0) white = st.max_luminance * c.scale;
    c.inv_white_sq = white > 0 ? 1.0 / (white * white) : 0.0;
    return c;
  }
};

}  // namespace tonekit::core
