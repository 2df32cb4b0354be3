// BT.2100 transfers, the BT.2020 -> BT.709 matrix, the gamut policy and the Y'CbCr / chroma maths
// of core/video_colour.hpp against published values (ST 2084, BT.2100-2, BT.2408-7, BT.2407).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>

#include "core/video_colour.hpp"

using namespace tonekit::core;

TEST(VideoColour, PqEotfPublishedValues) {
  // ST 2084 / BT.2100 Table 4: 0 and 1 are the ends; BT.2408-7 Table 1: 58 % PQ is the 203 cd/m^2
  // reference white, ~51 % is 100 cd/m^2, ~75 % is 1000 cd/m^2; E' = 0.5 is about 92.2 cd/m^2.
  EXPECT_DOUBLE_EQ(pq_eotf(0.0), 0.0);
  EXPECT_NEAR(pq_eotf(1.0), 10000.0, 1e-9);
  EXPECT_NEAR(pq_eotf(0.5), 92.2, 0.1);
  EXPECT_NEAR(pq_eotf(0.58), 203.0, 2.0);  // 58 % is 0.5807 rounded: 1.3 cd/m^2 low
  EXPECT_NEAR(pq_inverse_eotf(203.0), 0.58, 0.001);
  EXPECT_NEAR(pq_inverse_eotf(100.0), 0.508, 0.001);
  EXPECT_NEAR(pq_inverse_eotf(1000.0), 0.7518, 0.0001);
  // Out-of-range signals are clamped, never past the pole at E'^(1/m2) = c2 / c3.
  EXPECT_DOUBLE_EQ(pq_eotf(1.5), pq_eotf(1.0));
  EXPECT_DOUBLE_EQ(pq_eotf(-0.2), 0.0);
}

TEST(VideoColour, PqRoundTripsWithinOneMillionth) {
  // Y = 0 gives E' = c1^m2 = 7.3e-7 by the formula (signals below it all decode to black).
  EXPECT_NEAR(pq_inverse_eotf(0.0), std::pow(kPqC1, kPqM2), 1e-18);
  for (double e = 1.0 / 1024.0; e <= 1.0; e += 1.0 / 1024.0) {
    const double back = pq_inverse_eotf(pq_eotf(e));
    EXPECT_NEAR(back, e, 1e-6 * e + 1e-12) << e;
  }
  for (double l = 1e-4; l <= 10000.0; l *= 1.7) EXPECT_NEAR(pq_eotf(pq_inverse_eotf(l)), l, 1e-6 * l) << l;
  // float: the same curve within float rounding amplified by the exponents (d ln F / d ln E'
  // reaches m2 / m1 ~ 500 times the 6e-8 ulp: 3e-5), so 1e-4 relative (0.00015 stops).
  for (float e = 0.05f; e <= 1.0f; e += 0.05f) EXPECT_NEAR(pq_eotf(e), pq_eotf(double(e)), 1e-4 * pq_eotf(double(e)));
}

// The decoders' PQ EOTF (pq_eotf_table) against the exact curve at 2^20 + 1 signals: within
// 1e-5 relative above 0.01 cd/m^2 and 4e-7 cd/m^2 below; the ends and every table point exact
// to float; every 10-bit code (the signals P010 carries) within the same bound.
TEST(VideoColour, PqTableFollowsTheCurve) {
  const float* t = pq_eotf_table_host();
  EXPECT_EQ(pq_eotf_table(t, 0.0f), 0.0f);
  EXPECT_EQ(pq_eotf_table(t, 1.0f), static_cast<float>(pq_eotf(1.0)));
  EXPECT_EQ(pq_eotf_table(t, -0.5f), 0.0f);
  EXPECT_EQ(pq_eotf_table(t, 2.0f), pq_eotf_table(t, 1.0f));
  double worst_rel = 0, worst_abs = 0;
  auto check = [&](float s) {
    const double exact = pq_eotf(double(s)), got = pq_eotf_table(t, s);
    if (exact > 0.01) worst_rel = std::max(worst_rel, std::fabs(got - exact) / exact);
    else worst_abs = std::max(worst_abs, std::fabs(got - exact));
  };
  for (int i = 0; i <= (1 << 20); ++i) check(static_cast<float>(i) / (1 << 20));
  for (int code = 0; code < 1024; ++code) check(static_cast<float>(code) / 1023.0f);
  for (int i = 0; i <= kPqTableIntervals; i += 97)
    EXPECT_EQ(pq_eotf_table(t, static_cast<float>(i) / kPqTableIntervals),
              static_cast<float>(pq_eotf(static_cast<double>(i) / kPqTableIntervals)));
  EXPECT_LT(worst_rel, 1e-5);
  EXPECT_LT(worst_abs, 4e-7);
  std::printf("[ pq table ] worst relative %.3g above 0.01 cd/m^2, worst absolute %.3g below\n", worst_rel, worst_abs);
}

