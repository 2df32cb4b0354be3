// exposure-fusion (core/fusion.hpp, src/cpu/local/exposure_fusion_cpu.cpp): the CPU reference
// against Mertens et al. 2007 written directly in double (weights from their definitions, 2-D
// pyramid sums); the exposures from the statistics; a flat frame; parameters at their range ends
// with bad pixels.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "core/fusion.hpp"
#include "core/local_settings.hpp"
#include "cpu/local/local_tone_map.hpp"
#include "tonekit/tonemap.hpp"
#include "unit/pyramid_direct.hpp"

using namespace tonekit;
using tonekit::pyramid_direct::gaussian_pyramid;
using tonekit::pyramid_direct::Plane;
using tonekit::pyramid_direct::up_at;

namespace {

struct Scene {
  int w, h;
  std::vector<float> r, g, b, lw;
};

Scene make_scene(int w, int h, unsigned seed) {
  Scene s{w, h, {}, {}, {}, {}};
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      float stops = 10.0f * x / std::max(1, w - 1) - 6.0f + 1.5f * std::sin(0.5f * y) + 0.4f * u(rng);
      if (y > h / 2 && x < w / 3) stops += 4.0f;
      const float l = std::exp2(stops);
      s.r.push_back(l * (0.4f + u(rng)));
      s.g.push_back(l * (0.4f + u(rng)));
      s.b.push_back(l * (0.4f + u(rng)));
      s.lw.push_back(0.2126f * s.r.back() + 0.7152f * s.g.back() + 0.0722f * s.b.back());
    }
  return s;
}

// Mertens et al. 2007 in double, from the definitions: v_e = min(1, (E_e L)^(1/2.2)), weights
// C^wc S^ws E^we (offsets as the operator's), normalised; Laplacian blend; collapse.
Plane direct_fusion(const Scene& s, const core::FusionFrame& f) {
  const int w = s.w, h = s.h, N = f.n;
  const std::size_t n = s.lw.size();
  const core::LlfGeometry geo = core::llf_geometry(w, h, 1);
  auto enc = [](double x) { return x > 0 ? std::pow(x, 1 / 2.2) : 0.0; };
  std::vector<Plane> v(N, Plane(n)), wt(N, Plane(n));
  for (int e = 0; e < N; ++e)
    for (std::size_t i = 0; i < n; ++i) v[e][i] = std::min(1.0, double(f.a[e]) * enc(s.lw[i]));
  for (std::size_t i = 0; i < n; ++i) {
    const int x = static_cast<int>(i % w), y = static_cast<int>(i / w);
    double sum = 0;
    for (int e = 0; e < N; ++e) {
      auto at = [&](int xx, int yy) { return v[e][static_cast<std::size_t>(std::clamp(yy, 0, h - 1)) * w + std::clamp(xx, 0, w - 1)]; };
      const double c = std::fabs(at(x - 1, y) + at(x + 1, y) + at(x, y - 1) + at(x, y + 1) - 4 * at(x, y));
      const double ch[3] = {std::min(1.0, f.a[e] * enc(s.r[i])), std::min(1.0, f.a[e] * enc(s.g[i])),
                            std::min(1.0, f.a[e] * enc(s.b[i]))};
      const double m = (ch[0] + ch[1] + ch[2]) / 3;
      const double sat = std::sqrt(((ch[0] - m) * (ch[0] - m) + (ch[1] - m) * (ch[1] - m) + (ch[2] - m) * (ch[2] - m)) / 3);
      const double well = std::exp(-(v[e][i] - 0.5) * (v[e][i] - 0.5) * f.inv_two_sigma2);
      wt[e][i] = std::pow(c + core::kFusionFloor, f.wc) * std::pow(sat + core::kFusionFloor, f.ws) * std::pow(well, f.we);
      sum += wt[e][i];
    }
    for (int e = 0; e < N; ++e) wt[e][i] /= sum;
  }
  std::vector<std::vector<Plane>> gv, gw;
  for (int e = 0; e < N; ++e) {
    gv.push_back(gaussian_pyramid(v[e], geo));
    gw.push_back(gaussian_pyramid(wt[e], geo));
  }
  const int J = geo.depth;
  Plane o(geo.size(J), 0.0);
  for (std::size_t i = 0; i < o.size(); ++i)
    for (int e = 0; e < N; ++e) o[i] += gw[e][J][i] * gv[e][J][i];
  for (int j = J - 1; j >= 0; --j) {
    Plane next(geo.size(j));
    for (int y = 0; y < geo.h[j]; ++y)
      for (int x = 0; x < geo.w[j]; ++x) {
        const std::size_t i = static_cast<std::size_t>(y) * geo.w[j] + x;
        double acc = up_at(o, geo.w[j + 1], geo.h[j + 1], x, y);
        for (int e = 0; e < N; ++e) acc += gw[e][j][i] * (gv[e][j][i] - up_at(gv[e][j + 1], geo.w[j + 1], geo.h[j + 1], x, y));
        next[i] = acc;
      }
    o = std::move(next);
  }
  return o;
}

