// CIEDE2000 on the 34 pairs of Sharma, Wu & Dalal (Color Res. Appl. 30(1), 2005, Table 1), and
// the colour-fidelity measure built on it (src/cpu/quality/colour_fidelity.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numbers>

#include <random>
#include <vector>

#include "cpu/quality/colour_batch.hpp"
#include "cpu/quality/colour_maths.hpp"
#include "tonekit/quality.hpp"
#include "unit/colour_fixtures.hpp"

using namespace tonekit;
using test::colour_scene;
using test::ColourScene;
using test::kSharmaPairs;

TEST(QualityColour, Ciede2000MatchesSharmaPairs) {
  for (int i = 0; i < 34; ++i) {
    const auto& p = kSharmaPairs[i];
    const double de = quality::ciede2000({p[0], p[1], p[2]}, {p[3], p[4], p[5]});
    EXPECT_NEAR(de, p[6], 5e-5) << "pair " << i + 1;
    // The formula is symmetric in its arguments.
    EXPECT_NEAR(quality::ciede2000({p[3], p[4], p[5]}, {p[0], p[1], p[2]}), de, 1e-12) << "pair " << i + 1;
  }
}

// The vectorised runs colour_fidelity uses (src/cpu/quality/colour_batch.cpp, fast-math and libmvec)
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

// The whole per-pixel term colour_fidelity runs (colour_maths.hpp's colour_terms, vectorised in
// colour_batch.cpp) against the same text compiled here without fast-math: random source and
// shown RGB, black sources (not compared) and greys (no hue) among them; 1e-9 (1 + dE) as above.
TEST(QualityColour, ColourTermsBatchMatchesTheScalarText) {
  std::mt19937 rng(23);
  std::uniform_real_distribution<double> source(0.0, 50.0), shown(0.0, 1.0);
  const int n = 4099;  // not a multiple of any vector width
  std::vector<double> in[6], de(n), shift(n), counted(n), compared(n);
  for (auto& v : in) v.resize(n);
  for (int i = 0; i < n; ++i) {
    for (int c = 0; c < 6; ++c) in[c][i] = c < 3 ? source(rng) : shown(rng);
    if (i % 37 == 0) in[0][i] = in[1][i] = in[2][i] = 0.0;           // black source
    if (i % 41 == 0) in[4][i] = in[5][i] = in[3][i];                 // grey output
  }
  quality::detail::colour_terms_batch(in[0].data(), in[1].data(), in[2].data(), in[3].data(), in[4].data(),
                                      in[5].data(), n, de.data(), shift.data(), counted.data(), compared.data());
  int black = 0;
  for (int i = 0; i < n; ++i) {
    const quality::detail::ColourTerms t =
        quality::detail::colour_terms(in[0][i], in[1][i], in[2][i], in[3][i], in[4][i], in[5][i]);
    ASSERT_EQ(compared[i], t.compared ? 1.0 : 0.0) << i;
    black += !t.compared;
    if (!t.compared) continue;
    ASSERT_NEAR(de[i], t.delta_e, 1e-9 * (1.0 + t.delta_e)) << i;
    ASSERT_EQ(counted[i], t.counted) << i;
    ASSERT_NEAR(shift[i], t.hue_shift, 1e-9 * (1.0 + t.hue_shift)) << i;
  }
  EXPECT_EQ(black, (n + 36) / 37);
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
