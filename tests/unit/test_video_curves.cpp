// The display-referred curves (bt2390, bt2446a, hable, mobius, spline) and the scene-referred
// looks (aces, agx, neutral) against their published definitions, each evaluated here again in
// float64 from the standard's or the paper's formulas (not through the operator's code), and the
// colour modes (core/colour_modes.hpp) through the CPU map pass. Registry-wide properties
// (monotone, black, NaN, parameter extremes) are test_registry.cpp's, which covers these operators
// without an edit.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "core/map_settings.hpp"
#include "tonekit/operators.hpp"
#include "tonekit/tonemap.hpp"

using namespace tonekit;

namespace {

// SMPTE ST 2084 (BT.2100 Table 4), written out again from the standard's rationals.
double pq_signal(double cd) {
  const double m1 = 2610.0 / 16384.0, m2 = 2523.0 / 4096.0 * 128.0;
  const double c1 = 3424.0 / 4096.0, c2 = 2413.0 / 4096.0 * 32.0, c3 = 2392.0 / 4096.0 * 32.0;
  const double y = std::pow(std::min(std::max(cd / 10000.0, 0.0), 1.0), m1);
  return std::pow((c1 + c2 * y) / (1.0 + c3 * y), m2);
}
double pq_light(double e) {
  const double m1 = 2610.0 / 16384.0, m2 = 2523.0 / 4096.0 * 128.0;
  const double c1 = 3424.0 / 4096.0, c2 = 2413.0 / 4096.0 * 32.0, c3 = 2392.0 / 4096.0 * 32.0;
  const double p = std::pow(e, 1.0 / m2);
  return 10000.0 * std::pow(std::max(p - c1, 0.0) / (c2 - c3 * p), 1.0 / m1);
}

// An operator's curve with fixed statistics (L_max = max_luminance scene-linear) in double and float.
struct TestCurve {
  core::CurveSettings curve;
  double operator()(double lw) const { return core::apply_curve<double>(curve, lw); }
  double as_float(double lw) const { return core::apply_curve<float>(curve, static_cast<float>(lw)); }
};
TestCurve make(const char* op, std::vector<std::pair<std::string, std::string>> settings, double max_luminance = 10.0) {
  auto p = prepare_params(op, settings);
  EXPECT_TRUE(p.ok()) << op << ": " << p.status().message();
  FrameStats st{};
  st.log_average = 0.2;
  st.min_positive_luminance = 1e-4;
  st.max_luminance = max_luminance;
  return TestCurve{core::make_curve_settings(p.value(), st, nullptr)};
}

constexpr double kWhite = 203.0;  // reference_white's default: scene 1.0 = 203 cd/m^2

// BT.2390-10 section 5.4, in float64 (L_B = 0), returning display cd/m^2.
double bt2390_reference(double cd, double src_peak, double dst_peak, double dst_black, double knee_offset = 0.5) {
  const double range = pq_signal(src_peak);
  const double e1 = std::min(pq_signal(cd) / range, 1.0);
  const double max_lum = pq_signal(dst_peak) / range, min_lum = dst_black > 0 ? pq_signal(dst_black) / range : 0.0;
  const double ks = std::max(0.0, (1 + knee_offset) * max_lum - knee_offset);
  double e2 = e1;
  if (e1 > ks && ks < 1) {
    const double t = (e1 - ks) / (1 - ks);
    const double m0 = std::max(0.0, std::min(1 - ks, 3 * (max_lum - ks)));  // 1 - KS at BT.2390's own knee
    e2 = (2 * t * t * t - 3 * t * t + 1) * ks + (t * t * t - 2 * t * t + t) * m0 + (-2 * t * t * t + 3 * t * t) * max_lum;
  }
  const double e3 = e2 + min_lum * std::pow(1 - e2, 4);
  return pq_light(e3 * range);
}

}  // namespace