std::vector<float> cpu_fusion(const Scene& s, const core::FusionFrame& f) {
  const std::size_t n = s.lw.size();
  std::vector<float> p(n), q(3 * n), weights(f.n * n), out(n, std::nanf(""));
  for (std::size_t i = 0; i < n; ++i) {
    p[i] = core::fusion_encode(s.lw[i]);
    q[i] = core::fusion_encode(s.r[i]);
    q[n + i] = core::fusion_encode(s.g[i]);
    q[2 * n + i] = core::fusion_encode(s.b[i]);
  }
  cpu::local::exposure_fusion_weights(p.data(), q.data(), s.w, s.h, f, weights.data());
  for (std::size_t i = 0; i < n; ++i) {
    double sum = 0;
    for (int e = 0; e < f.n; ++e) sum += weights[e * n + i];
    EXPECT_NEAR(sum, 1.0, 1e-6) << "weights are normalised";
  }
  cpu::local::exposure_fusion_output(p.data(), weights.data(), s.w, s.h, f, out.data());
  return out;
}

}  // namespace

// The exposures: geometric from the peak at 0.7 (encoded) to the log-average at 0.5 (1/256 stop), a_i = E_i^(1/2.2).
TEST(ExposureFusionMaths, ExposuresFromStatistics) {
  core::FusionParams p;
  p.exposures = 3;
  const core::FusionFrame f = core::make_fusion_frame(p, 1000.0, 0.5);
  EXPECT_EQ(f.n, 3);
  EXPECT_NEAR(f.a[0] * std::pow(1000.0, 1 / 2.2), 0.7, 1e-6);
  EXPECT_NEAR(std::pow(f.a[2], 2.2), 0.5 / 0.5, 1e-5);
  EXPECT_NEAR(std::pow(f.a[1], 2.2), std::sqrt(1.0 * std::pow(0.7, 2.2) / 1000.0), 1e-6);
  EXPECT_EQ(core::make_fusion_frame(core::FusionParams{}, 1000.0, 0.5).n, 7) << "the default N";
  const core::FusionFrame flat = core::make_fusion_frame(p, 1.0, 1.0);  // shadows' exposure above the peak's: kept
  EXPECT_GE(flat.a[2], flat.a[0]);
  EXPECT_EQ(core::fusion_value(2.0f, 1.0f), 1.0f);
  EXPECT_NEAR(core::fusion_saturation(0.5f, 0.5f, 0.5f, 1.0f), 0.0f, 1e-7);
  EXPECT_NEAR(core::fusion_display(0.5f), std::pow(0.5, 2.2), 1e-7);
}

// The CPU reference against the direct double implementation: sizes 1x1 to 40x33, parameters at
// their ends (float pyramids and float weights against double: within 2e-4 of the display value).
TEST(ExposureFusionReference, MatchesDirectDoubleImplementation) {
  const core::FusionParams cases[] = {{}, {2, 0.0, 0.0, 0.0, 0.05}, {8, 2.0, 2.0, 2.0, 1.0}, {3, 1.0, 0.0, 2.0, 0.2}};
  const int sizes[][2] = {{1, 1}, {2, 3}, {17, 11}, {40, 33}};
  for (const auto& sz : sizes)
    for (const core::FusionParams& p : cases) {
      const Scene s = make_scene(sz[0], sz[1], 11u + sz[0]);
      double mx = 0, logsum = 0;
      for (float v : s.lw) mx = std::max<double>(mx, v), logsum += std::log(1e-6 + v);
      const core::FusionFrame f = core::make_fusion_frame(p, mx, std::exp(logsum / s.lw.size()));
      const std::vector<float> cpu = cpu_fusion(s, f);
      const Plane d = direct_fusion(s, f);
      double worst = 0;
      for (std::size_t i = 0; i < d.size(); ++i) worst = std::max(worst, std::fabs(cpu[i] - d[i]));
      EXPECT_LE(worst, 2e-4) << sz[0] << "x" << sz[1] << " N " << p.exposures << " wc " << p.contrast;
    }
}

