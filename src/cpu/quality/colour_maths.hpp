// The colour-fidelity metric's per-pixel maths, written once for the CPU's scalar
// reference (ciede2000.cpp), its vectorised runs (colour_batch.cpp, per x86-64 level, with the
// maths policy PortableMaths: cpu/portable_double.hpp's atan2, sin, cos, exp, cbrt) and the GPU (src/cuda/quality/colour_gpu.cu, one thread a
// pixel, -fmad=false): CIE L*a*b* of linear BT.709 RGB, CIEDE2000 as Sharma, Wu & Dalal write it
// out ("The CIEDE2000 color-difference formula: implementation notes, supplementary test data,
// and mathematical observations", Color Res. Appl. 30(1), 2005, its three steps), the hue-angle
// shift, and the lightness match of colour_fidelity.cpp.
// Spelled element-wise with selects instead of branches so that GCC vectorises the loops that
// inline them. C++17 (the CUDA sources' standard): no std::numbers. Inputs are finite (sanitised
// HDR values, decoded display codes).
#pragma once
#include "core/hd.hpp"

namespace tonekit::quality::detail {

constexpr double kPi = 3.14159265358979323846;
constexpr double kDeg = kPi / 180.0;
constexpr double k25Pow7 = 6103515625.0;  // 25^7
// Hue is taken as defined where both colours have at least this chroma (C*ab): below it the
// angle of a near-grey is noise.
constexpr double kMinChromaForHue = 5.0;

// BT.709 / sRGB primaries with D65 white (IEC 61966-2-1), RGB -> XYZ, and 1 / the white's XYZ
// (RGB (1, 1, 1) is exactly neutral), each white summed left to right.
constexpr double kXr = 0.4124564, kXg = 0.3575761, kXb = 0.1804375;
constexpr double kYr = 0.2126729, kYg = 0.7151522, kYb = 0.0721750;
constexpr double kZr = 0.0193339, kZg = 0.1191920, kZb = 0.9503041;
constexpr double kInvWhiteX = 1.0 / (kXr + kXg + kXb);
constexpr double kInvWhiteY = 1.0 / (kYr + kYg + kYb);
constexpr double kInvWhiteZ = 1.0 / (kZr + kZg + kZb);
// X/Xw - Y/Yw and Z/Zw - Y/Yw per unit of (R - B) and of (G - B): each white-scaled row sums to 1,
// so their differences from the Y row sum to 0 and the B coefficient is minus the other two.
constexpr double kDxr = kXr * kInvWhiteX - kYr * kInvWhiteY, kDxg = kXg * kInvWhiteX - kYg * kInvWhiteY;
constexpr double kDzr = kZr * kInvWhiteZ - kYr * kInvWhiteY, kDzg = kZg * kInvWhiteZ - kYg * kInvWhiteY;

// The transcendental functions the maths below calls, as a policy (template parameter M): the C
// library's (the scalar reference, CUDA's on the GPU) unless a caller passes others.
struct LibmMaths {
  static TK_HD double cbrt(double x) { return ::cbrt(x); }
  static TK_HD double atan2(double y, double x) { return ::atan2(y, x); }
  static TK_HD double exp(double x) { return ::exp(x); }
  static TK_HD double sin(double x) { return ::sin(x); }
  static TK_HD double cos(double x) { return ::cos(x); }
};

// x^7 by multiplications (std::pow(x, 7.0) was 5 % of an --auto search's time).
TK_HD double pow7(double x) {
  const double x2 = x * x, x3 = x2 * x;
  return x3 * x3 * x;
}

// CIE 1976 lightness companding with its linear segment below (6/29)^3.
template <class M = LibmMaths>
TK_HD double lab_f(double t) {
  constexpr double d = 6.0 / 29.0;
  const double linear = t / (3.0 * d * d) + 4.0 / 29.0;
  const double root = M::cbrt(t);  // taken for every t: a branch would keep the vectorised runs scalar
  return t > d * d * d ? root : linear;
}

// L*a*b* (D65, Y of white = 1) of linear RGB. X/Xw and Z/Zw are written as Y/Yw plus multiples of
// R - B and G - B, so that a neutral RGB (R = G = B) gets a* = b* = 0 exactly under every
// compilation: as three matrix rows, rounding left |a*|, |b*| ~ 1e-14 on greys, and CIEDE2000's
// mean hue, which jumps where a chroma reaches 0, then differed between the CPU's fast-math and
// scalar builds by 1e-7 relative on grey pixels (R = G = B outputs are common: clipped whites).
template <class M = LibmMaths>
TK_HD void lab_of_linear(double r, double g, double b, double& l, double& a, double& bb) {
  const double y = (kYr * r + kYg * g + kYb * b) * kInvWhiteY;
  const double x = y + (kDxr * (r - b) + kDxg * (g - b));
  const double z = y + (kDzr * (r - b) + kDzg * (g - b));
  const double fx = lab_f<M>(x), fy = lab_f<M>(y), fz = lab_f<M>(z);
  l = 116.0 * fy - 16.0;
  a = 500.0 * (fx - fy);
  bb = 200.0 * (fy - fz);
}

// atan2(b, a) in degrees in [0, 360); 0 for a = b = 0.
template <class M = LibmMaths>
TK_HD double hue_degrees(double b, double a) {
  const double h = M::atan2(b, a) / kDeg;
  const double wrapped = h < 0.0 ? h + 360.0 : h;
  return (a == 0.0 && b == 0.0) ? 0.0 : wrapped;
}

// Step 3: the weights at the mean lightness l_bar, chroma cp_bar and hue h_bar (degrees; cos_h,
// sin_h its cosine and sine), then the difference from dL', dC', dH' (kL = kC = kH = 1).
// T = 1 - 0.17 cos(h - 30) + 0.24 cos 2h + 0.32 cos(3h + 6) - 0.20 cos(4h - 63) from the multiple
// angles of one sine and cosine (the four cosines were 4 % of --auto).
template <class M = LibmMaths>
TK_HD double ciede2000_step3(double l_bar, double cp_bar, double h_bar, double cos_h, double sin_h, double dl, double dc,
                             double dhh) {
  const double c = cos_h, s = sin_h;
  const double c2h = 2.0 * c * c - 1.0, s2h = 2.0 * s * c;
  const double c3h = c * (4.0 * c * c - 3.0), s3h = s * (3.0 - 4.0 * s * s);
  const double c4h = 2.0 * c2h * c2h - 1.0, s4h = 2.0 * s2h * c2h;
  constexpr double kCos30 = 0.86602540378443864676, kSin30 = 0.5;
  constexpr double kCos6 = 0.99452189536827333692, kSin6 = 0.10452846326765347140;
  constexpr double kCos63 = 0.45399049973954679156, kSin63 = 0.89100652418836786236;
  const double t = 1.0 - 0.17 * (c * kCos30 + s * kSin30) + 0.24 * c2h + 0.32 * (c3h * kCos6 - s3h * kSin6) -
                   0.20 * (c4h * kCos63 + s4h * kSin63);
  const double d_theta = 30.0 * M::exp(-((h_bar - 275.0) / 25.0) * ((h_bar - 275.0) / 25.0));
  const double cp_bar7 = pow7(cp_bar);
  const double rc = 2.0 * ::sqrt(cp_bar7 / (cp_bar7 + k25Pow7));
  const double l50 = (l_bar - 50.0) * (l_bar - 50.0);
  const double sl = 1.0 + 0.015 * l50 / ::sqrt(20.0 + l50);
  const double sc = 1.0 + 0.045 * cp_bar;
  const double sh = 1.0 + 0.015 * cp_bar * t;
  const double rt = -M::sin(2.0 * d_theta * kDeg) * rc;
  const double tl = dl / sl, tc = dc / sc, th = dhh / sh;
  return ::sqrt(tl * tl + tc * tc + th * th + rt * tc * th);
}

// CIEDE2000 (kL = kC = kH = 1) of (l1, a1, b1) and (l2, a2, b2).
template <class M = LibmMaths>
TK_HD double ciede2000_of(double l1, double a1_, double b1, double l2, double a2_, double b2) {
  // Step 1: a' rescaled by G so that near-neutral colours get a larger hue weight. Chroma as
  // sqrt(a^2 + b^2): L*a*b* values are far from hypot's overflow range (hypot was 6 % of --auto).
  const double c1 = ::sqrt(a1_ * a1_ + b1 * b1), c2 = ::sqrt(a2_ * a2_ + b2 * b2);
  const double c_bar7 = pow7((c1 + c2) / 2.0);
  const double g = 0.5 * (1.0 - ::sqrt(c_bar7 / (c_bar7 + k25Pow7)));
  const double a1 = (1.0 + g) * a1_, a2 = (1.0 + g) * a2_;
  const double cp1 = ::sqrt(a1 * a1 + b1 * b1), cp2 = ::sqrt(a2 * a2 + b2 * b2);
  const double hp1 = hue_degrees<M>(b1, a1), hp2 = hue_degrees<M>(b2, a2);
  // Step 2: differences; the hue difference wraps to (-180, 180], 0 where a chroma is 0.
  const bool chromatic = cp1 * cp2 != 0.0;
  const double dl = l2 - l1, dc = cp2 - cp1;
  // The hue rules at |h1 - h2| = 180 exactly (Sharma's pairs 13-14: opposite hues) with a margin
  // of 1e-9 degrees: the vectorised runs' atan2 (and CUDA's) may land an ulp past 180 where glibc's does
  // not, and the rules then pick the other mean hue (a 0.06 difference in those pairs).
  constexpr double kHalfTurn = 180.0 + 1e-9;
  double dh = hp2 - hp1;
  dh = dh > kHalfTurn ? dh - 360.0 : (dh < -kHalfTurn ? dh + 360.0 : dh);
  dh = chromatic ? dh : 0.0;
  const double dhh = 2.0 * ::sqrt(cp1 * cp2) * M::sin(dh / 2.0 * kDeg);
  // Step 3 at the means; the mean hue goes the short way round the circle.
  const double l_bar = (l1 + l2) / 2.0, cp_bar = (cp1 + cp2) / 2.0;
  const double sum = hp1 + hp2;
  const double around = sum < 360.0 ? (sum + 360.0) / 2.0 : (sum - 360.0) / 2.0;
  const double mean = ::fabs(hp1 - hp2) <= kHalfTurn ? sum / 2.0 : around;
  const double h_bar = chromatic ? mean : sum;
  // sin h as cos(h - 90 deg): GCC fuses a sin and a cos of one argument into sincos, which has
  // no vector form, and the loop then stays scalar.
  return ciede2000_step3<M>(l_bar, cp_bar, h_bar, M::cos(h_bar * kDeg), M::cos((h_bar - 90.0) * kDeg), dl, dc, dhh);
}

// The angle between the (a*, b*) vectors of two colours in degrees ([0, 180]) where both have
// chroma >= min_chroma (counted = 1), else 0 (counted = 0).
template <class M = LibmMaths>
TK_HD double hue_shift_of(double a1, double b1, double a2, double b2, double min_chroma, double& counted) {
  const double min2 = min_chroma * min_chroma;
  const bool both = a1 * a1 + b1 * b1 >= min2 && a2 * a2 + b2 * b2 >= min2;
  const double cross = a1 * b2 - b1 * a2, dot = a1 * a2 + b1 * b2;
  const double angle = M::atan2(::fabs(cross), dot) * (180.0 / kPi);
  counted = both ? 1.0 : 0.0;
  return both ? angle : 0.0;
}

// One pixel of colour_fidelity: the HDR source's linear RGB scaled to the BT.709 luminance of the
// shown (display-linear) RGB, so that the two share their lightness, then the CIEDE2000 between
// them and the hue shift. `compared` is false where the source is black (no chromaticity to
// keep): the pixel is then left out of every statistic.
struct ColourTerms {
  double delta_e;
  double hue_shift;  // 0 where not counted
  double counted;    // 1 where both chromas >= kMinChromaForHue
  bool compared;
};

TK_HD double bt709_luminance(double r, double g, double b) { return 0.2126 * r + 0.7152 * g + 0.0722 * b; }

template <class M = LibmMaths>
TK_HD ColourTerms colour_terms(double sr, double sg, double sb, double dr, double dg, double db) {
  const double y_source = bt709_luminance(sr, sg, sb), y_shown = bt709_luminance(dr, dg, db);
  const bool compared = y_source > 0.0;
  const double scale = compared ? y_shown / y_source : 0.0;
  double l1, a1, b1, l2, a2, b2;
  lab_of_linear<M>(sr * scale, sg * scale, sb * scale, l1, a1, b1);
  lab_of_linear<M>(dr, dg, db, l2, a2, b2);
  ColourTerms t;
  t.delta_e = ciede2000_of<M>(l1, a1, b1, l2, a2, b2);
  t.hue_shift = hue_shift_of<M>(a1, b1, a2, b2, kMinChromaForHue, t.counted);
  t.compared = compared;
  return t;
}

}  // namespace tonekit::quality::detail
