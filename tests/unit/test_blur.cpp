// Blur library (src/cpu/blur): registry and parameter resolution, normalisation (a constant stays
// constant, an interior impulse keeps its energy), impulse-response symmetry, awkward sizes,
// the any-kernel methods against each other, and every method against the exact Gaussian of the
// target sigma within a stated tolerance.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "cpu/blur/blur_math.hpp"
#include "cpu/blur/glare_pyramid.hpp"
#include "cpu/blur/methods.hpp"
#include "tonekit/blur.hpp"

using namespace tonekit;

namespace {

std::vector<float> run(const std::vector<float>& in, int w, int h, const std::string& method, double sigma,
                       const BlurSettings& set = {}) {
  Result<BlurPlan> plan = plan_blur(method, sigma, set);
  EXPECT_TRUE(plan.ok()) << method << ": " << plan.status().message();
  std::vector<float> out(in.size(), -1.0f);
  if (!plan.ok()) return out;
  Status s = blur_plane(in.data(), out.data(), w, h, *plan);
  EXPECT_TRUE(s.ok()) << method << ": " << s.message();
  return out;
}

// Edges, lines, a disc and mild noise in [0, 1]: the seed's synthetic test content.
std::vector<float> test_scene(int w, int h, unsigned seed) {
  std::vector<float> p(static_cast<std::size_t>(w) * h);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(0.0f, 0.1f);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      float v = x < w / 3 ? 0.2f : 0.6f;
      if (y % 17 == 5 || x % 23 == 7) v = 1.0f;
      const float dx = x - 0.65f * w, dy = y - 0.5f * h;
      if (dx * dx + dy * dy < 0.04f * w * w) v = 0.05f;
      p[static_cast<std::size_t>(y) * w + x] = v + u(rng);
    }
  return p;
}

std::vector<std::string> method_ids() {
  std::vector<std::string> ids;
  for (const BlurMethodDesc* m : all_blur_methods()) ids.push_back(m->id);
  return ids;
}

}  // namespace

TEST(BlurRegistry, ListsTheElevenMethodsWithValidParameters) {
  const std::vector<std::string> want = {"gaussian",      "direct",    "separable", "fft",          "pyramid-box2",
                                         "pyramid-box4",  "pyramid-quasi", "spreading", "reshuffle", "repeated-box",
                                         "diffusion"};
  EXPECT_EQ(method_ids(), want);
  for (const BlurMethodDesc* m : all_blur_methods()) {
    EXPECT_EQ(find_blur_method(m->id), m);
    EXPECT_NE(std::string(m->citation), "");
    for (const ParamDesc& d : m->params) {
      EXPECT_LE(d.min_value, d.default_value) << m->id << "." << d.name;
      EXPECT_LE(d.default_value, d.max_value) << m->id << "." << d.name;
    }
  }
  EXPECT_EQ(find_blur_method("nope"), nullptr);
}

