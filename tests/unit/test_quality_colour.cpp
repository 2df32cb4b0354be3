// CIEDE2000 on the 34 pairs of Sharma, Wu & Dalal (Color Res. Appl. 30(1), 2005, Table 1), and
// the colour-fidelity measure built on it (src/quality/colour_fidelity.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numbers>

#include <random>
#include <vector>

#include "quality/colour_batch.hpp"
#include "tonekit/quality.hpp"

using namespace tonekit;

namespace {

// L1 a1 b1 L2 a2 b2 dE00, as published (4 decimals).
constexpr double kSharmaPairs[34][7] = {
    {50.0000, 2.6772, -79.7751, 50.0000, 0.0000, -82.7485, 2.0425},
    {50.0000, 3.1571, -77.2803, 50.0000, 0.0000, -82.7485, 2.8615},
    {50.0000, 2.8361, -74.0200, 50.0000, 0.0000, -82.7485, 3.4412},
    {50.0000, -1.3802, -84.2814, 50.0000, 0.0000, -82.7485, 1.0000},
    {50.0000, -1.1848, -84.8006, 50.0000, 0.0000, -82.7485, 1.0000},
    {50.0000, -0.9009, -85.5211, 50.0000, 0.0000, -82.7485, 1.0000},
    {50.0000, 0.0000, 0.0000, 50.0000, -1.0000, 2.0000, 2.3669},
    {50.0000, -1.0000, 2.0000, 50.0000, 0.0000, 0.0000, 2.3669},
    {50.0000, 2.4900, -0.0010, 50.0000, -2.4900, 0.0009, 7.1792},
    {50.0000, 2.4900, -0.0010, 50.0000, -2.4900, 0.0010, 7.1792},
    {50.0000, 2.4900, -0.0010, 50.0000, -2.4900, 0.0011, 7.2195},
    {50.0000, 2.4900, -0.0010, 50.0000, -2.4900, 0.0012, 7.2195},
    {50.0000, -0.0010, 2.4900, 50.0000, 0.0009, -2.4900, 4.8045},
    {50.0000, -0.0010, 2.4900, 50.0000, 0.0010, -2.4900, 4.8045},
    {50.0000, -0.0010, 2.4900, 50.0000, 0.0011, -2.4900, 4.7461},
    {50.0000, 2.5000, 0.0000, 50.0000, 0.0000, -2.5000, 4.3065},
    {50.0000, 2.5000, 0.0000, 73.0000, 25.0000, -18.0000, 27.1492},
    {50.0000, 2.5000, 0.0000, 61.0000, -5.0000, 29.0000, 22.8977},
    {50.0000, 2.5000, 0.0000, 56.0000, -27.0000, -3.0000, 31.9030},
    {50.0000, 2.5000, 0.0000, 58.0000, 24.0000, 15.0000, 19.4535},
    {50.0000, 2.5000, 0.0000, 50.0000, 3.1736, 0.5854, 1.0000},
    {50.0000, 2.5000, 0.0000, 50.0000, 3.2972, 0.0000, 1.0000},
    {50.0000, 2.5000, 0.0000, 50.0000, 1.8634, 0.5757, 1.0000},
    {50.0000, 2.5000, 0.0000, 50.0000, 3.2592, 0.3350, 1.0000},
    {60.2574, -34.0099, 36.2677, 60.4626, -34.1751, 39.4387, 1.2644},
    {63.0109, -31.0961, -5.8663, 62.8187, -29.7946, -4.0864, 1.2630},
    {61.2901, 3.7196, -5.3901, 61.4292, 2.2480, -4.9620, 1.8731},
    {35.0831, -44.1164, 3.7933, 35.0232, -40.0716, 1.5901, 1.8645},
    {22.7233, 20.0904, -46.6940, 23.0331, 14.9730, -42.5619, 2.0373},
    {36.4612, 47.8580, 18.3852, 36.2715, 50.5065, 21.2231, 1.4146},
    {90.8027, -2.0831, 1.4410, 91.1528, -1.6435, 0.0447, 1.4441},
    {90.9257, -0.5406, -0.9208, 88.6381, -0.8985, -0.7239, 1.5381},
    {6.7747, -0.2908, -2.4247, 5.8714, -0.0985, -2.2286, 0.6377},
    {2.0776, 0.0795, -1.1350, 0.9033, -0.0636, -0.5514, 0.9082},
};

// A 200x180 HDR gradient of saturated colours and its exact sRGB rendering (no tone curve).
struct ColourScene {
  Image hdr{200, 180, 3};
  OutputImage ldr;
};

ColourScene colour_scene(double saturation) {
  ColourScene s;
  s.ldr.allocate(200, 180, 3, PixelType::u8);
  for (int y = 0; y < 180; ++y)
    for (int x = 0; x < 200; ++x) {
      const double hue = 2.0 * std::numbers::pi * x / 200.0, level = 0.05 + 0.9 * y / 179.0;
      double rgb[3];
      for (int c = 0; c < 3; ++c) rgb[c] = level * (0.5 + 0.4 * std::cos(hue - 2.0 * std::numbers::pi * c / 3.0));
      const double grey = 0.2126 * rgb[0] + 0.7152 * rgb[1] + 0.0722 * rgb[2];
      const std::size_t i = (static_cast<std::size_t>(y) * 200 + x) * 3;
      for (int c = 0; c < 3; ++c) {
        s.hdr.pixels[i + c] = static_cast<float>(50.0 * rgb[c]);  // scene scale is irrelevant
        const double shown = grey + saturation * (rgb[c] - grey);
        const double code = shown <= 0.0031308 ? 12.92 * shown : 1.055 * std::pow(shown, 1 / 2.4) - 0.055;
        s.ldr.bytes[i + c] = static_cast<std::uint8_t>(std::lround(255.0 * std::clamp(code, 0.0, 1.0)));
      }
    }
  return s;
}

}  // namespace