// The encoders' BT.709 OETF (bt709_oetf_table) against the exact curve: the linear segment exact,
// the power segment within 2e-6 (0.0004 of an 8-bit code) at 2^20 + 1 values, the ends exact to float.
TEST(VideoColour, OetfTableFollowsTheCurve) {
  const float* t = bt709_oetf_table_host();
  EXPECT_EQ(bt709_oetf_table(t, 0.0f), 0.0f);
  EXPECT_EQ(bt709_oetf_table(t, 0.01f), 4.5f * 0.01f);
  EXPECT_EQ(bt709_oetf_table(t, -1.0f), 0.0f);
  EXPECT_NEAR(bt709_oetf_table(t, 1.0f), 1.0f, 1e-7);
  EXPECT_EQ(bt709_oetf_table(t, 3.0f), bt709_oetf_table(t, 1.0f));
  double worst = 0;
  for (int i = 0; i <= (1 << 20); ++i) {
    const float l = static_cast<float>(i) / (1 << 20);
    worst = std::max(worst, std::fabs(double(bt709_oetf_table(t, l)) - bt709_oetf(double(l))));
  }
  EXPECT_LT(worst, 2e-6);
  std::printf("[ oetf table ] worst absolute %.3g\n", worst);
}

// The device's (value, step) pairs give table_lerp's values bit for bit: every table entry and
// a million signals in between (and the clamped ends), PQ and the OETF.
TEST(VideoColour, PairTablesGiveTheTablesValuesBitForBit) {
  const float* pq = pq_eotf_table_host();
  const LerpPair* pq_pairs = pq_eotf_pairs_host();
  const float* oetf = bt709_oetf_table_host();
  const LerpPair* oetf_pairs = bt709_oetf_pairs_host();
  std::mt19937 rng(2611);
  std::uniform_real_distribution<float> u(-0.01f, 1.01f);
  int differ = 0, checked = 0;
  auto same = [](float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; };
  for (int i = 0; i <= 1000000 + kPqTableIntervals; ++i) {
    const float s = i <= kPqTableIntervals ? static_cast<float>(i) / kPqTableIntervals : u(rng);
    differ += !same(pq_eotf_table(pq, s), pq_eotf_table(pq_pairs, s));
    differ += !same(bt709_oetf_table(oetf, s), bt709_oetf_table(oetf_pairs, s));
    checked += 2;
  }
  EXPECT_EQ(differ, 0) << "of " << checked;
  EXPECT_EQ(pq_pairs[kPqTableIntervals - 1].lo + pq_pairs[kPqTableIntervals - 1].step, pq[kPqTableIntervals]);
}

TEST(VideoColour, HlgOetfPublishedValues) {
  // BT.2100 Table 5: the two segments meet at E = 1/12, E' = 1/2; E = 1 gives E' = 1 (to the
  // 8 digits a, b, c are published with).
  EXPECT_NEAR(hlg_oetf(1.0 / 12.0), 0.5, 1e-12);
  EXPECT_NEAR(hlg_oetf(1.0), 1.0, 1e-7);
  EXPECT_NEAR(hlg_oetf(1.0 / 12.0 + 1e-9), 0.5, 1e-7);  // continuous across the join
  EXPECT_NEAR(hlg_inverse_oetf(0.5), 1.0 / 12.0, 1e-12);
  EXPECT_NEAR(kHlgB, 1.0 - 4.0 * kHlgA, 1e-8);
  EXPECT_NEAR(kHlgC, 0.5 - kHlgA * std::log(4.0 * kHlgA), 1e-8);
}

