// Every curve against values computed by hand from the papers' equations.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <vector>

#include "core/colour.hpp"
#include "core/curves.hpp"
#include "core/map_settings.hpp"

using namespace tonekit;
using namespace tonekit::core;

namespace {
FrameStats stats_with(double log_avg, double lmin, double lmax) {
  FrameStats s;
  s.pixel_count = 1;
  s.log_average = log_avg;
  s.min_luminance = lmin;
  s.min_positive_luminance = lmin;
  s.max_luminance = lmax;
  return s;
}
Params params_for(const char* op, std::vector<std::pair<std::string, std::string>> set = {}) {
  auto p = prepare_params(op, set);
  EXPECT_TRUE(p.ok()) << p.status().message();
  return p.value();
}
}  // namespace

TEST(Curves, ReinhardEq43WithoutWhitePoint) {
  // alpha = 0.18, L_avg = 0.5: L = 0.36 L_w. For L_w = 1: L = 0.36, L_d = 0.36 / 1.36 with a white
  // point far away.
  auto p = params_for("reinhard", {{"white", "1e8"}});
  CurveSettings s = make_curve_settings(p, stats_with(0.5, 0.01, 100.0), nullptr);
  EXPECT_NEAR(apply_curve<double>(s, 1.0), 0.36 / 1.36, 1e-12);
  EXPECT_NEAR(apply_curve<double>(s, 0.5), 0.18 / 1.18, 1e-12);  // log-average maps to the key
}

TEST(Curves, ReinhardWhitePointDefaultsToLargestScaledLuminance) {
  auto p = params_for("reinhard");
  CurveSettings s = make_curve_settings(p, stats_with(0.5, 0.01, 100.0), nullptr);
  // L_white = 0.36 * 100 = 36: L_max maps exactly to 1.
  EXPECT_NEAR(apply_curve<double>(s, 100.0), 1.0, 1e-12);
  // L_w = 10: L = 3.6, L_d = 3.6 (1 + 3.6 / 36^2) / 4.6
  EXPECT_NEAR(apply_curve<double>(s, 10.0), 3.6 * (1.0 + 3.6 / 1296.0) / 4.6, 1e-12);
}

TEST(Curves, ReinhardAutoKey) {
  // L_min = 2^-10, L_max = 2^10, L_avg = 2^2: exponent (4 + 10 - 10) / 20 = 0.2,
  // alpha = 0.18 * 4^0.2.
  EXPECT_NEAR(estimate_key(stats_with(4.0, std::ldexp(1.0, -10), 1024.0)), 0.18 * std::pow(4.0, 0.2), 1e-12);
}

TEST(Curves, DragoEquation) {
  // e = 1, L_wa = 1, L_max = 99: L'_max = 99, b = 0.85, L_dmax = 100.
  auto p = params_for("drago");
  CurveSettings s = make_curve_settings(p, stats_with(1.0, 0.01, 99.0), nullptr);
  const double power = std::log(0.85) / std::log(0.5);
  const double lw = 5.0;
  const double expected = (1.0 / std::log10(100.0)) * std::log(6.0) / std::log(2.0 + 8.0 * std::pow(5.0 / 99.0, power));
  EXPECT_NEAR(apply_curve<double>(s, lw), expected, 1e-12);
  // At L_max the curve gives 0.01 L_dmax = 1 when b = 1 (base 10 logarithm throughout).
  auto p1 = params_for("drago", {{"bias", "1"}});
  CurveSettings s1 = make_curve_settings(p1, stats_with(1.0, 0.01, 99.0), nullptr);
  EXPECT_NEAR(apply_curve<double>(s1, 99.0), 1.0, 1e-12);
}

TEST(Curves, DragoExposureScalesInput) {
  auto p = params_for("drago", {{"exposure", "2"}, {"ld_max", "300"}});
  CurveSettings s = make_curve_settings(p, stats_with(4.0, 0.01, 100.0), nullptr);
  // L' = 2 L_w / 4 = L_w / 2; L'_max = 50.
  const double power = std::log(0.85) / std::log(0.5);
  const double expected = (3.0 / std::log10(51.0)) * std::log1p(5.0) / std::log(2.0 + 8.0 * std::pow(5.0 / 50.0, power));
  EXPECT_NEAR(apply_curve<double>(s, 10.0), expected, 1e-12);
}

TEST(Curves, LogStockham) {
  auto p = params_for("log");
  CurveSettings s = make_curve_settings(p, stats_with(1.0, 0.0, 999.0), nullptr);
  EXPECT_NEAR(apply_curve<double>(s, 9.0), std::log(10.0) / std::log(1000.0), 1e-12);
  EXPECT_NEAR(apply_curve<double>(s, 999.0), 1.0, 1e-12);
}

