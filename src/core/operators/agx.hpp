// AgX, the base look: Troy Sobotka's AgX sigmoid in the polynomial form of Benjamin Wrensch's
// "Minimal AgX" (2023).
#pragma once
#include "core/operators/operator_kit.hpp"

namespace tonekit::core {

// The AgX base contrast, a sixth-degree polynomial of the log encoding x in [0, 1] (Wrensch's fit
// of Sobotka's sigmoid; its result is the display-encoded value, decoded with a 2.2 power).
template <class T>
TK_HD T agx_sigmoid(T x) {
  const T x2 = x * x, x4 = x2 * x2;
  return T(15.5) * x4 * x2 - T(40.14) * x4 * x + T(31.96) * x4 - T(6.868) * x2 * x + T(0.4298) * x2 + T(0.1191) * x -
         T(0.00232);
}
// The log encoding's range in stops of scene-linear light (AgX's -12.47393 .. 4.026069 EV).
constexpr double kAgxMinEv = -12.47393, kAgxMaxEv = 4.026069;

struct AgxOperator : LookOperator {
  static const OperatorDesc& descriptor() {
    static const OperatorDesc desc{
        "agx",
        "AgX (base look)",
        "Troy Sobotka, AgX (2022), in the polynomial form of Benjamin Wrensch, Minimal AgX Implementation (2023)",
        "x = clamp((log2(e L_w) + 12.47393) / 16.5, 0, 1) (AgX's log encoding, -12.47 to +4.03 stops); "
        "s(x) = 15.5 x^6 - 40.14 x^5 + 31.96 x^4 - 6.868 x^3 + 0.4298 x^2 + 0.1191 x - 0.00232 (the base "
        "sigmoid); L_d = clamp(s, 0, 1)^2.2. A scene-referred look for SDR (the peaks do not enter) with a "
        "wide, gentle shoulder: 16.5 stops fit on the display. AgX's inset / outset matrices (its per-channel "
        "path's hue handling) are not applied: the colour mode decides the colour (rgb is nearest to AgX's "
        "own rendering).",
        Locality::global,
        look_curve_params({})};
    return desc;
  }

  template <class T>
  struct Curve {
    T log2_exposure = 0;
    int mode = 0;
    TK_HD T operator()(T lw) const {
      if (!(lw > T(0))) return T(0);
      T x = (tk_log(lw) * T(1.4426950408889634) + log2_exposure - T(kAgxMinEv)) * T(1.0 / (kAgxMaxEv - kAgxMinEv));
      x = clamp01(x);
      T s = agx_sigmoid(x);
      s = clamp01(s);
      return tk_pow(s, T(2.2));
    }
    template <class U>
    TK_HD Curve<U> cast() const {
      return {U(log2_exposure), mode};
    }
  };

  TK_HD static Curve<double> prepare(const Settings& p, const CurveStats&, const float*) {
    Curve<double> c;
    c.log2_exposure = log2(p.exposure);
    c.mode = p.mode;
    return c;
  }
};

}  // namespace tonekit::core
