// Local operators' shared maths (written once, scheduled per backend):
// the settings struct both backends fill, Reinhard 2002's centre-surround activity and scale
// selection, the Gaussian kernel weights of the reference and the box widths of the SAT
// variant, and Qian 2013's local Drago curve. Every function is TK_HD so the CPU reference
// (src/cpu/local/) and the CUDA kernels call the same code.
//
// Operators (registry ids): reinhard-local (Gaussian pyramid), reinhard-sat (Slomp & Oliveira
// 2008 box filters from a summed-area table), drago-local (Qian 2013 pixel-centred average);
// local-laplacian's maths is core/laplacian.hpp.
#pragma once
#include <math.h>

#include "core/curve_setup.hpp"
#include "core/curves.hpp"
#include "core/hd.hpp"
#include "core/fusion.hpp"
#include "core/laplacian.hpp"

#if !defined(__CUDA_ARCH__)
#include <string_view>

#include "tonekit/operators.hpp"
#include "tonekit/tonemap.hpp"
#endif

namespace tonekit::core {

enum class LocalKind : int { none = 0, reinhard_gauss = 1, reinhard_box = 2, drago_local = 3, local_laplacian = 4,
                             exposure_fusion = 5 };

constexpr int kMaxLocalScales = 8;

// Reinhard 2002 Eq 5 (thesis Eq 4.4): R_i(x, y, s) = 1 / (pi (alpha_i s)^2) exp(-(x^2 + y^2) / (alpha_i s)^2)
// with alpha_1 = 1 / (2 sqrt 2) for the centre V1 and alpha_2 = 1.6 alpha_1 for the surround V2.
// Since alpha_2 s_i = alpha_1 s_{i+1} (s_{i+1} = 1.6 s_i), V2 at scale i is V1 at scale i + 1:
// one blur per scale.
constexpr double kReinhardAlpha1 = 0.35355339059327376;  // 1 / (2 sqrt 2)
constexpr double kReinhardAlpha2 = 1.6 * kReinhardAlpha1;
constexpr double kScaleRatio = 1.6;
// The reference truncates each Gaussian at >= 4 sigma (sigma = alpha s / sqrt 2: exp(-r^2/(alpha s)^2)
// is exp(-r^2 / (2 sigma^2))); the tails cut off hold < 6.4e-5 of each 1-D kernel.
constexpr double kGaussianTruncationSigmas = 4.0;

// Scale i = 0 .. kMaxLocalScales-1 of the Gaussian pyramid: s_i = 1.6^i (1, 1.6, ..., 26.8 pixels).
TK_HD double gaussian_scale(int i) {
  double s = 1.0;
  for (int k = 0; k < i; ++k) s *= kScaleRatio;
  return s;
}

// The 1-D factor of R_i: exp(-x^2 / (alpha s)^2). The 2-D kernel is the product of two, and the
// CPU reference normalises the truncated discrete kernel to unit sum (the continuous
// 1 / (pi (alpha s)^2) is the same normalisation over the plane), so a flat image keeps its value.
TK_HD double reinhard_kernel_factor(double x, double s, double alpha) {
  const double a = alpha * s;
  return exp(-(x * x) / (a * a));
}

// The full 2-D kernel value of Reinhard 2002 Eq 5 (continuous normalisation), for tests and
// for GPU code that samples it directly.
TK_HD double reinhard_kernel(double x, double y, double s, double alpha) {
  const double a = alpha * s;
  return exp(-(x * x + y * y) / (a * a)) / (3.14159265358979323846 * a * a);
}

// Half-width of the truncated kernel at scale i: ceil(4 sigma), sigma = alpha_1 s_i / sqrt 2.
// Radii for i = 0..7: 1, 2, 3, 5, 7, 11, 17, 27.
TK_HD int gaussian_radius(int i) {
  const double sigma = kReinhardAlpha1 * gaussian_scale(i) * 0.70710678118654752;
  return static_cast<int>(ceil(kGaussianTruncationSigmas * sigma - 1e-9));  // 4 sigma = 1.0 exactly at i = 0
}

// The reference's normalised 1-D weight of tap k (|k| <= gaussian_radius(i)) at level i:
// reinhard_kernel_factor(k, s_i, alpha_1) / sum over the truncated taps; the separable 2-D
// kernel is weight(y) * weight(x) and sums to 1. O(radius) per call: tabulate once per frame.
TK_HD double gaussian_weight(int i, int k) {
  const int r = gaussian_radius(i);
  const double s = gaussian_scale(i);
  double total = reinhard_kernel_factor(0.0, s, kReinhardAlpha1);
  for (int j = 1; j <= r; ++j) total += 2.0 * reinhard_kernel_factor(j, s, kReinhardAlpha1);
  return reinhard_kernel_factor(k, s, kReinhardAlpha1) / total;
}

// Box edge lengths of the SAT variant (thesis Eq 4.8, Box(x, y, s_i)), in pixels, centred on the
// pixel: level 0 is the pixel itself ("scale 0" of the box pyramid, thesis Fig 5-18), then the
// seven odd widths of the thesis' dodging-and-burning kernel (Listing 6.4, after Linnemann et al.
// 2009), which grow by ~1.6 per level like Reinhard's s_i. At the borders the image's edge pixels
// are replicated (clamp-to-edge sampling, as the Gaussian reference convolves; the mean always
// divides by width^2): sat::box_sum_replicated.
TK_HD int box_width(int i) {
  switch (i) {
    case 0: return 1;
    case 1: return 3;
    case 2: return 5;
    case 3: return 7;
    case 4: return 11;
    case 5: return 17;
    case 6: return 25;
    default: return 39;
  }
}

// The "s" of Eq 4.5's 2^phi alpha / s^2 term for each variant: s_i in pixels for the Gaussian
// pyramid, the centre box's edge length for the SAT variant (as in the thesis' kernel).
TK_HD double activity_scale(LocalKind kind, int i) {
  return kind == LocalKind::reinhard_box ? static_cast<double>(box_width(i)) : gaussian_scale(i);
}

// Centre-surround activity, thesis Eq 4.5 (Reinhard 2002 Eq 7):
// V = (V1 - V2) / (2^phi alpha / s^2 + V1). phi_term = 2^phi alpha.
template <class T>
TK_HD T centre_surround_activity(T v1, T v2, T s, T phi_term) {
  return (v1 - v2) / (phi_term / (s * s) + v1);
}

// Plain data read by the local kernels; filled once per frame by make_local_settings_hd from
// LocalParams and the frame statistics (host or device), so kernels trust every value.
struct LocalSettings {
  LocalKind kind = LocalKind::none;
  // Reinhard (both variants)
  double lum_scale = 1.0;   // alpha / L_w_avg: L = lum_scale * L_w (thesis Eq 4.2)
  double phi_term = 46.08;  // 2^phi * alpha (Eq 4.5)
  double epsilon = 0.05;    // |V| < epsilon (Eq 4.6)
  int scales = 8;           // pyramid levels 1..8 (thesis 7.5: fewer levels, faster, less detail)
  int sat_algorithm = 0;    // reinhard-sat: table algorithm id (src/cpu/sat/sat_table.hpp SatAlgorithm)
  // drago-local (Qian 2013 Eq 3-4 with the local L_wa of Eq 7-8)
  int window = 7;           // n of the n x n pixel-centred average, odd
  double exposure = 1.0;    // e
  double lw_max = 1.0;      // frame maximum luminance L_wmax (> 0)
  double ld_scale = 1.0;    // 0.01 L_dmax
  double bias_power = 0.0;  // log(b) / log(0.5)
};

// The parameters the local operators read, as plain data (the registry names in comments).
struct LocalParams {
  LocalKind kind = LocalKind::none;
  double key = 0.18;      // key
  double phi = 8.0;       // phi
  double epsilon = 0.05;  // epsilon
  int scales = 8;         // scales
  int sat = 0;            // sat
  int window = 7;         // window (any integer; window | 1 is used)
  double bias = 0.85;     // bias
  double ld_max = 100.0;  // ld_max
  double exposure = 1.0;  // exposure (drago-local: a multiplier; local-laplacian: stops)
  // local-laplacian (core/laplacian.hpp)
  double detail = 0.85;   // detail (alpha)
  double range = 1.0;     // range (beta, or its upper bound with contrast > 0)
  double contrast = 2.9;  // contrast (stops from the log-average to the peak after compression; 0: off)
  double sigma = 1.5;     // sigma (sigma_r)
  int levels = 16;        // levels (K)
  // exposure-fusion (core/fusion.hpp)
  FusionParams fusion;    // exposures, contrast, chroma (saturation weight), exposedness, sigma
};

TK_HD LocalSettings make_local_settings_hd(const LocalParams& p, const CurveStats& st) {
  LocalSettings s;
  s.kind = p.kind;
  const double lavg = st.log_average > 0 ? st.log_average : 1.0;
  s.lum_scale = p.key / lavg;
  s.phi_term = pow(2.0, p.phi) * p.key;
  s.epsilon = p.epsilon;
  s.scales = p.scales < 1 ? 1 : (p.scales > kMaxLocalScales ? kMaxLocalScales : p.scales);
  s.sat_algorithm = p.sat;
  s.window = (p.window < 1 ? 1 : p.window) | 1;
  s.exposure = p.exposure;
  s.lw_max = st.max_luminance > 0 ? st.max_luminance : 1.0;
  s.ld_scale = 0.01 * p.ld_max;
  s.bias_power = log(p.bias) / log(0.5);
  return s;
}

// The offset 2^phi alpha / s^2 of Eq 4.5's denominator at level i.
TK_HD double activity_offset(const LocalSettings& s, int i) {
  const double sc = activity_scale(s.kind, i);
  return s.phi_term / (sc * sc);
}

// |V| < epsilon (Eq 4.6) without the division: with offset = 2^phi alpha / s^2 > 0 and v1 >= 0
// the denominator is positive, so |v1 - v2| / (offset + v1) < eps <=> |v1 - v2| < eps (offset + v1).
// Both backends test this form so they select the same scales.
template <class T>
TK_HD bool activity_below(T v1, T v2, T offset, T eps) {
  return fabs(v1 - v2) < eps * (offset + v1);
}

// 1 / width^2: box means multiply the (edge-replicated) box sum by it.
TK_HD double box_inv_area(int width) { return 1.0 / (static_cast<double>(width) * width); }

// V1 of the SAT variant at a level from the level's edge-replicated box sum. The table holds the
// sanitised luminance L_w (so it can be built in the statistics pass, before the key is known);
// table_scale = lum_scale turns its box mean into scaled luminance (1 for a table of L itself).
// Both backends evaluate this expression in this order.
TK_HD double box_level_response(double box_sum, int width, double table_scale) {
  return box_sum * box_inv_area(width) * table_scale;
}

// Scale selection, thesis Algorithm 7 / Reinhard 2002 Eq 8: starting at level 0, move the centre
// out one level while the activity between the centre and the next level stays under epsilon;
// return the response of the last accepted level (the largest scale s_m with |V| < epsilon; level
// 0 when even the first pair is active). `level(i)` returns V1 at level i; it is called for
// levels 1.. only as far as the search goes. epsilon = 0 or scales = 1 give level 0.
template <class T, class Level>
TK_HD T select_local_response(const LocalSettings& s, T centre, Level&& level, int* chosen = nullptr) {
  int i = 0;
  for (; i + 1 < s.scales; ++i) {
    const T surround = level(i + 1);
    if (!activity_below<T>(centre, surround, T(activity_offset(s, i)), T(s.epsilon))) break;
    centre = surround;
  }
  if (chosen) *chosen = i;
  return centre;
}

// Reinhard 2002 Eq 9 (thesis Eq 4.7): L_d = L / (1 + V1(x, y, s_m)). No white point, as in the
// paper's local operator; with V1 = L this is the global Eq 4.3.
template <class T>
TK_HD T reinhard_local_ld(T l, T v1) {
  return l / (T(1) + v1);
}

// Qian 2013 Eq 3-4 with the pixel-centred local average L_wa (Eq 7-8): L_w and L_wmax are both
// normalised by e / L_wa(x, y), L' = e L_w / L_wa, L'_max = e L_wmax / L_wa, then Drago's curve
// (core::drago_curve) with L'_max in its log10 normaliser. An interior pixel is part of its own
// average (L_wa >= L_w / n^2); a border pixel takes its nearest interior average (Qian step c),
// which may be far darker, so L_wa is floored at 1e-6 L_w (and 1e-30) and L'_max capped at 1e30:
// no division by zero, no overflow, and only pathological border pixels are affected. lw = 0 gives 0.
template <class T>
TK_HD T drago_local_ld(T lw, T lwa, const LocalSettings& s) {
  T a = lwa > lw * T(1e-6) ? lwa : lw * T(1e-6);
  a = a > T(1e-30) ? a : T(1e-30);
  const T input_scale = T(s.exposure) / a;
  T scaled_max = T(s.lw_max) * input_scale;
  scaled_max = scaled_max < T(1e30) ? scaled_max : T(1e30);
  const T output_scale = T(s.ld_scale) * T(2.302585092994046) / tk_log1p(scaled_max);  // 1 / log10(L'max + 1)
  return drago_curve<T>(lw, input_scale, T(1) / scaled_max, output_scale, T(s.bias_power));
}

#if !defined(__CUDA_ARCH__)
// Host side: registry id -> kind, and Params -> LocalParams (the registry's names).
inline LocalKind local_kind_for(const OperatorDesc& op) {
  if (&op == &ReinhardLocalOperator::descriptor()) return LocalKind::reinhard_gauss;
  if (&op == &ReinhardSatOperator::descriptor()) return LocalKind::reinhard_box;
  if (&op == &DragoLocalOperator::descriptor()) return LocalKind::drago_local;
  if (&op == &LocalLaplacianOperator::descriptor()) return LocalKind::local_laplacian;
  if (&op == &ExposureFusionOperator::descriptor()) return LocalKind::exposure_fusion;
  return LocalKind::none;
}

inline LocalParams local_params_from(const Params& p) {
  LocalParams lp;
  lp.kind = local_kind_for(p.op());
  if (lp.kind == LocalKind::reinhard_gauss || lp.kind == LocalKind::reinhard_box) {
    lp.key = p.get("key");
    lp.phi = p.get("phi");
    lp.epsilon = p.get("epsilon");
    lp.scales = static_cast<int>(p.get("scales"));
    if (lp.kind == LocalKind::reinhard_box) lp.sat = static_cast<int>(p.get("sat"));
  } else if (lp.kind == LocalKind::drago_local) {
    lp.window = static_cast<int>(p.get("window"));
    lp.bias = p.get("bias");
    lp.ld_max = p.get("ld_max");
    lp.exposure = p.get("exposure");
  } else if (lp.kind == LocalKind::local_laplacian) {
    lp.detail = p.get("detail");
    lp.range = p.get("range");
    lp.contrast = p.get("contrast");
    lp.sigma = p.get("sigma");
    lp.levels = static_cast<int>(p.get("levels"));
    lp.exposure = p.get("exposure");
  } else if (lp.kind == LocalKind::exposure_fusion) {
    lp.fusion.exposures = static_cast<int>(p.get("exposures"));
    lp.fusion.contrast = p.get("contrast");
    lp.fusion.saturation = p.get("chroma");
    lp.fusion.exposedness = p.get("exposedness");
    lp.fusion.sigma = p.get("sigma");
  }
  return lp;
}

// local-laplacian's remapping function and level count from its parameters.
inline LlfCurve llf_curve_from(const LocalParams& p) {
  return make_llf_curve(p.detail, p.range, p.sigma, p.levels, p.exposure, p.contrast);
}

inline LocalSettings make_local_settings(const Params& p, const FrameStats& f) {
  return make_local_settings_hd(local_params_from(p), curve_stats_hd(f));
}
#endif

}  // namespace tonekit::core
