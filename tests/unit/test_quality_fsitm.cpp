// FSITM (src/cpu/quality/fsitm.cpp): issue 17's validation value on the red channel, and the
// properties that follow from comparing phase signs.
#include <gtest/gtest.h>

#include <vector>

#include "tonekit/quality.hpp"
#include "unit/quality_fixtures.hpp"

using namespace tonekit;

TEST(QualityFsitm, ValidationVectorRedChannel) {
  TONEKIT_SKIP_WITHOUT_FFTW();
  const test::QualityPair p = test::validation_pair();
  auto r = quality::fsitm(p.hdr, p.ldr);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_NEAR(r->channel[0], 0.7453, 1e-3);
}

// Above 2 * 2^18 pixels the paper blends in the coarse bank (Eq. 3): scores stay in [0, 1], a
// faithful mapping scores well above an unrelated image, and a phase-sign flip (the inverted
// LDR) scores far below.
TEST(QualityFsitm, LargeImagesBlendTheCoarseBank) {
  TONEKIT_SKIP_WITHOUT_FFTW();
  const test::QualityPair p = test::validation_pair(1024, 520);
  auto faithful = quality::fsitm(p.hdr, p.ldr);
  ASSERT_TRUE(faithful.ok()) << faithful.status().message();
  OutputImage inverted = p.ldr;
  for (auto& b : inverted.bytes) b = static_cast<std::uint8_t>(255 - b);
  auto flipped = quality::fsitm(p.hdr, inverted);
  ASSERT_TRUE(flipped.ok());
  EXPECT_GT(faithful->mean, 0.6);
  EXPECT_LT(flipped->mean, 1.0 - faithful->mean + 0.05);
  EXPECT_GE(flipped->mean, 0.0);
}

TEST(QualityFsitm, ChannelFunctionAgreesWithTheImageScore) {
  TONEKIT_SKIP_WITHOUT_FFTW();
  const test::QualityPair p = test::validation_pair();
  std::vector<double> h(p.hdr.pixels.size() / 3), l(h.size());
  for (std::size_t i = 0; i < h.size(); ++i) h[i] = p.hdr.pixels[3 * i + 1], l[i] = p.ldr.bytes[3 * i + 1];
  auto one = quality::fsitm_channel(h.data(), l.data(), 400, 300);
  auto all = quality::fsitm(p.hdr, p.ldr);
  ASSERT_TRUE(one.ok() && all.ok());
  EXPECT_EQ(*one, all->channel[1]);
}
