// The gamut mappings BT.2020 -> BT.709 (core/gamut.hpp, tonekit/video.hpp GamutMapping): the
// ICtCp matrices against BT.2100's, and each mapping's promises checked on colours inside, near
// and outside BT.709: in gamut afterwards, luminance (desaturate) or intensity and hue
// (perceptual) kept, colours near the boundary kept apart (soft), clip unchanged from the policy
// before the stage. GPU = CPU: tests/gpu/test_gpu_video.cpp GamutMappingsAndColourModesMatchCpu.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "core/gamut.hpp"
#include "core/video_colour.hpp"
#include "tonekit/tonemap.hpp"

using namespace tonekit;

namespace {

struct Rgb {
  float r, g, b;
};

Rgb map(GamutMapping g, Rgb c, float white = 203.0f) {
  InputColour colour;
  colour.primaries = Primaries::bt2020;
  colour.gamut = g;
  colour.reference_white = white;
  const core::VideoLinearise lin = core::make_video_linearise(colour, InputFormat::rgb_f32);
  core::linearise_pixel(lin, c.r, c.g, c.b);
  return c;
}
Rgb matrix709(Rgb c) {
  core::bt2020_to_bt709(c.r, c.g, c.b);
  return c;
}
float min3(Rgb c) { return std::min(c.r, std::min(c.g, c.b)); }
double y709(Rgb c) { return 0.2126 * c.r + 0.7152 * c.g + 0.0722 * c.b; }
core::Ictcp ictcp_of_709(Rgb c, float white) {
  // BT.709 -> BT.2020: the inverse of bt2020_to_bt709's matrix (its columns: the images of the unit vectors),
  // inverted here by Cramer's rule in double.
  double m[3][3];
  for (int j = 0; j < 3; ++j) {
    double v[3] = {j == 0 ? 1.0 : 0.0, j == 1 ? 1.0 : 0.0, j == 2 ? 1.0 : 0.0};
    core::bt2020_to_bt709(v[0], v[1], v[2]);
    for (int i = 0; i < 3; ++i) m[i][j] = v[i];
  }
  const double det = m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
                     m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
  const double inv[3][3] = {
      {(m[1][1] * m[2][2] - m[1][2] * m[2][1]) / det, (m[0][2] * m[2][1] - m[0][1] * m[2][2]) / det, (m[0][1] * m[1][2] - m[0][2] * m[1][1]) / det},
      {(m[1][2] * m[2][0] - m[1][0] * m[2][2]) / det, (m[0][0] * m[2][2] - m[0][2] * m[2][0]) / det, (m[0][2] * m[1][0] - m[0][0] * m[1][2]) / det},
      {(m[1][0] * m[2][1] - m[1][1] * m[2][0]) / det, (m[0][1] * m[2][0] - m[0][0] * m[2][1]) / det, (m[0][0] * m[1][1] - m[0][1] * m[1][0]) / det}};
  const double rgb[3] = {c.r, c.g, c.b};
  float out[3];
  for (int i = 0; i < 3; ++i) out[i] = static_cast<float>((inv[i][0] * rgb[0] + inv[i][1] * rgb[1] + inv[i][2] * rgb[2]) * white / 10000.0);
  return core::rgb2020_to_ictcp(out[0], out[1], out[2]);
}

// BT.2020 colours from grey to the primaries and secondaries at several levels.
std::vector<Rgb> test_colours() {
  std::vector<Rgb> out;
  const Rgb hues[] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {1, 1, 0}, {0, 1, 1}, {1, 0, 1}, {1, 0.5f, 0}, {0.2f, 1, 0.6f}};
  for (const Rgb& h : hues)
    for (float sat : {0.0f, 0.2f, 0.5f, 0.8f, 0.95f, 1.0f})
      for (float level : {0.05f, 0.5f, 1.0f, 4.0f}) {
        const float grey = 1 - sat;
        out.push_back({level * (grey + sat * h.r), level * (grey + sat * h.g), level * (grey + sat * h.b)});
      }
  return out;
}

}  // namespace

TEST(Gamut, IctcpMatricesInvertBt2100s) {
  const double lms[3][3] = {{1688, 2146, 262}, {683, 2951, 462}, {99, 309, 3688}};
  // The stage's inverse (gamut.hpp literals) times BT.2100's LMS matrix / 4096 is the identity.
  const double inv[3][3] = {{3.436606694333078, -2.506452118656270, 0.069845424323191},
                            {-0.791329555598929, 1.983600451792291, -0.192270896193362},
                            {-0.025949899690593, -0.098913714711726, 1.124863614402319}};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      double s = 0;
      for (int k = 0; k < 3; ++k) s += inv[i][k] * lms[k][j] / 4096.0;
      EXPECT_NEAR(s, i == j ? 1.0 : 0.0, 1e-12) << i << "," << j;
    }
  // Round trip through ICtCp and back, over 4 decades of light.
  for (const Rgb& c : test_colours()) {
    const float k = 203.0f / 10000.0f;
    const core::Ictcp t = core::rgb2020_to_ictcp(c.r * k, c.g * k, c.b * k);
    float r, g, b;
    core::ictcp_to_rgb2020(t, r, g, b);
    const float tol = 2e-3f * std::max(c.r, std::max(c.g, c.b)) * k + 1e-7f;
    EXPECT_NEAR(r, c.r * k, tol);
    EXPECT_NEAR(g, c.g * k, tol);
    EXPECT_NEAR(b, c.b * k, tol);
  }
}

