// Night vision (include/tonekit/night.hpp, src/cpu/blur/night.cpp): the identity in daylight and
// when off (bit for bit, also through tone_map's bytes), monotone in luminance, desaturated at
// full rod vision, no NaN or Inf from bad samples, parameters at their range ends and refused
// outside them, and the CPU stage against a direct float64 implementation of the model written
// here from its equations (not from core/night.hpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "tonekit/blur.hpp"
#include "tonekit/cpu_tone_mapper.hpp"
#include "tonekit/night.hpp"
#include "tonekit/synth.hpp"
#include "tonekit/tonemap.hpp"

using namespace tonekit;

namespace {

double luma(const float* p) { return 0.2126 * p[0] + 0.7152 * p[1] + 0.0722 * p[2]; }

// Random colours with luminance around `level` (log-uniform over two decades either side).
Image random_scene(int w, int h, int c, double level, unsigned seed) {
  Image img(w, h, c);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for (std::size_t i = 0; i < static_cast<std::size_t>(w) * h; ++i) {
    const double l = level * std::pow(10.0, 4.0 * u(rng) - 2.0);
    for (int ch = 0; ch < 3; ++ch) img.pixels[i * c + ch] = static_cast<float>(l * (0.2 + 1.6 * u(rng)));
    if (c == 4) img.pixels[i * c + 3] = static_cast<float>(u(rng));
  }
  return img;
}

void poison(Image& img) {
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  const std::size_t n = static_cast<std::size_t>(img.width) * img.height;
  const int c = img.channels;
  img.pixels[(n / 7) * c + 0] = nan;
  img.pixels[(n / 5) * c + 1] = inf;
  img.pixels[(n / 3) * c + 2] = -inf;
  img.pixels[(n / 2) * c + 1] = -3.0f;
  img.pixels[0] = 0.0f;
  img.pixels[1] = 0.0f;
  img.pixels[2] = 0.0f;
}

NightParams night(std::vector<std::pair<std::string, std::string>> settings, std::string_view method = "separable") {
  auto p = prepare_night(settings, method);
  EXPECT_TRUE(p.ok()) << p.status().message();
  return p.ok() ? *p : NightParams{};
}

bool same_bits(const Image& a, const Image& b) {
  return a.pixels.size() == b.pixels.size() &&
         std::memcmp(a.pixels.data(), b.pixels.data(), a.pixels.size() * sizeof(float)) == 0;
}

}  // namespace

TEST(Night, ParametersAreDescribedOnce) {
  const auto& descs = night_params();
  ASSERT_GE(descs.size(), 8u);
  const NightParams defaults;
  EXPECT_FALSE(defaults.on);
  for (const ParamDesc& d : descs) {
    EXPECT_LE(d.min_value, d.default_value) << d.name;
    EXPECT_LE(d.default_value, d.max_value) << d.name;
    EXPECT_NE(std::string(d.help), "") << d.name;
    EXPECT_EQ(defaults.get(d.name), d.default_value) << d.name;
  }
  EXPECT_EQ(defaults.get("photopic"), 10.0);
  EXPECT_EQ(defaults.get("noise"), 0.0);  // noise off by default
}

TEST(Night, DaylightIsTheIdentityBitForBit) {
  for (int c : {3, 4}) {
    Image day = random_scene(61, 37, c, 200.0, 7);  // log-average ~200 cd/m^2
    poison(day);
    Image staged = day;
    NightReport report;
    ASSERT_TRUE(apply_night(staged, night({}), 0, &report).ok());
    EXPECT_GT(report.adapting_luminance, 10.0);
    EXPECT_EQ(report.rod_fraction, 0.0);
    EXPECT_TRUE(same_bits(day, staged));
    // A fixed adaptation at the photopic threshold is the identity too.
    Image dark = random_scene(20, 11, c, 0.01, 8), fixed = dark;
    ASSERT_TRUE(apply_night(fixed, night({{"adaptation", "10"}})).ok());
    EXPECT_TRUE(same_bits(dark, fixed));
    // And tone mapping gives the same bytes with and without the stage.
    auto params = prepare_params("reinhard");
    ASSERT_TRUE(params.ok());
    OutputImage a, b;
    ASSERT_TRUE(tone_map(day, *params, {PixelType::u8, 3}, Backend::cpu, a).ok());
    ASSERT_TRUE(tone_map(staged, *params, {PixelType::u8, 3}, Backend::cpu, b).ok());
    EXPECT_EQ(a.bytes, b.bytes);
  }
}