TEST(BlurRegistry, PlanValidatesAndResolvesAutoParameters) {
  EXPECT_EQ(plan_blur("nope", 3).status().code(), StatusCode::invalid_argument);
  EXPECT_EQ(plan_blur("separable", -1).status().code(), StatusCode::invalid_argument);
  EXPECT_EQ(plan_blur("separable", 0).status().code(), StatusCode::invalid_argument);
  EXPECT_EQ(plan_blur("separable", 3, {{"bogus", "1"}}).status().code(), StatusCode::invalid_argument);
  EXPECT_EQ(plan_blur("separable", 3, {{"truncate", "abc"}}).status().code(), StatusCode::invalid_argument);
  EXPECT_EQ(plan_blur("separable", 3, {{"truncate", "99"}}).status().code(), StatusCode::invalid_argument);
  EXPECT_EQ(plan_blur("repeated-box", 3, {{"width", "8"}}).status().code(), StatusCode::invalid_argument);
  EXPECT_EQ(plan_blur("spreading", 3, {{"radius", "2.5"}}).status().code(), StatusCode::invalid_argument);
  EXPECT_EQ(plan_blur("diffusion", 900).status().code(), StatusCode::invalid_argument);  // 2.4e6 steps

  // Kovesi: sigma 3, 3 passes -> widths 5 and 7 (ideal 6.08), variance closest to 9.
  Result<BlurPlan> box = plan_blur("repeated-box", 3);
  ASSERT_TRUE(box.ok());
  EXPECT_EQ(box->get("lower"), 5);
  EXPECT_EQ(box->get("upper"), 7);
  const int m = static_cast<int>(box->get("lower_passes"));
  const double var = (m * blur_math::box_variance(5) + (3 - m) * blur_math::box_variance(7));
  EXPECT_NEAR(std::sqrt(var), 3.0, 0.25);

  Result<BlurPlan> diff = plan_blur("diffusion", 3);  // c 1/6: t = ceil(9 / (1/3)) = 27
  ASSERT_TRUE(diff.ok());
  EXPECT_EQ(diff->get("iterations"), 27);
  EXPECT_EQ(plan_blur("diffusion", 3, {{"c", "0.25"}})->get("iterations"), 18);  // the seed's c
  EXPECT_DOUBLE_EQ(2.0 * diff->get("c") * diff->get("iterations"), 9.0);

  Result<BlurPlan> spread = plan_blur("spreading", 4);  // round(sqrt(6 (4 / 1.044)^2 + 1)) = 9
  ASSERT_TRUE(spread.ok());
  EXPECT_EQ(spread->get("radius"), 9);

  // Explicit parameters need no sigma (the fitter runs methods by their own parameters).
  Result<BlurPlan> pyr = plan_blur("pyramid-quasi", 0, {{"levels", "3"}, {"refine", "0"}});
  ASSERT_TRUE(pyr.ok()) << pyr.status().message();
  EXPECT_EQ(pyr->get("levels"), 3);
  EXPECT_EQ(pyr->get("coarse_sigma"), 0.0);
  EXPECT_FALSE(plan_blur("pyramid-quasi", 0).ok());
  EXPECT_NE(pyr->describe().find("levels=3"), std::string::npos);
}

// A constant image stays constant for every method and every awkward size (1x1, single rows and
// columns, odd sizes, sizes smaller than the kernel).
TEST(BlurNormalisation, ConstantStaysConstantOnAwkwardSizes) {
  const int sizes[][2] = {{1, 1}, {1, 7}, {7, 1}, {2, 3}, {13, 5}, {33, 17}};
  for (const std::string& id : method_ids())
    for (const auto& s : sizes)
      for (double sigma : {1.0, 4.0}) {
        const int w = s[0], h = s[1];
        const std::vector<float> in(static_cast<std::size_t>(w) * h, 3.25f);
        const std::vector<float> out = run(in, w, h, id, sigma);
        for (float v : out) ASSERT_NEAR(v, 3.25f, 3.25f * 2e-5f) << id << " " << w << "x" << h << " sigma " << sigma;
      }
}

// An interior impulse: energy preserved (sum 1), response symmetric under x/y mirror (all but the
// pyramids, whose grid has a phase) and under transposition (all).
TEST(BlurNormalisation, ImpulseResponseKeepsEnergyAndSymmetry) {
  const int n = 65, c = 32;
  std::vector<float> in(static_cast<std::size_t>(n) * n, 0.0f);
  in[static_cast<std::size_t>(c) * n + c] = 1.0f;
  for (const std::string& id : method_ids()) {
    const std::vector<float> out = run(in, n, n, id, 3.0);
    const double sum = std::accumulate(out.begin(), out.end(), 0.0);
    EXPECT_NEAR(sum, 1.0, 1e-5) << id;
    double peak = 0.0;
    for (float v : out) peak = std::max(peak, static_cast<double>(v));
    const bool phase = id.rfind("pyramid-", 0) == 0;
    for (int y = 0; y < n; ++y)
      for (int x = 0; x < n; ++x) {
        const float v = out[static_cast<std::size_t>(y) * n + x];
        ASSERT_NEAR(v, out[static_cast<std::size_t>(x) * n + y], 1e-6 * peak + 1e-7) << id << " transpose";
        if (!phase) {
          ASSERT_NEAR(v, out[static_cast<std::size_t>(y) * n + (n - 1 - x)], 1e-6 * peak + 1e-7) << id << " mirror";
          ASSERT_NEAR(v, out[static_cast<std::size_t>(n - 1 - y) * n + x], 1e-6 * peak + 1e-7) << id << " mirror";
        }
        ASSERT_GE(v, -1e-6 * peak) << id << " negative lobe";
      }
  }
}

