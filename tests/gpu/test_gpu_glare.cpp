// The device glare (GlareEngine, cuda_entry::apply_glare_host) against the CPU reference apply_glare
// on HDR scenes of a few lamps (1e3-1e4) on a 0.01-1 background, with NaN, +Inf,
// -Inf and negative samples, at 1x1, 31x17, 257x129 and 1920x1080, 3 and 4 channels (and grey),
// under the default stream and a user stream, over poisoned device memory; strength 0 is a
// bit-exact no-op; invalid parameters give the CPU's errors.
// Tolerance per sample: |gpu - cpu| <= 1e-4 * max(|cpu|, |input|, 1e-3). The bright pass, the
// threshold and the accumulation round identically on both (shared maths, no contraction), so
// the difference is the blurs' float summation order (tests/gpu/test_gpu_blur.cpp: 1e-5 of the
// image max; all weights positive, so relative per sample too), scaled by the octave weights.
// |input| is in the scale because the result is input + glare: a negative input sample next
// to a lamp can cancel the glare to ~0, leaving an absolute error of one rounding of |input|.
// Non-finite samples must match exactly (the same class: NaN, +Inf, -Inf), and only the input's
// own non-finite samples may be non-finite (a NaN never spreads through the blur).
// Every test that needs a device GTEST_SKIPs with the reason without one; the validation tests
// need none (cuda_entry::apply_glare_host and GlareEngine::create check parameters before the device).
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
#include <utility>
#include <vector>

#include "gpu/gpu_test_support.hpp"
#include "tonekit/blur.hpp"
#include "api/cuda_entry.hpp"
#include "cuda/blur/glare_engine.hpp"

using namespace tonekit;