TEST(Night, OffOrZeroStrengthIsTheIdentity) {
  const Image dark = random_scene(33, 21, 4, 0.01, 9);
  Image off = dark;
  ASSERT_TRUE(apply_night(off, NightParams{}).ok());
  EXPECT_TRUE(same_bits(dark, off));
  Image zero = dark;
  ASSERT_TRUE(apply_night(zero, night({{"strength", "0"}})).ok());
  EXPECT_TRUE(same_bits(dark, zero));
  Image on = dark;
  ASSERT_TRUE(apply_night(on, night({})).ok());
  EXPECT_FALSE(same_bits(dark, on));
}

TEST(Night, MonotoneInLuminance) {
  // Rows of different colours, each a ramp along x from 1e-4 to 1e2 cd/m^2 (log-spaced): the
  // output's luminance stays ordered along every row, in every adaptation state, with the blur.
  const int w = 256, h = 12;
  const float colours[4][3] = {{1, 1, 1}, {1.0f, 0.6f, 0.3f}, {0.2f, 0.5f, 1.0f}, {0.1f, 1.0f, 0.2f}};
  Image ramp(w, h, 3);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const double l = std::pow(10.0, -4.0 + 6.0 * x / (w - 1));
      const float* col = colours[y % 4];
      const double cl = 0.2126 * col[0] + 0.7152 * col[1] + 0.0722 * col[2];
      for (int ch = 0; ch < 3; ++ch) ramp.pixels[(static_cast<std::size_t>(y) * w + x) * 3 + ch] = static_cast<float>(l * col[ch] / cl);
    }
  for (const char* adaptation : {"0", "0.0001", "0.01", "1", "9"})
    for (const char* acuity : {"0", "0.0015", "0.05"}) {
      Image out = ramp;
      ASSERT_TRUE(apply_night(out, night({{"adaptation", adaptation}, {"acuity", acuity}})).ok());
      for (int y = 0; y < h; ++y)
        for (int x = 1; x < w; ++x) {
          const float* a = out.row(y) + (x - 1) * 3;
          const float* b = out.row(y) + x * 3;
          ASSERT_LE(luma(a), luma(b) * (1 + 1e-6)) << "adaptation " << adaptation << " acuity " << acuity << " at " << x << "," << y;
        }
    }
}

TEST(Night, FullRodVisionIsDesaturated) {
  // 1e-5 cd/m^2: far below scotopic, rod fraction 1: every pixel takes the rods' one colour.
  Image dark = random_scene(40, 30, 3, 1e-5, 11);
  for (const char* shift : {"0", "1"}) {
    Image out = dark;
    NightReport report;
    ASSERT_TRUE(apply_night(out, night({{"blue_shift", shift}}), 0, &report).ok());
    EXPECT_EQ(report.rod_fraction, 1.0);
    double blue[3] = {0, 0, 0};
    if (shift[0] == '1') {  // XYZ (1, 1, 2) in Rec. 709: chromaticity (0.25, 0.25)
      blue[0] = 3.2406 - 1.5372 - 2 * 0.4986;
      blue[1] = -0.9689 + 1.8758 + 2 * 0.0415;
      blue[2] = 0.0557 - 0.2040 + 2 * 1.0570;
    } else {
      blue[0] = blue[1] = blue[2] = 1.0;
    }
    const double bl = 0.2126 * blue[0] + 0.7152 * blue[1] + 0.0722 * blue[2];
    for (std::size_t i = 0; i < out.pixels.size() / 3; ++i) {
      const float* p = out.pixels.data() + i * 3;
      const double l = luma(p);
      ASSERT_GT(l, 0.0);
      // Chroma: the distance of rgb / L from the rods' colour, below 1e-4 of it.
      for (int ch = 0; ch < 3; ++ch) ASSERT_NEAR(p[ch] / l, blue[ch] / bl, 1e-4) << "pixel " << i << " shift " << shift;
    }
  }
}