TEST(VideoColour, HlgRoundTripsWithinOneMillionth) {
  for (double s = 0.0; s <= 1.0; s += 1.0 / 1024.0)
    EXPECT_NEAR(hlg_oetf(hlg_inverse_oetf(s)), s, 1e-6 * s + 1e-12) << s;
  for (double e = 1e-6; e <= 1.0; e *= 1.3) EXPECT_NEAR(hlg_inverse_oetf(hlg_oetf(e)), e, 1e-6 * e) << e;
}

TEST(VideoColour, HlgOotfAtNominalPeak) {
  // BT.2100 Table 5: gamma = 1.2 at L_W = 1000 cd/m^2, 1.2 + 0.42 log10(2) at 2000.
  EXPECT_NEAR(hlg_system_gamma(1000.0), 1.2, 1e-15);
  EXPECT_NEAR(hlg_system_gamma(2000.0), 1.2 + 0.42 * std::log10(2.0), 1e-15);
  const auto w = luma_weights<double>(true);
  for (double peak : {400.0, 1000.0, 2000.0}) {
    // Signal 1.0 (E = 1) on every channel -> the nominal peak.
    double r = hlg_inverse_oetf(1.0), g = r, b = r;
    hlg_ootf(r, g, b, peak, hlg_system_gamma(peak), w);
    EXPECT_NEAR(r, peak, peak * 1e-6);
    EXPECT_NEAR(b, peak, peak * 1e-6);
  }
  // BT.2408-7 Table 1: 75 % HLG is the 203 cd/m^2 reference white on a 1000 cd/m^2 display.
  double r = hlg_inverse_oetf(0.75), g = r, b = r;
  hlg_ootf(r, g, b, 1000.0, 1.2, w);
  EXPECT_NEAR(g, 203.0, 0.5);
  // Y_D = alpha Y_S^gamma on a coloured pixel, and the chromaticity (channel ratios) is kept.
  double cr = 0.3, cg = 0.1, cb = 0.05;
  const double ys = w.r * cr + w.g * cg + w.b * cb;
  hlg_ootf(cr, cg, cb, 1000.0, 1.2, w);
  EXPECT_NEAR(w.r * cr + w.g * cg + w.b * cb, 1000.0 * std::pow(ys, 1.2), 1e-9);
  EXPECT_NEAR(cr / cg, 3.0, 1e-12);
  // Black stays black even where gamma < 1.
  double k0 = 0.0, k1 = 0.0, k2 = 0.0;
  hlg_ootf(k0, k1, k2, 100.0, hlg_system_gamma(100.0), w);
  EXPECT_EQ(k0, 0.0);
}

TEST(VideoColour, Bt2020To709MatrixFromPrimariesAndPublished) {
  // BT.2020 Table 3 and BT.709 Part 1 item 1.3 primaries, D65 white.
  constexpr double p2020[4][2] = {{0.708, 0.292}, {0.170, 0.797}, {0.131, 0.046}, {0.3127, 0.3290}};
  constexpr double p709[4][2] = {{0.640, 0.330}, {0.300, 0.600}, {0.150, 0.060}, {0.3127, 0.3290}};
  const Mat3 a = bt_rgb_to_xyz(p2020), b = bt_rgb_to_xyz(p709);
  // BT.2020 Table 4's luminance weights are row Y of its RGB -> XYZ matrix.
  EXPECT_NEAR(a.m[1][0], 0.2627, 5e-5);
  EXPECT_NEAR(a.m[1][1], 0.6780, 5e-5);
  EXPECT_NEAR(a.m[1][2], 0.0593, 5e-5);
  // Columns of the applied matrix = M e_c, compared with b^-1 a: b M e_c == a e_c.
  // ITU-R BT.2407 Eq 1 (also BT.2087): the published 4-digit coefficients.
  const double published[3][3] = {{1.6605, -0.5876, -0.0728}, {-0.1246, 1.1329, -0.0083}, {-0.0182, -0.1006, 1.1187}};
  for (int c = 0; c < 3; ++c) {
    double v[3] = {c == 0 ? 1.0 : 0.0, c == 1 ? 1.0 : 0.0, c == 2 ? 1.0 : 0.0};
    bt2020_to_bt709(v[0], v[1], v[2]);
    for (int r = 0; r < 3; ++r) {
      EXPECT_NEAR(v[r], published[r][c], 5e-5) << r << "," << c;
      const double xyz_709 = b.m[r][0] * v[0] + b.m[r][1] * v[1] + b.m[r][2] * v[2];
      EXPECT_NEAR(xyz_709, a.m[r][c], 1e-12) << r << "," << c;  // the literals are the derivation
    }
  }
  // White stays white (both D65).
  double w[3] = {1.0, 1.0, 1.0};
  bt2020_to_bt709(w[0], w[1], w[2]);
  for (double v : w) EXPECT_NEAR(v, 1.0, 1e-12);
}

