// Properties of the quality metrics that issue 17 asks for: identical structure gives S near 1,
// a constant LDR gives S near 0, N depends on the LDR only, every score is invariant to scaling
// the HDR, sizes below the minimum are rejected, and every operator's output scores without NaN.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <numbers>

#include "tonekit/operators.hpp"
#include "tonekit/quality.hpp"
#include "tonekit/synth.hpp"
#include "tonekit/tonemap.hpp"
#include "unit/quality_fixtures.hpp"

using namespace tonekit;

namespace {

// Texture with structure at every TMQI scale: sines of periods 5 to 199 pixels around code 128.
double texture(int x, int y) {
  const double pi = std::numbers::pi;
  double v = 128.0;
  for (double period : {5.0, 23.0, 71.0, 199.0}) v += 24.0 * std::sin(2 * pi * x / period) * std::cos(2 * pi * y / (period * 1.3));
  return v;
}

Image scaled(const Image& image, float k) {
  Image out = image;
  for (float& v : out.pixels) v *= k;
  return out;
}

}  // namespace

TEST(QualityProperties, IdenticalStructureGivesSNearOne) {
  TONEKIT_SKIP_WITHOUT_FFTW();
  // The HDR luminance is an affine function of the LDR codes: the same structure.
  test::QualityPair p;
  p.hdr = Image(320, 240, 3);
  p.ldr.allocate(320, 240, 3, PixelType::u8);
  for (int y = 0; y < 240; ++y)
    for (int x = 0; x < 320; ++x) {
      const double code = std::round(texture(x, y));
      for (int c = 0; c < 3; ++c) {
        p.hdr.pixels[(static_cast<std::size_t>(y) * 320 + x) * 3 + c] = static_cast<float>(0.5 + 3.0 * code);
        p.ldr.bytes[(static_cast<std::size_t>(y) * 320 + x) * 3 + c] = static_cast<std::uint8_t>(code);
      }
    }
  auto r = quality::tmqi(p.hdr, p.ldr);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_GT(r->s, 0.99);
  for (double s : r->s_per_scale) EXPECT_GT(s, 0.98);
  auto f = quality::fsitm(p.hdr, p.ldr);
  ASSERT_TRUE(f.ok());
  EXPECT_GT(f->mean, 0.9);  // log stretch of an affine map keeps most phase signs
}

TEST(QualityProperties, ConstantLdrGivesSNearZero) {
  test::QualityPair p = test::validation_pair();
  std::fill(p.ldr.bytes.begin(), p.ldr.bytes.end(), 128);
  auto r = quality::tmqi(p.hdr, p.ldr);
  ASSERT_TRUE(r.ok());
  // sigma'_l = Phi(-3) for a flat LDR: each scale's map is (2 sigma'_h Phi(-3) + C1) / (sigma'_h^2 + C1).
  EXPECT_LT(r->s, 0.02);
  EXPECT_GT(r->s, 0.0);
}

TEST(QualityProperties, NaturalnessDependsOnTheLdrOnly) {
  const test::QualityPair p = test::validation_pair();
  Image other = p.hdr;
  for (std::size_t i = 0; i < other.pixels.size(); ++i) other.pixels[i] = static_cast<float>(1.0 + (i * 7919 % 1000));
  auto a = quality::tmqi(p.hdr, p.ldr), b = quality::tmqi(other, p.ldr);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->n, b->n);
  EXPECT_EQ(a->mean_luminance, b->mean_luminance);
  EXPECT_EQ(a->contrast, b->contrast);
  ASSERT_TRUE(std::isfinite(b->s));
  EXPECT_GT(std::abs(a->s - b->s), 0.05);  // while the structure term does see the HDR
}

TEST(QualityProperties, ScoresInvariantToScalingTheHdr) {
  TONEKIT_SKIP_WITHOUT_FFTW();
  const test::QualityPair p = test::validation_pair();
  auto base = quality::assess(p.hdr, p.ldr);
  ASSERT_TRUE(base.ok());
  for (float k : {0.01f, 7.0f, 1000.0f}) {
    auto r = quality::assess(scaled(p.hdr, k), p.ldr);
    ASSERT_TRUE(r.ok());
    EXPECT_NEAR(r->tmqi.q, base->tmqi.q, 1e-6) << k;
    EXPECT_NEAR(r->tmqi.s, base->tmqi.s, 1e-6) << k;
    EXPECT_EQ(r->tmqi.n, base->tmqi.n) << k;
    for (int c = 0; c < 3; ++c) EXPECT_NEAR(r->fsitm.channel[c], base->fsitm.channel[c], 2e-4) << k;
    EXPECT_NEAR(r->colour.delta_e2000_mean, base->colour.delta_e2000_mean, 1e-6) << k;
  }
}