TEST(Night, NoNanOrInfFromBadSamples) {
  for (int c : {3, 4})
    for (const char* noise : {"0", "0.5"}) {
      Image img = random_scene(47, 29, c, 0.05, 13);
      poison(img);
      const float nan = std::numeric_limits<float>::quiet_NaN();
      img.pixels[5 * c] = nan;
      img.pixels[5 * c + 1] = nan;
      img.pixels[5 * c + 2] = nan;
      ASSERT_TRUE(apply_night(img, night({{"noise", noise}}), 3).ok());
      for (std::size_t i = 0; i < img.pixels.size(); ++i) {
        if (c == 4 && i % 4 == 3) continue;  // alpha is left as it was
        ASSERT_TRUE(std::isfinite(img.pixels[i]) && img.pixels[i] >= 0.0f) << "sample " << i << " = " << img.pixels[i];
      }
    }
}

TEST(Night, ParametersAtTheirRangeEnds) {
  const Image dark = random_scene(31, 19, 3, 0.02, 17);
  for (const ParamDesc& d : night_params())
    for (double v : {d.min_value, d.max_value}) {
      NightParams p;
      p.on = true;
      ASSERT_TRUE(p.set(d.name, v).ok()) << d.name;
      Image out = dark;
      Status s = apply_night(out, p, 1);
      ASSERT_TRUE(s.ok()) << d.name << "=" << v << ": " << s.message();
      for (float f : out.pixels) ASSERT_TRUE(std::isfinite(f) && f >= 0.0f) << d.name << "=" << v;
    }
  // Each blur method of the registry runs the acuity blur.
  for (const BlurMethodDesc* m : all_blur_methods()) {
    Image out = dark;
    Status s = apply_night(out, night({}, m->id));
    ASSERT_TRUE(s.ok()) << m->id << ": " << s.message();
  }
}

TEST(Night, RefusesBadParametersWithAClearMessage) {
  auto expect_refused = [](Result<NightParams> r, std::vector<std::string> words) {
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), StatusCode::invalid_argument);
    for (const std::string& w : words) EXPECT_NE(r.status().message().find(w), std::string::npos) << r.status().message();
  };
  expect_refused(prepare_night({{"strength", "1.5"}}), {"night", "strength", "out of range", "[0, 1]"});
  expect_refused(prepare_night({{"acuity", "-0.1"}}), {"acuity", "out of range"});
  expect_refused(prepare_night({{"noise", "nan"}}), {"noise", "out of range"});
  expect_refused(prepare_night({{"strenght", "1"}}), {"no parameter 'strenght'", "strength"});
  expect_refused(prepare_night({{"photopic", "ten"}}), {"photopic", "not a number"});
  expect_refused(prepare_night({{"scotopic", "0.5"}, {"photopic", "0.1"}}), {"scotopic", "must be below photopic"});
  expect_refused(prepare_night({}, "nope"), {"unknown blur method 'nope'"});
  Image grey(4, 4, 1);
  Status s = apply_night(grey, night({}));
  EXPECT_EQ(s.code(), StatusCode::invalid_argument);
  EXPECT_NE(s.message().find("RGB or RGBA"), std::string::npos) << s.message();
}

