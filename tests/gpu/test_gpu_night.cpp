// The device night vision stage (NightEngine, apply_night on Backend::cuda) against the CPU
// reference apply_night (src/cpu/blur/night.cpp) on mesopic scenes (a 0.001-0.1 cd/m^2 background
// with lamps of 100-1000) with NaN, +-Inf, negative and zero samples, at 1x1, odd sizes, 1081p
// and 8K, in place and out of place over NaN-poisoned device memory, on the default stream and a
// user stream, with and without noise.
// Float tolerance per sample: |gpu - cpu| <= 1e-4 * |cpu| + 3e-6 * (the frame's largest sample).
// The per-pixel maths is core/night.hpp on both sides without contraction; what differs is CUDA's
// log2f (1 ulp: the acuity weight moves by ~1e-7), the double log / exp of the adapting luminance
// (a different summation order: ~1e-15) and the separable blur's float summation order (~1e-6 of
// the blurred value; worst 6.1e-7 of the image max in tests/gpu/test_gpu_blur.cpp), which a dark
// pixel beside a lamp takes in and the scotopic colour can double (the blue's largest channel is 2).
// 8-bit outputs (reinhard after the stage, the criterion): >= 99.99 % of samples equal,
// none more than 2 apart. The identity (daylight, off) is checked bit for bit. Every test that
// needs a device GTEST_SKIPs with the reason without one; the validation test needs none.
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "cuda/blur/night_engine.hpp"
#include "gpu/gpu_test_support.hpp"
#include "tonekit/night.hpp"
#include "tonekit/synth.hpp"
#include "tonekit/tone_mapper.hpp"
#include "tonekit/tonemap.hpp"

using namespace tonekit;

