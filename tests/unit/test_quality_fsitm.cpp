// FSITM (src/quality/fsitm.cpp): issue 17's validation value on the red channel, and the
// properties that follow from comparing phase signs.
#include <gtest/gtest.h>

#include "tonekit/quality.hpp"
#include "unit/quality_fixtures.hpp"

using namespace tonekit;

TEST(QualityFsitm, ValidationVectorRedChannel) {
  const test::QualityPair p = test::validation_pair();
  auto r = quality::fsitm(p.hdr, p.ldr);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_NEAR(r->channel[0], 0.7453, 1e-3);
}