namespace {

// The model in float64, straight from its equations (include/tonekit/night.hpp).
std::vector<double> direct_night(const Image& in, double cd, double scot, double phot, double shift, double sigma,
                                 int radius, double noise_amp, unsigned frame, double* rod_out) {
  const int w = in.width, h = in.height, c = in.channels;
  const std::size_t n = static_cast<std::size_t>(w) * h;
  auto clean = [](float v) { return std::isnan(v) || v < 0 ? 0.0 : (std::isinf(v) ? 65504.0 : double(v)); };
  std::vector<double> rgb(n * 3);
  double log_sum = 0;
  for (std::size_t i = 0; i < n; ++i) {
    for (int ch = 0; ch < 3; ++ch) rgb[i * 3 + ch] = clean(in.pixels[i * c + ch]);
    log_sum += std::log(1e-6 + 0.2126 * rgb[i * 3] + 0.7152 * rgb[i * 3 + 1] + 0.0722 * rgb[i * 3 + 2]);
  }
  const double la = cd * std::exp(log_sum / n);
  auto smooth = [](double t) { t = std::clamp(t, 0.0, 1.0); return t * t * (3 - 2 * t); };
  const double rod = 1.0 - smooth((std::log10(la) - std::log10(scot)) / (std::log10(phot) - std::log10(scot)));
  *rod_out = rod;
  // The acuity blur at half resolution: 2x2 means (edges replicated), the Gaussian of sigma / 2
  // (2D, clamped), read back bilinearly at (x + 0.5) / 2 - 0.5.
  const int hw = (w + 1) / 2, hh = (h + 1) / 2;
  std::vector<double> half(static_cast<std::size_t>(hw) * hh * 3, 0.0), low(half.size(), 0.0), blurred(n * 3, 0.0);
  if (sigma > 0) {
    auto px = [&](int x, int y, int ch) { return rgb[(static_cast<std::size_t>(std::min(y, h - 1)) * w + std::min(x, w - 1)) * 3 + ch]; };
    for (int j = 0; j < hh; ++j)
      for (int i = 0; i < hw; ++i)
        for (int ch = 0; ch < 3; ++ch)
          half[(static_cast<std::size_t>(j) * hw + i) * 3 + ch] =
              0.25 * (px(2 * i, 2 * j, ch) + px(2 * i + 1, 2 * j, ch) + px(2 * i, 2 * j + 1, ch) + px(2 * i + 1, 2 * j + 1, ch));
    const double hs = 0.5 * sigma;
    std::vector<double> k(2 * radius + 1);
    double ks = 0;
    for (int i = -radius; i <= radius; ++i) ks += k[i + radius] = std::exp(-0.5 * i * i / (hs * hs));
    for (int y = 0; y < hh; ++y)
      for (int x = 0; x < hw; ++x)
        for (int dy = -radius; dy <= radius; ++dy)
          for (int dx = -radius; dx <= radius; ++dx) {
            const int xx = std::clamp(x + dx, 0, hw - 1), yy = std::clamp(y + dy, 0, hh - 1);
            const double wgt = k[dx + radius] * k[dy + radius] / (ks * ks);
            for (int ch = 0; ch < 3; ++ch)
              low[(static_cast<std::size_t>(y) * hw + x) * 3 + ch] += wgt * half[(static_cast<std::size_t>(yy) * hw + xx) * 3 + ch];
          }
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) {
        const double fx = 0.5 * x - 0.25, fy = 0.5 * y - 0.25;
        const int x0 = static_cast<int>(std::floor(fx)), y0 = static_cast<int>(std::floor(fy));
        const double ax = fx - x0, ay = fy - y0;
        auto at = [&](int i, int j, int ch) {
          return low[(static_cast<std::size_t>(std::clamp(j, 0, hh - 1)) * hw + std::clamp(i, 0, hw - 1)) * 3 + ch];
        };
        for (int ch = 0; ch < 3; ++ch)
          blurred[(static_cast<std::size_t>(y) * w + x) * 3 + ch] =
              (1 - ay) * ((1 - ax) * at(x0, y0, ch) + ax * at(x0 + 1, y0, ch)) +
              ay * ((1 - ax) * at(x0, y0 + 1, ch) + ax * at(x0 + 1, y0 + 1, ch));
      }
  }
  const double blue0[3] = {3.2406 - 1.5372 - 2 * 0.4986, -0.9689 + 1.8758 + 2 * 0.0415, 0.0557 - 0.2040 + 2 * 1.0570};
  const double bl = 0.2126 * blue0[0] + 0.7152 * blue0[1] + 0.0722 * blue0[2];
  auto scotopic = [](const double* p) {
    const double X = 0.4124 * p[0] + 0.3576 * p[1] + 0.1805 * p[2];
    const double Y = 0.2126 * p[0] + 0.7152 * p[1] + 0.0722 * p[2];
    const double Z = 0.0193 * p[0] + 0.1192 * p[1] + 0.9505 * p[2];
    return X > 0 ? Y * (1.33 * (1 + (Y + Z) / X) - 1.68) : 0.0;
  };
  const double white[3] = {1, 1, 1};
  const double v_white = scotopic(white);
  std::vector<double> out(n * 3);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const std::size_t i = static_cast<std::size_t>(y) * w + x;
      double p[3] = {rgb[i * 3], rgb[i * 3 + 1], rgb[i * 3 + 2]};
      if (sigma > 0) {
        const double* b = &blurred[i * 3];
        const double ls = cd * (0.2126 * p[0] + 0.7152 * p[1] + 0.0722 * p[2]);
        const double t = (std::log10(std::max(ls, 1e-30)) - std::log10(scot)) / (std::log10(phot) - std::log10(scot));
        const double wgt = rod * (1 - smooth(t));
        for (int ch = 0; ch < 3; ++ch) p[ch] += wgt * (b[ch] - p[ch]);
      }
      const double v = scotopic(p) / v_white;
      double f = 1.0;
      if (noise_amp > 0) {  // the hash is a definition: core::night_noise's lowbias32 chain
        auto h32 = [](std::uint32_t x) {
          x ^= x >> 16; x *= 0x7feb352dU; x ^= x >> 15; x *= 0x846ca68bU; x ^= x >> 16;
          return x;
        };
        const std::uint32_t seed = h32(static_cast<std::uint32_t>(y) * 0x85EBCA77U + h32(frame + 0x68E31DA4U));
        const std::uint32_t hh = h32(static_cast<std::uint32_t>(x) * 0x9E3779B1U ^ seed);
        f = 1.0 + noise_amp * rod * ((hh >> 8) / 8388608.0 - 1.0);
      }
      for (int ch = 0; ch < 3; ++ch) {
        const double b = 1.0 + shift * (blue0[ch] / bl - 1.0);
        out[i * 3 + ch] = ((1 - rod) * p[ch] + rod * v * b) * f;
      }
    }
  return out;
}

}  // namespace

