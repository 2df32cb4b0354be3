// The CPU's instruction-set levels (src/cpu/isa_level.hpp) give the same bytes: each level's map
// kernels (load, bad-pixel counts, statistics, every operator's curve, colour, every output type's
// store) against the baseline's on chunks with awkward values; the sRGB quantiser without powf
// (cpu/srgb_quantise.hpp) against the reference's; and end to end, `tonekit map` (every operator,
// 8-bit and 16-bit PNG, half EXR) and `tonekit stream` (transfers, layouts, dither, operators)
// under TONEKIT_CPU_LEVEL, each level's outputs hashed against the baseline's. Levels this CPU
// lacks are skipped, and say so.
#include <gtest/gtest.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include <cmath>
#include <limits>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "core/colour.hpp"
#include "core/half.hpp"
#include "core/map_settings.hpp"
#include "cpu/isa_level.hpp"
#include "cpu/map_kernels.hpp"
#include "cpu/srgb_quantise.hpp"
#include "tonekit/operators.hpp"
#include "unit/cli_runner.hpp"
#include "unit/isa_levels_here.hpp"

using namespace tonekit;
using cpu::IsaLevel;

namespace {

// One level's map kernels, by name.
struct Kernels {
  void (*load_chunk)(const void*, int, int, int, PixelType, cpu::Chunk&);
  void (*load_luminance_chunk)(const void*, int, int, int, PixelType, cpu::Chunk&);
  void (*count_bad_pixels)(const void*, int, int, int, PixelType, cpu::BadPixelCounts&);
  void (*reduce_luminance)(const cpu::Chunk&, int, cpu::LuminanceReduction&);
  void (*curve_chunk)(const core::CurveSettings&, cpu::Chunk&, int);
  void (*colour_chunk)(cpu::Chunk&, int, float);
  void (*store_chunk)(const cpu::Chunk&, int, int, int, int, PixelType, float, bool, void*);
};
#define TK_KERNELS(ns)                                                                                        \
  Kernels {                                                                                                   \
    cpu::ns::load_chunk, cpu::ns::load_luminance_chunk, cpu::ns::count_bad_pixels, cpu::ns::reduce_luminance, \
        cpu::ns::curve_chunk, cpu::ns::colour_chunk, cpu::ns::store_chunk                                     \
  }
Kernels kernels(IsaLevel l) {
  switch (l) {
    case IsaLevel::v4: return TK_KERNELS(isa_v4);
    case IsaLevel::v3: return TK_KERNELS(isa_v3);
    default: return TK_KERNELS(isa_baseline);
  }
}

// Pixels over the whole range: zeros, tiny, mid-tones, HDR highlights, and (1 in 16) NaN, +-Inf,
// negatives, so the sanitising and every clamp are crossed.
std::vector<float> awkward_row(int n, int channels, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> e(-12.0f, 9.0f);
  std::vector<float> v(static_cast<std::size_t>(n) * channels);
  for (float& x : v) {
    const unsigned k = rng() % 16;
    x = k == 0 ? NAN : k == 1 ? INFINITY : k == 2 ? -std::exp2(e(rng)) : k == 3 ? 0.0f : std::exp2(e(rng));
  }
  return v;
}

bool same_bytes(const void* a, const void* b, std::size_t n) { return std::memcmp(a, b, n) == 0; }

}  // namespace