// Direct, FFT and reshuffling convolve any kernel, and agree on an asymmetric one.
TEST(BlurAnyKernel, DirectFftReshuffleAgreeOnAnAsymmetricKernel) {
  const int w = 41, h = 29;
  const std::vector<float> in = test_scene(w, h, 3);
  BlurKernel2D k;
  k.radius = 3;
  k.weights.resize(49);
  for (int i = 0; i < 49; ++i) k.weights[i] = static_cast<float>((i * 7) % 5) * 0.03f;  // repeated values
  std::vector<float> ref(in.size()), fft(in.size()), resh(in.size());
  ASSERT_TRUE(convolve_plane(in.data(), ref.data(), w, h, k, "direct").ok());
  ASSERT_TRUE(convolve_plane(in.data(), fft.data(), w, h, k, "fft").ok());
  ASSERT_TRUE(convolve_plane(in.data(), resh.data(), w, h, k, "reshuffle").ok());
  // Brute force with explicit clamping at a few pixels, including corners.
  for (int y : {0, 5, h - 1})
    for (int x : {0, 17, w - 1}) {
      double s = 0.0;
      for (int dy = -3; dy <= 3; ++dy)
        for (int dx = -3; dx <= 3; ++dx)
          s += k.at(dx, dy) * in[static_cast<std::size_t>(std::clamp(y + dy, 0, h - 1)) * w + std::clamp(x + dx, 0, w - 1)];
      EXPECT_NEAR(ref[static_cast<std::size_t>(y) * w + x], s, 1e-5);
    }
  for (std::size_t i = 0; i < in.size(); ++i) {
    ASSERT_NEAR(fft[i], ref[i], 2e-5) << i;  // float FFT round-off on O(1) values
    ASSERT_NEAR(resh[i], ref[i], 1e-5) << i;
  }
  EXPECT_EQ(convolve_plane(in.data(), ref.data(), w, h, k, "separable").code(), StatusCode::invalid_argument);
}

// Spreading is exactly the tent (r - |dx|)(r - |dy|) / r^4 with clamped borders; repeated box via
// summed-area tables equals running sums.
TEST(BlurExactForms, SpreadingIsTheTentAndBoxVariantsAgree) {
  const int w = 37, h = 23, r = 5;
  const std::vector<float> in = test_scene(w, h, 4);
  const std::vector<float> out = run(in, w, h, "spreading", 0, {{"radius", std::to_string(r)}});
  for (int y : {0, 3, 11, h - 1})
    for (int x : {0, 6, 20, w - 1}) {
      double s = 0.0;
      for (int dy = -r + 1; dy < r; ++dy)
        for (int dx = -r + 1; dx < r; ++dx)
          s += (r - std::abs(dx)) * (r - std::abs(dy)) *
               in[static_cast<std::size_t>(std::clamp(y + dy, 0, h - 1)) * w + std::clamp(x + dx, 0, w - 1)];
      EXPECT_NEAR(out[static_cast<std::size_t>(y) * w + x], s / std::pow(r, 4), 1e-5) << x << "," << y;
    }
  const std::vector<float> a = run(in, w, h, "repeated-box", 4, {{"sat", "0"}});
  const std::vector<float> b = run(in, w, h, "repeated-box", 4, {{"sat", "1"}});
  for (std::size_t i = 0; i < a.size(); ++i) ASSERT_NEAR(a[i], b[i], 1e-5);
  const std::vector<float> g = run(in, w, h, "gaussian", 2.5);
  const std::vector<float> s = run(in, w, h, "separable", 2.5, {{"truncate", "4"}});
  const std::vector<float> d = run(in, w, h, "direct", 2.5, {{"truncate", "4"}});
  for (std::size_t i = 0; i < a.size(); ++i) {
    ASSERT_NEAR(s[i], g[i], 2e-6);
    ASSERT_NEAR(d[i], g[i], 2e-6);
  }
}