TEST(Night, MatchesADirectFloat64Implementation) {
  struct Case {
    int w, h, c;
    double level, cd, acuity, shift, noise;
  };
  // Sizes from 1x1; levels across the mesopic range; with and without blur and noise.
  const Case cases[] = {{1, 1, 3, 0.01, 1, 0.05, 1, 0},     {23, 17, 4, 0.3, 1, 0.05, 1, 0.3},
                        {40, 9, 3, 0.002, 203, 0.02, 0.5, 0}, {17, 31, 3, 1e-5, 1, 0.03, 1, 0.1},
                        {32, 32, 4, 2.0, 1, 0.0, 0.7, 0},     {48, 40, 3, 0.02, 1, 0.05, 1, 0}};
  for (const Case& k : cases) {
    Image img = random_scene(k.w, k.h, k.c, k.level, 19);
    if (k.w * k.h > 16) poison(img);
    auto p = prepare_night({{"scene_cd_per_unit", std::to_string(k.cd)},
                            {"acuity", std::to_string(k.acuity)},
                            {"blue_shift", std::to_string(k.shift)},
                            {"noise", std::to_string(k.noise)}},
                           "gaussian");
    ASSERT_TRUE(p.ok()) << p.status().message();
    const double sigma = k.acuity * std::max(k.w, k.h) >= 0.5 ? k.acuity * std::max(k.w, k.h) : 0.0;
    int radius = 0;
    if (sigma > 0) {
      auto plan = plan_blur("gaussian", 0.5 * sigma);  // the stage blurs its half-resolution plane
      ASSERT_TRUE(plan.ok());
      radius = std::max(1, static_cast<int>(std::ceil(plan->get("truncate") * 0.5 * sigma - 1e-9)));
    }
    double rod = 0;
    const std::vector<double> want = direct_night(img, k.cd, 0.001, 10, k.shift, sigma, radius, k.noise, 5, &rod);
    Image got = img;
    NightReport report;
    ASSERT_TRUE(apply_night(got, *p, 5, &report).ok());
    // The stage takes L in float (core::luminance), the direct form in double.
    EXPECT_NEAR(report.rod_fraction, rod, 1e-6) << k.w << "x" << k.h;
    ASSERT_GT(rod, 0.0);
    double max_l = 0;
    for (double v : want) max_l = std::max(max_l, v);
    // float32 maths and a float blur against float64: 1e-4 relative per sample, or 1e-6 of the
    // image's largest sample for samples near zero.
    for (std::size_t i = 0; i < want.size(); ++i) {
      const float g = got.pixels[(i / 3) * k.c + i % 3];
      ASSERT_NEAR(g, want[i], 1e-4 * std::abs(want[i]) + 1e-6 * max_l) << k.w << "x" << k.h << " sample " << i;
    }
  }
}

