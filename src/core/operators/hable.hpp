// Hable's filmic curve ("Uncharted 2"), scaled to the source peak as video players use it.
#pragma once
#include "core/operators/operator_kit.hpp"

namespace tonekit::core {

// Hable's rational curve h(x) = (x (A x + C B) + D E) / (x (A x + B) + D F) - E / F with his
// constants A = 0.15 (shoulder strength), B = 0.50 (linear strength), C = 0.10 (linear angle),
// D = 0.20 (toe strength), E = 0.02, F = 0.30 (toe numerator, denominator). h(0) = 0.
template <class T>
TK_HD T hable_curve(T x) {
  const T a = T(0.15), b = T(0.50), c = T(0.10), d = T(0.20), e = T(0.02), f = T(0.30);
  return (x * (a * x + c * b) + d * e) / (x * (a * x + b) + d * f) - e / f;
}

struct HableOperator : GlobalOperator {
  static const OperatorDesc& descriptor() {
    static const OperatorDesc desc{
        "hable",
        "Hable filmic (Uncharted 2)",
        "John Hable, Filmic Tonemapping Operators / Uncharted 2: HDR Lighting, Game Developers Conference 2010",
        "h(x) = (x (A x + C B) + D E) / (x (A x + B) + D F) - E / F with A = 0.15, B = 0.50, C = 0.10, "
        "D = 0.20, E = 0.02, F = 0.30; x = exposure L / target_peak with L in cd/m^2, and "
        "L_d = h(x) / h(x_peak), x_peak the source peak over the target peak, as mpv and libplacebo scale "
        "it. A toe that deepens the shadows and a long shoulder: film-like contrast, mid-tones darker than "
        "BT.2390's, highlights that never clip below the source peak.",
        Locality::global,
        display_curve_params({
            {"exposure", 1.0, 0.01, 100.0, "e: multiplies the input before the curve (the white point stays the source peak)"},
        })};
    return desc;
  }

  struct Settings {
    DisplayTarget display;
    double exposure = 1.0;
  };
  static Settings settings_from(const Params& p) { return {display_target_from(p), p.get("exposure")}; }

  template <class T>
  struct Curve {
    T scale = 2.03;    // exposure reference_white / target_peak
    T x_peak = 1;      // source peak / target peak
    T inv_white = 1;   // (1 - black) / h(x_peak)
    T black = 0;       // target_black / target_peak
    int mode = 0;
    TK_HD T operator()(T lw) const {
      if (!(lw > T(0))) return black;
      T x = lw * scale;
      x = x < x_peak ? x : x_peak;
      return black + hable_curve(x) * inv_white;
    }
    template <class U>
    TK_HD Curve<U> cast() const {
      return {U(scale), U(x_peak), U(inv_white), U(black), mode};
    }
  };

  TK_HD static Curve<double> prepare(const Settings& p, const CurveStats& st, const float*) {
    Curve<double> c;
    const DisplayTarget& d = p.display;
    c.scale = p.exposure * d.reference_white / d.target_peak;
    c.x_peak = source_peak_cd_hd(d, st) / d.target_peak;
    c.black = d.target_black / d.target_peak;
    c.inv_white = (1.0 - c.black) / hable_curve(c.x_peak);
    c.mode = d.mode;
    return c;
  }
};

}  // namespace tonekit::core
