// The CPU reference backend: statistics against a naive float64 loop, formats, alpha, threads.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "core/colour.hpp"
#include "core/half.hpp"
#include "cpu/map_kernels.hpp"
#include "tonekit/operators.hpp"
#include "tonekit/tonemap.hpp"

using namespace tonekit;

namespace {
Image random_hdr(int w, int h, int c, unsigned seed) {
  Image img(w, h, c);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> e(-6.0f, 4.0f);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  for (std::size_t i = 0; i < img.pixels.size(); ++i) img.pixels[i] = std::pow(10.0f, e(rng)) * u(rng);
  return img;
}
}  // namespace

TEST(CpuBackend, StatsMatchNaiveDoubleLoop) {
  Image img = random_hdr(333, 217, 3, 7);
  img.pixels[5] = NAN;
  img.pixels[100] = -INFINITY;
  img.pixels[200] = -0.5f;
  FrameStats s = cpu::compute_stats(img.view());
  double sum = 0, mn = 1e300, mx = 0, mp = 1e300;
  for (int i = 0; i < img.width * img.height; ++i) {
    unsigned f = 0;
    double r = core::sanitise_channel(img.pixels[i * 3], f);
    double g = core::sanitise_channel(img.pixels[i * 3 + 1], f);
    double b = core::sanitise_channel(img.pixels[i * 3 + 2], f);
    double l = static_cast<float>(core::luminance<float>(r, g, b));
    sum += std::log(core::kLogDelta + l);
    mn = std::min(mn, l);
    mx = std::max(mx, l);
    if (l > 0) mp = std::min(mp, l);
  }
  EXPECT_NEAR(s.log_average, std::exp(sum / (img.width * img.height)), 1e-6 * s.log_average);
  EXPECT_EQ(s.min_luminance, mn);
  EXPECT_EQ(s.max_luminance, mx);
  EXPECT_EQ(s.min_positive_luminance, mp);
  EXPECT_EQ(s.nan_count, 1u);
  EXPECT_EQ(s.inf_count, 1u);
  EXPECT_EQ(s.negative_count, 1u);
  EXPECT_EQ(s.pixel_count, 333u * 217u);
}

TEST(CpuBackend, HalfInputMatchesFloatInput) {
  Image img = random_hdr(64, 33, 4, 3);
  for (float& v : img.pixels) v = core::half_to_float(core::float_to_half(v));  // representable in half
  std::vector<std::uint16_t> halves(img.pixels.size());
  for (std::size_t i = 0; i < halves.size(); ++i) halves[i] = core::float_to_half(img.pixels[i]);
  ImageView hv{halves.data(), img.width, img.height, 4, PixelType::f16, 0, MemorySpace::host};
  auto params = prepare_params("reinhard").value();
  OutputImage a, b;
  a.allocate(img.width, img.height, 4, PixelType::u8);
  b.allocate(img.width, img.height, 4, PixelType::u8);
  ASSERT_TRUE(cpu::tone_map(img.view(), params, a.view()).ok());
  ASSERT_TRUE(cpu::tone_map(hv, params, b.view()).ok());
  EXPECT_EQ(a.bytes, b.bytes);
}

TEST(CpuBackend, HalfConversionIsExactForEveryHalf) {
  for (std::uint32_t h = 0; h < 65536; ++h) {
    float f = core::half_to_float(static_cast<std::uint16_t>(h));
    if (std::isnan(f)) {
      EXPECT_TRUE(std::isnan(core::half_to_float(core::float_to_half(f))));
      continue;
    }
    EXPECT_EQ(core::float_to_half(f), h) << h;
  }
}

TEST(CpuBackend, AlphaIsCopiedAndClamped) {
  Image img(3, 1, 4);
  const float px[12] = {1, 1, 1, 0.5f, 2, 2, 2, 0.0f, 1, 1, 1, 7.0f};
  std::copy(px, px + 12, img.pixels.begin());
  OutputImage out;
  ASSERT_TRUE(tone_map(img, prepare_params("reinhard").value(), {PixelType::u8, 4}, Backend::cpu, out).ok());
  EXPECT_EQ(out.bytes[3], 128);
  EXPECT_EQ(out.bytes[7], 0);
  EXPECT_EQ(out.bytes[11], 255);
  OutputImage rgb_out;
  Image rgb = random_hdr(5, 2, 3, 1);
  ASSERT_TRUE(tone_map(rgb, prepare_params("drago").value(), {PixelType::u16, 4}, Backend::cpu, rgb_out).ok());
  const auto* p16 = reinterpret_cast<const std::uint16_t*>(rgb_out.bytes.data());
  for (int i = 0; i < 10; ++i) EXPECT_EQ(p16[i * 4 + 3], 65535);
}

