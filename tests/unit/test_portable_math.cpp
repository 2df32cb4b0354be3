// core/portable_math.hpp: the float log2 / exp2 / pow both backends compute bit for bit alike,
// against libm in double over their whole ranges (subnormals included). cpu/portable_double.hpp:
// the double exp, log, cbrt, sin, cos and atan2 of the per-level loops against libm over their
// callers' ranges, with atan2's signed zeros and octants.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <initializer_list>

#include "core/portable_math.hpp"
#include "cpu/portable_double.hpp"

namespace tonekit::core {
namespace {

TEST(PortableMath, Log2WithinTwoUlpOfItsScale) {
  double worst = 0;
  for (double x = 1e-44; x < 3e38; x *= 1.0007) {
    const float xf = static_cast<float>(x);
    const double ref = std::log2(static_cast<double>(xf));
    worst = std::max(worst, std::fabs(portable_log2f(xf) - ref) / std::max(1.0, std::fabs(ref)));
  }
  EXPECT_LT(worst, 2.5e-7);
  EXPECT_EQ(portable_log2f(1.0f), 0.0f);
  EXPECT_EQ(portable_log2f(8.0f), 3.0f);
}

TEST(PortableMath, Exp2WithinTwoUlp) {
  double worst = 0;
  for (double t = -149.5; t < 127.9; t += 0.00037) {
    const float tf = static_cast<float>(t);
    const double ref = std::exp2(static_cast<double>(tf));
    if (ref > 1.2e-38) worst = std::max(worst, std::fabs(portable_exp2f(tf) - ref) / ref);
  }
  EXPECT_LT(worst, 2.5e-7);
  EXPECT_EQ(portable_exp2f(0.0f), 1.0f);
  EXPECT_EQ(portable_exp2f(-200.0f), 0.0f);
  EXPECT_TRUE(std::isinf(portable_exp2f(200.0f)));
  EXPECT_GT(portable_exp2f(-140.0f), 0.0f);  // subnormal results
}

// The exponents of the video transfers (PQ 1/m2, 1/m1, m1, m2; BT.709 0.45, 1/0.45; HLG gammas).
TEST(PortableMath, PowOnTheTransfersExponents) {
  double worst = 0;
  for (double x = 1e-6; x <= 1.0; x *= 1.001)
    for (const float y : {0.0126833f, 6.27739f, 0.159302f, 78.84375f, 0.45f, 2.2222f, 0.2f, -0.1f}) {
      const double ref = std::pow(static_cast<double>(static_cast<float>(x)), static_cast<double>(y));
      if (ref > 1e-30 && ref < 1e30)
        worst = std::max(worst, std::fabs(portable_powf(static_cast<float>(x), y) - ref) / ref);
    }
  // pow = exp2(y log2 x): the error grows with |y log2 x| (here up to ~125): ~5e-6 relative.
  EXPECT_LT(worst, 1e-5);
  EXPECT_EQ(portable_powf(0.0f, 2.0f), 0.0f);
  EXPECT_EQ(portable_powf(0.3f, 0.0f), 1.0f);
  EXPECT_EQ(portable_powf(1.0f, 6.0f), 1.0f);
}


// Relative error of the portable double functions against libm over dense grids (absolute for sin
// and cos, whose values pass through 0): within 4e-16, cbrt 1e-15 (its last products), atan2 6e-16.
TEST(PortableDouble, WithinAFewUlpOfLibm) {
  namespace pd = tonekit::cpu::portable;
  double exp_err = 0, log_err = 0, cbrt_err = 0, trig_err = 0, atan_err = 0;
  for (int i = 0; i <= 200000; ++i) {
    const double x = -700.0 + 1409.0 * i / 200000.0;
    exp_err = std::max(exp_err, std::fabs(pd::exp(x) / std::exp(x) - 1.0));
    const double e = std::ldexp(1.0 + i / 200001.0, i % 2001 - 1000);  // mantissas and exponents
    log_err = std::max(log_err, std::fabs(pd::log(e) - std::log(e)) / std::max(1.0, std::fabs(std::log(e))));
    cbrt_err = std::max(cbrt_err, std::fabs(pd::cbrt(e) / std::cbrt(e) - 1.0));
    const double a = -15.0 + 30.0 * i / 200000.0;  // the colour maths' angles stay within 4 pi
    trig_err = std::max({trig_err, std::fabs(pd::sin(a) - std::sin(a)), std::fabs(pd::cos(a) - std::cos(a))});
    const double t = 6.283185307179586 * i / 200000.0;
    for (const double r : {1e-300, 0.37, 1.0, 2.5e7}) {
      const double y = r * std::sin(t), xx = r * std::cos(t);
      atan_err = std::max(atan_err, std::fabs(pd::atan2(y, xx) - std::atan2(y, xx)) / std::max(1e-300, std::fabs(std::atan2(y, xx))));
    }
  }
  std::printf("portable double against libm: exp %.2g, log %.2g, cbrt %.2g, sin/cos %.2g (abs), atan2 %.2g\n", exp_err,
              log_err, cbrt_err, trig_err, atan_err);
  EXPECT_LE(exp_err, 4e-16);
  EXPECT_LE(log_err, 4e-16);
  EXPECT_LE(cbrt_err, 1e-15);
  EXPECT_LE(trig_err, 4e-16);
  EXPECT_LE(atan_err, 6e-16);
  // Exact points and atan2's signed zeros and axes, as the C library's.
  EXPECT_EQ(pd::exp(0.0), 1.0);
  EXPECT_EQ(pd::log(1.0), 0.0);
  EXPECT_EQ(pd::cbrt(8.0), 2.0);
  EXPECT_EQ(pd::cbrt(1.0), 1.0);
  EXPECT_EQ(pd::sin(0.0), 0.0);
  EXPECT_EQ(pd::cos(0.0), 1.0);
  for (const double y : {0.0, -0.0, 1.0, -1.0})
    for (const double x : {0.0, -0.0, 1.0, -1.0}) {
      EXPECT_DOUBLE_EQ(pd::atan2(y, x), std::atan2(y, x)) << y << ", " << x;
      EXPECT_EQ(std::signbit(pd::atan2(y, x)), std::signbit(std::atan2(y, x))) << y << ", " << x;
    }
}

}  // namespace
}  // namespace tonekit::core
