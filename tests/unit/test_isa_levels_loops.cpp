// The CPU's instruction-set levels (src/cpu/isa_level.hpp) give the same bytes in the loops
// converted after the map kernels: the video transfers (cpu/video_kernels.cpp), every blur method,
// glare and night vision (cpu/blur), the local operators reinhard-local, reinhard-sat,
// drago-local and exposure-fusion (cpu/local), TMQI (cpu/quality/tmqi.cpp) and the colour-fidelity
// and phase-angle runs (cpu/quality/colour_batch.cpp); the summed-area tables (cpu/sat, one
// baseline build that the blur and local loops call) as well. Each
// runs through its public function at the baseline and then at every level this CPU has
// (cpu::set_isa_level_for_testing), on random inputs of awkward sizes (1x1, odd, a few hundred
// pixels wide), and the outputs are compared byte for byte with the baseline's. Levels this CPU
// lacks are skipped, and say so. Also: TMQI's plain-arithmetic Phi (cpu/quality/normal_cdf.hpp)
// within its stated bound of 0.5 * std::erfc(-z / sqrt(2)).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "core/video_colour.hpp"
#include "cpu/isa_level.hpp"
#include "cpu/quality/colour_batch.hpp"
#include "cpu/quality/normal_cdf.hpp"
#include "cpu/sat/sat_table.hpp"
#include "cpu/video_kernels.hpp"
#include "tonekit/blur.hpp"
#include "tonekit/night.hpp"
#include "tonekit/operators.hpp"
#include "tonekit/quality.hpp"
#include "tonekit/tonemap.hpp"
#include "unit/isa_levels_here.hpp"

using namespace tonekit;
using cpu::IsaLevel;

namespace {

// Puts the chosen level back when a test ends.
struct LevelGuard {
  IsaLevel before = cpu::set_isa_level_for_testing(cpu::isa_level());
  ~LevelGuard() { cpu::set_isa_level_for_testing(before); }
};

// run() at the baseline, then at each level this CPU has: the same bytes each time.
void expect_same_bytes_on_every_level(const std::string& what, const std::function<std::vector<std::uint8_t>()>& run) {
  LevelGuard guard;
  cpu::set_isa_level_for_testing(IsaLevel::baseline);
  const std::vector<std::uint8_t> base = run();
  ASSERT_FALSE(base.empty()) << what;
  for (IsaLevel l : test::isa_levels_here()) {
    cpu::set_isa_level_for_testing(l);
    ASSERT_EQ(cpu::isa_level(), l);
    const std::vector<std::uint8_t> got = run();
    ASSERT_EQ(got.size(), base.size()) << what << " at " << cpu::isa_level_name(l);
    EXPECT_EQ(std::memcmp(got.data(), base.data(), base.size()), 0)
        << what << ": level " << cpu::isa_level_name(l) << " differs from the baseline";
  }
}

template <class T>
std::vector<std::uint8_t> bytes_of(const T* p, std::size_t n) {
  const auto* b = reinterpret_cast<const std::uint8_t*>(p);
  return std::vector<std::uint8_t>(b, b + n * sizeof(T));
}
template <class T>
std::vector<std::uint8_t> bytes_of(const std::vector<T>& v) {
  return bytes_of(v.data(), v.size());
}

// An HDR image: smooth content over a wide range, sharp edges, a few very bright spots.
Image random_hdr(int w, int h, int c, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(0.0f, 1.0f), e(-8.0f, 6.0f);
  Image img(w, h, c);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      for (int ch = 0; ch < c; ++ch) {
        const float base = std::exp2(3.0f * std::sin(0.11f * x + 0.07f * y + ch) - 2.0f);
        const unsigned k = rng() % 64;
        img.pixels[(static_cast<std::size_t>(y) * w + x) * c + ch] =
            k == 0 ? std::exp2(e(rng)) * 40.0f : k < 8 ? std::exp2(e(rng)) : base * (0.5f + u(rng));
      }
  return img;
}

const std::vector<std::pair<int, int>> kSizes = {{1, 1}, {7, 5}, {33, 17}, {301, 23}};

}  // namespace

