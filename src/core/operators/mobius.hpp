// Mobius: linear up to a transition point, then a Moebius transform that reaches white at the
// source peak (the curve of mpv and libplacebo).
#pragma once
#include "core/operators/operator_kit.hpp"

namespace tonekit::core {

struct MobiusOperator : GlobalOperator {
  static const OperatorDesc& descriptor() {
    static const OperatorDesc desc{
        "mobius",
        "Mobius (linear, then a Moebius roll-off)",
        "Niklas Haas, the mobius tone mapping of mpv and libplacebo (2017); the Moebius (linear fractional) "
        "transform f(x) = s (x + a) / (x + b)",
        "x = L / target_peak (L in cd/m^2), p = source peak / target peak. f(x) = x for x <= j; above it "
        "f(x) = s (x + a) / (x + b) with a = -j^2 (p - 1) / (j^2 - 2j + p), b = (j^2 - 2jp + p) / (p - 1), "
        "s = (b^2 + 2bj + j^2) / (b - a): the unique Moebius transform with f(j) = j, f'(j) = 1 and f(p) = 1. "
        "Everything below j times the target peak is shown exactly (absolute luminance, no contrast loss); "
        "the highlights above it are compressed, more the closer j is to 1.",
        Locality::global,
        display_curve_params({
            {"transition", 0.3, 0.0, 0.99, "j: the fraction of the target peak up to which the curve is linear"},
        })};
    return desc;
  }

  struct Settings {
    DisplayTarget display;
    double transition = 0.3;
  };
  static Settings settings_from(const Params& p) { return {display_target_from(p), p.get("transition")}; }

  template <class T>
  struct Curve {
    T scale = 2.03;  // reference_white / target_peak
    T j = 0.3;
    T a = 0, b = 1, s = 1;
    T x_peak = 1;    // source peak / target peak
    T black = 0;     // target_black / target_peak: L_d = black + (1 - black) f(x)
    int mode = 0;
    TK_HD T operator()(T lw) const {
      if (!(lw > T(0))) return black;
      T x = lw * scale;
      x = x < x_peak ? x : x_peak;
      const T f = x <= j ? x : s * (x + a) / (x + b);
      return black + (T(1) - black) * f;
    }
    template <class U>
    TK_HD Curve<U> cast() const {
      return {U(scale), U(j), U(a), U(b), U(s), U(x_peak), U(black), mode};
    }
  };

  TK_HD static Curve<double> prepare(const Settings& p, const CurveStats& st, const float*) {
    Curve<double> c;
    const DisplayTarget& d = p.display;
    c.scale = d.reference_white / d.target_peak;
    const double peak = source_peak_cd_hd(d, st) / d.target_peak;
    c.x_peak = peak;
    c.black = d.target_black / d.target_peak;
    c.mode = d.mode;
    const double j = p.transition;
    if (!(peak > 1.0 + 1e-6)) {  // the source fits the display: linear up to the peak (no roll-off)
      c.j = 1.0;
      return c;
    }
    c.j = j;
    c.a = -j * j * (peak - 1.0) / (j * j - 2.0 * j + peak);
    c.b = (j * j - 2.0 * j * peak + peak) / (peak - 1.0);
    c.s = (c.b * c.b + 2.0 * c.b * j + j * j) / (c.b - c.a);
    return c;
  }
};

}  // namespace tonekit::core