namespace {

constexpr double kTolerance = 1e-4;

// Background in [0.01, 1] per channel (alpha in [0, 1]), a few lamps (discs of 1e3-1e4 with a
// tint), and, when `bad`, one NaN, +Inf, -Inf and negative sample each on the background and a
// NaN and an Inf inside the first lamp (not bright: they must not spread).
Image lamp_scene(int w, int h, int c, unsigned seed, bool bad) {
  Image img(w, h, c);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  for (std::size_t i = 0; i < img.pixels.size(); ++i)
    img.pixels[i] = (c >= 4 && i % c == 3) ? u(rng) : 0.01f + 0.99f * u(rng);
  const int lamps = std::clamp(w * h / 20000, 1, 6);
  const int radius = std::max(0, std::min(w, h) / 60);
  std::vector<std::size_t> lamp_centres;
  for (int l = 0; l < lamps; ++l) {
    const int cx = static_cast<int>(u(rng) * w) % w, cy = static_cast<int>(u(rng) * h) % h;
    const float level = 1e3f * std::pow(10.0f, u(rng));
    const float tint[3] = {1.0f, 0.6f + 0.4f * u(rng), 0.3f + 0.7f * u(rng)};
    lamp_centres.push_back(static_cast<std::size_t>(cy) * w + cx);
    for (int y = std::max(0, cy - radius); y <= std::min(h - 1, cy + radius); ++y)
      for (int x = std::max(0, cx - radius); x <= std::min(w - 1, cx + radius); ++x) {
        if ((x - cx) * (x - cx) + (y - cy) * (y - cy) > radius * radius) continue;
        float* p = img.pixels.data() + (static_cast<std::size_t>(y) * w + x) * c;
        for (int k = 0; k < std::min(c, 3); ++k) p[k] = level * tint[k];
      }
  }
  if (bad && w * h >= 64) {
    const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
    auto sample = [&](std::size_t pixel, int k) -> float& { return img.pixels[pixel * c + std::min(k, c - 1)]; };
    const std::size_t n = static_cast<std::size_t>(w) * h;
    sample(n / 7, 0) = nan;
    sample(n / 5, 1) = inf;
    sample(n / 3, 2) = -inf;
    sample(n / 2, 1) = -3.0f;
    sample(lamp_centres[0], 0) = nan;
    if (radius > 0) sample(lamp_centres[0] + 1 < n ? lamp_centres[0] + 1 : lamp_centres[0] - 1, 1) = inf;
  }
  return img;
}

struct Diff {
  std::size_t bad = 0, non_finite = 0, mismatched_non_finite = 0;
  double worst = 0.0;  // of |gpu - cpu| / scale
};

Diff compare(const Image& gpu, const Image& cpu, const Image& input, double tolerance = kTolerance) {
  Diff d;
  for (std::size_t i = 0; i < cpu.pixels.size(); ++i) {
    const float g = gpu.pixels[i], r = cpu.pixels[i];
    if (!std::isfinite(r) || !std::isfinite(g)) {
      ++d.non_finite;
      const bool same = (std::isnan(r) && std::isnan(g)) || r == g;
      const bool from_input = !std::isfinite(input.pixels[i]);
      d.mismatched_non_finite += !same || !from_input;
      continue;
    }
    const double scale = std::max({std::fabs(static_cast<double>(r)), std::fabs(static_cast<double>(input.pixels[i])), 1e-3});
    const double rel = std::fabs(static_cast<double>(g) - r) / scale;
    d.worst = std::max(d.worst, rel);
    d.bad += rel > tolerance;
  }
  return d;
}

std::size_t count_non_finite(const Image& img) {
  std::size_t n = 0;
  for (float v : img.pixels) n += !std::isfinite(v);
  return n;
}

GlareParams glare(double strength, double radius, double threshold = 30.0, int octaves = 3,
                  const std::string& method = "pyramid-quasi") {
  GlareParams p;
  p.strength = strength;
  p.radius = radius;
  p.threshold = threshold;
  p.octaves = octaves;
  p.method = method;
  return p;
}

struct DeviceImage {
  float* p = nullptr;
  std::size_t bytes = 0;
  explicit DeviceImage(const Image& img) : bytes(img.pixels.size() * sizeof(float)) {
    EXPECT_EQ(cudaMalloc(&p, std::max<std::size_t>(bytes, 4)), cudaSuccess);
    EXPECT_EQ(cudaMemcpy(p, img.pixels.data(), bytes, cudaMemcpyHostToDevice), cudaSuccess);
  }
  ~DeviceImage() { cudaFree(p); }
  Image download(const Image& like) const {
    Image out(like.width, like.height, like.channels);
    EXPECT_EQ(cudaMemcpy(out.pixels.data(), p, bytes, cudaMemcpyDeviceToHost), cudaSuccess);
    return out;
  }
};

GlareEngineConfig config_for(const Image& img, const GlareParams& p) {
  GlareEngineConfig cfg;
  cfg.width = img.width;
  cfg.height = img.height;
  cfg.channels = img.channels;
  cfg.params = p;
  return cfg;
}

std::unique_ptr<GlareEngine> make_engine(const Image& img, const GlareParams& p) {
  auto engine = GlareEngine::create(config_for(img, p));
  EXPECT_TRUE(engine.ok()) << engine.status().message();
  return engine.ok() ? std::move(*engine) : nullptr;
}

// GPU (engine on `stream`) against CPU for one scene; also the device's key against the CPU's.
void check_against_cpu(const Image& input, const GlareParams& p, cudaStream_t stream, const std::string& what) {
  Image cpu = input;
  const Status cs = apply_glare(cpu, p);
  ASSERT_TRUE(cs.ok()) << what << ": " << cs.message();
  auto engine = make_engine(input, p);
  ASSERT_TRUE(engine);
  DeviceImage dev(input);
  const Status rs = engine->run(dev.p, stream);
  ASSERT_TRUE(rs.ok()) << what << ": " << rs.message();
  GlareKey key;
  if (engine->active()) ASSERT_TRUE(engine->read_key(key, stream).ok());
  CUDA_OK(cudaStreamSynchronize(stream));
  const Image gpu = dev.download(input);
  const Diff d = compare(gpu, cpu, input);
  const double la = glare_log_average(input);
  std::printf("[glare] %-34s %4dx%-4d c%d active %d  key %.6g (cpu %.6g)  worst %.3g  non-finite %zu\n", what.c_str(),
              input.width, input.height, input.channels, engine->active() ? 1 : 0, key.log_average, la, d.worst,
              d.non_finite);
  EXPECT_EQ(d.bad, 0u) << what << ": samples beyond the tolerance; worst " << d.worst;
  EXPECT_EQ(d.mismatched_non_finite, 0u) << what;
  EXPECT_EQ(count_non_finite(cpu), count_non_finite(input)) << what << ": the CPU spread a NaN/Inf";
  if (engine->active()) {
    EXPECT_NEAR(key.log_average / la, 1.0, 1e-9) << what;
    EXPECT_NEAR(key.threshold, static_cast<float>(p.threshold * la), 2e-7 * key.threshold) << what;
  }
}

// Radius per size so that every size has octaves (sigma = radius * longer side >= 0.5).
double radius_for(int w, int h) { return std::clamp(1.6 / std::max(w, h), 0.01, 0.5); }

}  // namespace