// Every method with its automatic parameters against the exact Gaussian of the target sigma:
// the fitted effective sigma and the remaining mean absolute difference (image range [0, 1.1]).
// Tolerances: exact methods within their window truncation; approximations within what their
// parameter steps and kernel shapes allow (bench/cpu/blur_fit.cpp prints the measured values).
TEST(BlurQuality, EveryMethodMatchesTheGaussianOfItsSigma) {
  const int w = 96, h = 80;
  const std::vector<float> in = test_scene(w, h, 5);
  struct Tol {
    const char* id;
    double sigma_rel, mad;
  };
  const Tol tols[] = {{"gaussian", 0.005, 1e-5},     {"direct", 0.01, 1e-3},        {"separable", 0.01, 1e-3},
                      {"fft", 0.01, 1e-3},            {"reshuffle", 0.01, 1e-3},     {"pyramid-box2", 0.03, 1e-2},
                      {"pyramid-box4", 0.03, 1e-2},   {"pyramid-quasi", 0.02, 6e-3}, {"spreading", 0.03, 7e-3},
                      {"repeated-box", 0.03, 5e-3},   {"diffusion", 0.005, 2e-4}};
  // Measured (this scene): truncation at 3 sigma leaves 2e-4..5e-4; pyramids 8e-4..5e-3; spreading
  // (a tent) 2.5e-3..3.5e-3; Kovesi's 3 boxes 1.5e-3..2.2e-3; diffusion with c = 1/6 < 1e-4.
  for (double sigma : {3.0, 8.0}) {
    const std::vector<float> ref = run(in, w, h, "gaussian", sigma);
    for (const Tol& t : tols) {
      const std::vector<float> out = run(in, w, h, t.id, sigma);
      const double mad = mean_abs_diff(out.data(), ref.data(), out.size());
      EXPECT_LT(mad, t.mad) << t.id << " sigma " << sigma;
      Result<SigmaFit> fit = fit_sigma(in.data(), out.data(), w, h, 0.3 * sigma, 3.0 * sigma, 0.002);
      ASSERT_TRUE(fit.ok());
      EXPECT_NEAR(fit->sigma, sigma, t.sigma_rel * sigma) << t.id << " sigma " << sigma;
    }
  }
}

// Pyramids by level count alone (the seed's tables A.1-A.3): the effective sigma the level
// choice assumes (blur_math::pyramid_sigma, the 18-image medians of blur_fit) holds on this scene.
TEST(BlurQuality, PyramidLevelsHaveTheirTabulatedSigma) {
  const int w = 160, h = 128;
  const std::vector<float> in = test_scene(w, h, 8);
  const std::pair<const char*, blur_math::PyramidAnalysis> kinds[] = {
      {"pyramid-box2", blur_math::PyramidAnalysis::box2},
      {"pyramid-box4", blur_math::PyramidAnalysis::box4},
      {"pyramid-quasi", blur_math::PyramidAnalysis::quasi}};
  for (const auto& [id, a] : kinds)
    for (int levels = 1; levels <= 3; ++levels) {
      const std::vector<float> out = run(in, w, h, id, 0, {{"levels", std::to_string(levels)}, {"refine", "0"}});
      const double expect = blur_math::pyramid_sigma(a, levels);
      Result<SigmaFit> fit = fit_sigma(in.data(), out.data(), w, h, 0.5 * expect, 2.0 * expect, 0.002);
      ASSERT_TRUE(fit.ok());
      EXPECT_NEAR(fit->sigma, expect, 0.08 * expect) << id << " levels " << levels;
    }
}

