// exp, log, cbrt, sin, cos and atan2 in double made of IEEE basic operations and exponent bits,
// for the CPU loops compiled per x86-64 level (cpu/isa_level.hpp): libm's are calls, which keep a
// loop scalar, and libmvec's vector forms round differently at each vector width, so neither
// gives the same bytes on every level at vector speed. These inline into the level's loop and
// vectorise there; every level computes the same operations, so the same bits. Accuracy (against
// libm, tests/unit/test_portable_math.cpp): within a few ulp (< 1e-15 relative, or absolute for
// sin and cos near their zeros), which is what the callers round to float, or compare with libm's
// scalar references at 1e-12.
#pragma once
#include <cstdint>
#include <cstring>

namespace tonekit::cpu::portable {

inline double bits_to_double(std::uint64_t u) {
  double d;
  std::memcpy(&d, &u, sizeof d);
  return d;
}
inline std::uint64_t double_to_bits(double d) {
  std::uint64_t u;
  std::memcpy(&u, &d, sizeof u);
  return u;
}

constexpr double kLn2Hi = 6.93147180369123816490e-01;  // ln 2 in 32 bits: n kLn2Hi is exact
constexpr double kLn2Lo = 1.90821492927058770002e-10;
constexpr double kRoundShift = 6755399441055744.0;      // 1.5 2^52: adding it rounds to an integer
constexpr double kPi = 3.14159265358979323846;

// e^x, x clamped to [-708, 709]: x = n ln 2 + r, |r| <= ln 2 / 2, e^r by Horner's Taylor series to
// r^13 (< 1e-17 left), 2^n from the exponent bits of x / ln 2 + 1.5 2^52 (n in its low bits).
inline double exp(double x) {
  x = x < -708.0 ? -708.0 : (x > 709.0 ? 709.0 : x);
  const double t = x * 1.4426950408889634 + kRoundShift;
  const double n = t - kRoundShift;
  const double r = (x - n * kLn2Hi) - n * kLn2Lo;
  // Written out: a loop over the coefficients stays a loop inside the caller's and stops it from
  // vectorising.
  double p = 1.0 / 6227020800.0;
  p = 1.0 / 479001600.0 + r * p;
  p = 1.0 / 39916800.0 + r * p;
  p = 1.0 / 3628800.0 + r * p;
  p = 1.0 / 362880.0 + r * p;
  p = 1.0 / 40320.0 + r * p;
  p = 1.0 / 5040.0 + r * p;
  p = 1.0 / 720.0 + r * p;
  p = 1.0 / 120.0 + r * p;
  p = 1.0 / 24.0 + r * p;
  p = 1.0 / 6.0 + r * p;
  p = 0.5 + r * p;
  p = 1.0 + r * p;
  p = 1.0 + r * p;
  return p * bits_to_double((double_to_bits(t) + 1023) << 52);
}

// ln x for a positive normal x: x = m 2^e, m in [sqrt(1/2), sqrt(2)); ln m = 2 atanh(s), s = (m -
// 1) / (m + 1), |s| <= 0.1716: the odd series to s^21 (< 1e-17 left). e as a double from its bits
// (2^52 + e + 1023, minus both).
inline double log(double x) {
  const std::uint64_t u = double_to_bits(x);
  double e = bits_to_double(0x4330000000000000ull | (u >> 52)) - (4503599627370496.0 + 1023.0);
  double m = bits_to_double((u & 0x000FFFFFFFFFFFFFull) | 0x3FF0000000000000ull);
  const bool high = m > 1.4142135623730951;
  m = high ? m * 0.5 : m;
  e = high ? e + 1.0 : e;
  const double s = (m - 1.0) / (m + 1.0), s2 = s * s;
  double q = 1.0 / 21.0;
  q = 1.0 / 19.0 + s2 * q;
  q = 1.0 / 17.0 + s2 * q;
  q = 1.0 / 15.0 + s2 * q;
  q = 1.0 / 13.0 + s2 * q;
  q = 1.0 / 11.0 + s2 * q;
  q = 1.0 / 9.0 + s2 * q;
  q = 1.0 / 7.0 + s2 * q;
  q = 1.0 / 5.0 + s2 * q;
  q = 1.0 / 3.0 + s2 * q;
  q = 1.0 + s2 * q;
  return e * kLn2Hi + (e * kLn2Lo + 2.0 * s * q);
}

// The cube root of a positive normal x (other inputs give a finite, meaningless value): x = m 2^(3q
// + r - 1026), r in {0, 1, 2}, m in [1, 2): cbrt(m) from the chord between 1 and 2 (within 1 %),
// two Halley steps (error e -> ~e^3: 1e-2, 1e-6, 1e-16), times cbrt(2^r) and 2^(q - 342).
inline double cbrt(double x) {
  const std::uint64_t u = double_to_bits(x);
  const int biased = static_cast<int>((u >> 52) & 0x7FF) + 3;  // e + 1026 (e the exponent), > 0
  const int q = (biased * 43691) >> 17;                       // biased / 3 (exact below 2^16)
  const int r = biased - 3 * q;
  const double m = bits_to_double((u & 0x000FFFFFFFFFFFFFull) | 0x3FF0000000000000ull);
  double y = 1.0 + (m - 1.0) * 0.25992104989487316;  // the chord: cbrt(2) - 1
  for (int k = 0; k < 2; ++k) {
    const double y3 = y * y * y;
    y = y * (y3 + 2.0 * m) / (2.0 * y3 + m);
  }
  const double root2r = r == 0 ? 1.0 : (r == 1 ? 1.2599210498948732 : 1.5874010519681994);
  const std::uint64_t scale = static_cast<std::uint64_t>(q - 342 + 1023) << 52;
  return y * root2r * bits_to_double(scale);
}

// sin and cos of r in [-pi/4, pi/4]: Taylor series to r^17 and r^16 (< 1e-18 left).
inline double sin_reduced(double r) {
  const double r2 = r * r;
  double p = -1.0 / 355687428096000.0;  // -1/17!, down to 1
  p = 1.0 / 1307674368000.0 + r2 * p;
  p = -1.0 / 6227020800.0 + r2 * p;
  p = 1.0 / 39916800.0 + r2 * p;
  p = -1.0 / 362880.0 + r2 * p;
  p = 1.0 / 5040.0 + r2 * p;  // r^6 / 7! ... (signs alternate)
  p = -1.0 / 120.0 + r2 * p;
  p = 1.0 / 6.0 + r2 * p;
  return r - r * r2 * p;
}
inline double cos_reduced(double r) {
  const double r2 = r * r;
  double p = 1.0 / 20922789888000.0;  // 1/16!, down to 1/2!
  p = -1.0 / 87178291200.0 + r2 * p;
  p = 1.0 / 479001600.0 + r2 * p;
  p = -1.0 / 3628800.0 + r2 * p;
  p = 1.0 / 40320.0 + r2 * p;
  p = -1.0 / 720.0 + r2 * p;
  p = 1.0 / 24.0 + r2 * p;
  p = -0.5 + r2 * p;
  return 1.0 + r2 * p;
}

// x = n pi/2 + r for |x| below ~1e5 (the callers' angles are below 4 pi): n = round(2x / pi),
// pi/2 in two parts (its high part has 33 bits, so n times it is exact), r in [-pi/4, pi/4];
// `quadrant` = n mod 4.
inline double reduce_quarter_turns(double x, int& quadrant) {
  constexpr double kHalfPiHi = 1.5707963267341256e+00, kHalfPiLo = 6.0771005065061922e-11;
  const double t = x * 0.63661977236758134 + kRoundShift;
  const double n = t - kRoundShift;
  quadrant = static_cast<int>(double_to_bits(t) & 3);
  return (x - n * kHalfPiHi) - n * kHalfPiLo;
}
inline double sin(double x) {
  int q;
  const double r = reduce_quarter_turns(x, q);
  const double s = sin_reduced(r), c = cos_reduced(r);
  const double v = (q & 1) ? c : s;
  return (q & 2) ? -v : v;
}
inline double cos(double x) {
  int q;
  const double r = reduce_quarter_turns(x, q);
  const double s = sin_reduced(r), c = cos_reduced(r);
  const double v = (q & 1) ? s : c;
  return ((q + 1) & 2) ? -v : v;
}

// atan2(y, x) for finite y, x (signed zeros as the C library's): t = min / max of |y|, |x| in [0, 1];
// atan t = k pi/16 + atan u, k = the nearest of 0..4 (thresholds tan((k + 1/2) pi / 16)), c =
// tan(k pi/16), u = (t - c) / (1 + t c), |u| <= tan(pi/32): the odd series to u^17 (< 1e-18
// left); then the octant.
inline double atan2(double y, double x) {
  const double ay = y < 0.0 ? -y : y, ax = x < 0.0 ? -x : x;
  const bool swap = ay > ax;
  const double num = swap ? ax : ay, den = swap ? ay : ax;
  const double t = num / (den > 0.0 ? den : 1.0);  // 0 / 0 -> 0
  // k and c by one two-way select per threshold (a chain of them, or int lanes beside the double
  // ones, kept the caller's loop scalar).
  double k = 0.0, c = 0.0;
  k = t > 0.098491403357164253 ? 1.0 : k;
  c = t > 0.098491403357164253 ? 0.19891236737965800 : c;
  k = t > 0.30334668360734239 ? 2.0 : k;
  c = t > 0.30334668360734239 ? 0.41421356237309505 : c;
  k = t > 0.53451113595079160 ? 3.0 : k;
  c = t > 0.53451113595079160 ? 0.66817863791929892 : c;
  k = t > 0.82067879082866024 ? 4.0 : k;
  c = t > 0.82067879082866024 ? 1.0 : c;
  const double u = (t - c) / (1.0 + t * c), u2 = u * u;
  double p = 1.0 / 17.0;  // 1 - u^2/3 + u^4/5 - ... + u^16/17
  p = -1.0 / 15.0 + u2 * p;
  p = 1.0 / 13.0 + u2 * p;
  p = -1.0 / 11.0 + u2 * p;
  p = 1.0 / 9.0 + u2 * p;
  p = -1.0 / 7.0 + u2 * p;
  p = 1.0 / 5.0 + u2 * p;
  p = -1.0 / 3.0 + u2 * p;
  p = 1.0 + u2 * p;
  double a = k * (kPi / 16.0) + u * p;
  a = swap ? kPi / 2.0 - a : a;
  a = __builtin_copysign(1.0, x) < 0.0 ? kPi - a : a;  // x's sign, -0 included
  return __builtin_copysign(a, y);
}

// The functions above as a maths policy (quality/colour_maths.hpp's LibmMaths' interface). Defined
// here, outside any level's region: a policy with the level's target could not be inlined into
// the (baseline) templates that call it, and its calls would keep the loops scalar.
struct Maths {
  static double cbrt(double x) { return portable::cbrt(x); }
  static double atan2(double y, double x) { return portable::atan2(y, x); }
  static double exp(double x) { return portable::exp(x); }
  static double sin(double x) { return portable::sin(x); }
  static double cos(double x) { return portable::cos(x); }
};

}  // namespace tonekit::cpu::portable