TEST(GpuGlare, MatchesCpuAtAwkwardSizes) {
  REQUIRE_GPU();
  const int sizes[][2] = {{1, 1}, {31, 17}, {257, 129}, {1920, 1080}};
  unsigned seed = 1;
  for (const auto& s : sizes)
    for (int c : {3, 4}) {
      const int w = s[0], h = s[1];
      // 1x1: its own log-average, so a threshold under 1 is needed for anything to be bright.
      const GlareParams p = glare(0.5, radius_for(w, h), w * h == 1 ? 0.5 : 30.0);
      check_against_cpu(lamp_scene(w, h, c, seed++, true), p, nullptr, "pyramid-quasi, bad pixels");
    }
}

TEST(GpuGlare, MatchesCpuOnGreyAndOtherBlurs) {
  REQUIRE_GPU();
  for (int c : {1, 2}) check_against_cpu(lamp_scene(257, 129, c, 10 + c, true), glare(1.0, 0.02), nullptr, "grey");
  const Image img = lamp_scene(257, 129, 4, 20, true);
  check_against_cpu(img, glare(1.0, 0.02, 30.0, 1, "gaussian"), nullptr, "gaussian, 1 octave");
  check_against_cpu(img, glare(2.0, 0.01, 30.0, 4, "separable"), nullptr, "separable, 4 octaves");
  check_against_cpu(img, glare(0.3, 0.02, 30.0, 3, "repeated-box"), nullptr, "repeated-box");
  check_against_cpu(img, glare(0.5, 0.02, 0.0), nullptr, "threshold 0: everything bright");
  check_against_cpu(img, glare(10.0, 0.03, 1e6), nullptr, "threshold 1e6: nothing bright");
  // radius 0.5: sigma 128.5, 257, 514; 1028 and beyond are dropped as on the CPU.
  check_against_cpu(lamp_scene(257, 129, 3, 21, false), glare(1.0, 0.5, 30.0, 8), nullptr, "octaves past sigma 1000");
}

// A user stream: the same bits as the default stream (the reduction's order is fixed), and the
// CPU's result within the tolerance.
TEST(GpuGlare, UserStreamSameBitsAsDefaultStream) {
  REQUIRE_GPU();
  const Image img = lamp_scene(333, 127, 4, 31, true);
  const GlareParams p = glare(0.8, 0.02);
  cudaStream_t s = nullptr;
  CUDA_OK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  check_against_cpu(img, p, s, "user stream");
  auto engine = make_engine(img, p);
  ASSERT_TRUE(engine);
  DeviceImage a(img), b(img);
  ASSERT_TRUE(engine->run(a.p, nullptr).ok());
  CUDA_OK(cudaDeviceSynchronize());
  ASSERT_TRUE(engine->run(b.p, s).ok());
  CUDA_OK(cudaStreamSynchronize(s));
  const Image ga = a.download(img), gb = b.download(img);
  EXPECT_EQ(std::memcmp(ga.pixels.data(), gb.pixels.data(), a.bytes), 0) << "default and user stream differ";
  CUDA_OK(cudaStreamDestroy(s));
}

