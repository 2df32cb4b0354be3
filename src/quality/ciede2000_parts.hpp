// The pieces of CIEDE2000 (Sharma, Wu & Dalal 2005) shared by the scalar reference
// (ciede2000.cpp) and the vectorised runs (colour_batch.cpp, built with fast-math): inline, so
// each compiles them its own way from one text.
#pragma once
#include <cmath>
#include <numbers>

namespace tonekit::quality::detail {

constexpr double kDeg = std::numbers::pi / 180.0;
constexpr double k25Pow7 = 6103515625.0;  // 25^7

// x^7 by multiplications (std::pow(x, 7.0) was 5 % of an --auto search's time).
inline double pow7(double x) {
  const double x2 = x * x, x3 = x2 * x;
  return x3 * x3 * x;
}

// Step 3: the weights at the mean lightness l_bar, chroma cp_bar and hue h_bar (degrees; cos_h,
// sin_h its cosine and sine), then the difference from dL', dC', dH' (kL = kC = kH = 1).
// T = 1 - 0.17 cos(h - 30) + 0.24 cos 2h + 0.32 cos(3h + 6) - 0.20 cos(4h - 63) from the multiple
// angles of one sine and cosine (the four cosines were 4 % of --auto).
inline double ciede2000_step3(double l_bar, double cp_bar, double h_bar, double cos_h, double sin_h, double dl, double dc,
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
  const double d_theta = 30.0 * std::exp(-((h_bar - 275.0) / 25.0) * ((h_bar - 275.0) / 25.0));
  const double cp_bar7 = pow7(cp_bar);
  const double rc = 2.0 * std::sqrt(cp_bar7 / (cp_bar7 + k25Pow7));
  const double l50 = (l_bar - 50.0) * (l_bar - 50.0);
  const double sl = 1.0 + 0.015 * l50 / std::sqrt(20.0 + l50);
  const double sc = 1.0 + 0.045 * cp_bar;
  const double sh = 1.0 + 0.015 * cp_bar * t;
  const double rt = -std::sin(2.0 * d_theta * kDeg) * rc;
  const double tl = dl / sl, tc = dc / sc, th = dhh / sh;
  return std::sqrt(tl * tl + tc * tc + th * th + rt * tc * th);
}

}  // namespace tonekit::quality::detail
