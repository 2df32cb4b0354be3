// CIE L*a*b* of linear BT.709 RGB and the CIEDE2000 difference, as written out by Sharma, Wu &
// Dalal, "The CIEDE2000 color-difference formula: implementation notes, supplementary test data,
// and mathematical observations", Color Res. Appl. 30(1), 2005, its three computation steps (validated on their
// 34 test pairs in tests/unit/test_quality_colour.cpp).
#include <cmath>
#include <numbers>

#include "tonekit/quality.hpp"

namespace tonekit::quality {
namespace {

constexpr double kDeg = std::numbers::pi / 180.0;

// BT.709 / sRGB primaries with D65 white (IEC 61966-2-1), RGB -> XYZ.
constexpr double kRgbToXyz[3][3] = {{0.4124564, 0.3575761, 0.1804375},
                                    {0.2126729, 0.7151522, 0.0721750},
                                    {0.0193339, 0.1191920, 0.9503041}};

// CIE 1976 lightness companding with its linear segment below (6/29)^3.
double lab_f(double t) {
  constexpr double d = 6.0 / 29.0;
  return t > d * d * d ? std::cbrt(t) : t / (3.0 * d * d) + 4.0 / 29.0;
}

double hue_degrees(double b, double a) {
  if (a == 0.0 && b == 0.0) return 0.0;
  const double h = std::atan2(b, a) / kDeg;
  return h < 0.0 ? h + 360.0 : h;
}

}  // namespace

Lab lab_from_linear_rgb(double r, double g, double b) {
  double xyz[3], white[3];
  for (int i = 0; i < 3; ++i) {
    xyz[i] = kRgbToXyz[i][0] * r + kRgbToXyz[i][1] * g + kRgbToXyz[i][2] * b;
    white[i] = kRgbToXyz[i][0] + kRgbToXyz[i][1] + kRgbToXyz[i][2];  // RGB (1, 1, 1) is exactly neutral
  }
  const double fx = lab_f(xyz[0] / white[0]), fy = lab_f(xyz[1] / white[1]), fz = lab_f(xyz[2] / white[2]);
  return {116.0 * fy - 16.0, 500.0 * (fx - fy), 200.0 * (fy - fz)};
}

// x^7 by multiplications (std::pow(x, 7.0) was 5 % of an --auto search's time).
double pow7(double x) {
  const double x2 = x * x, x3 = x2 * x;
  return x3 * x3 * x;
}

double ciede2000(const Lab& x, const Lab& y) {
  constexpr double k25_7 = 6103515625.0;  // 25^7
  // Step 1: a' rescaled by G so that near-neutral colours get a larger hue weight. Chroma as
  // sqrt(a^2 + b^2): L*a*b* values are far from hypot's overflow range (hypot was 6 % of --auto).
  const double c1 = std::sqrt(x.a * x.a + x.b * x.b), c2 = std::sqrt(y.a * y.a + y.b * y.b);
  const double c_bar7 = pow7((c1 + c2) / 2.0);
  const double g = 0.5 * (1.0 - std::sqrt(c_bar7 / (c_bar7 + k25_7)));
  const double a1 = (1.0 + g) * x.a, a2 = (1.0 + g) * y.a;
  const double cp1 = std::sqrt(a1 * a1 + x.b * x.b), cp2 = std::sqrt(a2 * a2 + y.b * y.b);
  const double hp1 = hue_degrees(x.b, a1), hp2 = hue_degrees(y.b, a2);
  // Step 2: differences; the hue difference wraps to (-180, 180].
  const double dl = y.l - x.l, dc = cp2 - cp1;
  double dh = 0.0;
  if (cp1 * cp2 != 0.0) {
    dh = hp2 - hp1;
    if (dh > 180.0) dh -= 360.0;
    else if (dh < -180.0) dh += 360.0;
  }
  const double dhh = 2.0 * std::sqrt(cp1 * cp2) * std::sin(dh / 2.0 * kDeg);
  // Step 3: weights at the mean lightness, chroma and hue.
  const double l_bar = (x.l + y.l) / 2.0, cp_bar = (cp1 + cp2) / 2.0;
  double h_bar = hp1 + hp2;
  if (cp1 * cp2 != 0.0) {
    if (std::abs(hp1 - hp2) <= 180.0) h_bar /= 2.0;
    else h_bar = h_bar < 360.0 ? (h_bar + 360.0) / 2.0 : (h_bar - 360.0) / 2.0;
  }
  // T = 1 - 0.17 cos(h - 30) + 0.24 cos 2h + 0.32 cos(3h + 6) - 0.20 cos(4h - 63), the multiple
  // angles from one sine and cosine of h (the four cosines were 4 % of --auto).
  const double c = std::cos(h_bar * kDeg), s = std::sin(h_bar * kDeg);
  const double c2h = 2.0 * c * c - 1.0, s2h = 2.0 * s * c;
  const double c3h = c * (4.0 * c * c - 3.0), s3h = s * (3.0 - 4.0 * s * s);
  const double c4h = 2.0 * c2h * c2h - 1.0, s4h = 2.0 * s2h * c2h;
  constexpr double kCos30 = 0.86602540378443864676, kSin30 = 0.5;
  constexpr double kCos6 = 0.99452189536827333692, kSin6 = 0.10452846326765347140;
  constexpr double kCos63 = 0.45399049973954679156, kSin63 = 0.89100652418836786236;
  const double t = 1.0 - 0.17 * (c * kCos30 + s * kSin30) + 0.24 * c2h + 0.32 * (c3h * kCos6 - s3h * kSin6) -
                   0.20 * (c4h * kCos63 + s4h * kSin63);
  const double d_theta = 30.0 * std::exp(-((h_bar - 275.0) / 25.0) * ((h_bar - 275.0) / 25.0));
  const double cp_bar7 = pow7(cp_bar);
  const double rc = 2.0 * std::sqrt(cp_bar7 / (cp_bar7 + k25_7));
  const double l50 = (l_bar - 50.0) * (l_bar - 50.0);
  const double sl = 1.0 + 0.015 * l50 / std::sqrt(20.0 + l50);
  const double sc = 1.0 + 0.045 * cp_bar;
  const double sh = 1.0 + 0.015 * cp_bar * t;
  const double rt = -std::sin(2.0 * d_theta * kDeg) * rc;
  const double tl = dl / sl, tc = dc / sc, th = dhh / sh;
  return std::sqrt(tl * tl + tc * tc + th * th + rt * tc * th);  // kL = kC = kH = 1
}

}  // namespace tonekit::quality
