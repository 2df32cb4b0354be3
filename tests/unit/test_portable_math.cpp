// core/portable_math.hpp: the float log2 / exp2 / pow both backends compute bit for bit alike,
// against libm in double over their whole ranges (subnormals included).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <initializer_list>

#include "core/portable_math.hpp"

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

}  // namespace
}  // namespace tonekit::core