TEST(VideoCurves, Bt2390MatchesTheEetfOfBt2390) {
  for (double src : {1000.0, 4000.0, 10000.0}) {
    for (double black : {0.0, 0.1}) {
      const TestCurve c = make("bt2390", {{"source_peak", std::to_string(src)}, {"target_black", std::to_string(black)}});
      for (double cd = 0.01; cd <= src; cd *= 1.25) {
        const double want = bt2390_reference(cd, src, 100.0, black) / 100.0;
        EXPECT_NEAR(c(cd / kWhite), want, 1e-9 + 1e-9 * want) << "source " << src << " at " << cd << " cd/m^2";
        EXPECT_NEAR(c.as_float(cd / kWhite), want, 2e-4 * want + 1e-6) << "float, source " << src << " at " << cd;
      }
      // The source peak reaches the target peak exactly (without a black lift: BT.2390's lift
      // minLum (1 - E2)^4 adds a little at the peak too, which the formula above checks); above
      // the source peak the curve holds.
      if (black == 0) EXPECT_NEAR(c(src / kWhite), 1.0, 1e-9);
      EXPECT_NEAR(c(4 * src / kWhite), c(src / kWhite), 1e-12);
    }
  }
  // Below the knee absolute luminance is kept: 1000 -> 100 cd/m^2, KS = 1.5 maxLum - 0.5 in PQ.
  const TestCurve c = make("bt2390", {{"source_peak", "1000"}});
  const double ks_cd = pq_light((1.5 * pq_signal(100) / pq_signal(1000) - 0.5) * pq_signal(1000));
  EXPECT_GT(ks_cd, 20.0);
  EXPECT_NEAR(c(0.5 * ks_cd / kWhite), 0.5 * ks_cd / 100.0, 1e-9);
  // Continuous at the knee, with the Hermite spline's unit slope there (in PQ).
  const double below = c((ks_cd * (1 - 1e-7)) / kWhite), above = c((ks_cd * (1 + 1e-7)) / kWhite);
  EXPECT_NEAR(above, below, 1e-6);
  // BT.2390's knee is the largest whose full tangent keeps the curve monotone: check the standard
  // tangent is used there, and that a larger knee offset and a dim target (KS < 0) stay monotone.
  for (const auto& [offset, target] : {std::pair<double, double>{0.5, 100}, {2.0, 100}, {0.5, 10}, {1.0, 40}}) {
    const TestCurve k = make("bt2390", {{"source_peak", "10000"}, {"knee_offset", std::to_string(offset)},
                                        {"target_peak", std::to_string(target)}});
    double prev = 0;
    for (double cd = 0.01; cd <= 10000; cd *= 1.05) {
      const double v = k(cd / kWhite);
      EXPECT_GE(v, prev) << "offset " << offset << " target " << target << " at " << cd;
      EXPECT_NEAR(v, bt2390_reference(cd, 10000, target, 0, offset) / target, 1e-9) << offset << " " << target << " " << cd;
      prev = v;
    }
    EXPECT_NEAR(k(10000 / kWhite), 1.0, 1e-9);
  }
  // A target as bright as the source: the identity (no knee).
  const TestCurve same = make("bt2390", {{"source_peak", "1000"}, {"target_peak", "1000"}});
  EXPECT_NEAR(same(500 / kWhite), 0.5, 1e-9);
}

TEST(VideoCurves, Bt2390SourcePeakFromTheFrame) {
  // source_peak 0: L_max (scene-linear) times reference_white.
  const TestCurve from_frame = make("bt2390", {}, 2000.0 / kWhite);
  const TestCurve given = make("bt2390", {{"source_peak", "2000"}}, 1.0);
  for (double cd : {1.0, 50.0, 300.0, 1500.0}) EXPECT_NEAR(from_frame(cd / kWhite), given(cd / kWhite), 1e-12);
  const TestCurve white = make("bt2390", {{"source_peak", "2000"}, {"reference_white", "100"}}, 1.0);
  EXPECT_NEAR(white(1.0), given(100.0 / kWhite), 1e-12);
}

TEST(VideoCurves, Bt2446aMatchesMethodA) {
  const double l_hdr = 1000.0, l_sdr = 100.0;
  const TestCurve c = make("bt2446a", {{"source_peak", "1000"}});
  auto rho = [](double l) { return 1 + 32 * std::pow(l / 10000.0, 1 / 2.4); };
  for (double cd = 0.005; cd <= l_hdr; cd *= 1.3) {
    const double yprime = std::pow(cd / l_hdr, 1 / 2.4);
    const double yp = std::log(1 + (rho(l_hdr) - 1) * yprime) / std::log(rho(l_hdr));
    const double yc = yp <= 0.7399 ? 1.0770 * yp : (yp <= 0.9909 ? -1.1510 * yp * yp + 2.7811 * yp - 0.6302 : 0.5 * yp + 0.5);
    const double ysdr = (std::pow(rho(l_sdr), yc) - 1) / (rho(l_sdr) - 1);
    EXPECT_NEAR(c(cd / kWhite), std::pow(ysdr, 2.4), 1e-9) << cd;
    EXPECT_NEAR(c.as_float(cd / kWhite), std::pow(ysdr, 2.4), 2e-5) << cd;
  }
  EXPECT_NEAR(c(l_hdr / kWhite), 1.0, 1e-9);
  EXPECT_EQ(c(0.0), 0.0);
  // Method A's three pieces meet within 1e-3 of Y'_c (its published coefficients are rounded).
  auto yc_at = [](double yp) {
    return yp <= 0.7399 ? 1.0770 * yp : (yp <= 0.9909 ? -1.1510 * yp * yp + 2.7811 * yp - 0.6302 : 0.5 * yp + 0.5);
  };
  EXPECT_NEAR(yc_at(0.7399), yc_at(0.7399 + 1e-12), 1e-3);
  EXPECT_NEAR(yc_at(0.9909), yc_at(0.9909 + 1e-12), 1e-4);
}