TEST(BlurQuality, MetricsBehave) {
  const int w = 40, h = 30;
  const std::vector<float> a = test_scene(w, h, 6);
  std::vector<float> b = a;
  EXPECT_TRUE(std::isinf(psnr(a.data(), b.data(), a.size(), 1.0)));
  EXPECT_NEAR(ssim(a.data(), b.data(), w, h, 1.0), 1.0, 1e-6);
  for (float& v : b) v += 0.01f;
  EXPECT_NEAR(psnr(b.data(), a.data(), a.size(), 1.0), 40.0, 1e-3);
  EXPECT_NEAR(mean_abs_diff(a.data(), b.data(), a.size()), 0.01, 1e-6);
  const std::vector<float> c = run(a, w, h, "gaussian", 3.0);
  EXPECT_LT(ssim(c.data(), a.data(), w, h, 1.0), 0.9);
}

// Interleaved RGBA equals the per-channel planar result; the FFT path runs channels together.
TEST(BlurImage, InterleavedMatchesPlanar) {
  const int w = 23, h = 19;
  Image img(w, h, 4);
  for (int c = 0; c < 4; ++c) {
    const std::vector<float> p = test_scene(w, h, 10 + c);
    for (std::size_t i = 0; i < p.size(); ++i) img.pixels[i * 4 + c] = p[i] * (c + 1);
  }
  for (const char* id : {"fft", "pyramid-quasi", "diffusion"}) {
    Result<Image> out = blur(img, id, 2.0);
    ASSERT_TRUE(out.ok()) << out.status().message();
    for (int c = 0; c < 4; ++c) {
      std::vector<float> plane(static_cast<std::size_t>(w) * h);
      for (std::size_t i = 0; i < plane.size(); ++i) plane[i] = img.pixels[i * 4 + c];
      const std::vector<float> ref = run(plane, w, h, id, 2.0);
      for (std::size_t i = 0; i < plane.size(); ++i) ASSERT_NEAR(out->pixels[i * 4 + c], ref[i], 1e-5) << id;
    }
  }
  EXPECT_FALSE(blur(Image{}, "separable", 2.0).ok());
  EXPECT_EQ(blur(img, "separable", 2.0, {{"truncate", "0"}}).status().code(), StatusCode::invalid_argument);
}

TEST(BlurGlare, BrightPassBlursOnlyWhatIsAboveTheThreshold) {
  const int w = 64, h = 48;
  Image img(w, h, 3);
  std::fill(img.pixels.begin(), img.pixels.end(), 0.1f);
  const Image before = img;
  GlareParams off;
  ASSERT_TRUE(apply_glare(img, off).ok());  // strength 0: untouched
  EXPECT_EQ(img.pixels, before.pixels);
  GlareParams p;
  p.strength = 0.5;
  ASSERT_TRUE(apply_glare(img, p).ok());  // nothing above 8x the key: untouched
  EXPECT_EQ(img.pixels, before.pixels);
  // A light: the halo around it rises, far pixels barely, energy added = strength * bright part.
  const int lx = 20, ly = 24;
  for (int c = 0; c < 3; ++c) img.pixels[(static_cast<std::size_t>(ly) * w + lx) * 3 + c] = 500.0f;
  const Image lit = img;
  p.radius = 0.05;
  ASSERT_TRUE(apply_glare(img, p).ok());
  double added = 0.0;
  for (std::size_t i = 0; i < img.pixels.size(); ++i) added += img.pixels[i] - lit.pixels[i];
  EXPECT_GT(img.pixels[(static_cast<std::size_t>(ly) * w + lx + 3) * 3], lit.pixels[(static_cast<std::size_t>(ly) * w + lx + 3) * 3] + 0.1f);
  EXPECT_GT(added, 0.0);
  EXPECT_LT(added, 0.5 * 3 * 500.0);
  GlareParams bad;
  bad.strength = 1.0;
  bad.method = "nope";
  EXPECT_EQ(apply_glare(img, bad).code(), StatusCode::invalid_argument);
}