namespace {

Image mesopic_scene(int w, int h, unsigned seed, double level = 0.01, bool bad = true) {
  Image img(w, h, 4);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for (std::size_t i = 0; i < static_cast<std::size_t>(w) * h; ++i) {
    const double l = level * std::pow(10.0, 2.0 * u(rng) - 1.0);
    for (int c = 0; c < 3; ++c) img.pixels[i * 4 + c] = static_cast<float>(l * (0.2 + 1.6 * u(rng)));
    img.pixels[i * 4 + 3] = static_cast<float>(u(rng));
  }
  const int lamps = std::clamp(w * h / 20000, 1, 8), radius = std::max(0, std::min(w, h) / 80);
  for (int k = 0; k < lamps; ++k) {
    const int cx = static_cast<int>(u(rng) * w) % w, cy = static_cast<int>(u(rng) * h) % h;
    const float lamp = static_cast<float>(100.0 * std::pow(10.0, u(rng)));
    for (int y = std::max(0, cy - radius); y <= std::min(h - 1, cy + radius); ++y)
      for (int x = std::max(0, cx - radius); x <= std::min(w - 1, cx + radius); ++x) {
        float* p = img.pixels.data() + (static_cast<std::size_t>(y) * w + x) * 4;
        p[0] = lamp;
        p[1] = 0.7f * lamp;
        p[2] = 0.4f * lamp;
      }
  }
  if (bad && w * h >= 64) {
    const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
    const std::size_t n = static_cast<std::size_t>(w) * h;
    img.pixels[(n / 7) * 4] = nan;
    img.pixels[(n / 5) * 4 + 1] = inf;
    img.pixels[(n / 3) * 4 + 2] = -inf;
    img.pixels[(n / 2) * 4 + 1] = -3.0f;
    img.pixels[(n / 2 + 1) * 4 + 0] = img.pixels[(n / 2 + 1) * 4 + 1] = img.pixels[(n / 2 + 1) * 4 + 2] = 0.0f;
    img.pixels[(n / 4) * 4 + 3] = nan;  // alpha: carried as it is
  }
  return img;
}

NightParams night(std::vector<std::pair<std::string, std::string>> settings = {}) {
  auto p = prepare_night(settings);
  EXPECT_TRUE(p.ok()) << p.status().message();
  return p.ok() ? *p : NightParams{};
}

struct DeviceFrame {
  float* p = nullptr;
  std::size_t bytes = 0;
  explicit DeviceFrame(std::size_t n_floats, const float* from = nullptr) : bytes(n_floats * sizeof(float)) {
    EXPECT_EQ(cudaMalloc(&p, std::max<std::size_t>(bytes, 16)), cudaSuccess);
    if (from) {
      EXPECT_EQ(cudaMemcpy(p, from, bytes, cudaMemcpyHostToDevice), cudaSuccess);
    } else {
      std::vector<float> nan(n_floats, std::numeric_limits<float>::quiet_NaN());  // poisoned
      EXPECT_EQ(cudaMemcpy(p, nan.data(), bytes, cudaMemcpyHostToDevice), cudaSuccess);
    }
  }
  ~DeviceFrame() { cudaFree(p); }
  Image download(const Image& like) const {
    Image out(like.width, like.height, like.channels);
    EXPECT_EQ(cudaMemcpy(out.pixels.data(), p, bytes, cudaMemcpyDeviceToHost), cudaSuccess);
    return out;
  }
};

// Colour samples beyond the tolerance; alpha must be carried bit for bit.
std::size_t count_bad(const Image& gpu, const Image& cpu, double* worst) {
  double peak = 0.0;
  for (std::size_t i = 0; i < cpu.pixels.size(); ++i)
    if (i % 4 != 3 && std::isfinite(cpu.pixels[i])) peak = std::max(peak, static_cast<double>(cpu.pixels[i]));
  std::size_t bad = 0;
  *worst = 0.0;
  for (std::size_t i = 0; i < cpu.pixels.size(); ++i) {
    const float g = gpu.pixels[i], c = cpu.pixels[i];
    if (i % 4 == 3) {
      bad += std::memcmp(&g, &c, sizeof g) != 0;
      continue;
    }
    if (!std::isfinite(g) || !std::isfinite(c)) {  // the stage sanitises; where it is the identity
      bad += std::memcmp(&g, &c, sizeof g) != 0;   // (strength 0) a bad input sample stays, bit for bit
      continue;
    }
    const double err = std::fabs(static_cast<double>(g) - c), allowed = 1e-4 * std::fabs(c) + 3e-6 * peak;
    *worst = std::max(*worst, err / (allowed > 0 ? allowed : 1e-30));
    bad += err > allowed;
  }
  return bad;
}

void check_against_cpu(const Image& input, const NightParams& p, cudaStream_t stream, std::uint32_t frame,
                       const std::string& what) {
  Image cpu = input;
  NightReport cpu_report;
  ASSERT_TRUE(apply_night(cpu, p, frame, &cpu_report).ok()) << what;
  NightEngineConfig cfg;
  cfg.width = input.width;
  cfg.height = input.height;
  cfg.params = p;
  auto engine = NightEngine::create(cfg);
  ASSERT_TRUE(engine.ok()) << what << ": " << engine.status().message();
  for (bool in_place : {false, true}) {
    DeviceFrame in(input.pixels.size(), input.pixels.data());
    DeviceFrame out(input.pixels.size());
    float* dst = in_place ? in.p : out.p;
    ASSERT_TRUE((*engine)->run(in.p, dst, stream, frame).ok()) << what;
    NightReport report;
    ASSERT_TRUE((*engine)->read_report(report, stream).ok());
    CUDA_OK(cudaStreamSynchronize(stream));
    const Image gpu = (in_place ? in : out).download(input);
    double worst = 0.0;
    const std::size_t bad = count_bad(gpu, cpu, &worst);
    std::printf("[night] %-28s %5dx%-5d %s  L_a %.6g (cpu %.6g)  rod %.6f  worst %.3g of the tolerance\n", what.c_str(),
                input.width, input.height, in_place ? "in place" : "to out  ", report.adapting_luminance,
                cpu_report.adapting_luminance, report.rod_fraction, worst);
    EXPECT_EQ(bad, 0u) << what << (in_place ? " in place" : " out of place");
    if (cpu_report.adapting_luminance > 0)  // 0: the stage is off for these parameters on both
      EXPECT_NEAR(report.adapting_luminance / cpu_report.adapting_luminance, 1.0, 1e-9) << what;
    else
      EXPECT_EQ(report.adapting_luminance, 0.0) << what;
    EXPECT_NEAR(report.rod_fraction, cpu_report.rod_fraction, 1e-9) << what;
    EXPECT_EQ(report.blur_sigma, cpu_report.blur_sigma) << what;
  }
}

}  // namespace