// Poisoned device memory: the heap is filled with NaN bytes (0xFF) and freed before the engine
// allocates its scratch (cudaMalloc hands freed memory back uncleared, so the scratch most
// likely starts as NaN), and the engine first runs on another frame; the result must be the
// same bits as a fresh engine's on clean memory and match the CPU.
TEST(GpuGlare, PoisonedScratchAndPreviousFrameDoNotLeak) {
  REQUIRE_GPU();
  const Image img = lamp_scene(301, 167, 4, 41, true);
  const Image other = lamp_scene(301, 167, 4, 42, false);
  const GlareParams p = glare(1.0, 0.02);
  auto fresh = make_engine(img, p);
  ASSERT_TRUE(fresh);
  DeviceImage clean(img);
  ASSERT_TRUE(fresh->run(clean.p, nullptr).ok());
  const Image expected = clean.download(img);
  const std::size_t poison_bytes = 2 * fresh->scratch_bytes() + (64u << 20);
  fresh.reset();
  void* heap = nullptr;
  CUDA_OK(cudaMalloc(&heap, poison_bytes));
  CUDA_OK(cudaMemset(heap, 0xFF, poison_bytes));
  CUDA_OK(cudaDeviceSynchronize());
  CUDA_OK(cudaFree(heap));
  auto engine = make_engine(img, p);
  ASSERT_TRUE(engine);
  DeviceImage first(other), frame(img);
  ASSERT_TRUE(engine->run(first.p, nullptr).ok());
  ASSERT_TRUE(engine->run(frame.p, nullptr).ok());
  const Image got = frame.download(img);
  EXPECT_EQ(std::memcmp(got.pixels.data(), expected.pixels.data(), frame.bytes), 0)
      << "the result depends on the scratch's previous contents";
  Image cpu = img;
  ASSERT_TRUE(apply_glare(cpu, p).ok());
  const Diff d = compare(got, cpu, img);
  EXPECT_EQ(d.bad, 0u) << "worst " << d.worst;
  EXPECT_EQ(d.mismatched_non_finite, 0u);
}

// Strength 0 (and a radius below half a pixel) is off: run() leaves the frame bit-identical.
TEST(GpuGlare, StrengthZeroIsBitExactNoOp) {
  REQUIRE_GPU();
  const Image img = lamp_scene(64, 48, 4, 51, true);
  for (const GlareParams& p : {glare(0.0, 0.05), glare(5.0, 0.005)}) {
    auto engine = make_engine(img, p);
    ASSERT_TRUE(engine);
    EXPECT_FALSE(engine->active());
    EXPECT_EQ(engine->scratch_bytes(), 0u);
    DeviceImage dev(img);
    ASSERT_TRUE(engine->run(dev.p, nullptr).ok());
    const Image got = dev.download(img);
    EXPECT_EQ(std::memcmp(got.pixels.data(), img.pixels.data(), dev.bytes), 0);
    GlareKey key;
    EXPECT_FALSE(engine->read_key(key).ok()) << "no key when the effect is off";
  }
}

// No device needed: the host convenience is a no-op for strength 0, like the CPU.
// Device memory of the default glare at 4K RGBA float: the octaves' blur engines share one
// BlurWorkspace, so the scratch is the bright and blurred planes plus the largest octave's
// padded planes and pyramid, not the sum of three (1.6 GB before the workspace; the frame itself
// is 133 MB).
TEST(GpuGlare, ScratchAt4KStaysBelowOneGigabyte) {
  REQUIRE_GPU();
  GlareEngineConfig cfg;
  cfg.width = 3840;
  cfg.height = 2160;
  cfg.channels = 4;
  cfg.params.strength = 0.1;
  auto engine = GlareEngine::create(cfg);
  ASSERT_TRUE(engine.ok()) << engine.status().message();
  ASSERT_TRUE((*engine)->active());
  const std::size_t bytes = (*engine)->scratch_bytes();
  std::printf("[glare] 3840x2160 RGBA, default parameters: %.1f MB of scratch\n", bytes / 1e6);
  EXPECT_LT(bytes, std::size_t{1} << 30);
}