TEST(VideoColour, GamutPolicyNoNegativeLuminanceAndHueKept) {
  std::uint32_t seed = 12345;
  auto uniform = [&] { return (hash32(seed++) >> 8) * (1.0 / 16777216.0); };
  int out_of_gamut = 0;
  for (int i = 0; i < 20000; ++i) {
    double r = uniform(), g = uniform(), b = uniform();
    if (i % 3 == 0) r *= 0.01;  // saturated BT.2020 colours
    bt2020_to_bt709(r, g, b);
    const double y = luminance(r, g, b);
    const double r0 = r, g0 = g, b0 = b;
    const bool inside = r >= 0 && g >= 0 && b >= 0;
    out_of_gamut += !inside;
    gamut_clip_desaturate(r, g, b);
    ASSERT_GE(std::min(r, std::min(g, b)), 0.0);
    if (inside) {
      EXPECT_EQ(r, r0);
      EXPECT_EQ(b, b0);
      continue;
    }
    EXPECT_NEAR(std::min(r, std::min(g, b)), 0.0, 1e-12);  // just enough
    EXPECT_NEAR(luminance(r, g, b), y, 1e-12 * (1 + y));
    // Hue: c' - Y is a non-negative multiple of c - Y.
    const double t = (r - y) * (r0 - y) + (g - y) * (g0 - y) + (b - y) * (b0 - y);
    const double n0 = (r0 - y) * (r0 - y) + (g0 - y) * (g0 - y) + (b0 - y) * (b0 - y);
    const double s = t / n0;
    EXPECT_GE(s, 0.0);
    EXPECT_LE(s, 1.0 + 1e-12);
    EXPECT_NEAR(r - y, s * (r0 - y), 1e-9);
    EXPECT_NEAR(g - y, s * (g0 - y), 1e-9);
  }
  EXPECT_GT(out_of_gamut, 1000);  // the sample did exercise the policy
  // Float: never a negative channel either.
  float fr = 0.0f, fg = 0.0f, fb = 1.0f;
  bt2020_to_bt709(fr, fg, fb);
  gamut_clip_desaturate(fr, fg, fb);
  EXPECT_GE(std::min(fr, std::min(fg, fb)), 0.0f);
}