TEST(GpuNight, MatchesCpuAtAwkwardSizes) {
  REQUIRE_GPU();
  const int sizes[][2] = {{1, 1}, {2, 3}, {31, 17}, {63, 33}, {257, 129}, {1920, 1081}};
  unsigned seed = 1;
  for (const auto& s : sizes) {
    check_against_cpu(mesopic_scene(s[0], s[1], seed++), night(), nullptr, 0, "defaults");
    check_against_cpu(mesopic_scene(s[0], s[1], seed++), night({{"acuity", "0.02"}, {"noise", "0.3"}}), nullptr, 7,
                      "wide blur, noise");
  }
}

TEST(GpuNight, ParametersAtTheirRangeEndsMatchTheCpu) {
  REQUIRE_GPU();
  const Image input = mesopic_scene(63, 33, 41);
  for (const ParamDesc& d : night_params())
    for (double v : {d.min_value, d.max_value}) {
      NightParams p = night();
      ASSERT_TRUE(p.set(d.name, v).ok()) << d.name;
      check_against_cpu(input, p, nullptr, 2, std::string(d.name) + "=" + std::to_string(v));
    }
}

TEST(GpuNight, MatchesCpuAt8KOnAUserStream) {
  REQUIRE_GPU();
  cudaStream_t stream = nullptr;
  CUDA_OK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  check_against_cpu(mesopic_scene(7680, 4320, 99), night(), stream, 3, "8K, user stream");
  check_against_cpu(mesopic_scene(4097, 2161, 98, 1e-4), night({{"adaptation", "0.05"}}), stream, 1,
                    "4097x2161, fixed adaptation");
  CUDA_OK(cudaStreamDestroy(stream));
}

TEST(GpuNight, EightBitOutputsAgree) {
  REQUIRE_GPU();
  const Image input = mesopic_scene(1920, 1081, 5);
  Image cpu = input, gpu = input;
  ASSERT_TRUE(apply_night(cpu, night(), Backend::cpu).ok());
  Backend ran = Backend::cpu;
  ASSERT_TRUE(apply_night(gpu, night(), Backend::cuda, &ran).ok());
  EXPECT_EQ(ran, Backend::cuda);
  auto params = prepare_params("reinhard");
  ASSERT_TRUE(params.ok());
  OutputImage a, b;
  // Both mapped on the CPU: the difference is the stage's alone.
  ASSERT_TRUE(tone_map(cpu, *params, {PixelType::u8, 4}, Backend::cpu, a).ok());
  ASSERT_TRUE(tone_map(gpu, *params, {PixelType::u8, 4}, Backend::cpu, b).ok());
  ASSERT_EQ(a.bytes.size(), b.bytes.size());
  std::size_t equal = 0, worst = 0;
  for (std::size_t i = 0; i < a.bytes.size(); ++i) {
    const int d = std::abs(static_cast<int>(a.bytes[i]) - b.bytes[i]);
    equal += d == 0;
    worst = std::max<std::size_t>(worst, d);
  }
  const double share = static_cast<double>(equal) / a.bytes.size();
  std::printf("[night] 8-bit: %.5f %% equal, worst %zu\n", 100.0 * share, worst);
  EXPECT_GE(share, 0.9999);
  EXPECT_LE(worst, 2u);
}

TEST(GpuNight, HostEntryTakesRgbAndMatchesTheCpu) {
  REQUIRE_GPU();
  const Image rgba = mesopic_scene(333, 201, 11);
  Image rgb(rgba.width, rgba.height, 3);
  for (std::size_t i = 0; i < rgb.pixels.size() / 3; ++i)
    for (int c = 0; c < 3; ++c) rgb.pixels[i * 3 + c] = rgba.pixels[i * 4 + c];
  Image cpu = rgb, gpu = rgb;
  ASSERT_TRUE(apply_night(cpu, night(), Backend::cpu).ok());
  // Twice: the second call reuses the kept engine and buffer.
  for (int run = 0; run < 2; ++run) {
    gpu = rgb;
    ASSERT_TRUE(apply_night(gpu, night(), Backend::cuda).ok());
  }
  double peak = 0.0, worst = 0.0;
  for (float v : cpu.pixels) peak = std::max(peak, static_cast<double>(v));
  for (std::size_t i = 0; i < cpu.pixels.size(); ++i) {
    const double allowed = 1e-4 * std::fabs(cpu.pixels[i]) + 3e-6 * peak;
    worst = std::max(worst, std::fabs(static_cast<double>(gpu.pixels[i]) - cpu.pixels[i]) / allowed);
  }
  EXPECT_LE(worst, 1.0);
}