TEST(VideoCurves, HableIsItsClosedFormOverItsWhite) {
  auto h = [](double x) {
    const double a = 0.15, b = 0.5, c = 0.1, d = 0.2, e = 0.02, f = 0.3;
    return (x * (a * x + c * b) + d * e) / (x * (a * x + b) + d * f) - e / f;
  };
  const TestCurve c = make("hable", {{"source_peak", "1000"}});
  for (double cd = 0.01; cd <= 1000; cd *= 1.4) {
    EXPECT_NEAR(c(cd / kWhite), h(cd / 100.0) / h(10.0), 1e-12) << cd;
    EXPECT_NEAR(c.as_float(cd / kWhite), h(cd / 100.0) / h(10.0), 1e-5) << cd;
  }
  EXPECT_NEAR(c(1000 / kWhite), 1.0, 1e-12);
  EXPECT_EQ(c(0.0), 0.0);
  EXPECT_NEAR(h(0.0), 0.0, 1e-15);
}

TEST(VideoCurves, MobiusIsLinearThenTheMoebiusTransform) {
  const double j = 0.3, p = 10.0;  // 1000 cd/m^2 onto 100
  const TestCurve c = make("mobius", {{"source_peak", "1000"}, {"transition", "0.3"}});
  // The defining conditions, checked numerically: f(x) = x up to j, f(j) = j, f'(j) = 1, f(p) = 1.
  for (double x = 0.001; x <= j; x += 0.01) EXPECT_NEAR(c(x * 100 / kWhite), x, 1e-12);
  const double h = 1e-6;
  EXPECT_NEAR((c((j + h) * 100 / kWhite) - c(j * 100 / kWhite)) / h, 1.0, 1e-4);
  EXPECT_NEAR(c(p * 100 / kWhite), 1.0, 1e-12);
  // Against the transform's closed form, its constants solved here from the conditions:
  // s (j + a) / (j + b) = j, s (b - a) / (j + b)^2 = 1, s (p + a) / (p + b) = 1.
  const double a = -j * j * (p - 1) / (j * j - 2 * j + p), b = (j * j - 2 * j * p + p) / (p - 1);
  const double s = (b + j) * (b + j) / (b - a);
  EXPECT_NEAR(s * (j + a) / (j + b), j, 1e-12);
  EXPECT_NEAR(s * (p + a) / (p + b), 1.0, 1e-12);
  for (double x = j; x <= p; x *= 1.2) {
    EXPECT_NEAR(c(x * 100 / kWhite), s * (x + a) / (x + b), 1e-12) << x;
    EXPECT_NEAR(c.as_float(x * 100 / kWhite), s * (x + a) / (x + b), 1e-5) << x;
  }
}

TEST(VideoCurves, SplineMeetsItsConstraints) {
  const TestCurve c = make("spline", {{"source_peak", "1000"}});
  // In PQ: the pivot (0.30) maps to itself with slope 1 (the default contrast) on both sides; the
  // source peak reaches the target peak with zero curvature there.
  const double xp = 0.30, cd_p = pq_light(xp);
  auto y_of = [&](double x) { return pq_signal(c(pq_light(x) / kWhite) * 100.0); };
  EXPECT_NEAR(y_of(xp), xp, 1e-9);
  const double h = 1e-5;
  EXPECT_NEAR((y_of(xp) - y_of(xp - h)) / h, 1.0, 1e-3);
  EXPECT_NEAR((y_of(xp + h) - y_of(xp)) / h, 1.0, 1e-3);
  EXPECT_NEAR(c(1000 / kWhite), 1.0, 1e-9);
  const double xm = pq_signal(1000);
  const double curv = (y_of(xm) - 2 * y_of(xm - h) + y_of(xm - 2 * h)) / (h * h);
  EXPECT_NEAR(curv, 0.0, 0.05);
  EXPECT_NEAR(c(cd_p / kWhite), cd_p / 100.0, 1e-9);
  double prev = 0;
  for (double cd = 0.001; cd <= 2000; cd *= 1.1) {
    const double v = c(cd / kWhite);
    EXPECT_GE(v, prev) << cd;
    prev = v;
  }
  // Contrast beyond what stays monotone is limited (3 (y_max - x_p) / D), not refused.
  const TestCurve steep = make("spline", {{"source_peak", "10000"}, {"contrast", "2"}});
  prev = 0;
  for (double cd = 0.001; cd <= 10000; cd *= 1.1) {
    const double v = steep(cd / kWhite);
    EXPECT_GE(v, prev) << cd;
    prev = v;
  }
  EXPECT_NEAR(steep(10000 / kWhite), 1.0, 1e-9);
}