// A flat frame at its own peak maps to white, undithered and dithered, 8 and 16 bits: a grey
// pixel's float luminance may round an ulp above its channels and a curve's peak land a few ulps
// below 1, which the dither must not turn into 254 in one sample of eight (the CPU did, from the
// x86-64 levels until the colour ratio's reciprocal and the quantiser's end margin,
// core::kDitherEndMargin). linear, log and drago send L_max to 1 by definition; every global
// operator whose float output lies within the margin of 1 is held to all-white codes, and black
// and bad-pixel frames to black.
TEST(CpuBackend, FlatFramesAtTheirPeakAreWhite) {
  const float margin = static_cast<float>(core::kDitherEndMargin);
  int held = 0;
  for (const OperatorDesc* op : all_operators()) {
    if (op->locality != Locality::global || std::string(op->id) == "histeq") continue;
    const std::string id = op->id;
    for (const float v : {65504.0f, INFINITY, 1.0f, 1000.0f, 0.37f, 0.0f, NAN, -2.0f}) {
      Image img(64, 9, 4);
      std::fill(img.pixels.begin(), img.pixels.end(), v);
      const bool black = !(v > 0.0f);
      OutputImage linear;
      ASSERT_TRUE(tone_map(img, prepare_params(op->id).value(), {PixelType::f32, 3}, Backend::cpu, linear).ok()) << id;
      const float value = reinterpret_cast<const float*>(linear.bytes.data())[0];
      const bool white = !black && value >= 1.0f - margin;
      if (!black && (id == "linear" || id == "log" || id == "drago")) EXPECT_TRUE(white) << id << " v=" << v << ": " << value;
      if (!black && !white) continue;
      held += white;
      for (const PixelType type : {PixelType::u8, PixelType::u16}) {
        OutputImage out;
        ASSERT_TRUE(tone_map(img, prepare_params(op->id).value(), {type, 3}, Backend::cpu, out).ok()) << id;
        const unsigned end = black ? 0u : (type == PixelType::u8 ? 255u : 65535u);
        std::size_t off = 0;
        for (std::size_t i = 0; i < std::size_t(64) * 9 * 3; ++i)
          off += (type == PixelType::u8 ? out.bytes[i] : reinterpret_cast<const std::uint16_t*>(out.bytes.data())[i]) != end;
        EXPECT_EQ(off, 0u) << id << " v=" << v << (type == PixelType::u8 ? " u8" : " u16");
      }
    }
  }
  EXPECT_GE(held, 9);  // linear, log and drago at three peaks at least
}

TEST(CpuBackend, ResultDoesNotDependOnThreadBands) {
  // Rows are split across threads; a 1-row-high and a tall image must agree with per-row work.
  Image img = random_hdr(97, 61, 3, 11);
  auto params = prepare_params("histeq", {{"bins", "64"}}).value();
  OutputImage whole;
  ASSERT_TRUE(tone_map(img, params, {PixelType::f32, 3}, Backend::cpu, whole).ok());
  OutputImage again;
  ASSERT_TRUE(tone_map(img, params, {PixelType::f32, 3}, Backend::cpu, again).ok());
  EXPECT_EQ(whole.bytes, again.bytes);
}

TEST(CpuBackend, RejectsBadViews) {
  Image img = random_hdr(4, 4, 3, 1);
  OutputImage out;
  out.allocate(5, 4, 3, PixelType::u8);
  EXPECT_FALSE(cpu::tone_map(img.view(), prepare_params("log").value(), out.view()).ok());
  Image empty;
  EXPECT_FALSE(tone_map(empty, prepare_params("log").value(), {PixelType::u8, 3}, Backend::cpu, out).ok());
}

// The planar loaders (the stream's fused map keeps its decoded frame as three planes) give the
// values, bit for bit, that the interleaved ones give for the same pixels: NaN, infinities,
// negatives and huge values included, and partial chunks.
TEST(CpuBackend, PlanarLoadsEqualInterleavedLoads) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-0.5f, 4.0f);
  const float specials[] = {std::nanf(""), INFINITY, -INFINITY, -0.0f, 1e30f, -1e-30f, 0.0f, 65504.0f};
  for (int n : {1, 7, 255, 256}) {
    std::vector<float> rgb(3 * static_cast<std::size_t>(n)), r(n), g(n), b(n);
    for (int i = 0; i < n; ++i) {
      for (int c = 0; c < 3; ++c) {
        const float v = (rng() % 9 == 0) ? specials[rng() % 8] : u(rng);
        rgb[3 * static_cast<std::size_t>(i) + c] = v;
        (c == 0 ? r : c == 1 ? g : b)[i] = v;
      }
    }
    cpu::Chunk a, p, al, pl;
    cpu::load_chunk(rgb.data(), 0, n, 3, PixelType::f32, a);
    cpu::load_planar_chunk(r.data(), g.data(), b.data(), n, p);
    cpu::load_luminance_chunk(rgb.data(), 0, n, 3, PixelType::f32, al);
    cpu::load_planar_luminance_chunk(r.data(), g.data(), b.data(), n, pl);
    for (int i = 0; i < n; ++i) {
      const auto same = [](float x, float y) { return std::memcmp(&x, &y, sizeof x) == 0; };
      EXPECT_TRUE(same(a.r[i], p.r[i]) && same(a.g[i], p.g[i]) && same(a.b[i], p.b[i])) << "pixel " << i << " of " << n;
      EXPECT_TRUE(same(a.a[i], p.a[i])) << i;
      EXPECT_TRUE(same(a.lw[i], p.lw[i])) << i;
      EXPECT_TRUE(same(al.lw[i], pl.lw[i])) << i;
      EXPECT_TRUE(std::isfinite(p.lw[i]) && p.lw[i] >= 0.0f) << i;  // sanitised
    }
  }
}

TEST(CpuBackend, BackendParsing) {
  EXPECT_EQ(parse_backend("cpu").value(), Backend::cpu);
  EXPECT_EQ(parse_backend("auto").value(), Backend::automatic);
  EXPECT_FALSE(parse_backend("gpu").ok());
}
