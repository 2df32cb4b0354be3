// Local Laplacian tone mapping, the maths both backends run (TK_HD): Paris, Hasinoff and Kautz,
// "Local Laplacian Filters: Edge-aware Image Processing with a Laplacian Pyramid", SIGGRAPH 2011,
// in the fast form of Aubry, Paris, Hasinoff, Kautz and Durand, "Fast Local Laplacian Filters:
// Theory and Applications", ACM TOG 2014 (K sampled intensity levels, linear interpolation).
//
// On l = ln(max(L_w, floor)) (floor = max(smallest positive, 1e-8 L_max)):
//  - the Gaussian pyramid G_j of l (5-tap binomial [1 4 6 4 1] / 16, decimation by 2, clamped
//    borders) to a top level of one pixel (at most kLlfMaxDepth levels);
//  - K levels g_k = l_min + k step over [l_min, l_max]; for each, the remapped image r_k = r(l; g_k)
//    and its Gaussian pyramid R_j^k (levels >= 1);
//  - the output's Laplacian coefficient at (x, level j): with g = G_j(x) between g_k0 and g_k0+1
//    (t its position), (1 - t) L_j^k0(x) + t L_j^k0+1(x), L_j^k = R_j^k - up(R_{j+1}^k) (R_0^k = r_k);
//  - the top level O_J = a + beta (G_J - a) with a its mean; collapse O_j = coefficient + up(O_{j+1});
//  - L_d = exp(O_0 - top), top = the compressed peak a + beta (l_max - a) (the peak maps to white),
//    minus exposure ln 2.
// beta (the frame's): `range`, or with `contrast` C > 0 the smaller of range and C / (l_max - ln
// L_avg), Durand and Dorsey's (SIGGRAPH 2002) target contrast: the compressed span from the
// log-average to the peak is C, so a scene that fits keeps its contrast (beta 1) and one that does
// not is compressed just enough; ln L_avg is rounded to 1/256 stop so both backends' (nearly equal)
// log-averages give one beta. Measured (looks_eval, docs/performance.md): the former fixed beta 0.35
// with white halfway to the key's level put low-range scenes' means near code 180 and high-range
// ones' near 55 (25 real images: mean TMQI 0.822, FSITM 0.795); C = 2.9 stops with white at the
// peak and the floor at 1e-8 L_max (1e-6 floored half of a sunlit scene), alpha 0.85, sigma_r 1.5,
// K 16: 0.875, 0.811 (reinhard-local 0.873, 0.811).
// The remapping r(i; g) (Paris 2011 section 5): d = i - g; |d| < sigma_r: g + sign(d) sigma_r f(|d| /
// sigma_r) with the detail curve f(t) = t^alpha (alpha < 1 adds detail; blended with t under a noise
// level of 0.01 in ln units, as the paper smooths it); |d| >= sigma_r: g + sign(d) (sigma_r + beta
// (|d| - sigma_r)) (beta < 1 compresses edges).
//
// Bits: every float operation below is written out in one order and the files that run it build
// without contraction (the CPU file -ffp-contract=off, the kernels -fmad=false); f(t) is a table of
// kLlfTable + 1 values computed on the host in double and interpolated in float; the logarithm and
// the exponential are taken in double and rounded once. So the two backends compute the same floats.
#pragma once
#include <math.h>

#include <cstddef>

#include "core/hd.hpp"