TEST(VideoCurves, AcesIsNarkowiczsFit) {
  const TestCurve c = make("aces", {});
  for (double lw = 1e-4; lw < 100; lw *= 1.3) {
    const double x = 0.6 * lw;
    const double want = std::min(1.0, (x * (2.51 * x + 0.03)) / (x * (2.43 * x + 0.59) + 0.14));
    EXPECT_NEAR(c(lw), want, 1e-12) << lw;
    EXPECT_NEAR(c.as_float(lw), want, 1e-6) << lw;
  }
  EXPECT_EQ(c(0.0), 0.0);
  const TestCurve bright = make("aces", {{"exposure", "2"}});
  EXPECT_NEAR(bright(0.5), c(1.0), 1e-12);
}

TEST(VideoCurves, AgxIsTheBaseSigmoid) {
  const TestCurve c = make("agx", {});
  for (double lw = 1e-3; lw < 50; lw *= 1.3) {
    const double x = std::min(1.0, std::max(0.0, (std::log2(lw) + 12.47393) / (4.026069 + 12.47393)));
    const double s = 15.5 * std::pow(x, 6) - 40.14 * std::pow(x, 5) + 31.96 * std::pow(x, 4) - 6.868 * std::pow(x, 3) +
                     0.4298 * x * x + 0.1191 * x - 0.00232;
    const double want = std::pow(std::min(1.0, std::max(0.0, s)), 2.2);
    EXPECT_NEAR(c(lw), want, 1e-12) << lw;
    EXPECT_NEAR(c.as_float(lw), want, 2e-5) << lw;
  }
  EXPECT_EQ(c(0.0), 0.0);
}

TEST(VideoCurves, NeutralKeepsBaseColoursAndCompressesAboveTheKnee) {
  const TestCurve c = make("neutral", {});
  EXPECT_NEAR(c(0.5), 0.46, 1e-12);             // v - 0.04 between the toe and the knee
  EXPECT_NEAR(c(0.04), 6.25 * 0.04 * 0.04, 1e-12);  // the toe
  EXPECT_NEAR(c(0.08 - 1e-9), c(0.08 + 1e-9), 1e-8);  // toe continuous (value 0.04, slope 1)
  EXPECT_NEAR(c(0.8 - 1e-9), c(0.8 + 1e-9), 1e-8);    // shoulder starts at v' = 0.76
  EXPECT_NEAR(c(2.0), 1 - 0.24 * 0.24 / (1.96 + 0.24 - 0.76), 1e-12);
  EXPECT_LT(c(1e4), 1.0);
  EXPECT_EQ(c(0.0), 0.0);
}

// ---- the colour modes, through the CPU map pass (float output: display light before the transfer) ----

namespace {
std::vector<float> map_pixels(const char* op, const std::string& mode, const std::vector<float>& rgb,
                              std::vector<std::pair<std::string, std::string>> settings = {}) {
  settings.emplace_back("mode", mode);
  auto p = prepare_params(op, settings);
  EXPECT_TRUE(p.ok()) << p.status().message();
  Image img(static_cast<int>(rgb.size() / 3), 1, 3);
  img.pixels = rgb;
  OutputImage out;
  EXPECT_TRUE(tone_map(img, p.value(), {PixelType::f32, 3}, Backend::cpu, out).ok());
  const float* f = reinterpret_cast<const float*>(out.bytes.data());
  return std::vector<float>(f, f + rgb.size());
}
double lum(double r, double g, double b) { return 0.2126 * r + 0.7152 * g + 0.0722 * b; }
}  // namespace