TEST(IsaLevels, VideoKernelsSameBytesOnEveryLevel) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-0.05f, 1.05f);
  for (int width : {1, 7, 333}) {
    std::vector<float> rgb(3 * width), rgba(4 * width);
    for (float& v : rgb) v = u(rng);
    for (float& v : rgba) v = u(rng) * 3.0f;
    for (Transfer t : {Transfer::linear, Transfer::pq, Transfer::hlg})
      for (Primaries p : {Primaries::bt709, Primaries::bt2020})
        for (GamutMapping g : {GamutMapping::clip, GamutMapping::desaturate, GamutMapping::perceptual})
          for (InputFormat f : {InputFormat::rgb_f32, InputFormat::p010}) {
            InputColour c;
            c.transfer = t;
            c.primaries = p;
            c.gamut = g;
            const core::VideoLinearise s = core::make_video_linearise(c, f);
            expect_same_bytes_on_every_level("linearise_row", [&] {
              std::vector<float> v = rgb;
              cpu::linearise_row(s, v.data(), width);
              return bytes_of(v);
            });
          }
    for (int channels : {3, 4})
      for (float gamma : {0.0f, 2.4f})
        expect_same_bytes_on_every_level("display_row_ycbcr", [&] {
          std::vector<float> y(width), cb(width), cr(width);
          cpu::display_row_ycbcr(channels == 4 ? rgba.data() : rgb.data(), channels, width, gamma, y.data(), cb.data(),
                                 cr.data());
          std::vector<float> all = y;
          all.insert(all.end(), cb.begin(), cb.end());
          all.insert(all.end(), cr.begin(), cr.end());
          return bytes_of(all);
        });
  }
}

TEST(IsaLevels, SatTablesSameBytesOnEveryLevel) {
  for (auto [w, h] : kSizes) {
    const Image img = random_hdr(w, h, 1, 11 + w);
    const float* plane = img.pixels.data();
    const std::size_t pitch = static_cast<std::size_t>(w);
    expect_same_bytes_on_every_level("sat tables", [&] {
      std::vector<double> f64(sat::table_entries(w, h));
      sat::build_sat_f64(plane, w, h, pitch, f64.data(), 0.25);
      std::vector<float> hi(sat::tiled_entries(w, h)), lo(hi.size()), f32(sat::table_entries(w, h));
      sat::build_sat_tiled(plane, w, h, pitch, hi.data(), lo.data());
      sat::build_sat_f32(plane, w, h, pitch, 0.5f, f32.data());
      const double mean = sat::plane_mean(plane, w, h, pitch);
      std::vector<std::uint8_t> out = bytes_of(f64);
      for (const auto& part : {bytes_of(hi), bytes_of(lo), bytes_of(f32), bytes_of(&mean, 1)})
        out.insert(out.end(), part.begin(), part.end());
      return out;
    });
  }
}

TEST(IsaLevels, BlurMethodsSameBytesOnEveryLevel) {
  for (auto [w, h] : kSizes) {
    const Image img = random_hdr(w, h, 3, 23 + h);
    for (const BlurMethodDesc* m : all_blur_methods())
      for (double sigma : {1.5, 4.0}) {
        const std::string id = m->id;
        const bool slow = id == "direct" || id == "reshuffle";
        if (slow && sigma > 2.0) continue;
        expect_same_bytes_on_every_level(std::string("blur ") + std::string(m->id), [&] {
          Result<Image> b = blur(img, m->id, sigma);
          EXPECT_TRUE(b.ok()) << m->id << ": " << b.status().message();
          return b.ok() ? bytes_of(b->pixels) : std::vector<std::uint8_t>{};
        });
      }
  }
}

TEST(IsaLevels, GlareAndNightSameBytesOnEveryLevel) {
  for (auto [w, h] : kSizes) {
    const Image img = random_hdr(w, h, 3, 31 + w);
    for (const char* method : {"pyramid-quasi", "separable"}) {
      GlareParams p;
      p.strength = 1.0;
      p.threshold = 2.0;
      p.radius = 0.05;
      p.method = method;
      expect_same_bytes_on_every_level(std::string("glare ") + method, [&] {
        Image out = img;
        EXPECT_TRUE(apply_glare(out, p).ok());
        const double key = glare_log_average(img);
        std::vector<std::uint8_t> b = bytes_of(out.pixels);
        const auto k = bytes_of(&key, 1);
        b.insert(b.end(), k.begin(), k.end());
        return b;
      });
    }
    for (const char* adaptation : {"0", "0.01", "0.5"}) {
      Result<NightParams> params = prepare_night({{"adaptation", adaptation}, {"acuity", "0.02"}});
      ASSERT_TRUE(params.ok()) << params.status().message();
      expect_same_bytes_on_every_level(std::string("night ") + adaptation, [&] {
        Image out = img;
        NightReport report;
        EXPECT_TRUE(apply_night(out, *params, 3, &report).ok());
        std::vector<std::uint8_t> b = bytes_of(out.pixels);
        const auto r = bytes_of(&report, 1);
        b.insert(b.end(), r.begin(), r.end());
        return b;
      });
    }
  }
}

TEST(IsaLevels, LocalOperatorsSameBytesOnEveryLevel) {
  for (auto [w, h] : kSizes) {
    const Image img = random_hdr(w, h, 3, 41 + h);
    for (const char* op : {"reinhard-local", "reinhard-sat", "drago-local", "exposure-fusion"})
      for (PixelType type : {PixelType::u8, PixelType::f32}) {
        Result<Params> params = prepare_params(op, {});
        ASSERT_TRUE(params.ok()) << params.status().message();
        expect_same_bytes_on_every_level(op, [&] {
          OutputImage out;
          EXPECT_TRUE(tone_map(img, *params, {type, 3}, Backend::cpu, out).ok());
          return std::vector<std::uint8_t>(out.bytes.begin(), out.bytes.end());
        });
      }
  }
}

