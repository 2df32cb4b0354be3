// The quality metrics' per-pixel maths over runs of pixels (colour fidelity, FSITM's phase angle), written element-wise with
// selects instead of branches so that GCC vectorises the loops (built with -O3 -ffast-math, like
// src/cpu/map_kernels.cpp: glibc's libmvec then supplies the vector atan2, sin, cos, exp, cbrt).
// The same formulas as lab_from_linear_rgb and ciede2000 (ciede2000.cpp), which stay the scalar
// reference: they agree to ~1e-12 (libmvec is within 4 ulp; test_quality_colour.cpp checks it on
// the Sharma pairs and on random colours). An --auto search spends ~40 % of its time here.
#include "quality/colour_batch.hpp"

#include "quality/ciede2000_parts.hpp"

#include <cmath>
#include <numbers>

#define TK_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))

namespace tonekit::quality::detail {
namespace {

constexpr double kRgbToXyz[3][3] = {{0.4124564, 0.3575761, 0.1804375},
                                    {0.2126729, 0.7151522, 0.0721750},
                                    {0.0193339, 0.1191920, 0.9503041}};

inline double lab_f(double t) {
  constexpr double d = 6.0 / 29.0;
  const double linear = t / (3.0 * d * d) + 4.0 / 29.0;
  return t > d * d * d ? std::cbrt(t) : linear;
}

// atan2(b, a) in degrees in [0, 360); 0 for a = b = 0 (as hue_degrees).
inline double hue_degrees(double b, double a) {
  const double h = std::atan2(b, a) / kDeg;
  const double wrapped = h < 0.0 ? h + 360.0 : h;
  return (a == 0.0 && b == 0.0) ? 0.0 : wrapped;
}

}  // namespace

TK_CLONES void lab_batch(const double* __restrict r, const double* __restrict g, const double* __restrict b, int n,
                         double* __restrict l, double* __restrict a, double* __restrict bb) {
  double white[3];
  for (int i = 0; i < 3; ++i) white[i] = kRgbToXyz[i][0] + kRgbToXyz[i][1] + kRgbToXyz[i][2];
  const double iw0 = 1.0 / white[0], iw1 = 1.0 / white[1], iw2 = 1.0 / white[2];
  for (int k = 0; k < n; ++k) {
    const double x = kRgbToXyz[0][0] * r[k] + kRgbToXyz[0][1] * g[k] + kRgbToXyz[0][2] * b[k];
    const double y = kRgbToXyz[1][0] * r[k] + kRgbToXyz[1][1] * g[k] + kRgbToXyz[1][2] * b[k];
    const double z = kRgbToXyz[2][0] * r[k] + kRgbToXyz[2][1] * g[k] + kRgbToXyz[2][2] * b[k];
    const double fx = lab_f(x * iw0), fy = lab_f(y * iw1), fz = lab_f(z * iw2);
    l[k] = 116.0 * fy - 16.0;
    a[k] = 500.0 * (fx - fy);
    bb[k] = 200.0 * (fy - fz);
  }
}

TK_CLONES void ciede2000_batch(const double* __restrict l1, const double* __restrict a1_, const double* __restrict b1,
                               const double* __restrict l2, const double* __restrict a2_, const double* __restrict b2, int n,
                               double* __restrict out) {
  for (int k = 0; k < n; ++k) {
    const double c1 = std::sqrt(a1_[k] * a1_[k] + b1[k] * b1[k]), c2 = std::sqrt(a2_[k] * a2_[k] + b2[k] * b2[k]);
    const double c_bar7 = pow7((c1 + c2) / 2.0);
    const double g = 0.5 * (1.0 - std::sqrt(c_bar7 / (c_bar7 + k25Pow7)));
    const double a1 = (1.0 + g) * a1_[k], a2 = (1.0 + g) * a2_[k];
    const double cp1 = std::sqrt(a1 * a1 + b1[k] * b1[k]), cp2 = std::sqrt(a2 * a2 + b2[k] * b2[k]);
    const double hp1 = hue_degrees(b1[k], a1), hp2 = hue_degrees(b2[k], a2);
    const bool chromatic = cp1 * cp2 != 0.0;
    const double dl = l2[k] - l1[k], dc = cp2 - cp1;
    // The hue rules at |h1 - h2| = 180 exactly (Sharma's pairs 13-14: opposite hues) with a margin
    // of 1e-9 degrees: libmvec's atan2 may land an ulp past 180 where the scalar one does not, and
    // the rules then pick the other mean hue (a 0.06 difference in those pairs).
    constexpr double kHalfTurn = 180.0 + 1e-9;
    double dh = hp2 - hp1;
    dh = dh > kHalfTurn ? dh - 360.0 : (dh < -kHalfTurn ? dh + 360.0 : dh);
    dh = chromatic ? dh : 0.0;
    const double dhh = 2.0 * std::sqrt(cp1 * cp2) * std::sin(dh / 2.0 * kDeg);
    const double l_bar = (l1[k] + l2[k]) / 2.0, cp_bar = (cp1 + cp2) / 2.0;
    const double sum = hp1 + hp2;
    const double around = sum < 360.0 ? (sum + 360.0) / 2.0 : (sum - 360.0) / 2.0;
    const double mean = std::abs(hp1 - hp2) <= kHalfTurn ? sum / 2.0 : around;
    const double h_bar = chromatic ? mean : sum;
    // sin h as cos(h - 90 deg): GCC fuses a sin and a cos of one argument into sincos, which has
    // no vector form, and the loop then stays scalar.
    out[k] = ciede2000_step3(l_bar, cp_bar, h_bar, std::cos(h_bar * kDeg), std::cos((h_bar - 90.0) * kDeg), dl, dc, dhh);
  }
}

TK_CLONES void hue_shift_batch(const double* __restrict a1, const double* __restrict b1, const double* __restrict a2,
                               const double* __restrict b2, int n, double min_chroma, double* __restrict shift,
                               double* __restrict counted) {
  const double min2 = min_chroma * min_chroma;
  for (int k = 0; k < n; ++k) {
    const bool both = a1[k] * a1[k] + b1[k] * b1[k] >= min2 && a2[k] * a2[k] + b2[k] * b2[k] >= min2;
    const double cross = a1[k] * b2[k] - b1[k] * a2[k], dot = a1[k] * a2[k] + b1[k] * b2[k];
    const double angle = std::atan2(std::abs(cross), dot) * (180.0 / std::numbers::pi);
    shift[k] = both ? angle : 0.0;
    counted[k] = both ? 1.0 : 0.0;
  }
}

TK_CLONES void phase_angle_batch(const double* __restrict even, const double* __restrict odd_x,
                                 const double* __restrict odd_y, std::size_t n, double* __restrict angle) {
  for (std::size_t i = 0; i < n; ++i)
    angle[i] = std::atan2(even[i], std::sqrt(odd_x[i] * odd_x[i] + odd_y[i] * odd_y[i]));
}

}  // namespace tonekit::quality::detail