// NaN and Inf pixels are not bright: their bright-pass samples are 0 (not 0 * NaN), so the blur
// cannot spread them; only the bad pixels themselves stay non-finite. They count as black in
// the log-average, as negative luminance does.
TEST(BlurGlare, BadPixelsStayPutAndCountAsBlack) {
  const int w = 40, h = 30;
  Image img(w, h, 3);
  std::fill(img.pixels.begin(), img.pixels.end(), 0.2f);
  for (int c = 0; c < 3; ++c) img.pixels[(static_cast<std::size_t>(15) * w + 20) * 3 + c] = 2000.0f;  // a light
  const std::size_t nan_at = (static_cast<std::size_t>(14) * w + 20) * 3, inf_at = (static_cast<std::size_t>(5) * w + 5) * 3;
  img.pixels[nan_at] = std::numeric_limits<float>::quiet_NaN();
  img.pixels[inf_at + 1] = std::numeric_limits<float>::infinity();
  img.pixels[(static_cast<std::size_t>(2) * w + 30) * 3 + 2] = -50.0f;  // negative luminance
  // log-average: w h - 4 pixels of grey 0.2, the light, and the three bad ones as black.
  const float grey[3] = {0.2f, 0.2f, 0.2f}, light[3] = {2000.0f, 2000.0f, 2000.0f};
  const double log_sum = (w * h - 4) * std::log(1e-6 + blur_math::pixel_luminance(grey, 3)) +
                         std::log(1e-6 + blur_math::pixel_luminance(light, 3)) + 3 * std::log(1e-6);
  EXPECT_NEAR(glare_log_average(img) / std::exp(log_sum / (w * h)), 1.0, 1e-12);
  GlareParams p;
  p.strength = 1.0;
  p.radius = 0.1;
  ASSERT_TRUE(apply_glare(img, p).ok());
  std::size_t non_finite = 0;
  for (float v : img.pixels) non_finite += !std::isfinite(v);
  EXPECT_EQ(non_finite, 2u) << "only the NaN and the Inf sample themselves";
  EXPECT_TRUE(std::isnan(img.pixels[nan_at]));
  EXPECT_GT(img.pixels[(static_cast<std::size_t>(15) * w + 23) * 3], 0.2f + 1e-3f) << "the light still glares";
}

// plan_glare: the schedule both backends run (octave sigmas double, weights 1, 1/2, ... sum to
// the strength, sigmas past 1000 dropped) and the one validator.
TEST(BlurGlare, PlanGlareSchedule) {
  GlareParams p;
  p.strength = 2.0;
  p.radius = 0.1;
  p.octaves = 3;
  auto plan = plan_glare(p, 200, 100);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  ASSERT_EQ(plan->size(), 3u);
  EXPECT_DOUBLE_EQ((*plan)[0].blur.sigma, 20.0);
  EXPECT_DOUBLE_EQ((*plan)[2].blur.sigma, 80.0);
  EXPECT_FLOAT_EQ((*plan)[0].weight, static_cast<float>(2.0 / 1.75));
  EXPECT_FLOAT_EQ((*plan)[0].weight + (*plan)[1].weight + (*plan)[2].weight, 2.0f);
  EXPECT_STREQ((*plan)[0].blur.method->id, "pyramid-quasi");
  p.radius = 0.5;
  p.octaves = 8;
  plan = plan_glare(p, 1000, 10);  // 500, 1000, 2000 (dropped), ...
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->size(), 2u);
  p.strength = 0.0;
  EXPECT_TRUE(plan_glare(p, 1000, 10)->empty());  // off
  p.strength = 1.0;
  p.radius = 0.004;
  EXPECT_TRUE(plan_glare(p, 100, 10)->empty());  // sigma 0.4 < 0.5: off
  p.octaves = 9;
  EXPECT_EQ(plan_glare(p, 100, 10).status().message(), "glare: octaves out of range [1, 8]");
}