// The ToneMapper's sources (GlareEngine::run with a GlareSource): a half RGBA input with a row
// stride, read where it lies and written once as half (half_frames), and a float RGBA input with a
// stride into a packed float frame; for the shared pyramid and for a method run octave by octave
// (copy, then in place, then narrowed to half). The CPU reference sees the half-rounded input and
// its result is rounded to half (saturating at 65504) as the device rounds it: the tolerance is
// one half ulp (2^-11 relative) on top of the float tolerance. The source is never written.
TEST(GpuGlare, HalfAndStridedSourcesMatchCpu) {
  REQUIRE_GPU();
  const int w = 257, h = 129;
  Image input = lamp_scene(w, h, 4, 41, true);
  for (float& v : input.pixels) v = __half2float(__float2half(std::isfinite(v) ? std::clamp(v, -65504.0f, 65504.0f) : v));
  auto to_half = [](float v) { return __half2float(__float2half(std::isfinite(v) ? std::clamp(v, -65504.0f, 65504.0f) : v)); };
  for (const char* method : {"pyramid-quasi", "gaussian"}) {
    const GlareParams p = glare(0.5, 0.02, 30.0, 3, method);
    Image cpu = input;
    ASSERT_TRUE(apply_glare(cpu, p).ok());
    // Half, rows 64 bytes apart beyond their pixels.
    {
      const std::size_t row = std::size_t(w) * 8, stride = row + 64;
      std::vector<unsigned char> host(stride * h, 0xEE);
      for (int y = 0; y < h; ++y)
        for (int x = 0; x < w * 4; ++x) {
          const __half hv = __float2half(input.pixels[std::size_t(y) * w * 4 + x]);
          std::memcpy(host.data() + stride * y + 2 * x, &hv, 2);
        }
      void* src = nullptr;
      void* out = nullptr;
      CUDA_OK(cudaMalloc(&src, host.size()));
      CUDA_OK(cudaMalloc(&out, row * h));
      CUDA_OK(cudaMemcpy(src, host.data(), host.size(), cudaMemcpyHostToDevice));
      CUDA_OK(cudaMemset(out, 0xFF, row * h));  // poisoned (NaN halves)
      GlareEngineConfig cfg = config_for(input, p);
      cfg.half_frames = true;
      auto engine = GlareEngine::create(cfg);
      ASSERT_TRUE(engine.ok()) << engine.status().message();
      ASSERT_TRUE((*engine)->run(GlareSource{src, stride, true}, out, nullptr).ok());
      EXPECT_EQ((*engine)->run(input.pixels.data(), nullptr).code(), StatusCode::invalid_argument) << "half engine, float call";
      std::vector<__half> got(std::size_t(w) * h * 4);
      std::vector<unsigned char> after(host.size());
      CUDA_OK(cudaMemcpy(got.data(), out, row * h, cudaMemcpyDeviceToHost));
      CUDA_OK(cudaMemcpy(after.data(), src, after.size(), cudaMemcpyDeviceToHost));
      EXPECT_EQ(after, host) << "the source is read, not written";
      cudaFree(src);
      cudaFree(out);
      Image gpu(w, h, 4), ref = cpu;
      for (std::size_t i = 0; i < got.size(); ++i) gpu.pixels[i] = __half2float(got[i]);
      for (float& v : ref.pixels) v = to_half(v);
      const Diff d = compare(gpu, ref, input, kTolerance + std::ldexp(1.0, -11));
      std::printf("[glare] half source, stride %zu, %-14s worst %.3g  non-finite %zu\n", stride, method, d.worst, d.non_finite);
      EXPECT_EQ(d.bad, 0u) << method << ": worst " << d.worst;
      EXPECT_EQ(d.mismatched_non_finite, 0u) << method;
    }
    // Float, rows 48 bytes apart beyond their pixels, into a packed float frame.
    {
      const std::size_t row = std::size_t(w) * 16, stride = row + 48;
      std::vector<unsigned char> host(stride * h, 0xEE);
      for (int y = 0; y < h; ++y) std::memcpy(host.data() + stride * y, input.pixels.data() + std::size_t(y) * w * 4, row);
      void* src = nullptr;
      float* out = nullptr;
      CUDA_OK(cudaMalloc(&src, host.size()));
      CUDA_OK(cudaMalloc(&out, row * h));
      CUDA_OK(cudaMemcpy(src, host.data(), host.size(), cudaMemcpyHostToDevice));
      CUDA_OK(cudaMemset(out, 0xFF, row * h));
      auto engine = GlareEngine::create(config_for(input, p));
      ASSERT_TRUE(engine.ok()) << engine.status().message();
      ASSERT_TRUE((*engine)->run(GlareSource{src, stride, false}, out, nullptr).ok());
      Image gpu(w, h, 4);
      CUDA_OK(cudaMemcpy(gpu.pixels.data(), out, row * h, cudaMemcpyDeviceToHost));
      cudaFree(src);
      cudaFree(out);
      const Diff d = compare(gpu, cpu, input);
      std::printf("[glare] float source, stride %zu, %-14s worst %.3g  non-finite %zu\n", stride, method, d.worst, d.non_finite);
      EXPECT_EQ(d.bad, 0u) << method << ": worst " << d.worst;
      EXPECT_EQ(d.mismatched_non_finite, 0u) << method;
    }
  }
}