// The colour-fidelity runs and FSITM's phase angle (cpu/quality/colour_batch.cpp): random linear
// colours (greys, saturated and dark ones among them) and filter responses.
TEST(IsaLevels, ColourBatchesSameBytesOnEveryLevel) {
  std::mt19937 rng(61);
  std::uniform_real_distribution<double> u(0.0, 1.0), s(-3.0, 3.0);
  for (const int n : {1, 7, 333}) {
    std::vector<double> in[6], phase[3];
    for (auto& v : in) v.resize(n);
    for (auto& v : phase) v.resize(n);
    for (int i = 0; i < n; ++i) {
      for (int c = 0; c < 6; ++c) in[c][i] = i % 5 == 0 ? in[c % 3][i] : std::pow(u(rng), 3.0) * (c < 3 ? 40.0 : 1.0);
      for (auto& v : phase) v[i] = i % 7 == 0 ? 0.0 : s(rng);
    }
    expect_same_bytes_on_every_level("colour_terms_batch n " + std::to_string(n), [&] {
      std::vector<double> out(4 * n);
      quality::detail::colour_terms_batch(in[0].data(), in[1].data(), in[2].data(), in[3].data(), in[4].data(),
                                          in[5].data(), n, out.data(), out.data() + n, out.data() + 2 * n,
                                          out.data() + 3 * n);
      return bytes_of(out);
    });
    expect_same_bytes_on_every_level("lab and ciede2000 batches n " + std::to_string(n), [&] {
      std::vector<double> lab(6 * n), de(n);
      quality::detail::lab_batch(in[0].data(), in[1].data(), in[2].data(), n, lab.data(), lab.data() + n, lab.data() + 2 * n);
      quality::detail::lab_batch(in[3].data(), in[4].data(), in[5].data(), n, lab.data() + 3 * n, lab.data() + 4 * n,
                                 lab.data() + 5 * n);
      quality::detail::ciede2000_batch(lab.data(), lab.data() + n, lab.data() + 2 * n, lab.data() + 3 * n,
                                       lab.data() + 4 * n, lab.data() + 5 * n, n, de.data());
      lab.insert(lab.end(), de.begin(), de.end());
      return bytes_of(lab);
    });
    expect_same_bytes_on_every_level("phase_angle_batch n " + std::to_string(n), [&] {
      std::vector<double> angle(n);
      quality::detail::phase_angle_batch(phase[0].data(), phase[1].data(), phase[2].data(), n, angle.data());
      return bytes_of(angle);
    });
  }
}

TEST(IsaLevels, TmqiSameBytesOnEveryLevel) {
  // TMQI needs 161 pixels a side (its five scales).
  for (auto [w, h] : std::vector<std::pair<int, int>>{{161, 161}, {203, 171}}) {
    const Image hdr = random_hdr(w, h, 3, 53 + w);
    Result<Params> params = prepare_params("reinhard", {});
    ASSERT_TRUE(params.ok());
    OutputImage ldr;
    ASSERT_TRUE(tone_map(hdr, *params, {PixelType::u8, 3}, Backend::cpu, ldr).ok());
    expect_same_bytes_on_every_level("tmqi", [&] {
      Result<quality::TmqiScore> s = quality::tmqi(hdr, ldr);
      EXPECT_TRUE(s.ok());
      return s.ok() ? bytes_of(&*s, 1) : std::vector<std::uint8_t>{};
    });
  }
}

TEST(IsaLevels, PortableNormalCdfWithinItsBound) {
  // normal_cdf.hpp states an absolute error <= 2.3e-16 against 0.5 erfc(-z / sqrt(2)); checked
  // here at 4e-16 (the reference itself rounds) on a dense grid and at the interval edges.
  double worst = 0.0, worst_z = 0.0;
  auto check = [&](double z) {
    const double ref = 0.5 * std::erfc(-z / std::sqrt(2.0));
    const double got = quality::detail::normal_cdf_portable(z);
    const double err = std::fabs(got - ref);
    if (err > worst) worst = err, worst_z = z;
  };
  for (int i = -240000; i <= 240000; ++i) check(i * 5e-5);
  for (int k = -20; k <= 20; ++k)
    for (double d : {-1e-12, 0.0, 1e-12}) check(0.5 * k + d);
  EXPECT_LE(worst, 4e-16) << "at z = " << worst_z;
  EXPECT_EQ(quality::detail::normal_cdf_portable(40.0), 1.0);
  EXPECT_LT(quality::detail::normal_cdf_portable(-40.0), 2e-19);
  EXPECT_EQ(quality::detail::normal_cdf_portable(NAN), 1.0);  // no read outside the table
}
