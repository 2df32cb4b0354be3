// Global tone curves: L_w (world luminance, sanitised) -> L_d (display luminance, [0, 1]).
// The settings struct is plain data filled on the host from Params + FrameStats
// (see map_settings.cpp), or on the device from device-resident statistics.
#pragma once
#include <cmath>

#include "core/hd.hpp"

namespace tonekit::core {

enum class CurveKind : int { linear = 0, log = 1, drago = 2, reinhard = 3, histeq = 4 };

struct CurveSettings {
  CurveKind kind = CurveKind::linear;
  // linear: L_d = (L_w - offset) * scale
  double linear_offset = 0.0;
  double linear_scale = 1.0;
  // log (Stockham 1972): L_d = log(1 + e L_w) / log(1 + e L_max)
  double log_exposure = 1.0;
  double log_inv_denominator = 1.0;
  // drago (Drago et al. 2003, Eq 4 of the Drago GPU seed): L' = e L_w / L_wa
  double drago_input_scale = 1.0;   // e / L_wa
  double drago_inv_lwmax = 1.0;     // 1 / L'_max
  double drago_output_scale = 1.0;  // 0.01 L_dmax / log10(L'_max + 1)
  double drago_bias_power = 0.0;    // log(b) / log(0.5)
  // reinhard (Reinhard et al. 2002; thesis Eq 4.2, 4.3 with the white point of the paper's Eq 4)
  double reinhard_scale = 1.0;      // alpha / L_w_avg
  double reinhard_inv_white_sq = 0.0;
  // histeq: bin = floor((log L_w - log_min) * inv_range * bins), L_d = table[bin]
  double hist_log_min = 0.0;
  double hist_inv_log_range = 0.0;
  int hist_bins = 0;
  const float* hist_table = nullptr;  // host or device pointer, `hist_bins` entries
};

template <class T>
TK_HD T linear_curve(T lw, T offset, T scale) {
  return (lw - offset) * scale;
}

template <class T>
TK_HD T log_curve(T lw, T exposure, T inv_denominator) {
  return tk_log1p(exposure * lw) * inv_denominator;
}

// Drago 2003 adaptive logarithmic mapping:
// L_d = (0.01 L_dmax / log10(L_max + 1)) * log(L + 1) / log(2 + 8 (L / L_max)^(log b / log 0.5))
template <class T>
TK_HD T drago_curve(T lw, T input_scale, T inv_lwmax, T output_scale, T bias_power) {
  T l = lw * input_scale;
  T base = T(2) + T(8) * tk_pow(l * inv_lwmax, bias_power);
  return output_scale * tk_log1p(l) / tk_log(base);
}

// Reinhard 2002: L = alpha / L_avg * L_w (Eq 4.2); L_d = L (1 + L / L_white^2) / (1 + L).
// With 1 / L_white^2 = 0 this is Eq 4.3.
template <class T>
TK_HD T reinhard_curve(T lw, T scale, T inv_white_sq) {
  T l = lw * scale;
  return l * (T(1) + l * inv_white_sq) / (T(1) + l);
}

template <class T>
TK_HD int histeq_bin(T log_l, T log_min, T inv_range, int bins) {
  T t = (log_l - log_min) * inv_range * T(bins);
  int b = t <= T(0) ? 0 : static_cast<int>(t);
  return b >= bins ? bins - 1 : b;
}

template <class T>
TK_HD T apply_curve(const CurveSettings& s, T lw) {
  switch (s.kind) {
    case CurveKind::linear: return linear_curve<T>(lw, T(s.linear_offset), T(s.linear_scale));
    case CurveKind::log: return log_curve<T>(lw, T(s.log_exposure), T(s.log_inv_denominator));
    case CurveKind::drago:
      return drago_curve<T>(lw, T(s.drago_input_scale), T(s.drago_inv_lwmax), T(s.drago_output_scale),
                            T(s.drago_bias_power));
    case CurveKind::reinhard: return reinhard_curve<T>(lw, T(s.reinhard_scale), T(s.reinhard_inv_white_sq));
    case CurveKind::histeq: {
      if (!(lw > T(0))) return T(0);
      int b = histeq_bin<T>(tk_log(lw), T(s.hist_log_min), T(s.hist_inv_log_range), s.hist_bins);
      return T(s.hist_table[b]);
    }
  }
  return T(0);
}

}  // namespace tonekit::core