TEST(QualityProperties, SmallImagesRejected) {
  TONEKIT_SKIP_WITHOUT_FFTW();
  for (auto [w, h] : {std::pair{160, 300}, std::pair{400, 160}, std::pair{100, 100}}) {
    const test::QualityPair p = test::validation_pair(w, h);
    auto t = quality::tmqi(p.hdr, p.ldr);
    ASSERT_FALSE(t.ok()) << w << "x" << h;
    EXPECT_EQ(t.status().code(), StatusCode::invalid_argument);
    EXPECT_NE(t.status().message().find("161"), std::string::npos) << t.status().message();
    EXPECT_FALSE(quality::fsitm(p.hdr, p.ldr).ok());
    EXPECT_FALSE(quality::colour_fidelity(p.hdr, p.ldr).ok());
  }
  const test::QualityPair smallest = test::validation_pair(161, 161);
  EXPECT_TRUE(quality::assess(smallest.hdr, smallest.ldr).ok());
  const test::QualityPair a = test::validation_pair(200, 180), b = test::validation_pair(180, 200);
  EXPECT_EQ(quality::tmqi(a.hdr, b.ldr).status().code(), StatusCode::invalid_argument);  // sizes differ
}

TEST(QualityProperties, EveryOperatorOutputScoresWithoutNaN) {
  TONEKIT_SKIP_WITHOUT_FFTW();
  for (const synth::SceneInfo& scene : synth::all_scenes()) {
    auto hdr = synth::render_scene(scene.id, 240, 168, 2);
    ASSERT_TRUE(hdr.ok()) << scene.id;
    for (const OperatorDesc* op : all_operators()) {
      auto params = prepare_params(op->id);
      ASSERT_TRUE(params.ok());
      OutputImage ldr;
      ASSERT_TRUE(tone_map(*hdr, *params, OutputFormat{PixelType::u8, 3}, Backend::cpu, ldr).ok()) << op->id;
      auto r = quality::assess(*hdr, ldr);
      ASSERT_TRUE(r.ok()) << scene.id << " " << op->id << ": " << r.status().message();
      const double values[] = {r->tmqi.q, r->tmqi.s, r->tmqi.n, r->fsitm.mean, r->colour.delta_e2000_mean,
                               r->colour.delta_e2000_p95, r->colour.hue_shift_mean_deg};
      for (double v : values) EXPECT_TRUE(std::isfinite(v)) << scene.id << " " << op->id;
      EXPECT_GE(r->tmqi.q, 0.0);
      EXPECT_LE(r->tmqi.q, 1.0);
      EXPECT_GE(r->fsitm.mean, 0.0);
      EXPECT_LE(r->fsitm.mean, 1.0);
    }
  }
}

TEST(QualityProperties, BadHdrPixelsFollowTheSanitisePolicy) {
  TONEKIT_SKIP_WITHOUT_FFTW();
  test::QualityPair p = test::validation_pair();
  Image clean = p.hdr;
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  const std::pair<float, float> cases[] = {{nan, 0.0f}, {-inf, 0.0f}, {-3.0f, 0.0f}, {inf, 65504.0f}};
  for (std::size_t k = 0; k < 4; ++k) {
    const std::size_t i = (1000 + 7919 * k) * 3 + k % 3;
    p.hdr.pixels[i] = cases[k].first;
    clean.pixels[i] = cases[k].second;
  }
  auto dirty = quality::assess(p.hdr, p.ldr), expected = quality::assess(clean, p.ldr);
  ASSERT_TRUE(dirty.ok()) << dirty.status().message();
  ASSERT_TRUE(expected.ok());
  EXPECT_EQ(dirty->tmqi.q, expected->tmqi.q);
  EXPECT_EQ(dirty->fsitm.mean, expected->fsitm.mean);
  EXPECT_EQ(dirty->colour.delta_e2000_mean, expected->colour.delta_e2000_mean);
  EXPECT_TRUE(std::isfinite(dirty->tmqi.q));
}

// Halos (gradient_reversals): a hard-edged checker shown with the same sign of contrast has no
// reversals; shown with its contrast inverted, every compared pair near an edge is reversed; pairs
// that cannot be compared give -1.
TEST(QualityProperties, GradientReversalsCountInvertedContrastNearEdges) {
  const int w = 64, h = 48;
  Image hdr(w, h, 3);
  OutputImage same, inverted;
  same.allocate(w, h, 3, PixelType::u8);
  inverted.allocate(w, h, 3, PixelType::u8);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const bool bright = ((x / 16) + (y / 16)) % 2 == 0;
      const std::size_t i = (static_cast<std::size_t>(y) * w + x) * 3;
      for (int c = 0; c < 3; ++c) {
        hdr.pixels[i + c] = bright ? 100.0f : 0.01f;
        same.bytes[i + c] = bright ? 230 : 20;
        inverted.bytes[i + c] = bright ? 20 : 230;
      }
    }
  EXPECT_EQ(quality::gradient_reversals(hdr, same), 0.0);
  const double flipped = quality::gradient_reversals(hdr, inverted);
  EXPECT_GT(flipped, 0.0);
  EXPECT_LE(flipped, 100.0);
  OutputImage wrong_size;
  wrong_size.allocate(w - 1, h, 3, PixelType::u8);
  EXPECT_EQ(quality::gradient_reversals(hdr, wrong_size), -1.0);
}
