// ACES filmic: Narkowicz's rational fit of the ACES reference rendering (RRT + sRGB ODT).
#pragma once
#include "core/operators/operator_kit.hpp"

namespace tonekit::core {

struct AcesOperator : LookOperator {
  static const OperatorDesc& descriptor() {
    static const OperatorDesc desc{
        "aces",
        "ACES filmic (Narkowicz's fit of the RRT + sRGB ODT)",
        "Krzysztof Narkowicz, ACES Filmic Tone Mapping Curve (2016): a fit of the Academy Color Encoding System "
        "Reference Rendering Transform with the sRGB 100 cd/m^2 Output Device Transform",
        "x = 0.6 e L_w (Narkowicz's 0.6: his fit's input scale, scene 1.0 = diffuse white); "
        "L_d = clamp((x (2.51 x + 0.03)) / (x (2.43 x + 0.59) + 0.14), 0, 1). A scene-referred look for SDR "
        "(the target and source peaks do not enter): a toe, mid grey 0.18 -> 0.15 (before the output transfer), "
        "and a shoulder reaching white at L_w ~ 10; applied per channel (mode rgb) it desaturates the "
        "highlights as the ACES reference does.",
        Locality::global,
        look_curve_params({})};
    return desc;
  }

  template <class T>
  struct Curve {
    T scale = 0.6;  // 0.6 e
    int mode = 0;
    TK_HD T operator()(T lw) const {
      const T x = lw * scale;
      const T y = (x * (T(2.51) * x + T(0.03))) / (x * (T(2.43) * x + T(0.59)) + T(0.14));
      return y < T(1) ? y : T(1);
    }
    template <class U>
    TK_HD Curve<U> cast() const {
      return {U(scale), mode};
    }
  };

  TK_HD static Curve<double> prepare(const Settings& p, const CurveStats&, const float*) {
    Curve<double> c;
    c.scale = 0.6 * p.exposure;
    c.mode = p.mode;
    return c;
  }
};

}  // namespace tonekit::core