TEST(Gamut, ClipIsThePolicyBeforeTheStage) {
  for (const Rgb& c : test_colours()) {
    Rgb want = matrix709(c);
    core::gamut_clip_desaturate(want.r, want.g, want.b);
    const Rgb got = map(GamutMapping::clip, c);
    EXPECT_EQ(got.r, want.r);
    EXPECT_EQ(got.g, want.g);
    EXPECT_EQ(got.b, want.b);
  }
}

TEST(Gamut, DesaturateKeepsLuminanceAndSeparatesOutOfGamutColours) {
  for (const Rgb& c : test_colours()) {
    const Rgb m = matrix709(c), got = map(GamutMapping::desaturate, c);
    EXPECT_GE(min3(got), 0.0f);
    EXPECT_NEAR(y709(got), y709(m), 1e-5 * y709(m) + 1e-7);
    const double e = (y709(m) - min3(m)) / y709(m);
    if (e <= core::kGamutKnee) {  // well inside: untouched
      EXPECT_EQ(got.r, m.r);
      EXPECT_EQ(got.b, m.b);
    }
    EXPECT_LT((y709(got) - min3(got)) / y709(got), 1.0) << "soft: never on the boundary";
  }
  // Two colours outside BT.709 with different saturation: clip puts both on the boundary (the
  // same colour), desaturate keeps them apart, in the same order.
  const Rgb a{0.1f, 1.0f, 0.1f}, b{0.0f, 1.0f, 0.0f};
  const Rgb ca = map(GamutMapping::clip, a), cb = map(GamutMapping::clip, b);
  EXPECT_NEAR(min3(ca), 0.0f, 1e-6);
  EXPECT_NEAR(min3(cb), 0.0f, 1e-6);
  const Rgb da = map(GamutMapping::desaturate, a), db = map(GamutMapping::desaturate, b);
  EXPECT_GT(min3(da) / y709(da), min3(db) / y709(db) + 1e-3);
}

TEST(Gamut, PerceptualKeepsIntensityAndHueInIctcp) {
  int moved = 0;
  for (const Rgb& c : test_colours()) {
    const float k = 203.0f / 10000.0f;
    const core::Ictcp in = core::rgb2020_to_ictcp(c.r * k, c.g * k, c.b * k);
    const Rgb got = map(GamutMapping::perceptual, c);
    EXPECT_GE(min3(got), 0.0f);
    const Rgb m = matrix709(c);
    if (min3(m) >= 0.0f && got.r == std::max(m.r, 0.0f) && got.g == std::max(m.g, 0.0f)) continue;  // untouched
    ++moved;
    const core::Ictcp out = ictcp_of_709(got, 203.0f);
    EXPECT_NEAR(out.i, in.i, 2e-3) << c.r << " " << c.g << " " << c.b;
    const double c_in = std::hypot(in.ct, in.cp), c_out = std::hypot(out.ct, out.cp);
    EXPECT_LE(c_out, c_in * 1.001 + 1e-5);
    if (c_out > 0.01) {  // hue angle kept where the chroma is large enough to have one
      double dh = std::atan2(out.cp, out.ct) - std::atan2(in.cp, in.ct);
      dh = std::remainder(dh, 2 * M_PI);
      EXPECT_NEAR(dh, 0.0, 0.02) << c.r << " " << c.g << " " << c.b;
    }
  }
  EXPECT_GT(moved, 20);
  // In-gamut colours of small chroma are untouched (the matrix's values).
  const Rgb pale{0.5f, 0.45f, 0.4f};
  const Rgb got = map(GamutMapping::perceptual, pale), m = matrix709(pale);
  EXPECT_EQ(got.r, m.r);
  EXPECT_EQ(got.g, m.g);
  EXPECT_EQ(got.b, m.b);
  // Soft: a more saturated input stays more saturated after the mapping, even beyond BT.709.
  const Rgb a = map(GamutMapping::perceptual, {0.1f, 1.0f, 0.1f}), b = map(GamutMapping::perceptual, {0.0f, 1.0f, 0.0f});
  const core::Ictcp ta = ictcp_of_709(a, 203.0f), tb = ictcp_of_709(b, 203.0f);
  EXPECT_GT(std::hypot(tb.ct, tb.cp), std::hypot(ta.ct, ta.cp) * 1.001);
}

TEST(Gamut, StillsConvertAsTheVideoDecode) {
  Image img(5, 2, 4);
  const std::vector<Rgb> cs = test_colours();
  for (int i = 0; i < 10; ++i) {
    const Rgb& c = cs[(i * 37) % cs.size()];
    img.pixels[4 * i] = c.r, img.pixels[4 * i + 1] = c.g, img.pixels[4 * i + 2] = c.b, img.pixels[4 * i + 3] = 0.5f;
  }
  img.pixels[0] = NAN;
  Image orig = img;
  ASSERT_TRUE(convert_bt2020_to_bt709(img, GamutMapping::perceptual).ok());
  for (int i = 0; i < 10; ++i) {
    Rgb want{i == 0 ? 0.0f : orig.pixels[4 * i], orig.pixels[4 * i + 1], orig.pixels[4 * i + 2]};
    want = map(GamutMapping::perceptual, want);
    EXPECT_EQ(img.pixels[4 * i], want.r);
    EXPECT_EQ(img.pixels[4 * i + 1], want.g);
    EXPECT_EQ(img.pixels[4 * i + 2], want.b);
    EXPECT_EQ(img.pixels[4 * i + 3], 0.5f);
  }
  Image grey(2, 2, 1);
  EXPECT_FALSE(convert_bt2020_to_bt709(grey, GamutMapping::clip).ok());
  EXPECT_EQ(parse_gamut_mapping("perceptual").value(), GamutMapping::perceptual);
  EXPECT_FALSE(parse_gamut_mapping("soft").ok());
}
