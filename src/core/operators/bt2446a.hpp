// ITU-R BT.2446 method A: the HDR-to-SDR tone curve of BT.2446-1 section 4.1 (steps 1-4 on the
// luminance; the method's chroma correction is the colour mode's job here).
#pragma once
#include "core/operators/operator_kit.hpp"

namespace tonekit::core {

struct Bt2446aOperator : GlobalOperator {
  static const OperatorDesc& descriptor() {
    static const OperatorDesc desc{
        "bt2446a",
        "BT.2446 method A (HDR to SDR tone curve)",
        "ITU-R BT.2446-1, Methods for conversion of high dynamic range content to standard dynamic range "
        "content and vice-versa, section 4.1 (method A)",
        "Y' = (Y / L_HDR)^(1/2.4) with L_HDR the source peak; rho(L) = 1 + 32 (L / 10000)^(1/2.4); "
        "Y'_p = log(1 + (rho_H - 1) Y') / log(rho_H); Y'_c = 1.0770 Y'_p (Y'_p <= 0.7399), "
        "-1.1510 Y'_p^2 + 2.7811 Y'_p - 0.6302 (<= 0.9909), 0.5 Y'_p + 0.5 above; Y'_SDR = (rho_S^Y'_c - 1) / "
        "(rho_S - 1) with rho_S = rho(L_SDR), L_SDR = target_peak; L_d = Y'_SDR^2.4 (BT.1886). A perceptual "
        "(log) domain knee fitted by the ITU to graders' conversions: brighter mid-tones than BT.2390 for "
        "the same peaks; the curve always spans the source peak to the target peak (no absolute-luminance "
        "segment). target_black lifts the output as BT.2390's black lift does in linear light.",
        Locality::global,
        display_curve_params({})};
    return desc;
  }

  struct Settings {
    DisplayTarget display;
  };
  static Settings settings_from(const Params& p) { return {display_target_from(p)}; }

  template <class T>
  struct Curve {
    T scale = 1;          // reference_white / L_HDR
    T rho_h_minus_1 = 1;  // rho_H - 1
    T inv_log_rho_h = 1;  // 1 / ln rho_H
    T log_rho_s = 1;      // ln rho_S
    T inv_rho_s_minus_1 = 1;
    T black = 0;          // target_black / target_peak: L_d = black + (1 - black) Y_SDR
    int mode = 0;
    TK_HD T operator()(T lw) const {
      if (!(lw > T(0))) return black;
      T y = lw * scale;
      y = y > T(1) ? T(1) : y;
      const T yp = tk_log1p(rho_h_minus_1 * tk_pow(y, T(1.0 / 2.4))) * inv_log_rho_h;
      const T yc = yp <= T(0.7399) ? T(1.0770) * yp
                   : (yp <= T(0.9909) ? (T(-1.1510) * yp + T(2.7811)) * yp - T(0.6302) : T(0.5) * yp + T(0.5));
      const T ys = (tk_exp(yc * log_rho_s) - T(1)) * inv_rho_s_minus_1;
      return black + (T(1) - black) * tk_pow(ys, T(2.4));
    }
    template <class U>
    TK_HD Curve<U> cast() const {
      return {U(scale), U(rho_h_minus_1), U(inv_log_rho_h), U(log_rho_s), U(inv_rho_s_minus_1), U(black), mode};
    }
  };

  TK_HD static double rho_hd(double peak_cd) { return 1.0 + 32.0 * pow(peak_cd / 10000.0, 1.0 / 2.4); }

  TK_HD static Curve<double> prepare(const Settings& p, const CurveStats& st, const float*) {
    Curve<double> c;
    const DisplayTarget& d = p.display;
    const double l_hdr = source_peak_cd_hd(d, st);
    c.scale = d.reference_white / l_hdr;
    const double rho_h = rho_hd(l_hdr), rho_s = rho_hd(d.target_peak);
    c.rho_h_minus_1 = rho_h - 1.0;
    c.inv_log_rho_h = 1.0 / log(rho_h);
    c.log_rho_s = log(rho_s);
    c.inv_rho_s_minus_1 = 1.0 / (rho_s - 1.0);
    c.black = d.target_black / d.target_peak;
    c.mode = d.mode;
    return c;
  }
};

}  // namespace tonekit::core
