// Khronos PBR Neutral: the tone curve of the Khronos 3D Commerce working group's neutral mapper.
#pragma once
#include "core/operators/operator_kit.hpp"

namespace tonekit::core {

struct NeutralOperator : LookOperator {
  static const OperatorDesc& descriptor() {
    static const OperatorDesc desc{
        "neutral",
        "Khronos PBR Neutral",
        "Khronos Group, PBR Neutral Tone Mapping specification (Emmett Lalish, 3D Commerce working group, 2024)",
        "v = e L_w; toe: v - (v - 6.25 v^2) below 0.08, v - 0.04 above (the offset f0 - 6.25 f0^2 / 0.04 of "
        "the specification); shoulder from 0.76 = 0.8 - 0.04: L_d = 1 - d^2 / (v' + d - 0.76), d = 0.24, "
        "continuous with slope 1 at the knee. Colours below the knee are reproduced exactly (base colours "
        "of physically based materials keep their values) and highlights compress towards white. The "
        "specification applies the toe to min(R, G, B) and the shoulder to max(R, G, B) and desaturates the "
        "compressed part by 0.15; here the curve is one function of the mode's input (max-rgb is the "
        "specification's shoulder on the brightest channel), without that desaturation.",
        Locality::global,
        look_curve_params({})};
    return desc;
  }

  template <class T>
  struct Curve {
    T exposure = 1;
    int mode = 0;
    TK_HD T operator()(T lw) const {
      const T v = lw * exposure;
      const T toe = v < T(0.08) ? T(6.25) * v * v : v - T(0.04);
      constexpr double kStart = 0.8 - 0.04, kD = 1.0 - kStart;
      if (toe < T(kStart)) return toe;
      return T(1) - T(kD * kD) / (toe + T(kD - kStart));
    }
    template <class U>
    TK_HD Curve<U> cast() const {
      return {U(exposure), mode};
    }
  };

  TK_HD static Curve<double> prepare(const Settings& p, const CurveStats&, const float*) {
    return Curve<double>{p.exposure, p.mode};
  }
};

}  // namespace tonekit::core