TEST(IsaLevels, MapKernelsSameBytesOnEveryLevel) {
  const Kernels base = kernels(IsaLevel::baseline);
  constexpr int n = cpu::kChunk - 3;  // a ragged chunk: the vector loops' tails
  for (IsaLevel level : test::isa_levels_here()) {
    const Kernels k = kernels(level);
    const std::string lv = cpu::isa_level_name(level);
    for (int channels : {1, 3, 4})
      for (PixelType type : {PixelType::f32, PixelType::f16}) {
        const std::vector<float> f = awkward_row(n + 5, channels, 7u + channels);
        std::vector<std::uint16_t> h(f.size());
        for (std::size_t i = 0; i < f.size(); ++i) h[i] = core::float_to_half(f[i]);
        const void* row = type == PixelType::f32 ? static_cast<const void*>(f.data()) : h.data();
        const std::string what = lv + " channels " + std::to_string(channels) + (type == PixelType::f32 ? " f32" : " f16");
        cpu::Chunk a{}, b{};
        base.load_chunk(row, 2, n, channels, type, a);
        k.load_chunk(row, 2, n, channels, type, b);
        ASSERT_TRUE(same_bytes(&a, &b, sizeof a)) << what << ": load_chunk";
        cpu::Chunk la{}, lb{};
        base.load_luminance_chunk(row, 2, n, channels, type, la);
        k.load_luminance_chunk(row, 2, n, channels, type, lb);
        ASSERT_TRUE(same_bytes(la.lw, lb.lw, sizeof(float) * n)) << what << ": load_luminance_chunk";
        cpu::BadPixelCounts ca, cb;
        base.count_bad_pixels(row, 2, n, channels, type, ca);
        k.count_bad_pixels(row, 2, n, channels, type, cb);
        EXPECT_EQ(ca.nan, cb.nan) << what;
        EXPECT_EQ(ca.inf, cb.inf) << what;
        EXPECT_EQ(ca.negative, cb.negative) << what;
        cpu::LuminanceReduction ra{INFINITY, -INFINITY, INFINITY, 0.0}, rb = ra;
        base.reduce_luminance(a, n, ra);
        k.reduce_luminance(a, n, rb);
        ASSERT_TRUE(same_bytes(&ra, &rb, sizeof ra)) << what << ": reduce_luminance";
        // Every operator's curve (its defaults), then colour at saturation 1 and 0.7 and every store.
        for (const OperatorDesc* op : all_operators()) {
          if (op->locality != Locality::global) continue;
          const Params params = prepare_params(op->id).value();
          const core::CurvePlan plan = core::compile_curve_plan(params);
          std::vector<float> hist(static_cast<std::size_t>(plan.histogram_bins) + 1);
          for (std::size_t i = 0; i < hist.size(); ++i) hist[i] = static_cast<float>(i) / static_cast<float>(hist.size());
          FrameStats stats;
          stats.pixel_count = 1;
          stats.log_average = 0.18;
          stats.min_luminance = stats.min_positive_luminance = 1e-4;
          stats.max_luminance = stats.peak_luminance = 300.0;
          const core::CurveSettings curve = core::make_curve_settings(plan, stats, hist.data());
          for (float saturation : {1.0f, 0.7f}) {
            cpu::Chunk ma = a, mb = a;
            base.curve_chunk(curve, ma, n);
            k.curve_chunk(curve, mb, n);
            ASSERT_TRUE(same_bytes(&ma, &mb, sizeof ma)) << what << " " << op->id << ": curve_chunk";
            base.colour_chunk(ma, n, saturation);
            k.colour_chunk(mb, n, saturation);
            ASSERT_TRUE(same_bytes(&ma, &mb, sizeof ma)) << what << " " << op->id << ": colour_chunk";
            if (channels == 1) continue;
            for (PixelType out : {PixelType::u8, PixelType::u16, PixelType::f16, PixelType::f32})
              for (float gamma : {0.0f, 2.2f})
                for (bool dither : {true, false}) {
                  std::vector<std::uint8_t> oa(static_cast<std::size_t>(n + 8) * channels * 4, 0xA5), ob = oa;
                  base.store_chunk(ma, 8, n, 5, channels, out, gamma, dither, oa.data());
                  k.store_chunk(mb, 8, n, 5, channels, out, gamma, dither, ob.data());
                  ASSERT_EQ(oa, ob) << what << " " << op->id << ": store_chunk type " << static_cast<int>(out)
                                    << " gamma " << gamma << " dither " << dither;
                }
          }
        }
      }
  }
}

// The fast curve within its stated bound of encode_srgb (in double), densely and at every
// octave's ends.
TEST(IsaLevels, SrgbFastCurveWithinItsBound) {
  double worst = 0.0;
  auto check = [&](float v) {
    const double d = std::abs(static_cast<double>(cpu::encode_srgb_fast(v)) - core::encode_srgb(static_cast<double>(v)));
    worst = std::max(worst, d);
  };
  for (int i = 0; i <= 2000000; ++i) check(static_cast<float>(i / 2000000.0));
  for (int o = -10; o <= 0; ++o) {
    const float e = static_cast<float>(std::ldexp(1.0, o));
    for (float v : {std::nextafter(e, 0.0f), e, std::nextafter(e, 2.0f)}) check(v);
  }
  std::printf("encode_srgb_fast: worst error %.3g (bound %.3g)\n", worst, cpu::kSrgbFastError);
  EXPECT_LE(worst, cpu::kSrgbFastError);
}

