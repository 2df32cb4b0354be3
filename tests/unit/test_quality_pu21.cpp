// PU21 (src/cpu/quality/pu21.cpp): the published values of the banding_glare encoding, and PSNR/SSIM
// on PU values for HDR and display image pairs.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "tonekit/quality.hpp"

using namespace tonekit;

TEST(QualityPu21, PublishedValues) {
  EXPECT_NEAR(quality::pu21_encode(1.0), 36.5439, 1e-4);
  EXPECT_NEAR(quality::pu21_encode(100.0), 256.3839, 1e-4);
  EXPECT_NEAR(quality::pu21_encode(1e4), 595.3939, 1e-4);
}

TEST(QualityPu21, MonotoneAndClampedToItsRange) {
  double previous = -std::numeric_limits<double>::infinity();
  for (double y = 0.005; y <= 10000.0; y *= 1.5) {
    const double v = quality::pu21_encode(y);
    EXPECT_GT(v, previous) << y;
    previous = v;
  }
  EXPECT_EQ(quality::pu21_encode(0.0), quality::pu21_encode(0.005));
  EXPECT_EQ(quality::pu21_encode(1e6), quality::pu21_encode(1e4));
}

TEST(QualityPu21, HdrPairs) {
  Image ref(64, 48, 3), noisy(64, 48, 3), worse(64, 48, 3);
  for (std::size_t i = 0; i < ref.pixels.size(); ++i) {
    const double v = std::pow(10.0, -1.0 + 4.0 * static_cast<double>(i % 192) / 191.0);
    const double wobble = ((i * 2654435761u) % 1000) / 1000.0 - 0.5;
    ref.pixels[i] = static_cast<float>(v);
    noisy.pixels[i] = static_cast<float>(v * (1.0 + 0.02 * wobble));
    worse.pixels[i] = static_cast<float>(v * (1.0 + 0.2 * wobble));
  }
  auto same = quality::pu21_compare(ref, ref);
  ASSERT_TRUE(same.ok());
  EXPECT_TRUE(std::isinf(same->psnr));
  EXPECT_NEAR(same->ssim, 1.0, 1e-9);
  auto a = quality::pu21_compare(noisy, ref), b = quality::pu21_compare(worse, ref);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_GT(a->psnr, b->psnr + 10.0);
  EXPECT_GT(a->ssim, b->ssim);
  EXPECT_FALSE(quality::pu21_compare(Image(64, 47, 3), ref).ok());
}

TEST(QualityPu21, DisplayPairs) {
  OutputImage ref, off;
  ref.allocate(40, 30, 3, PixelType::u8);
  off.allocate(40, 30, 3, PixelType::u8);
  for (std::size_t i = 0; i < ref.bytes.size(); ++i) {
    ref.bytes[i] = static_cast<std::uint8_t>(i % 251);
    off.bytes[i] = static_cast<std::uint8_t>(std::min<std::size_t>(255, i % 251 + 3));
  }
  auto r = quality::pu21_compare(off, ref);
  ASSERT_TRUE(r.ok());
  EXPECT_GT(r->psnr, 25.0);
  EXPECT_LT(r->psnr, 60.0);
  EXPECT_LT(r->ssim, 1.0);
}