TEST(QualityColour, Ciede2000MatchesSharmaPairs) {
  for (int i = 0; i < 34; ++i) {
    const auto& p = kSharmaPairs[i];
    const double de = quality::ciede2000({p[0], p[1], p[2]}, {p[3], p[4], p[5]});
    EXPECT_NEAR(de, p[6], 5e-5) << "pair " << i + 1;
    // The formula is symmetric in its arguments.
    EXPECT_NEAR(quality::ciede2000({p[3], p[4], p[5]}, {p[0], p[1], p[2]}), de, 1e-12) << "pair " << i + 1;
  }
}

// The vectorised runs colour_fidelity uses (src/quality/colour_batch.cpp, fast-math and libmvec)
// against the scalar reference: the Sharma pairs (their opposite-hue pairs 13-14 included), then
// random colours (neutral ones included), L*a*b* of random RGB, and the hue angle against two
// atan2s. Random exact opposites of hue are left out: CIEDE2000's mean hue jumps by 180 degrees
// at |h1 - h2| = 180, so there the scalar formula's own result depends on atan2's last bit.
TEST(QualityColour, BatchMathsMatchTheScalarReference) {
  std::vector<double> l1, a1, b1, l2, a2, b2;
  for (const auto& p : kSharmaPairs) {
    l1.push_back(p[0]), a1.push_back(p[1]), b1.push_back(p[2]);
    l2.push_back(p[3]), a2.push_back(p[4]), b2.push_back(p[5]);
  }
  std::mt19937 rng(17);
  std::uniform_real_distribution<double> lum(0.0, 100.0), ab(-100.0, 100.0);
  for (int i = 0; i < 5000; ++i) {
    l1.push_back(lum(rng)), a1.push_back(i % 50 == 0 ? 0.0 : ab(rng)), b1.push_back(i % 50 == 0 ? 0.0 : ab(rng));
    l2.push_back(lum(rng)), a2.push_back(ab(rng)), b2.push_back(ab(rng));
  }
  const int n = static_cast<int>(l1.size());
  std::vector<double> de(n);
  quality::detail::ciede2000_batch(l1.data(), a1.data(), b1.data(), l2.data(), a2.data(), b2.data(), n, de.data());
  for (int i = 0; i < n; ++i) {
    const double want = quality::ciede2000({l1[i], a1[i], b1[i]}, {l2[i], a2[i], b2[i]});
    ASSERT_NEAR(de[i], want, 1e-9 * (1.0 + want)) << "pair " << i;
  }
  for (int i = 0; i < 34; ++i) EXPECT_NEAR(de[i], kSharmaPairs[i][6], 5e-5) << "Sharma pair " << i + 1;

  std::uniform_real_distribution<double> u(0.0, 2.0);
  std::vector<double> r(n), g(n), b(n), l(n), a(n), bb(n);
  for (int i = 0; i < n; ++i) r[i] = i % 7 ? u(rng) : 0.0, g[i] = u(rng), b[i] = i % 11 ? u(rng) : 1e-6;
  quality::detail::lab_batch(r.data(), g.data(), b.data(), n, l.data(), a.data(), bb.data());
  for (int i = 0; i < n; ++i) {
    const quality::Lab want = quality::lab_from_linear_rgb(r[i], g[i], b[i]);
    ASSERT_NEAR(l[i], want.l, 1e-10) << i;
    ASSERT_NEAR(a[i], want.a, 1e-10) << i;
    ASSERT_NEAR(bb[i], want.b, 1e-10) << i;
  }

  std::vector<double> shift(n), counted(n);
  quality::detail::hue_shift_batch(a1.data(), b1.data(), a2.data(), b2.data(), n, 5.0, shift.data(), counted.data());
  for (int i = 0; i < n; ++i) {
    const bool both = std::hypot(a1[i], b1[i]) >= 5.0 && std::hypot(a2[i], b2[i]) >= 5.0;
    ASSERT_EQ(counted[i], both ? 1.0 : 0.0) << i;
    if (!both) continue;
    double d = std::abs(std::atan2(b1[i], a1[i]) - std::atan2(b2[i], a2[i])) * 180.0 / std::numbers::pi;
    d = d > 180.0 ? 360.0 - d : d;
    ASSERT_NEAR(shift[i], d, 1e-9) << i;
  }
}