#if defined(__x86_64__)
// The AVX2 + FMA levels' curve (encode_srgb_fast8) within the same bound, on the same values, and
// a NaN stays NaN (the quantiser then takes the reference for it).
__attribute__((target("avx2,fma"))) float srgb_fast8_at(float v) {
  alignas(32) float out[8];
  _mm256_store_ps(out, cpu::encode_srgb_fast8(_mm256_set1_ps(v)));
  return out[0];
}
TEST(IsaLevels, SrgbFastCurveOfTheAvx2LevelsWithinItsBound) {
  if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) GTEST_SKIP() << "no AVX2 + FMA on this CPU";
  double worst = 0.0;
  auto check = [&](float v) {
    const double d = std::abs(static_cast<double>(srgb_fast8_at(v)) - core::encode_srgb(static_cast<double>(v)));
    worst = std::max(worst, d);
  };
  for (int i = 0; i <= 2000000; ++i) check(static_cast<float>(i / 2000000.0));
  for (int o = -12; o <= 0; ++o) {
    const float e = static_cast<float>(std::ldexp(1.0, o));
    for (float v : {std::nextafter(e, 0.0f), e, std::nextafter(e, 2.0f)}) check(v);
  }
  for (float v : {0.0031308f, std::nextafter(0.0031308f, 1.0f), -1.0f, 2.0f, 1e-30f}) check(v);
  std::printf("encode_srgb_fast8: worst error %.3g (bound %.3g)\n", worst, cpu::kSrgbFastError);
  EXPECT_LE(worst, cpu::kSrgbFastError);
  EXPECT_EQ(srgb_fast8_at(1.0f), 1.0f);
  EXPECT_LT(srgb_fast8_at(std::nextafter(1.0f, 0.0f)), 1.0f);
  EXPECT_TRUE(std::isnan(srgb_fast8_at(std::numeric_limits<float>::quiet_NaN())));
}
#endif

// The quantiser's codes are the reference's (core::quantise on core::encode_srgb, powf), bit for
// bit, 8 and 16 bits, dithered and not: on a dense grid, random values and, for 8 bits, the
// floats either side of every code boundary (found by bisection on the reference itself).
TEST(IsaLevels, SrgbQuantiserIsTheReference) {
  std::vector<float> values;
  for (int i = 0; i <= 1 << 20; ++i) values.push_back(static_cast<float>(i) / static_cast<float>(1 << 20));
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> u(-0.1f, 1.1f);
  for (int i = 0; i < 1 << 18; ++i) values.push_back(u(rng));
  for (unsigned c = 1; c <= 255; ++c)
    for (int k = 0; k <= 30; k += 6) {
      const float noise = (static_cast<float>(k) - 15.0f) / 16.0f;
      auto code_of = [&](float v) { return core::quantise_noise(core::encode_srgb(v), 255u, true, noise); };
      float lo = 0.0f, hi = 1.0f;
      if (code_of(hi) < c) continue;
      for (int it = 0; it < 60; ++it) {
        const float mid = 0.5f * (lo + hi);
        (code_of(mid) >= c ? hi : lo) = mid;
      }
      float below = hi, above = hi;
      values.push_back(hi);
      for (int d = 0; d < 3; ++d) {
        below = std::nextafter(below, 0.0f);
        above = std::nextafter(above, 2.0f);
        values.insert(values.end(), {below, above});
      }
    }
  std::size_t unsure_count = 0, total = 0;
  for (IsaLevel level : [] { auto v = test::isa_levels_here(); v.insert(v.begin(), IsaLevel::baseline); return v; }()) {
    const Kernels k = kernels(level);
    for (PixelType type : {PixelType::u8, PixelType::u16})
      for (bool dither : {true, false}) {
        const unsigned max = type == PixelType::u8 ? 255u : 65535u;
        for (std::size_t at = 0; at < values.size(); at += cpu::kChunk) {
          const int n = static_cast<int>(std::min<std::size_t>(cpu::kChunk, values.size() - at));
          cpu::Chunk c{};
          for (int i = 0; i < n; ++i) c.r[i] = c.g[i] = c.b[i] = values[at + i], c.a[i] = 1.0f;
          const int y = static_cast<int>(at / cpu::kChunk);
          std::vector<std::uint16_t> out(static_cast<std::size_t>(n) * 3);
          std::vector<std::uint8_t> out8(static_cast<std::size_t>(n) * 3);
          k.store_chunk(c, 0, n, y, 3, type, 0.0f, dither,
                        type == PixelType::u8 ? static_cast<void*>(out8.data()) : static_cast<void*>(out.data()));
          for (int i = 0; i < n; ++i)
            for (int ch = 0; ch < 3; ++ch) {
              const unsigned want = core::quantise(core::encode_srgb(values[at + i]), max, dither, i, y, ch);
              const unsigned got = type == PixelType::u8 ? out8[static_cast<std::size_t>(i) * 3 + ch]
                                                         : out[static_cast<std::size_t>(i) * 3 + ch];
              ASSERT_EQ(got, want) << cpu::isa_level_name(level) << " value " << values[at + i] << " max " << max
                                   << " dither " << dither << " channel " << ch;
              if (level == IsaLevel::baseline && type == PixelType::u8) {
                float slack;
                (void)cpu::srgb_code<255u>(
                    cpu::srgb_rounded<255u>(values[at + i], dither ? core::dither_noise(i, y, ch) : 0.0f), slack);
                unsure_count += slack < cpu::kSrgbUnsureMargin<255u>;
                ++total;
              }
            }
        }
      }
  }
  std::printf("8-bit samples the reference redid: %zu of %zu\n", unsure_count, total);
  EXPECT_LT(unsure_count, total / 100) << "the margin sends more than 1 % of 8-bit samples to powf";
}