// The ToneMapper's surface path (GL textures, Vulkan images): the glare reads a CUDA array of half
// or float RGBA through a surface object where it lies, with no copy into linear memory. The
// bytes must be those of the same pixels read from linear memory: the shared pyramid (its key,
// bright pass and final add read the source) and a method run octave by octave (its copy reads
// it), at an odd size and at 1080p; the outputs poisoned first.
TEST(GpuGlare, SurfaceSourceSameBytesAsLinear) {
  REQUIRE_GPU();
  for (const auto& [w, h] : {std::pair{257, 129}, std::pair{1920, 1080}}) {
    Image input = lamp_scene(w, h, 4, 43, true);
    for (float& v : input.pixels) v = __half2float(__float2half(std::isfinite(v) ? std::clamp(v, -65504.0f, 65504.0f) : v));
    for (const char* method : {"pyramid-quasi", "gaussian"}) {
      if (w > 1000 && std::string(method) == "gaussian") continue;  // the octave-by-octave path: small frame only
      const GlareParams p = glare(0.5, 0.02, 30.0, 3, method);
      for (const bool half : {true, false}) {
        const std::size_t px = half ? 8 : 16, row = std::size_t(w) * px, bytes = row * h;
        std::vector<unsigned char> host(bytes);
        for (std::size_t i = 0; i < input.pixels.size(); ++i) {
          if (half) {
            const __half hv = __float2half(input.pixels[i]);
            std::memcpy(host.data() + 2 * i, &hv, 2);
          } else {
            std::memcpy(host.data() + 4 * i, &input.pixels[i], 4);
          }
        }
        void* linear = nullptr;
        void* out_linear = nullptr;
        void* out_surface = nullptr;
        CUDA_OK(cudaMalloc(&linear, bytes));
        CUDA_OK(cudaMalloc(&out_linear, bytes));
        CUDA_OK(cudaMalloc(&out_surface, bytes));
        CUDA_OK(cudaMemcpy(linear, host.data(), bytes, cudaMemcpyHostToDevice));
        CUDA_OK(cudaMemset(out_linear, 0xFF, bytes));
        CUDA_OK(cudaMemset(out_surface, 0xFF, bytes));
        const cudaChannelFormatDesc desc = half ? cudaCreateChannelDescHalf4() : cudaCreateChannelDesc<float4>();
        cudaArray_t array = nullptr;
        CUDA_OK(cudaMallocArray(&array, &desc, w, h, cudaArraySurfaceLoadStore));
        CUDA_OK(cudaMemcpy2DToArray(array, 0, 0, host.data(), row, row, h, cudaMemcpyHostToDevice));
        cudaResourceDesc res{};
        res.resType = cudaResourceTypeArray;
        res.res.array.array = array;
        cudaSurfaceObject_t surface = 0;
        CUDA_OK(cudaCreateSurfaceObject(&surface, &res));
        GlareEngineConfig cfg = config_for(input, p);
        cfg.half_frames = half;
        auto engine = GlareEngine::create(cfg);
        ASSERT_TRUE(engine.ok()) << engine.status().message();
        ASSERT_TRUE((*engine)->run(GlareSource{linear, 0, half}, out_linear, nullptr).ok());
        ASSERT_TRUE((*engine)->run(GlareSource{nullptr, 0, half, surface}, out_surface, nullptr).ok());
        std::vector<unsigned char> a(bytes), b(bytes);
        CUDA_OK(cudaMemcpy(a.data(), out_linear, bytes, cudaMemcpyDeviceToHost));
        CUDA_OK(cudaMemcpy(b.data(), out_surface, bytes, cudaMemcpyDeviceToHost));
        std::size_t differ = 0;
        for (std::size_t i = 0; i < bytes; ++i) differ += a[i] != b[i];
        std::printf("[glare] surface source %dx%d %-14s %s: %zu of %zu bytes differ from the linear source\n", w, h, method,
                    half ? "half " : "float", differ, bytes);
        EXPECT_EQ(differ, 0u) << w << "x" << h << " " << method << (half ? " half" : " float");
        EXPECT_NE(a, std::vector<unsigned char>(bytes, 0xFF)) << "the glare wrote its output";
        CUDA_OK(cudaDestroySurfaceObject(surface));
        CUDA_OK(cudaFreeArray(array));
        cudaFree(linear);
        cudaFree(out_linear);
        cudaFree(out_surface);
      }
    }
  }
  // A surface is RGBA: an engine of 3 float channels refuses one.
  Image rgb = lamp_scene(64, 32, 3, 44, true);
  auto engine = GlareEngine::create(config_for(rgb, glare(0.5, 0.05, 30.0, 3, "pyramid-quasi")));
  ASSERT_TRUE(engine.ok()) << engine.status().message();
  void* out = nullptr;
  CUDA_OK(cudaMalloc(&out, rgb.pixels.size() * sizeof(float)));
  EXPECT_EQ((*engine)->run(GlareSource{nullptr, 0, false, 1ull}, out, nullptr).code(), StatusCode::invalid_argument);
  cudaFree(out);
}