// The operator's row loops (exposure_fusion_cpu.cpp) against the kernels' per-pixel definitions
// (core::fusion_pixel_weights, llf_down_at, llf_up_at; 2N pyramids, the coefficients summed per
// pixel over the exposures, as cuda/local/ does): the weights equal but where the double exp of
// libm and of the row loop round to different floats (at most 1 in 10^5, 1e-6 relative); given
// the same weights the blended output equal float for float; the powers as core's.
TEST(ExposureFusionReference, RowLoopsAreThePerPixelDefinitions) {
  const int sizes[][2] = {{1, 1}, {2, 3}, {5, 1}, {1, 6}, {17, 11}, {64, 37}, {257, 130}};
  const core::FusionParams cases[] = {{}, {8, 2.0, 0.0, 2.0, 0.05}, {2, 0.0, 2.0, 0.0, 1.0}};
  for (const auto& sz : sizes)
    for (const core::FusionParams& fp : cases) {
      const int w = sz[0], h = sz[1];
      const Scene s = make_scene(w, h, 29u + w * h);
      const std::size_t n = s.lw.size();
      std::vector<float> p(n), q(3 * n);
      for (std::size_t i = 0; i < n; ++i) {
        p[i] = core::fusion_encode(s.lw[i]);
        q[i] = core::fusion_encode(s.r[i]);
        q[n + i] = core::fusion_encode(s.g[i]);
        q[2 * n + i] = core::fusion_encode(s.b[i]);
      }
      const float mx = *std::max_element(s.lw.begin(), s.lw.end());
      const core::FusionFrame f = core::make_fusion_frame(fp, mx, 0.3);
      // Weights.
      std::vector<float> rows(f.n * n, std::nanf("")), pixels(f.n * n);
      cpu::local::exposure_fusion_weights(p.data(), q.data(), w, h, f, rows.data());
      for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) core::fusion_pixel_weights(p.data(), q.data(), w, h, x, y, f, pixels.data());
      std::size_t unequal = 0;
      for (std::size_t i = 0; i < rows.size(); ++i) {
        ASSERT_NEAR(rows[i], pixels[i], 1e-6 * std::fabs(pixels[i]) + 1e-30) << w << "x" << h << " at " << i;
        unequal += rows[i] != pixels[i];
      }
      EXPECT_LE(unequal, rows.size() / 100000) << w << "x" << h;
      // The blend, from the same weights: the kernels' order of operations per pixel.
      const core::LlfGeometry geo = core::llf_geometry(w, h, 2 * f.n), og = core::llf_geometry(w, h, 1);
      const int J = geo.depth, N = f.n;
      std::vector<float> pyr(geo.total()), opyr(og.total());
      for (int k = 0; k < 2 * N; ++k)
        for (int j = 1; j <= J; ++j) {
          const int wp = geo.w[j - 1], hp = geo.h[j - 1];
          auto at = [&](int xx, int yy) {
            const std::size_t i = static_cast<std::size_t>(yy) * wp + xx;
            if (j > 1) return pyr[geo.at(j - 1, k) + i];
            return k < N ? core::fusion_value(p[i], f.a[k]) : pixels[(k - N) * n + i];
          };
          for (int y = 0; y < geo.h[j]; ++y)
            for (int x = 0; x < geo.w[j]; ++x)
              pyr[geo.at(j, k) + static_cast<std::size_t>(y) * geo.w[j] + x] = core::llf_down_at(at, wp, hp, x, y);
        }
      auto value = [&](int j, int e, std::size_t i) { return j == 0 ? core::fusion_value(p[i], f.a[e]) : pyr[geo.at(j, e) + i]; };
      auto weight = [&](int j, int e, std::size_t i) { return j == 0 ? pixels[e * n + i] : pyr[geo.at(j, N + e) + i]; };
      std::vector<float> want(n);
      float* top = J >= 1 ? opyr.data() + og.at(J, 0) : want.data();
      for (std::size_t i = 0; i < geo.size(J); ++i) {
        float acc = 0.0f;
        for (int e = 0; e < N; ++e) acc = acc + weight(J, e, i) * value(J, e, i);
        top[i] = acc;
      }
      for (int j = J - 1; j >= 0; --j) {
        const int wc = geo.w[j + 1], hc = geo.h[j + 1];
        const float* oc = opyr.data() + og.at(j + 1, 0);
        float* oj = j == 0 ? want.data() : opyr.data() + og.at(j, 0);
        for (int y = 0; y < geo.h[j]; ++y)
          for (int x = 0; x < geo.w[j]; ++x) {
            const std::size_t i = static_cast<std::size_t>(y) * geo.w[j] + x;
            float acc = 0.0f;
            for (int e = 0; e < N; ++e) {
              const float* vc = pyr.data() + geo.at(j + 1, e);
              const float up = core::llf_up_at([&](int xx, int yy) { return vc[static_cast<std::size_t>(yy) * wc + xx]; }, wc, hc, x, y);
              acc = acc + weight(j, e, i) * (value(j, e, i) - up);
            }
            oj[i] = acc + core::llf_up_at([&](int xx, int yy) { return oc[static_cast<std::size_t>(yy) * wc + xx]; }, wc, hc, x, y);
          }
      }
      std::vector<float> got(n, std::nanf(""));
      cpu::local::exposure_fusion_output(p.data(), pixels.data(), w, h, f, got.data());
      for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(got[i], want[i]) << w << "x" << h << " N " << N << " at " << i;
    }
  // The powers: x^(1/2.2) and clamp(o)^2.2 as core's (libm's pow in double, rounded once).
  std::mt19937 rng(5);
  std::vector<float> x(200000), enc(x.size()), disp(x.size());
  for (std::size_t i = 0; i < x.size(); ++i)
    x[i] = i < 8 ? std::vector<float>{0.0f, -1.0f, 1.0f, 1e-30f, 1e-40f, 65504.0f, 3e38f, 0.5f}[i]
                 : std::exp2(std::uniform_real_distribution<float>(-40.0f, 40.0f)(rng));
  cpu::local::exposure_fusion_encode(x.data(), x.size(), enc.data());
  std::size_t enc_unequal = 0;
  for (std::size_t i = 0; i < x.size(); ++i) enc_unequal += enc[i] != core::fusion_encode(x[i]);
  EXPECT_LE(enc_unequal, x.size() / 100000) << "encode";
  EXPECT_EQ(enc[0], 0.0f);
  EXPECT_EQ(enc[1], 0.0f);
  EXPECT_EQ(enc[2], 1.0f);
  for (float& v : x) v = v > 2.0f ? std::fmod(v, 1.3f) - 0.1f : v;  // display's inputs: around [0, 1]
  cpu::local::exposure_fusion_display(x.data(), x.size(), disp.data());
  std::size_t unequal = 0;
  for (std::size_t i = 0; i < x.size(); ++i) unequal += disp[i] != core::fusion_display(x[i]);
  EXPECT_LE(unequal, x.size() / 100000) << "display";
  EXPECT_EQ(disp[2], 1.0f) << "white stays white";
  EXPECT_EQ(disp[0], 0.0f);
}