// The glare's octaves on one shared pyramid (blur/glare_pyramid.hpp): one margin for all of them,
// a multiple of 2^levels and at least every octave's own; the octaves' levels as their plans say.
TEST(BlurGlare, SharedPyramidPlan) {
  GlareParams p;
  p.strength = 1.0;
  auto octaves = plan_glare(p, 3840, 2160);
  ASSERT_TRUE(octaves.ok());
  blur_impl::GlarePyramid g;
  ASSERT_TRUE(blur_impl::plan_glare_pyramid(*octaves, 3840, 2160, g));
  ASSERT_EQ(g.octaves.size(), 3u);
  EXPECT_EQ(g.pad % (1 << g.levels()), 0);
  EXPECT_EQ(g.width, 3840 + 2 * g.pad);
  EXPECT_EQ(g.height, 2160 + 2 * g.pad);
  for (std::size_t k = 0; k < octaves->size(); ++k) {
    EXPECT_GE(g.pad, blur_impl::clamped_border_padding((*octaves)[k].blur));
    EXPECT_EQ(g.octaves[k].level, static_cast<int>(std::lround((*octaves)[k].blur.get("levels"))));
    EXPECT_EQ(g.octaves[k].weight, (*octaves)[k].weight);
  }
  EXPECT_EQ(g.octaves[1].level, g.octaves[0].level + 1) << "sigma doubles: one level more";
  EXPECT_EQ(g.levels(), g.octaves[2].level);
  EXPECT_EQ(g.lw[0], (g.width + 1) / 2);
  // Not shareable: another blur method, or an octave below one level (sigma 1.6 px).
  p.method = "gaussian";
  EXPECT_FALSE(blur_impl::plan_glare_pyramid(*plan_glare(p, 3840, 2160), 3840, 2160, g));
  p.method = "pyramid-quasi";
  p.radius = 0.01;
  EXPECT_FALSE(blur_impl::plan_glare_pyramid(*plan_glare(p, 160, 90), 160, 90, g)) << "sigma 1.6: no level";
}