TEST(GpuNight, DaylightAndOffAreTheIdentityBitForBit) {
  REQUIRE_GPU();
  const Image day = mesopic_scene(257, 129, 21, 300.0);  // log-average ~300 cd/m^2, bad samples included
  for (const NightParams& p : {night(), NightParams{}, night({{"strength", "0"}})}) {
    NightEngineConfig cfg;
    cfg.width = day.width;
    cfg.height = day.height;
    cfg.params = p;
    auto engine = NightEngine::create(cfg);
    ASSERT_TRUE(engine.ok()) << engine.status().message();
    DeviceFrame in(day.pixels.size(), day.pixels.data()), out(day.pixels.size());
    ASSERT_TRUE((*engine)->run(in.p, out.p).ok());
    ASSERT_TRUE((*engine)->run(in.p, in.p).ok());
    CUDA_OK(cudaDeviceSynchronize());
    const Image a = out.download(day), b = in.download(day);
    EXPECT_EQ(std::memcmp(a.pixels.data(), day.pixels.data(), a.pixels.size() * 4), 0) << "out of place";
    EXPECT_EQ(std::memcmp(b.pixels.data(), day.pixels.data(), b.pixels.size() * 4), 0) << "in place";
  }
}

TEST(GpuNightErrors, RefusesWhatTheCpuRefuses) {
  // No device needed: the parameters and the shape are checked first, with the CPU's messages.
  NightEngineConfig cfg;
  cfg.width = 0;
  cfg.height = 10;
  cfg.params = night();
  auto engine = NightEngine::create(cfg);
  ASSERT_FALSE(engine.ok());
  EXPECT_EQ(engine.status().code(), StatusCode::invalid_argument);
  EXPECT_NE(engine.status().message().find("no pixels"), std::string::npos);
  cfg.width = 10;
  cfg.params.blur_method = "nope";
  engine = NightEngine::create(cfg);
  ASSERT_FALSE(engine.ok());
  EXPECT_NE(engine.status().message().find("unknown blur method"), std::string::npos);
  Image grey(4, 4, 1);
  const Status s = apply_night(grey, night(), Backend::cuda);
  if (s.code() != StatusCode::no_device) {
    EXPECT_EQ(s.code(), StatusCode::invalid_argument);
    EXPECT_NE(s.message().find("RGB or RGBA"), std::string::npos) << s.message();
  }
}

