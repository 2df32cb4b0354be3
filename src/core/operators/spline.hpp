// Spline: a single-pivot polynomial in the PQ domain (the shape of libplacebo's "spline"; this
// definition, its constraints and its slope limits are tonekit's).
#pragma once
#include "core/operators/operator_kit.hpp"
#include "core/video_colour.hpp"

namespace tonekit::core {

struct SplineOperator : GlobalOperator {
  static const OperatorDesc& descriptor() {
    static const OperatorDesc desc{
        "spline",
        "Spline (single-pivot polynomial in PQ)",
        "The single-pivot spline of libplacebo's tone mapping (Niklas Haas, 2022) in tonekit's definition: "
        "two polynomials joined at one pivot in the SMPTE ST 2084 (PQ) domain",
        "In PQ signals: x = PQ^-1(L cd/m^2), x_max = PQ^-1(source peak), y_max = PQ^-1(target_peak), "
        "y_min = PQ^-1(target_black). The pivot x_p = pivot, kept within the middle 80 % of [y_min, y_max], maps to itself (absolute "
        "luminance kept there) with slope k. Below it the quadratic P(t) = x_p + k t + c t^2 (t = x - x_p) "
        "with P(-x_p) = y_min; above it the cubic Q(t) = x_p + k t + a t^2 + b t^3 with Q(D) = y_max and "
        "Q''(D) = 0, D = x_max - x_p: b = (x_p + k D - y_max) / (2 D^3), a = -3 b D. k = contrast, limited to "
        "3 (y_max - x_p) / D and 2 (x_p - y_min) / x_p so that both pieces stay monotone. L_d = PQ(y) / "
        "target_peak. Contrast sets the mid-tone slope; the cubic's shoulder is flat at the source peak.",
        Locality::global,
        display_curve_params({
            {"pivot", 0.30, 0.05, 0.6, "x_p: the pivot's PQ signal (0.30 ~ 10 cd/m^2, 0.51 ~ 100 cd/m^2)"},
            {"contrast", 1.0, 0.1, 2.0, "k: the slope at the pivot in the PQ domain (1: absolute luminance around it)"},
        })};
    return desc;
  }

  struct Settings {
    DisplayTarget display;
    double pivot = 0.30;
    double contrast = 1.0;
  };
  static Settings settings_from(const Params& p) { return {display_target_from(p), p.get("pivot"), p.get("contrast")}; }

  template <class T>
  struct Curve {
    T reference_white = 203;
    T x_p = 0.3, k = 1;
    T c2 = 0;          // c of the quadratic below the pivot
    T a2 = 0, a3 = 0;  // a, b of the cubic above it
    T x_max = 1;       // source peak's PQ signal
    T inv_target_peak = 0.01;
    T black_out = 0;   // target_black / target_peak
    int mode = 0;
    TK_HD T operator()(T lw) const {
      if (!(lw > T(0))) return black_out;
      T x = pq_inverse_eotf(lw * reference_white);
      x = x < x_max ? x : x_max;
      const T t = x - x_p;
      const T y = t <= T(0) ? x_p + t * (k + t * c2) : x_p + t * (k + t * (a2 + t * a3));
      return pq_eotf(y) * inv_target_peak;
    }
    template <class U>
    TK_HD Curve<U> cast() const {
      return {U(reference_white), U(x_p), U(k), U(c2), U(a2), U(a3), U(x_max), U(inv_target_peak), U(black_out), mode};
    }
  };

  TK_HD static Curve<double> prepare(const Settings& p, const CurveStats& st, const float*) {
    Curve<double> c;
    const DisplayTarget& d = p.display;
    c.reference_white = d.reference_white;
    c.inv_target_peak = 1.0 / d.target_peak;
    c.black_out = d.target_black * c.inv_target_peak;
    c.mode = d.mode;
    const double x_max = pq_inverse_eotf(source_peak_cd_hd(d, st));
    const double y_max = pq_inverse_eotf(d.target_peak);
    const double y_min = d.target_black > 0 ? pq_inverse_eotf(d.target_black) : 0.0;
    // The pivot inside the target's range: [y_min + 0.1 (y_max - y_min), y_min + 0.9 (y_max - y_min)].
    const double lo = y_min + 0.1 * (y_max - y_min), hi = y_min + 0.9 * (y_max - y_min);
    const double x_p = p.pivot < lo ? lo : (p.pivot > hi ? hi : p.pivot);
    c.x_max = x_max;
    c.x_p = x_p;
    double k = p.contrast;
    const double dx = x_max - x_p;
    if (dx > 1e-6) {
      const double k_hi = 3.0 * (y_max - x_p) / dx;
      k = k < k_hi ? k : k_hi;
    }
    const double k_lo = 2.0 * (x_p - y_min) / x_p;
    k = k < k_lo ? k : k_lo;
    c.k = k;
    c.c2 = (y_min - x_p + k * x_p) / (x_p * x_p);
    if (dx > 1e-6) {
      c.a3 = (x_p + k * dx - y_max) / (2.0 * dx * dx * dx);
      c.a2 = -3.0 * c.a3 * dx;
    } else {  // the source peak at or below the pivot: the line (clipped at x_max) is all there is
      c.a2 = c.a3 = 0.0;
    }
    return c;
  }
};

}  // namespace tonekit::core