// The shared pyramid against the octaves run one by one (each a pyramid blur on its own padded
// copy, the glare's algorithm before the shared pyramid): the same PSF, so the added light
// agrees to the pyramids' own phase-dependent error (a few 0.1 % of the light); and both against
// the exact Gaussians (method "gaussian", same octaves), which neither pyramid beats by much.
TEST(BlurGlare, SharedPyramidMatchesTheOctavesOneByOne) {
  const int w = 400, h = 240;
  Image img(w, h, 3);
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(0.05f, 0.5f);
  for (float& v : img.pixels) v = u(rng);
  const int lights[][2] = {{37, 41}, {200, 120}, {399, 5}, {310, 233}};
  for (const auto& l : lights)
    for (int dy = -2; dy <= 2; ++dy)
      for (int dx = -2; dx <= 2; ++dx) {
        const int x = std::clamp(l[0] + dx, 0, w - 1), y = std::clamp(l[1] + dy, 0, h - 1);
        float* px = img.pixels.data() + (static_cast<std::size_t>(y) * w + x) * 3;
        px[0] = 3000.0f, px[1] = 2000.0f, px[2] = 800.0f;
      }
  GlareParams p;
  p.strength = 1.0;
  // 0.02: the octaves' own margins (24, 48, 96) are aligned with the shared one's pyramid grid;
  // 0.0237: they are not (the shared pyramid samples at another phase).
  for (double radius : {0.0237, 0.02}) {
  p.radius = radius;
  {
    blur_impl::GlarePyramid g;
    auto octaves = plan_glare(p, w, h);
    ASSERT_TRUE(octaves.ok() && blur_impl::plan_glare_pyramid(*octaves, w, h, g)) << "the shared path runs";
    for (std::size_t k = 0; k < g.octaves.size(); ++k)
      std::printf("[ glare    ] octave %zu: level %d, margin %d of the shared %d\n", k, g.octaves[k].level,
                  blur_impl::clamped_border_padding((*octaves)[k].blur), g.pad);
  }
  Image shared = img;
  ASSERT_TRUE(apply_glare(shared, p).ok());
  // One by one, as apply_glare ran before the shared pyramid (and still runs for other methods).
  auto one_by_one = [&](const std::string& method) {
    GlareParams q = p;
    q.method = method;
    auto octaves = plan_glare(q, img);
    EXPECT_TRUE(octaves.ok());
    const float t = static_cast<float>(q.threshold * glare_log_average(img));
    Image bright(w, h, 3), out = img;
    for (std::size_t i = 0; i < static_cast<std::size_t>(w) * h; ++i) {
      const float* px = img.pixels.data() + i * 3;
      const float k = blur_math::glare_bright_factor(blur_math::pixel_luminance(px, 3), t);
      for (int c = 0; c < 3; ++c) bright.pixels[i * 3 + c] = blur_math::glare_bright_sample(k, px[c]);
    }
    for (const GlareOctave& o : *octaves) {
      auto b = blur(bright, o.blur);
      EXPECT_TRUE(b.ok());
      for (std::size_t i = 0; i < out.pixels.size(); ++i)
        out.pixels[i] = blur_math::glare_accumulate(out.pixels[i], o.weight, b->pixels[i]);
    }
    return out;
  };
  const Image separate = one_by_one("pyramid-quasi"), exact = one_by_one("gaussian");
  // Relative L1 of the added light, and the worst pixel against the largest added value.
  auto error = [&](const Image& a, const Image& ref) {
    double diff = 0.0, total = 0.0, worst = 0.0, peak = 0.0;
    for (std::size_t i = 0; i < img.pixels.size(); ++i) {
      const double ga = a.pixels[i] - img.pixels[i], gr = ref.pixels[i] - img.pixels[i];
      diff += std::fabs(ga - gr);
      total += std::fabs(gr);
      worst = std::max(worst, std::fabs(ga - gr));
      peak = std::max(peak, std::fabs(gr));
    }
    return std::make_pair(diff / total, worst / peak);
  };
  const auto [l1_sep, worst_sep] = error(shared, separate);
  const auto [l1_exact, worst_exact] = error(shared, exact);
  const auto [l1_old, worst_old] = error(separate, exact);
  std::printf("[ glare    ] shared vs one by one: L1 %.4g worst %.4g; vs exact Gaussians: shared L1 %.4g worst %.4g, "
              "one by one L1 %.4g worst %.4g\n", l1_sep, worst_sep, l1_exact, worst_exact, l1_old, worst_old);
  EXPECT_LT(l1_sep, 0.02);
  EXPECT_LT(worst_sep, 0.02);
  EXPECT_LT(l1_exact, 1.5 * l1_old + 0.005) << "the shared pyramid approximates the Gaussians as well as before";
  EXPECT_LT(worst_exact, 1.5 * worst_old + 0.005);
  }
  // Alpha and non-colour channels untouched; the light added is positive everywhere a light shines.
  Image rgba(w, h, 4);
  for (std::size_t i = 0; i < static_cast<std::size_t>(w) * h; ++i) {
    for (int c = 0; c < 3; ++c) rgba.pixels[i * 4 + c] = img.pixels[i * 3 + c];
    rgba.pixels[i * 4 + 3] = 0.25f;
  }
  Image shared = img;
  ASSERT_TRUE(apply_glare(shared, p).ok());
  ASSERT_TRUE(apply_glare(rgba, p).ok());
  for (std::size_t i = 0; i < static_cast<std::size_t>(w) * h; ++i) {
    ASSERT_EQ(rgba.pixels[i * 4 + 3], 0.25f);
    for (int c = 0; c < 3; ++c) ASSERT_EQ(rgba.pixels[i * 4 + c], shared.pixels[i * 3 + c]) << "RGBA = RGB";
  }
}