// Night vision inside the device pipeline (Look::night) equals apply_night on the host followed
// by the CPU map, for float RGB, float RGBA and half RGBA inputs (the reference starts from the
// half-rounded values), global and local operators, with and without glare before it; set_night
// switches it off again (the plain pipeline's bytes). Tolerance: <= 2 codes apart, <= 1 sample
// in 500 differing: the map's own GPU/CPU differences (GpuPipeline's glare test allows the same)
// plus the stage's 1e-4 relative float differences.
TEST(GpuNight, InsideTheToneMapperMatchesTheHostStageAndTheCpuMap) {
  REQUIRE_GPU();
  const int w = 321, h = 181;
  Result<Image> img = synth::render_scene("night-drive", w, h);
  ASSERT_TRUE(img.ok());
  const NightParams np = night({{"acuity", "0.01"}});
  for (const char* op : {"reinhard", "reinhard-sat"})
    for (const InputFormat fmt : {InputFormat::rgb_f32, InputFormat::rgba_f32, InputFormat::rgba_f16})
      for (double glare_strength : {0.0, 0.1}) {
        const int c = fmt == InputFormat::rgb_f32 ? 3 : 4;
        Image source(w, h, c);
        for (int i = 0; i < w * h; ++i) {
          for (int k = 0; k < 3; ++k) {
            const float v = img->pixels[3 * i + k];
            source.pixels[c * i + k] = fmt == InputFormat::rgba_f16 ? __half2float(__float2half(v)) : v;
          }
          if (c == 4) source.pixels[c * i + 3] = 1.0f;
        }
        std::vector<unsigned char> bytes;
        if (fmt == InputFormat::rgba_f16) {
          bytes.resize(source.pixels.size() * 2);
          for (std::size_t i = 0; i < source.pixels.size(); ++i) {
            const __half hv = __float2half(source.pixels[i]);
            std::memcpy(bytes.data() + 2 * i, &hv, 2);
          }
        } else {
          bytes.resize(source.pixels.size() * sizeof(float));
          std::memcpy(bytes.data(), source.pixels.data(), bytes.size());
        }
        ToneMapperConfig cfg = gpu_test::mapper_config(w, h, fmt, {PixelType::u8, 3}, op);
        cfg.glare.strength = glare_strength;
        cfg.night = np;
        auto mapper = ToneMapper::create(cfg);
        ASSERT_TRUE(mapper.ok()) << mapper.status().message();
        DeviceFrame in(bytes.size() / sizeof(float), reinterpret_cast<const float*>(bytes.data()));
        DeviceFrame out((static_cast<std::size_t>(w) * h * 3 + 3) / 4);
        ASSERT_TRUE((*mapper)->process(in.p, 0, out.p, 0).ok());
        std::vector<unsigned char> got(static_cast<std::size_t>(w) * h * 3);
        CUDA_OK(cudaMemcpy(got.data(), out.p, got.size(), cudaMemcpyDeviceToHost));
        // The reference: glare (half input: rounded back to half, as the device's glare frame),
        // the night stage on the host, the CPU map.
        Image staged = source;
        if (glare_strength > 0) {
          GlareParams g;
          g.strength = glare_strength;
          ASSERT_TRUE(apply_glare(staged, g).ok());
          if (fmt == InputFormat::rgba_f16)
            for (float& v : staged.pixels) v = __half2float(__float2half(std::clamp(v, -65504.0f, 65504.0f)));
        }
        ASSERT_TRUE(apply_night(staged, np).ok());
        OutputImage ref;
        ASSERT_TRUE(tone_map(staged, cfg.params, {PixelType::u8, 3}, Backend::cpu, ref).ok());
        std::size_t differing = 0;
        int worst = 0;
        for (std::size_t i = 0; i < got.size(); ++i) {
          const int d = std::abs(static_cast<int>(got[i]) - ref.bytes[i]);
          differing += d != 0;
          worst = std::max(worst, d);
        }
        const std::string what = std::string(op) + " " + input_format_name(fmt) + (glare_strength > 0 ? " + glare" : "");
        std::printf("[night] pipeline %-28s worst %d, %zu of %zu samples differ\n", what.c_str(), worst, differing, got.size());
        EXPECT_LE(worst, 2) << what;
        EXPECT_LE(differing, got.size() / 500) << what;
        // Off again: the plain pipeline's bytes (the pass reads the input once more).
        ASSERT_TRUE((*mapper)->set_night(NightParams{}).ok());
        ASSERT_TRUE((*mapper)->process(in.p, 0, out.p, 0).ok());
        std::vector<unsigned char> off(got.size());
        CUDA_OK(cudaMemcpy(off.data(), out.p, off.size(), cudaMemcpyDeviceToHost));
        ToneMapperConfig plain_cfg = cfg;
        plain_cfg.night = NightParams{};
        auto plain = ToneMapper::create(plain_cfg);
        ASSERT_TRUE(plain.ok());
        ASSERT_TRUE((*plain)->process(in.p, 0, out.p, 0).ok());
        std::vector<unsigned char> plain_bytes(got.size());
        CUDA_OK(cudaMemcpy(plain_bytes.data(), out.p, plain_bytes.size(), cudaMemcpyDeviceToHost));
        EXPECT_EQ(off, plain_bytes) << what;
        EXPECT_NE(got, plain_bytes) << what;
      }
}