TEST(Curves, LinearMinMaxAndExposure) {
  auto p = params_for("linear");
  CurveSettings s = make_curve_settings(p, stats_with(1.0, 2.0, 10.0), nullptr);
  EXPECT_NEAR(apply_curve<double>(s, 4.0), 0.25, 1e-12);
  auto q = params_for("linear", {{"normalize", "0"}, {"exposure", "0.5"}});
  CurveSettings t = make_curve_settings(q, stats_with(1.0, 2.0, 10.0), nullptr);
  EXPECT_NEAR(apply_curve<double>(t, 1.5), 0.75, 1e-12);
}

TEST(Curves, HistogramEqualisationTable) {
  // Counts 1, 3, 0, 4 (total 8): exclusive CDF 0, 1, 4, 4; mid-ranks 0.5, 2.5, 4, 6 over 8.
  std::vector<float> t = histeq_table({1, 3, 0, 4});
  ASSERT_EQ(t.size(), 4u);
  EXPECT_FLOAT_EQ(t[0], 0.5f / 8);
  EXPECT_FLOAT_EQ(t[1], 2.5f / 8);
  EXPECT_FLOAT_EQ(t[2], 4.0f / 8);
  EXPECT_FLOAT_EQ(t[3], 6.0f / 8);
}

TEST(Curves, HistogramBinsSpanLogRange) {
  FrameStats st = stats_with(1.0, 1.0, std::exp(4.0));
  HistogramRange r = histogram_range(st);
  EXPECT_EQ(histeq_bin<double>(0.0, r.log_min, r.inv_log_range, 4), 0);
  EXPECT_EQ(histeq_bin<double>(1.5, r.log_min, r.inv_log_range, 4), 1);
  EXPECT_EQ(histeq_bin<double>(3.99, r.log_min, r.inv_log_range, 4), 3);
  EXPECT_EQ(histeq_bin<double>(4.0, r.log_min, r.inv_log_range, 4), 3);  // the maximum lands in the last bin
}

TEST(Colour, LuminanceBT709) {
  EXPECT_NEAR(luminance(1.0, 0.0, 0.0), 0.2126, 1e-15);
  EXPECT_NEAR(luminance(1.0, 1.0, 1.0), 1.0, 1e-12);
}

TEST(Colour, ReconstructionKeepsRatiosAndBlack) {
  EXPECT_NEAR(reconstruct_channel(2.0, 4.0, 0.5, 1.0), 0.25, 1e-15);
  EXPECT_NEAR(reconstruct_channel(2.0, 4.0, 0.5, 0.5), 0.5 * std::sqrt(0.5), 1e-15);
  EXPECT_EQ(reconstruct_channel(0.0, 0.0, 0.7, 1.0), 0.0);
}

TEST(Colour, SrgbTransfer) {
  EXPECT_NEAR(encode_transfer(0.0, 0.0), 0.0, 1e-15);
  EXPECT_NEAR(encode_transfer(1.0, 0.0), 1.0, 1e-12);
  EXPECT_NEAR(encode_transfer(0.002, 0.0), 0.002 * 12.92, 1e-15);
  EXPECT_NEAR(encode_transfer(0.5, 0.0), 1.055 * std::pow(0.5, 1 / 2.4) - 0.055, 1e-12);
  EXPECT_NEAR(encode_transfer(0.25, 2.2), std::pow(0.25, 1 / 2.2), 1e-12);
}

TEST(Colour, SanitisePolicy) {
  unsigned f = 0;
  EXPECT_EQ(sanitise_channel<float>(NAN, f), 0.0f);
  EXPECT_EQ(f, kPixelNaN);
  f = 0;
  EXPECT_EQ(sanitise_channel<float>(INFINITY, f), kInfReplacement);
  EXPECT_EQ(f, kPixelInf);
  f = 0;
  EXPECT_EQ(sanitise_channel<float>(-3.0f, f), 0.0f);
  EXPECT_EQ(f, kPixelNegative);
  EXPECT_EQ(classify_flags(kPixelNaN | kPixelInf | kPixelNegative), kPixelNaN);
  EXPECT_EQ(classify_flags(kPixelInf | kPixelNegative), kPixelInf);
}

TEST(Colour, QuantiseDitherKeepsBlackAndWhite) {
  for (int x = 0; x < 100; ++x) {
    EXPECT_EQ(quantise(0.0f, 255u, true, x, 3, 0), 0u);
    EXPECT_EQ(quantise(1.0f, 255u, true, x, 3, 0), 255u);
    unsigned q = quantise(0.5f, 255u, true, x, 3, 1);
    EXPECT_TRUE(q == 127u || q == 128u || q == 129u) << q;
  }
  EXPECT_EQ(quantise(0.5f, 255u, false, 0, 0, 0), 128u);
}