TEST(Night, NightDriveSceneIsMesopic) {
  auto scene = synth::render_scene("night-drive", 640, 360);
  ASSERT_TRUE(scene.ok());
  const double la = night_adapting_luminance(*scene, night({}));
  EXPECT_GT(la, 0.001);
  EXPECT_LT(la, 10.0);
  Image out = *scene;
  NightReport report;
  ASSERT_TRUE(apply_night(out, night({}), 0, &report).ok());
  std::printf("[night] night-drive 640x360: L_a %.4g cd/m^2, rod fraction %.3f, blur sigma %.2f px\n",
              report.adapting_luminance, report.rod_fraction, report.blur_sigma);
  EXPECT_GT(report.rod_fraction, 0.0);
  EXPECT_LT(report.rod_fraction, 1.0);
  EXPECT_GT(report.blur_sigma, 0.0);
}

TEST(Night, BackendRuleOnTheCpu) {
  Image a = random_scene(19, 13, 3, 0.05, 23), b = a;
  Backend ran = Backend::cuda;
  ASSERT_TRUE(apply_night(a, night({}), Backend::cpu, &ran).ok());
  EXPECT_EQ(ran, Backend::cpu);
  ASSERT_TRUE(apply_night(b, night({})).ok());
  EXPECT_TRUE(same_bits(a, b));
}

TEST(Night, CpuToneMapperRunsTheStageAfterTheGlare) {
  // CpuToneMapper (stream --backend cpu's pipeline) gives the bytes of apply_glare, apply_night
  // (frame index counting from 0) and tone_map; set_night switches it off again.
  auto scene = synth::render_scene("night-drive", 200, 120);
  ASSERT_TRUE(scene.ok());
  const NightParams np = night({{"noise", "0.2"}, {"acuity", "0.01"}});
  CpuToneMapperConfig cfg;
  cfg.width = scene->width;
  cfg.height = scene->height;
  cfg.input = InputFormat::rgb_f32;
  cfg.output = {PixelType::u8, 3};
  cfg.params = *prepare_params("reinhard");
  cfg.glare.strength = 0.1;
  cfg.night = np;
  auto mapper = CpuToneMapper::create(cfg);
  ASSERT_TRUE(mapper.ok()) << mapper.status().message();
  for (std::uint32_t frame = 0; frame < 2; ++frame) {
    std::vector<std::uint8_t> got(static_cast<std::size_t>(scene->width) * scene->height * 3);
    ASSERT_TRUE((*mapper)->process(scene->pixels.data(), 0, got.data(), 0).ok());
    Image staged = *scene;
    ASSERT_TRUE(apply_glare(staged, cfg.glare).ok());
    ASSERT_TRUE(apply_night(staged, np, frame).ok());
    OutputImage want;
    ASSERT_TRUE(tone_map(staged, cfg.params, {PixelType::u8, 3}, Backend::cpu, want).ok());
    EXPECT_EQ(got, want.bytes) << "frame " << frame;
  }
  ASSERT_TRUE((*mapper)->set_night(NightParams{}).ok());
  std::vector<std::uint8_t> off(static_cast<std::size_t>(scene->width) * scene->height * 3);
  ASSERT_TRUE((*mapper)->process(scene->pixels.data(), 0, off.data(), 0).ok());
  Image glared = *scene;
  ASSERT_TRUE(apply_glare(glared, cfg.glare).ok());
  OutputImage plain;
  ASSERT_TRUE(tone_map(glared, cfg.params, {PixelType::u8, 3}, Backend::cpu, plain).ok());
  EXPECT_EQ(off, plain.bytes);
  // A bad night setting is refused by create and set_night alike.
  NightParams bad = np;
  bad.blur_method = "nope";
  EXPECT_EQ((*mapper)->set_night(bad).code(), StatusCode::invalid_argument);
}
