// ITU-R BT.2390 EETF: the PQ-domain roll-off of the HDR-to-display mapping (BT.2390-10 section 5.4,
// "EETF"; the same definition is ITU-R BT.2408 Annex 5).
#pragma once
#include "core/operators/operator_kit.hpp"
#include "core/video_colour.hpp"

namespace tonekit::core {

struct Bt2390Operator : GlobalOperator {
  static const OperatorDesc& descriptor() {
    static const OperatorDesc desc{
        "bt2390",
        "BT.2390 EETF (PQ-domain knee and roll-off, black lift)",
        "ITU-R BT.2390, High dynamic range television for production and international programme "
        "exchange, section 5.4 (EETF); ITU-R BT.2408 Annex 5",
        "In PQ signal E = PQ^-1(L cd/m^2), normalised to the source: E1 = (E - PQ(L_B)) / (PQ(L_W) - PQ(L_B)) "
        "with L_W the source peak and L_B = 0 (PQ(0) = 7e-7 taken as 0); maxLum, minLum the target's peak and black normalised alike. "
        "Knee start KS = (1 + k) maxLum - k (BT.2390: k = 0.5). E2 = E1 below KS, above it the Hermite spline "
        "P(E1) = (2t^3 - 3t^2 + 1) KS + (t^3 - 2t^2 + t)(1 - KS) + (-2t^3 + 3t^2) maxLum, t = (E1 - KS) / "
        "(1 - KS) (a knee above 1.5 maxLum - 0.5 takes the tangent 3 (maxLum - KS) for 1 - KS, so the curve stays "
        "monotone); E3 = E2 + minLum (1 - E2)^4 (black lift); L_d = PQ(E3 (PQ(L_W) - PQ(L_B)) + PQ(L_B)) / "
        "target_peak. Absolute luminance is kept below the knee and highlights roll off to the target peak "
        "with a continuous slope; the knee moves down as the source peak rises past the target's.",
        Locality::global,
        display_curve_params({
            {"knee_offset", 0.5, 0.5, 2.0,
             "k in KS = (1 + k) maxLum - k: 0.5 is BT.2390's knee; larger keeps more of the range linear (libplacebo's "
             "knee offset)"},
        })};
    return desc;
  }

  struct Settings {
    DisplayTarget display;
    double knee_offset = 0.5;
  };
  static Settings settings_from(const Params& p) { return {display_target_from(p), p.get("knee_offset")}; }

  template <class T>
  struct Curve {
    T reference_white = 203;  // cd/m^2 of L_w = 1
    T inv_src_range = 1;      // 1 / (PQ(L_W) - PQ(L_B))
    T src_range = 1;          // PQ(L_W) - PQ(L_B)
    T knee = 1;               // KS; >= 1: no roll-off
    T tangent = 0;            // the spline's start tangent: 1 - KS, at most 3 (maxLum - KS)
    T max_lum = 1;            // target peak, normalised
    T min_lum = 0;            // target black, normalised
    T inv_target_peak = 0.01;
    T black_out = 0;          // L_d of L_w = 0: target_black / target_peak (PQ(0) = c1^m2 is not 0)
    int mode = 0;
    TK_HD T operator()(T lw) const {
      if (!(lw > T(0))) return black_out;
      const T e0 = pq_inverse_eotf(lw * reference_white) * inv_src_range;
      T e = e0 < T(0) ? T(0) : (e0 > T(1) ? T(1) : e0);
      if (e > knee) {
        const T t = (e - knee) / (T(1) - knee), t2 = t * t, t3 = t2 * t;
        e = (T(2) * t3 - T(3) * t2 + T(1)) * knee + (t3 - T(2) * t2 + t) * tangent + (T(3) * t2 - T(2) * t3) * max_lum;
      }
      const T u = T(1) - e, u2 = u * u;
      e += min_lum * u2 * u2;
      return pq_eotf(e * src_range) * inv_target_peak;
    }
    template <class U>
    TK_HD Curve<U> cast() const {
      return {U(reference_white), U(inv_src_range), U(src_range), U(knee), U(tangent), U(max_lum), U(min_lum),
              U(inv_target_peak), U(black_out), mode};
    }
  };

  TK_HD static Curve<double> prepare(const Settings& p, const CurveStats& st, const float*) {
    Curve<double> c;
    const DisplayTarget& d = p.display;
    c.reference_white = d.reference_white;
    c.mode = d.mode;
    c.inv_target_peak = 1.0 / d.target_peak;
    // L_B = 0: PQ(0) = c1^m2 ~ 7e-7 of the signal, taken as 0 so that black stays exactly black.
    c.src_range = pq_inverse_eotf(source_peak_cd_hd(d, st));
    c.inv_src_range = 1.0 / c.src_range;
    c.max_lum = pq_inverse_eotf(d.target_peak) * c.inv_src_range;
    c.min_lum = d.target_black > 0 ? pq_inverse_eotf(d.target_black) * c.inv_src_range : 0.0;
    const double knee = (1.0 + p.knee_offset) * c.max_lum - p.knee_offset;
    c.knee = knee < 0.0 ? 0.0 : knee;
    // P'(t) = (1 - t) (6 t (maxLum - KS) + (1 - 3t) m0) with m0 the start tangent: non-negative on
    // [0, 1] iff m0 <= 3 (maxLum - KS). BT.2390's KS = 1.5 maxLum - 0.5 is the largest knee whose full
    // tangent 1 - KS meets it; a larger knee_offset, or a knee clamped at 0 (maxLum < 1/3), takes the
    // largest tangent that keeps the curve monotone.
    const double full = 1.0 - c.knee, limit = 3.0 * (c.max_lum - c.knee);
    c.tangent = full < limit ? full : (limit > 0.0 ? limit : 0.0);
    c.black_out = d.target_black * c.inv_target_peak;
    return c;
  }
};

}  // namespace tonekit::core