// A flat grey frame: every exposure flat, the blend is the weighted mean, the output flat.
TEST(ExposureFusionOperator, FlatFrameStaysFlat) {
  Image img(23, 17, 3);
  std::fill(img.pixels.begin(), img.pixels.end(), 0.3f);
  auto params = prepare_params("exposure-fusion");
  ASSERT_TRUE(params.ok());
  OutputImage out;
  ASSERT_TRUE(tone_map(img, params.value(), {PixelType::f32, 3}, Backend::cpu, out).ok());
  const float* v = reinterpret_cast<const float*>(out.bytes.data());
  for (std::size_t i = 0; i < img.pixels.size(); ++i) ASSERT_NEAR(v[i], v[0], 1e-5) << i;
  EXPECT_GT(v[0], 0.05f);
  EXPECT_LT(v[0], 0.95f);
}

// Zeros, negatives, NaN and Inf at every parameter end: finite output in [0, 1], black stays black.
TEST(ExposureFusionOperator, BadPixelsAndRangeEnds) {
  const int w = 45, h = 29;
  Image img(w, h, 3);
  const Scene s = make_scene(w, h, 5u);
  std::mt19937 rng(3);
  const float bad[] = {NAN, INFINITY, -INFINITY, -2.0f, 0.0f, -0.0f};
  for (std::size_t i = 0; i < s.lw.size(); ++i) {
    const float c[3] = {s.r[i], s.g[i], s.b[i]};
    for (int k = 0; k < 3; ++k) img.pixels[i * 3 + k] = rng() % 17 == 0 ? bad[rng() % 6] : c[k];
  }
  for (int k = 0; k < 3; ++k) img.pixels[k] = 0.0f;
  const OperatorDesc* op = find_operator("exposure-fusion");
  ASSERT_NE(op, nullptr);
  std::vector<std::vector<std::pair<std::string, std::string>>> sets{{}};
  for (const ParamDesc* p : all_params(*op)) {
    sets.push_back({{p->name, std::to_string(p->min_value)}});
    sets.push_back({{p->name, std::to_string(p->max_value)}});
  }
  for (const auto& set : sets) {
    auto params = prepare_params("exposure-fusion", set);
    ASSERT_TRUE(params.ok()) << params.status().message();
    OutputImage out;
    ASSERT_TRUE(tone_map(img, params.value(), {PixelType::f32, 3}, Backend::cpu, out).ok());
    const float* v = reinterpret_cast<const float*>(out.bytes.data());
    for (std::size_t i = 0; i < img.pixels.size(); ++i) {
      ASSERT_TRUE(std::isfinite(v[i]));
      ASSERT_GE(v[i], 0.0f);
      ASSERT_LE(v[i], 1.0f);
    }
    for (int k = 0; k < 3; ++k) EXPECT_EQ(v[k], 0.0f) << "black must stay black";
  }
}