namespace tonekit::core {

constexpr int kLlfTable = 256;     // intervals of the detail curve's table over t in [0, 1]
constexpr int kLlfMaxK = 16;       // the registry's range of `levels` (scratch is sized for it)
constexpr int kLlfMaxDepth = 15;   // pyramid levels above the image (32768 px sides)
constexpr double kLlfFloorRatio = 1e-8;  // luminances under 1e-8 L_max share one level
constexpr double kLlfNoise = 0.01;       // ln units: detail below this is not amplified (Paris 2011)

// The remapping function and the sampled levels' count, from the parameters alone (host-computed).
struct LlfCurve {
  float table[kLlfTable + 1];  // sigma_r f(i / kLlfTable)
  float sigma = 1.0f;          // sigma_r
  float to_index = 256.0f;     // kLlfTable / sigma_r
  float beta = 0.3f;           // `range`: beta, or its upper bound with contrast_ln > 0
  int levels = 10;             // K
  float exposure_ln = 0.0f;    // exposure (stops) * ln 2
  double contrast_ln = 0.0;    // `contrast` (stops) * ln 2: the target span from ln L_avg to the peak; 0: off
};

// The frame's constants: the log floor, the sampled levels and beta, from the statistics; then `a`
// and `top` from the top of the Gaussian pyramid (llf_finish_top).
struct LlfFrame {
  float floor_lum = 1.0f;  // L_w under it is taken as it
  float lmin = 0.0f, lmax = 0.0f;
  float step = 1.0f, inv_step = 1.0f;
  float beta = 0.3f;       // the range compression this frame uses (the file's comment)
  float anchor = 0.0f;     // a: the mean of the top level
  double top = 0.0;        // O_0 - top is ln L_d
};

// The detail curve f(t), t in [0, 1] (double; tabulated by make_llf_curve).
TK_HD double llf_detail(double t, double alpha, double sigma) {
  if (t <= 0.0) return 0.0;
  const double p = pow(t, alpha);
  if (alpha >= 1.0) return p;
  const double tn = kLlfNoise / sigma;  // the noise level in units of sigma_r
  if (t >= 2.0 * tn) return p;
  if (t <= tn) return t;
  const double u = (t - tn) / tn, s = u * u * (3.0 - 2.0 * u);  // smoothstep from t to t^alpha
  return s * p + (1.0 - s) * t;
}

TK_HD LlfCurve make_llf_curve(double alpha, double beta, double sigma, int levels, double exposure_stops,
                              double contrast_stops = 0.0) {
  LlfCurve c;
  for (int i = 0; i <= kLlfTable; ++i)
    c.table[i] = static_cast<float>(sigma * llf_detail(static_cast<double>(i) / kLlfTable, alpha, sigma));
  c.sigma = static_cast<float>(sigma);
  c.to_index = static_cast<float>(kLlfTable / sigma);
  c.beta = static_cast<float>(beta);
  c.levels = levels < 2 ? 2 : (levels > kLlfMaxK ? kLlfMaxK : levels);
  c.exposure_ln = static_cast<float>(exposure_stops * 0.69314718055994531);
  c.contrast_ln = contrast_stops > 0.0 ? contrast_stops * 0.69314718055994531 : 0.0;
  return c;
}

// r(i; g), float, one order of operations; `table` is LlfCurve::table (the kernels pass a copy
// in shared memory).
TK_HD float llf_remap_with(float i, float g, const float* table, float sigma, float to_index, float beta) {
  const float d = i - g;
  const float ad = fabsf(d);
  float m;
  if (ad < sigma) {
    const float u = ad * to_index;
    int k = static_cast<int>(u);
    if (k > kLlfTable - 1) k = kLlfTable - 1;
    const float f = u - static_cast<float>(k);
    const float t0 = table[k];
    m = t0 + f * (table[k + 1] - t0);
  } else {
    m = sigma + beta * (ad - sigma);
  }
  return d < 0.0f ? g - m : g + m;
}
// With the curve's beta (`range`: the frame's when contrast is off).
TK_HD float llf_remap(float i, float g, const LlfCurve& c) {
  return llf_remap_with(i, g, c.table, c.sigma, c.to_index, c.beta);
}
// With the frame's beta: what the operator runs.
TK_HD float llf_remap(float i, float g, const LlfCurve& c, const LlfFrame& f) {
  return llf_remap_with(i, g, c.table, c.sigma, c.to_index, f.beta);
}

// The sampled level g_k.
TK_HD float llf_level(const LlfFrame& f, int k) { return f.lmin + static_cast<float>(k) * f.step; }

// The pair of sampled levels around g (k0, k0 + 1 < K) and the position t in [0, 1] between them.
TK_HD int llf_bracket(float g, const LlfFrame& f, int levels, float& t) {
  float u = (g - f.lmin) * f.inv_step;
  const float top = static_cast<float>(levels - 1);
  u = u < 0.0f ? 0.0f : (u > top ? top : u);
  int k = static_cast<int>(u);
  if (k > levels - 2) k = levels - 2;
  t = u - static_cast<float>(k);
  return k;
}

// The interpolated coefficient from the two levels' Laplacian coefficients.
TK_HD float llf_blend(float c0, float c1, float t) { return c0 + t * (c1 - c0); }

// ln of the floored luminance, rounded once from double.
TK_HD float llf_log(float lw, float floor_lum) {
  return static_cast<float>(log(static_cast<double>(lw > floor_lum ? lw : floor_lum)));
}

// The frame's log range, levels and beta from its statistics (L_max and the smallest positive L:
// exact on both backends; the log-average: the file's comment).
TK_HD LlfFrame make_llf_frame(double max_luminance, double min_positive, double log_average, const LlfCurve& c) {
  const int levels = c.levels;
  LlfFrame f;
  double floor_lum = max_luminance * kLlfFloorRatio;
  if (min_positive > floor_lum) floor_lum = min_positive;
  if (!(max_luminance > 0.0) || !(floor_lum > 0.0)) floor_lum = max_luminance > 0.0 ? max_luminance : 1.0;
  f.floor_lum = static_cast<float>(floor_lum);
  f.lmin = llf_log(f.floor_lum, f.floor_lum);
  const float peak = static_cast<float>(max_luminance > floor_lum ? max_luminance : floor_lum);
  f.lmax = llf_log(peak, f.floor_lum);
  const int k = levels < 2 ? 2 : levels;
  double step = (static_cast<double>(f.lmax) - f.lmin) / (k - 1);
  if (!(step > 0.0)) step = 1.0;
  f.step = static_cast<float>(step);
  f.inv_step = static_cast<float>(1.0 / step);
  double beta = c.beta;
  if (c.contrast_ln > 0.0 && log_average > 0.0) {
    const double lavg = floor(log2(log_average) * 256.0 + 0.5) / 256.0 * 0.69314718055994531;
    const double span = static_cast<double>(f.lmax) - lavg;
    if (span > 0.0 && c.contrast_ln < beta * span) beta = c.contrast_ln / span;
  }
  f.beta = static_cast<float>(beta);
  return f;
}

// a = mean of the top level (double, row-major order) and top (the file's comment).
TK_HD void llf_finish_top(LlfFrame& f, const float* g_top, int n, const LlfCurve& c) {
  double sum = 0.0;
  for (int i = 0; i < n; ++i) sum += g_top[i];
  f.anchor = static_cast<float>(n > 0 ? sum / n : 0.0);
  const double peak = static_cast<double>(f.anchor) + static_cast<double>(f.beta) * (static_cast<double>(f.lmax) - f.anchor);
  f.top = peak - static_cast<double>(c.exposure_ln);
}

// The top level of the output: a + beta (G_J - a).
TK_HD float llf_top_value(float g, const LlfFrame& f) { return f.anchor + f.beta * (g - f.anchor); }

// L_d from the collapsed output.
TK_HD float llf_display(float o, const LlfFrame& f) { return static_cast<float>(exp(static_cast<double>(o) - f.top)); }

// ---- the pyramid's filters (one order of operations; clamped borders) ----

TK_HD int llf_clamp(int v, int n) { return v < 0 ? 0 : (v >= n ? n - 1 : v); }

// (a + 4 b + 6 c + 4 d + e) / 16.
TK_HD float llf_tap5(float a, float b, float c, float d, float e) {
  return ((((a + 4.0f * b) + 6.0f * c) + 4.0f * d) + e) * 0.0625f;
}

// Decimated sample (x, y) of a w x h plane: the five rows' horizontal taps, then the vertical tap.
// `at(xx, yy)` reads a clamped coordinate.
template <class At>
TK_HD float llf_down_at(At&& at, int w, int h, int x, int y) {
  float r[5];
  for (int k = 0; k < 5; ++k) {
    const int yy = llf_clamp(2 * y - 2 + k, h);
    r[k] = llf_tap5(at(llf_clamp(2 * x - 2, w), yy), at(llf_clamp(2 * x - 1, w), yy), at(llf_clamp(2 * x, w), yy),
                    at(llf_clamp(2 * x + 1, w), yy), at(llf_clamp(2 * x + 2, w), yy));
  }
  return llf_tap5(r[0], r[1], r[2], r[3], r[4]);
}

// One axis of the expansion: the fine index x from the coarse samples: even x = 2i: (c[i-1] + 6 c[i]
// + c[i+1]) / 8; odd x = 2i + 1: (c[i] + c[i+1]) / 2 (the [1 4 6 4 1] / 8 kernel on the zero-filled
// coarse samples), coarse indices clamped.
TK_HD float llf_up1(float m, float c, float p, bool odd) { return odd ? (c + p) * 0.5f : ((m + 6.0f * c) + p) * 0.125f; }

// up(C)(x, y) for a coarse plane of cw x ch: the rows' horizontal expansions, then the vertical one.
template <class At>
TK_HD float llf_up_at(At&& at, int cw, int ch, int x, int y) {
  const int i = x >> 1, j = y >> 1;
  const bool ox = (x & 1) != 0, oy = (y & 1) != 0;
  const int xm = llf_clamp(i - 1, cw), xc = llf_clamp(i, cw), xp = llf_clamp(i + 1, cw);
  float r[3];
  for (int k = 0; k < 3; ++k) {
    const int yy = llf_clamp(j - 1 + k, ch);
    r[k] = llf_up1(at(xm, yy), at(xc, yy), at(xp, yy), ox);
  }
  return oy ? llf_up1(r[0], r[1], r[2], true) : llf_up1(r[0], r[1], r[2], false);
}

// Pyramid geometry: level 0 is the image; level j + 1 has ceil(n / 2) samples per side; levels
// until both sides are 1 (at most kLlfMaxDepth above the image).
struct LlfGeometry {
  int depth = 0;                        // J
  int w[kLlfMaxDepth + 1] = {};
  int h[kLlfMaxDepth + 1] = {};
  std::size_t offset[kLlfMaxDepth + 2] = {};  // levels >= 1 of a (planes)-plane pyramid: start of level j
  int planes = 1;
  std::size_t size(int j) const { return static_cast<std::size_t>(w[j]) * h[j]; }
  // Element offset of plane k of level j >= 1.
  std::size_t at(int j, int k) const { return offset[j] + static_cast<std::size_t>(k) * size(j); }
  std::size_t total() const { return offset[depth + 1]; }
};

inline LlfGeometry llf_geometry(int w, int h, int planes) {
  LlfGeometry g;
  g.planes = planes;
  g.w[0] = w;
  g.h[0] = h;
  int j = 0;
  while ((g.w[j] > 1 || g.h[j] > 1) && j < kLlfMaxDepth) {
    g.w[j + 1] = (g.w[j] + 1) / 2;
    g.h[j + 1] = (g.h[j] + 1) / 2;
    ++j;
  }
  g.depth = j;
  g.offset[0] = g.offset[1] = 0;
  for (int l = 1; l <= j; ++l) g.offset[l + 1] = g.offset[l] + static_cast<std::size_t>(planes) * g.size(l);
  return g;
}

}  // namespace tonekit::core