TEST(GpuGlare, HostStrengthZeroIsNoOpWithoutDevice) {
  Image img = lamp_scene(31, 17, 3, 61, true);
  const Image before = img;
  ASSERT_TRUE(cuda_entry::apply_glare_host(img, glare(0.0, 0.1)).ok());
  EXPECT_EQ(std::memcmp(img.pixels.data(), before.pixels.data(), img.pixels.size() * sizeof(float)), 0);
}

// No device needed: every invalid parameter gives the CPU's status (code and message), through
// cuda_entry::apply_glare_host and GlareEngine::create, and so does an inconsistent image.
TEST(GpuGlare, InvalidParametersGiveTheCpuErrors) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<GlareParams> bad = {glare(-1.0, 0.01), glare(11.0, 0.01), glare(nan, 0.01),       glare(1.0, -0.1),
                                  glare(1.0, 0.6),   glare(1.0, nan),   glare(1.0, 0.01, -1.0), glare(1.0, 0.01, 2e6),
                                  glare(1.0, 0.01, 30.0, 0), glare(1.0, 0.01, 30.0, 9),
                                  glare(1.0, 0.01, 30.0, 3, "nope")};
  const Image img = lamp_scene(40, 30, 4, 71, false);
  for (const GlareParams& p : bad) {
    Image a = img, b = img;
    const Status cpu = apply_glare(a, p), gpu = cuda_entry::apply_glare_host(b, p);
    ASSERT_FALSE(cpu.ok());
    EXPECT_EQ(gpu.code(), cpu.code()) << cpu.message();
    EXPECT_EQ(gpu.message(), cpu.message());
    const auto engine = GlareEngine::create(config_for(img, p));
    EXPECT_EQ(engine.status().code(), cpu.code());
    EXPECT_EQ(engine.status().message(), cpu.message());
  }
  Image broken = img;
  broken.pixels.pop_back();
  Image broken_cpu = broken;
  const Status cpu = apply_glare(broken_cpu, glare(1.0, 0.1)), gpu = cuda_entry::apply_glare_host(broken, glare(1.0, 0.1));
  EXPECT_EQ(gpu.code(), StatusCode::invalid_argument);
  EXPECT_EQ(gpu.message(), cpu.message());
}
