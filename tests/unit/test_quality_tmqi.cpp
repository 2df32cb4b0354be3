// TMQI (src/cpu/quality/tmqi.cpp): issue 17's validation vector to 1e-6, and the properties the
// issue asks for (identical structure, constant LDR, N from the LDR only, HDR scale invariance,
// the minimum size).
#include <gtest/gtest.h>

#include "tonekit/quality.hpp"
#include "unit/quality_fixtures.hpp"

using namespace tonekit;

TEST(QualityTmqi, ValidationVector) {
  const test::QualityPair p = test::validation_pair();
  auto r = quality::tmqi(p.hdr, p.ldr);
  ASSERT_TRUE(r.ok()) << r.status().message();
  constexpr double tol = 1e-6;
  EXPECT_NEAR(r->q, 0.8804059234, tol);
  EXPECT_NEAR(r->s, 0.9339870487, tol);
  EXPECT_NEAR(r->n, 0.3564966674, tol);
  const double per_scale[5] = {0.8312390386, 0.9221275597, 0.9380682686, 0.9536759409, 0.9526669701};
  for (int i = 0; i < 5; ++i) EXPECT_NEAR(r->s_per_scale[i], per_scale[i], tol) << "scale " << i;
  EXPECT_NEAR(r->mean_luminance, 117.331367, tol);
  EXPECT_NEAR(r->contrast, 7.810500, tol);
}