TEST(QualityColour, LabOfWhiteAndGreys) {
  const quality::Lab white = quality::lab_from_linear_rgb(1, 1, 1);
  EXPECT_NEAR(white.l, 100.0, 1e-9);
  EXPECT_NEAR(white.a, 0.0, 1e-9);
  EXPECT_NEAR(white.b, 0.0, 1e-9);
  const quality::Lab grey = quality::lab_from_linear_rgb(0.18, 0.18, 0.18);
  EXPECT_NEAR(grey.l, 49.496, 1e-3);  // L* of 18 % grey
  EXPECT_GT(quality::lab_from_linear_rgb(1, 0, 0).a, 70.0);
}

TEST(QualityColour, FaithfulRenderingScoresNearZero) {
  const ColourScene s = colour_scene(1.0);
  auto c = quality::colour_fidelity(s.hdr, s.ldr);
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_LT(c->delta_e2000_mean, 0.5);  // 8-bit rounding only
  EXPECT_LT(c->delta_e2000_p95, 1.0);
  EXPECT_LT(c->hue_shift_mean_deg, 1.0);
  EXPECT_GT(c->chromatic_pixels, 10000u);
}

TEST(QualityColour, DesaturationRaisesTheErrorButKeepsHue) {
  const auto faithful = quality::colour_fidelity(colour_scene(1.0).hdr, colour_scene(1.0).ldr);
  const ColourScene pale = colour_scene(0.5);
  auto c = quality::colour_fidelity(pale.hdr, pale.ldr);
  ASSERT_TRUE(c.ok() && faithful.ok());
  EXPECT_GT(c->delta_e2000_mean, faithful->delta_e2000_mean + 3.0);
  EXPECT_GE(c->delta_e2000_p95, c->delta_e2000_mean);
  EXPECT_LT(c->hue_shift_mean_deg, 3.0);  // chroma shrinks towards grey along the same hue
}

TEST(QualityColour, SwappedChannelsShiftTheHue) {
  ColourScene s = colour_scene(1.0);
  for (std::size_t i = 0; i < s.ldr.bytes.size(); i += 3) std::swap(s.ldr.bytes[i], s.ldr.bytes[i + 1]);
  auto c = quality::colour_fidelity(s.hdr, s.ldr);
  ASSERT_TRUE(c.ok());
  EXPECT_GT(c->hue_shift_mean_deg, 20.0);
  EXPECT_GT(c->delta_e2000_mean, 5.0);
}