TEST(VideoColour, YcbcrCodesAndMatrix) {
  // BT.2100 Table 9 at 10 bits: limited black 64, white 940, neutral chroma 512, chroma ends 64/960.
  EXPECT_DOUBLE_EQ(luma_from_code(64.0, 10, false), 0.0);
  EXPECT_DOUBLE_EQ(luma_from_code(940.0, 10, false), 1.0);
  EXPECT_DOUBLE_EQ(chroma_from_code(960.0, 10, false), 0.5);
  EXPECT_DOUBLE_EQ(chroma_from_code(64.0, 10, false), -0.5);
  EXPECT_DOUBLE_EQ(luma_from_code(1023.0, 10, true), 1.0);
  EXPECT_DOUBLE_EQ(chroma_from_code(512.0, 10, true), 0.0);
  // Inverse of the forward equations of BT.2100 Table 6 / BT.709 3.2-3.3 for both matrices.
  for (bool bt2020 : {true, false}) {
    const auto k = ycbcr_coeffs<double>(bt2020);
    const double rp = 0.8, gp = 0.3, bp = 0.1;
    const double y = k.kr * rp + (1 - k.kr - k.kb) * gp + k.kb * bp;
    double r, g, b;
    ycbcr_to_rgb(y, (bp - y) / (2 * (1 - k.kb)), (rp - y) / (2 * (1 - k.kr)), k, r, g, b);
    EXPECT_NEAR(r, rp, 1e-12);
    EXPECT_NEAR(g, gp, 1e-12);
    EXPECT_NEAR(b, bp, 1e-12);
  }
  // BT.709's published divisors: Cb = (B' - Y') / 1.8556, Cr = (R' - Y') / 1.5748.
  double y, cb, cr;
  rgb_to_ycbcr_bt709(0.0, 0.0, 1.0, y, cb, cr);
  EXPECT_NEAR(cb, 0.5, 1e-12);
  rgb_to_ycbcr_bt709(1.0, 0.0, 0.0, y, cb, cr);
  EXPECT_NEAR(cr, 0.5, 1e-12);
  EXPECT_NEAR(y, 0.2126, 1e-15);
}

TEST(VideoColour, ChromaTapsTopLeftCosited) {
  // Even luma positions read their co-sited sample, odd ones halfway to the next; the last odd
  // position of an even size replicates the edge; odd sizes end on a co-sited sample.
  auto t = chroma_taps_cosited(4, 3);
  EXPECT_EQ(t.i0, 2); EXPECT_EQ(t.i1, 2); EXPECT_EQ(chroma_tap_weight<float>(t), 0.0f);
  t = chroma_taps_cosited(3, 3);
  EXPECT_EQ(t.i0, 1); EXPECT_EQ(t.i1, 2); EXPECT_EQ(chroma_tap_weight<float>(t), 0.5f);
  t = chroma_taps_cosited(5, 3);  // width 6: last column
  EXPECT_EQ(t.i0, 2); EXPECT_EQ(t.i1, 2);
  t = chroma_taps_cosited(0, 1);  // 1x1
  EXPECT_EQ(t.i0, 0); EXPECT_EQ(t.i1, 0);
  EXPECT_DOUBLE_EQ(chroma_bilinear(0.0, 2.0, 4.0, 6.0, 0.5, 0.5), 3.0);
}

TEST(VideoColour, Bt709OetfAndCodes8) {
  // BT.709-6 Part 1 item 1.2: the two segments meet at L = 0.018 (V = 0.081; the published
  // 4-digit constants leave a 2.5e-4 step there), 1 -> 1.
  EXPECT_NEAR(bt709_oetf(0.018), 0.081, 3e-4);
  EXPECT_NEAR(bt709_oetf(1.0), 1.0, 1e-12);
  EXPECT_NEAR(bt709_oetf(0.01), 0.045, 1e-12);
  for (double l = 0.0; l <= 1.0; l += 1.0 / 512) EXPECT_NEAR(bt709_inverse_oetf(bt709_oetf(l)), l, 1e-6 * l + 1e-12);
  // Limited 8-bit codes: black 16, white 235, chroma 16..240 around 128.
  EXPECT_EQ(luma_code8(0.0f, false, 0, 0), 16u);
  EXPECT_EQ(luma_code8(1.0f, false, 0, 0), 235u);
  EXPECT_EQ(luma_code8(1.0f, true, 3, 7), 235u);  // dither never moves the ends
  unsigned cb, cr;
  chroma_codes8(-0.5f, 0.5f, false, 0, 0, cb, cr);
  EXPECT_EQ(cb, 16u);
  EXPECT_EQ(cr, 240u);
  chroma_codes8(0.0f, 0.25f, false, 0, 0, cb, cr);
  EXPECT_EQ(cb, 128u);
  EXPECT_EQ(cr, 184u);
}