namespace {

std::string read_file(const std::filesystem::path& p) {
  std::ifstream f(p, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}
std::uint64_t fnv1a(const std::string& s) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}

// Runs `args` at every level the CPU has and expects each level's `output` (a file in the test
// folder) to hash as the baseline's.
void expect_same_on_every_level(const std::filesystem::path& dir, const std::string& args, const std::string& output) {
  std::uint64_t baseline = 0;
  std::vector<IsaLevel> all{IsaLevel::baseline};
  for (IsaLevel l : {IsaLevel::v3, IsaLevel::v4})
    if (l <= cpu::isa_level_supported()) all.push_back(l);
  for (IsaLevel level : all) {
    ::setenv("TONEKIT_CPU_LEVEL", cpu::isa_level_name(level), 1);
    const test::CliResult r = test::run_tonekit(dir, args);
    ::unsetenv("TONEKIT_CPU_LEVEL");
    ASSERT_EQ(r.code, 0) << args << " at " << cpu::isa_level_name(level) << ": " << r.err;
    const std::uint64_t h = fnv1a(read_file(dir / output));
    if (level == IsaLevel::baseline) baseline = h;
    else EXPECT_EQ(h, baseline) << args << ": level " << cpu::isa_level_name(level) << " differs from the baseline";
  }
}

}  // namespace

TEST(IsaLevels, MapSameBytesOnEveryLevel) {
  const auto dir = test::fresh_test_dir("isa_map");
  for (const char* scene : {"night-drive", "sunset"}) {
    const test::CliResult s = test::run_tonekit(dir, std::string("synth ") + scene + " " + scene + ".exr --size 131x75");
    if (s.code != 0) continue;  // a scene this build lacks
    for (const OperatorDesc* op : all_operators())
      for (const char* look : {"", " --set saturation=0.7 --set gamma=2.2 --set dither=0"})
        for (const char* out : {"o.png", "o.png --bits 16", "o.exr"}) {
          const std::string file = std::string(out).substr(0, 5);
          expect_same_on_every_level(
              dir, std::string("map ") + scene + ".exr " + out + " --backend cpu --op " + op->id + look, file);
        }
  }
  std::filesystem::remove_all(dir);
}

TEST(IsaLevels, StreamSameBytesOnEveryLevel) {
  const auto dir = test::fresh_test_dir("isa_stream");
  ASSERT_EQ(test::run_tonekit(dir, "synth night-drive odd.y4m --frames 4 --size 67x35").code, 0);
  ASSERT_EQ(test::run_tonekit(dir, "synth night-drive wide.y4m --frames 2 --size 333x131").code, 0);
  for (const char* input : {"odd.y4m", "wide.y4m"})
    for (const char* extra : {"", " --output-format nv12", " --set dither=0", " --transfer linear",
                              " --primaries bt709 --matrix bt709", " --range full", " --op drago", " --op log",
                              " --op histeq", " --op reinhard-sat", " --set peak_percentile=99.99", " --temporal",
                              " --exact", " --output-format rgb24"})
      expect_same_on_every_level(dir, std::string("stream ") + input + " o.yuv --backend cpu" + extra, "o.yuv");
  std::filesystem::remove_all(dir);
}

// The statistics' log (map_kernels.cpp's log_for_stats, through reduce_luminance): the float64
// sum of its values equals that of glibc's logf within 1e-6 of a unit per pixel (both are within
// an ulp of the exact log), so the key stays where the libm-based sums put it.
TEST(IsaLevels, StatisticsLogIsLogf) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> e(-20.0f, 16.0f);
  for (int rep = 0; rep < 200; ++rep) {
    cpu::Chunk c{};
    for (int i = 0; i < cpu::kChunk; ++i) c.lw[i] = i % 17 == 0 ? 0.0f : std::exp2(e(rng));
    cpu::LuminanceReduction r{INFINITY, -INFINITY, INFINITY, 0.0};
    cpu::isa_baseline::reduce_luminance(c, cpu::kChunk, r);
    double want = 0.0;
    for (int i = 0; i < cpu::kChunk; ++i) want += static_cast<double>(logf(static_cast<float>(core::kLogDelta) + c.lw[i]));
    ASSERT_NEAR(r.log_sum, want, 1e-6 * cpu::kChunk) << "chunk " << rep;
  }
}
