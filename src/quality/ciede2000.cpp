// CIE L*a*b* of linear BT.709 RGB and the CIEDE2000 difference, as written out by Sharma, Wu &
// Dalal, "The CIEDE2000 color-difference formula: implementation notes, supplementary test data,
// and mathematical observations", Color Res. Appl. 30(1), 2005, its three computation steps (validated on their
// 34 test pairs in tests/unit/test_quality_colour.cpp).
#include <cmath>
#include <numbers>

#include "quality/ciede2000_parts.hpp"
#include "tonekit/quality.hpp"

namespace tonekit::quality {
namespace {

using detail::kDeg;
using detail::pow7;

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

double ciede2000(const Lab& x, const Lab& y) {
  // Step 1: a' rescaled by G so that near-neutral colours get a larger hue weight. Chroma as
  // sqrt(a^2 + b^2): L*a*b* values are far from hypot's overflow range (hypot was 6 % of --auto).
  const double c1 = std::sqrt(x.a * x.a + x.b * x.b), c2 = std::sqrt(y.a * y.a + y.b * y.b);
  const double c_bar7 = pow7((c1 + c2) / 2.0);
  const double g = 0.5 * (1.0 - std::sqrt(c_bar7 / (c_bar7 + detail::k25Pow7)));
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
  return detail::ciede2000_step3(l_bar, cp_bar, h_bar, std::cos(h_bar * kDeg), std::sin(h_bar * kDeg), dl, dc, dhh);
}

}  // namespace tonekit::quality