// The sRGB curve itself must hand white to quantise as exactly 1: in float 1.055 - 0.055 is
// 1 - 2^-24, which quantise would dither down to 254 for a share of white pixels.
TEST(Colour, EncodedWhiteStaysWhiteUnderDither) {
  EXPECT_EQ(encode_srgb(1.0f), 1.0f);
  EXPECT_EQ(encode_srgb(7.0f), 1.0f);
  EXPECT_EQ(encode_srgb(0.0f), 0.0f);
  EXPECT_LT(encode_srgb(0.9999f), 1.0f);
  for (int y = 0; y < 64; ++y)
    for (int x = 0; x < 64; ++x) {
      ASSERT_EQ(quantise(encode_srgb(1.0f), 255u, true, x, y, x % 3), 255u);
      ASSERT_EQ(quantise(encode_srgb(0.0f), 255u, true, x, y, x % 3), 0u);
    }
}

// Within core::kDitherEndMargin of the ends the quantiser rounds without dither (8 float ulps of an
// encoded value near 1): 1 - 2^-24 is white and 2^-30 black in every pixel, at 8 and 16 bits;
// a value a code's tenth inside still dithers.
TEST(Colour, NoDitherWithinTheEndMargin) {
  int below_white = 0;
  for (int y = 0; y < 32; ++y)
    for (int x = 0; x < 32; ++x)
      for (int c = 0; c < 3; ++c) {
        ASSERT_EQ(quantise(0.99999994f, 255u, true, x, y, c), 255u);
        ASSERT_EQ(quantise(0.99999994f, 65535u, true, x, y, c), 65535u);
        ASSERT_EQ(quantise(9.3e-10f, 255u, true, x, y, c), 0u);
        ASSERT_EQ(quantise(9.3e-10f, 65535u, true, x, y, c), 0u);
        below_white += quantise(1.0f - 0.1f / 255.0f, 255u, true, x, y, c) == 254u;
      }
  EXPECT_GT(below_white, 0);
}

// The dither definition (core::dither_noise: one hash per pixel, two 4-bit uniforms per colour
// channel): triangular on (-1, 1) LSB with mean 0 and variance 1/6 - 1/1536, the three channels
// uncorrelated, every level reachable, and a dithered constant averages to its exact value
// (what dither is for: no banding bias), over 512 x 512 pixels.
TEST(Colour, DitherNoiseIsTriangularUncorrelatedAndUnbiased) {
  const int n = 512;
  double sum[3] = {0, 0, 0}, sq[3] = {0, 0, 0}, cross01 = 0, cross12 = 0;
  std::vector<int> histogram(31, 0);
  for (int y = 0; y < n; ++y)
    for (int x = 0; x < n; ++x) {
      float v[3];
      for (int c = 0; c < 3; ++c) {
        v[c] = dither_noise(x, y, c);
        ASSERT_GT(v[c], -1.0f);
        ASSERT_LT(v[c], 1.0f);
        const float level = v[c] * 16.0f;  // an integer in [-15, 15]
        ASSERT_EQ(level, std::floor(level));
        sum[c] += v[c];
        sq[c] += double(v[c]) * v[c];
        if (c == 0) ++histogram[static_cast<int>(level) + 15];
      }
      cross01 += double(v[0]) * v[1];
      cross12 += double(v[1]) * v[2];
      // The hoisted form the kernels use is the same function.
      ASSERT_EQ(dither_noise_from_hash(dither_pixel_hash(x, dither_row_seed(y)), 2), v[2]);
    }
  const double count = double(n) * n;
  for (int c = 0; c < 3; ++c) {
    EXPECT_NEAR(sum[c] / count, 0.0, 3e-3) << c;
    EXPECT_NEAR(sq[c] / count, 1.0 / 6 - 1.0 / 1536, 3e-3) << c;
  }
  EXPECT_NEAR(cross01 / count, 0.0, 3e-3);
  EXPECT_NEAR(cross12 / count, 0.0, 3e-3);
  // Triangular: level k has probability (16 - |k|) / 256.
  for (int k = -15; k <= 15; ++k) {
    const double expected = (16.0 - std::abs(k)) / 256.0 * count;
    EXPECT_NEAR(histogram[k + 15], expected, 5 * std::sqrt(expected) + 1) << "level " << k;
  }
  // A constant between two codes (away from the clamps at 0 and 255), dithered, averages to
  // itself: within the 1/32-code ripple of 1/16-LSB noise steps plus 5 sigma of sampling noise
  // (<= 0.5 / 256 codes). Without dither every one of these would be off by 0.25-0.5 codes.
  for (float v : {37.5f / 255, 100.3f / 255, 200.75f / 255}) {
    double mean = 0;
    for (int y = 0; y < 256; ++y)
      for (int x = 0; x < 256; ++x) mean += quantise(v, 255u, true, x, y, 1);
    EXPECT_NEAR(mean / 65536.0, v * 255.0, 1.0 / 32 + 0.01) << v * 255;
  }
}