TEST(VideoCurves, ColourModesReconstructAsDefined) {
  // A saturated orange, a bright saturated blue, a grey, black; source peak given (1000 cd/m^2).
  const std::vector<float> px = {2.0f, 0.6f, 0.1f, 0.3f, 0.5f, 4.5f, 0.4f, 0.4f, 0.4f, 0.0f, 0.0f, 0.0f};
  const std::vector<std::pair<std::string, std::string>> s = {{"source_peak", "1000"}};
  const TestCurve f = make("hable", s);
  const auto lum_mode = map_pixels("hable", "luminance", px, s), rgb_mode = map_pixels("hable", "rgb", px, s),
             max_mode = map_pixels("hable", "max-rgb", px, s), hybrid = map_pixels("hable", "hybrid", px, s);
  EXPECT_EQ(map_pixels("hable", "0", px, s), lum_mode);  // names and numbers are the same setting
  for (int i = 0; i < 4; ++i) {
    const double r = px[3 * i], g = px[3 * i + 1], b = px[3 * i + 2];
    const double l = lum(r, g, b), m = std::max(r, std::max(g, b));
    for (int ch = 0; ch < 3; ++ch) {
      const double c = px[3 * i + ch];
      const double want_lum = l > 0 ? std::min(1.0, f(l) * c / l) : 0.0;
      const double want_rgb = l > 0 ? std::min(1.0, f(c)) : 0.0;
      const double want_max = m > 0 ? std::min(1.0, f(m) * c / m) : 0.0;
      const double w = std::min(1.0, std::max(0.0, (f(l) - 0.18) / 0.82));
      const double want_hybrid = l > 0 ? std::min(1.0, f(l) * c / l + w * (f(c) - f(l) * c / l)) : 0.0;
      EXPECT_NEAR(lum_mode[3 * i + ch], want_lum, 2e-5) << "luminance, pixel " << i << " channel " << ch;
      EXPECT_NEAR(rgb_mode[3 * i + ch], want_rgb, 2e-5) << "rgb, pixel " << i << " channel " << ch;
      EXPECT_NEAR(max_mode[3 * i + ch], want_max, 2e-5) << "max-rgb, pixel " << i << " channel " << ch;
      EXPECT_NEAR(hybrid[3 * i + ch], want_hybrid, 2e-5) << "hybrid, pixel " << i << " channel " << ch;
    }
  }
  // Max-rgb keeps the hue ratios and leaves nothing above 1 where luminance mode clips.
  EXPECT_GT(f(lum(0.3, 0.5, 4.5)) * 4.5 / lum(0.3, 0.5, 4.5), 1.0);  // luminance mode: blue over 1, clipped
  EXPECT_LT(max_mode[5], 1.0f);
  EXPECT_NEAR(max_mode[3] / max_mode[5], 0.3 / 4.5, 1e-5);
  // The grey is the same in every mode; black stays black in every mode, lifted blacks included.
  for (const auto* mode : {&rgb_mode, &max_mode, &hybrid}) EXPECT_NEAR((*mode)[6], lum_mode[6], 1e-6);
  for (const char* mode : {"luminance", "rgb", "max-rgb", "hybrid"}) {
    const auto lifted = map_pixels("bt2390", mode, px, {{"source_peak", "1000"}, {"target_black", "0.5"}});
    for (int ch = 0; ch < 3; ++ch) EXPECT_EQ(lifted[9 + ch], 0.0f) << mode;
  }
}

TEST(VideoCurves, ModeAndTargetsRefusedWithTheRegistrysError) {
  auto bad_mode = prepare_params("bt2390", {{"mode", "vivid"}});
  ASSERT_FALSE(bad_mode.ok());
  EXPECT_NE(bad_mode.status().message().find("'vivid' is not one of luminance,rgb,max-rgb,hybrid"), std::string::npos)
      << bad_mode.status().message();
  EXPECT_FALSE(prepare_params("bt2390", {{"mode", "4"}}).ok());
  EXPECT_FALSE(prepare_params("hable", {{"mode", "1.5"}}).ok());
  auto peak = prepare_params("mobius", {{"target_peak", "5"}});
  ASSERT_FALSE(peak.ok());
  EXPECT_NE(peak.status().message().find("out of range"), std::string::npos);
  EXPECT_FALSE(prepare_params("spline", {{"source_peak", "-1"}}).ok());
  EXPECT_FALSE(prepare_params("reinhard", {{"mode", "rgb"}}).ok());  // only the display curves and looks have a mode
  EXPECT_EQ(prepare_params("agx", {{"mode", "max-rgb"}}).value().get("mode"), 2.0);
}
