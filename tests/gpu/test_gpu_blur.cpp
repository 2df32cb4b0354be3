// The CUDA blur (BlurEngine, blur on Backend::cuda) against the CPU blur library, method by method:
// every registry method on grey and RGBA images at 1x1, 31x17, 256x256 and
// 1920x1080, random HDR data (values in [0, 1) with sparse spikes of 100) and hard edges, plus a
// user stream, poisoned outputs and larger sigmas.
// Tolerance: max |gpu - cpu| <= tol * max |cpu| over the image, tol by what differs:
//  - gaussian 1e-6: both accumulate in float64; only the float rounding of the row pass differs.
//  - separable, direct, reshuffle, pyramids, repeated-box, spreading 1e-5: float summation
//    order and FMA contraction.
//  - fft 2e-5: cuFFT vs FFTW, both float, different factorisations.
//  - diffusion 2e-5: one rounding difference per step compounds over the steps.
// Every test GTEST_SKIPs with the reason when there is no CUDA device.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <cstring>
#include <tuple>
#include <vector>

#include "gpu/gpu_test_support.hpp"
#include "tonekit/blur.hpp"
#include "cpu/blur/blur_math.hpp"
#include "cuda/blur/blur_kernels.hpp"
#include "cuda/tuning.hpp"
#include "tonekit/blur_cuda.hpp"

using namespace tonekit;

namespace {



double tolerance(const std::string& id) {
  if (id == "gaussian") return 1e-6;
  if (id == "fft" || id == "diffusion") return 2e-5;
  return 1e-5;
}

Image random_image(int w, int h, int c, unsigned seed) {
  Image img(w, h, c);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  for (float& v : img.pixels) v = u(rng) < 0.002f ? 100.0f : u(rng);
  return img;
}

// A bright square and a vertical step touching the borders: exercises the clamped edges.
Image edge_image(int w, int h, int c) {
  Image img(w, h, c);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      for (int k = 0; k < c; ++k) {
        const bool square = x >= w / 4 && x < w / 2 && y >= h / 4 && y < h / 2;
        img.pixels[(static_cast<size_t>(y) * w + x) * c + k] = (square ? 50.0f : 0.0f) + (x < w / 3 ? 1.0f : 0.1f * k);
      }
  return img;
}

struct Diff {
  double max_abs = 0.0, ref_max = 0.0;
  size_t non_finite = 0;
};

Diff compare(const Image& gpu, const Image& cpu) {
  Diff d;
  for (size_t i = 0; i < cpu.pixels.size(); ++i) {
    if (!std::isfinite(gpu.pixels[i])) ++d.non_finite;
    d.max_abs = std::max(d.max_abs, std::fabs(static_cast<double>(gpu.pixels[i]) - cpu.pixels[i]));
    d.ref_max = std::max(d.ref_max, std::fabs(static_cast<double>(cpu.pixels[i])));
  }
  return d;
}

BlurEngineConfig engine_config(int w, int h, int c, const BlurPlan& plan) {
  BlurEngineConfig cfg;
  cfg.width = w;
  cfg.height = h;
  cfg.channels = c;
  cfg.plan = plan;
  return cfg;
}

// img through engine on `stream` into a NaN-poisoned output (every sample must be written).
Image run_engine(BlurEngine& engine, const Image& img, cudaStream_t stream = nullptr) {
  const size_t bytes = img.pixels.size() * sizeof(float);
  Image gpu(img.width, img.height, img.channels);
  float *din = nullptr, *dout = nullptr;
  EXPECT_EQ(cudaMalloc(&din, bytes), cudaSuccess);
  EXPECT_EQ(cudaMalloc(&dout, bytes), cudaSuccess);
  EXPECT_EQ(cudaMemcpy(din, img.pixels.data(), bytes, cudaMemcpyHostToDevice), cudaSuccess);
  EXPECT_EQ(cudaMemset(dout, 0xff, bytes), cudaSuccess);
  EXPECT_TRUE(engine.run(din, dout, stream).ok());
  EXPECT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  EXPECT_EQ(cudaMemcpy(gpu.pixels.data(), dout, bytes, cudaMemcpyDeviceToHost), cudaSuccess);
  cudaFree(din);
  cudaFree(dout);
  return gpu;
}

// Runs method on img on both backends; fails with the numbers when outside the tolerance.
void check_method(const std::string& id, const Image& img, double sigma, const BlurSettings& settings = {}) {
  auto plan = plan_blur(id, sigma, settings);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  auto cpu = blur(img, *plan);
  ASSERT_TRUE(cpu.ok()) << cpu.status().message();
  auto gpu = blur(img, *plan, Backend::cuda);
  if (!gpu.ok() && gpu.status().code() == StatusCode::unsupported) GTEST_SKIP() << gpu.status().message();
  ASSERT_TRUE(gpu.ok()) << gpu.status().message();
  const Diff d = compare(*gpu, *cpu);
  const double rel = d.max_abs / std::max(d.ref_max, 1e-30);
  std::printf("[blur] %-13s %4dx%-4d c%d sigma %-5g %-28s max|diff| %.3g (%.3g of max %.3g)\n", id.c_str(), img.width,
              img.height, img.channels, sigma, plan->describe().c_str(), d.max_abs, rel, d.ref_max);
  EXPECT_EQ(d.non_finite, 0u) << id;
  EXPECT_LE(rel, tolerance(id)) << id << " " << img.width << "x" << img.height << " c" << img.channels << " sigma "
                                << sigma;
}

const std::vector<std::string>& method_ids() {
  static const std::vector<std::string> ids = [] {
    std::vector<std::string> v;
    for (const BlurMethodDesc* m : all_blur_methods()) v.push_back(m->id);
    return v;
  }();
  return ids;
}

class GpuBlurMethod : public ::testing::TestWithParam<std::string> {};

TEST_P(GpuBlurMethod, AwkwardSizesGreyAndRgba) {
  REQUIRE_GPU();
  const std::string id = GetParam();
  const int sizes[][2] = {{1, 1}, {31, 17}, {17, 31}, {256, 256}};
  unsigned seed = 1;
  for (const auto& s : sizes)
    for (int c : {1, 4}) {
      check_method(id, random_image(s[0], s[1], c, seed++), 2.5);
      check_method(id, edge_image(s[0], s[1], c), 2.5);
    }
}

TEST_P(GpuBlurMethod, FullHdRgba) {
  REQUIRE_GPU();
  check_method(GetParam(), random_image(1920, 1080, 4, 7), 3.0);
}

TEST_P(GpuBlurMethod, LargerSigma) {
  REQUIRE_GPU();
  const std::string id = GetParam();
  if (id == "direct" || id == "reshuffle" || id == "diffusion") {
    check_method(id, edge_image(96, 80, 4), 6.0);  // O(sigma^2) per pixel (or steps): kept small
    return;
  }
  check_method(id, random_image(300, 200, 4, 11), 12.0);
  check_method(id, edge_image(300, 200, 1), 24.0);
}

// Prefix GpuBlur so that --gtest_filter='GpuBlur*' selects these too (full name
// GpuBlurAll/GpuBlurMethod.Test/method).
INSTANTIATE_TEST_SUITE_P(GpuBlurAll, GpuBlurMethod, ::testing::ValuesIn(method_ids()),
                         [](const auto& info) {
                           std::string n = info.param;
                           std::replace(n.begin(), n.end(), '-', '_');
                           return n;
                         });

TEST(GpuBlur, VariantsAgree) {
  REQUIRE_GPU();
  const Image img = random_image(200, 130, 4, 21);
  check_method("repeated-box", img, 5.0, {{"sat", "1"}});
  check_method("repeated-box", img, 5.0, {{"passes", "5"}});
  check_method("pyramid-quasi", img, 6.0, {{"refine", "0"}});
  check_method("spreading", img, 0.0, {{"radius", "1"}});
  Image rgb = random_image(45, 33, 3, 22);  // RGB travels as RGBA
  check_method("separable", rgb, 2.0);
}

// Poisoned output (NaN bytes) on a user stream: every pixel written, same bits as the default stream.
TEST(GpuBlur, UserStreamAndPoisonedOutput) {
  REQUIRE_GPU();
  const int w = 333, h = 127, c = 4;
  const Image img = random_image(w, h, c, 31);
  const size_t bytes = img.pixels.size() * sizeof(float);
  for (const char* id : {"separable", "pyramid-quasi", "repeated-box", "diffusion", "spreading", "direct"}) {
    auto plan = plan_blur(id, 3.0);
    ASSERT_TRUE(plan.ok());
    BlurEngineConfig cfg;
    cfg.width = w;
    cfg.height = h;
    cfg.channels = c;
    cfg.plan = *plan;
    auto engine = BlurEngine::create(cfg);
    ASSERT_TRUE(engine.ok()) << engine.status().message();
    float *din = nullptr, *d1 = nullptr, *d2 = nullptr;
    ASSERT_EQ(cudaMalloc(&din, bytes), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&d1, bytes), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&d2, bytes), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(din, img.pixels.data(), bytes, cudaMemcpyHostToDevice), cudaSuccess);
    ASSERT_EQ(cudaMemset(d1, 0xff, bytes), cudaSuccess);
    ASSERT_EQ(cudaMemset(d2, 0xff, bytes), cudaSuccess);
    cudaStream_t s = nullptr;
    ASSERT_EQ(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
    ASSERT_TRUE((*engine)->run(din, d1, nullptr).ok());
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    ASSERT_TRUE((*engine)->run(din, d2, s).ok());
    ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
    std::vector<float> a(img.pixels.size()), b(img.pixels.size());
    ASSERT_EQ(cudaMemcpy(a.data(), d1, bytes, cudaMemcpyDeviceToHost), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(b.data(), d2, bytes, cudaMemcpyDeviceToHost), cudaSuccess);
    size_t bad = 0, differ = 0;
    for (size_t i = 0; i < a.size(); ++i) {
      bad += !std::isfinite(a[i]);
      differ += a[i] != b[i];
    }
    EXPECT_EQ(bad, 0u) << id;
    EXPECT_EQ(differ, 0u) << id;
    cudaStreamDestroy(s);
    cudaFree(din);
    cudaFree(d1);
    cudaFree(d2);
  }
}

// The one-pass separable kernel (cuda::BlurTuning::separable_fused) against the CPU separable
// blur: strip and chunk edges (128 / 32 rows, 64 / 256 pixels), partial chunks, radii up to the
// ring's limit; 1e-5 of the image max as the two-pass kernels.
TEST(GpuBlur, FusedSeparableMatchesCpu) {
  REQUIRE_GPU();
  const int sizes[][2] = {{1, 1}, {31, 17}, {65, 129}, {256, 256}, {333, 127}, {1920, 1080}};
  const int shapes[][2] = {{128, 32}, {256, 32}, {128, 16}, {256, 16}};  // strip, chunk
  unsigned seed = 41;
  for (const auto& shape : shapes)
  for (const auto& sz : sizes)
    for (int c : {1, 4})
      for (double sigma : {1.0, 2.5, 6.0, 15.0}) {
        if (sz[0] >= 1920 && sigma != 6.0) continue;
        if (shape[0] != 128 || shape[1] != 32)  // the other shapes: a subset
          if (sz[0] < 65 || sigma == 1.0 || sigma == 2.5) continue;
        const int w = sz[0], h = sz[1];
        const Image img = (seed & 1) ? random_image(w, h, c, seed) : edge_image(w, h, c);
        ++seed;
        auto plan = plan_blur("separable", sigma);
        ASSERT_TRUE(plan.ok());
        auto cpu = blur(img, *plan);
        ASSERT_TRUE(cpu.ok());
        BlurEngineConfig cfg = engine_config(w, h, c, *plan);
        cuda::BlurTuning tuning;
        tuning.separable_fused = true;
        tuning.separable_fused_strip = shape[0];
        tuning.separable_fused_chunk = shape[1];
        auto engine = cuda::create_blur_engine(cfg, tuning);
        ASSERT_TRUE(engine.ok()) << engine.status().message();
        const Image gpu = run_engine(**engine, img);
        const Diff d = compare(gpu, *cpu);
        const double rel = d.max_abs / std::max(d.ref_max, 1e-30);
        std::printf("[blur] %-13s %4dx%-4d c%d sigma %-5g %-28s max|diff| %.3g (%.3g of max %.3g)\n", "fused-sep", w, h,
                    c, sigma, plan->describe().c_str(), d.max_abs, rel, d.ref_max);
        EXPECT_EQ(d.non_finite, 0u) << w << "x" << h << " c" << c << " sigma " << sigma;
        EXPECT_LE(rel, 1e-5) << w << "x" << h << " c" << c << " sigma " << sigma;
      }
}

// The one-pass strip kernel (cuda::BlurTuning::separable_strips, the RGBA default) against the
// CPU separable blur: strip edges (32 px) and batch edges (32 rows) +-1, several chunks per
// column (the chunk is picked for the device: 333x127, 1920x1080 and 4097x2161 get chunk <
// height), every tail of 2r + 1 taps modulo 8 (1, 3, 5, 7: sigma 2.5, 1.5, 6, 0.7 / 9), taps up
// to the kernel's limit of 56 (sigma 9) and past it (sigma 13: the two-pass fallback); a user
// stream; NaN-poisoned outputs. The engine holds no intermediate plane exactly when the strip
// kernel runs. TK_BLUR_SMALL=1 (for
// racecheck, which runs shared-memory kernels ~100x slower) keeps the sizes below 1920.
TEST(GpuBlur, StripSeparableMatchesCpu) {
  REQUIRE_GPU();
  const bool small_only = std::getenv("TK_BLUR_SMALL") != nullptr;
  const int sizes[][2] = {{1, 1}, {31, 17}, {32, 64}, {33, 65}, {95, 63}, {333, 127}, {1920, 1080}, {4097, 2161}};
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  unsigned seed = 77;
  for (const auto& sz : sizes)
    for (double sigma : {0.7, 1.5, 2.5, 6.0, 9.0, 13.0}) {
      const int w = sz[0], h = sz[1];
      if (w >= 1920 && (small_only || (sigma != 6.0 && sigma != 9.0))) continue;
      const Image img = (seed & 1) ? random_image(w, h, 4, seed) : edge_image(w, h, 4);
      ++seed;
      auto plan = plan_blur("separable", sigma);
      ASSERT_TRUE(plan.ok());
      auto cpu = blur(img, *plan);
      ASSERT_TRUE(cpu.ok());
      BlurEngineConfig cfg = engine_config(w, h, 4, *plan);
      cuda::BlurTuning tuning;
      tuning.separable_strips = true;
      auto engine = cuda::create_blur_engine(cfg, tuning);
      ASSERT_TRUE(engine.ok()) << engine.status().message();
      const size_t bytes = img.pixels.size() * sizeof(float);
      const bool strips = sigma <= 9.0;  // taps = 2 ceil(3 sigma) + 1 rounded up to 8 <= 56
      if (strips)
        EXPECT_LT((*engine)->scratch_bytes(), bytes / 2 + 4096) << "strip kernel not taken: " << w << "x" << h;
      else
        EXPECT_GE((*engine)->scratch_bytes(), bytes) << "two-pass fallback expected: " << w << "x" << h;
      const Image gpu = run_engine(**engine, img, seed % 3 == 0 ? stream : nullptr);
      const Diff d = compare(gpu, *cpu);
      const double rel = d.max_abs / std::max(d.ref_max, 1e-30);
      std::printf("[blur] %-13s %4dx%-4d sigma %-5g %-28s %s max|diff| %.3g (%.3g of max %.3g)\n", "strip-sep", w, h,
                  sigma, plan->describe().c_str(), strips ? "strips" : "2-pass", d.max_abs, rel, d.ref_max);
      EXPECT_EQ(d.non_finite, 0u) << w << "x" << h << " sigma " << sigma;
      EXPECT_LE(rel, 1e-5) << w << "x" << h << " sigma " << sigma;
    }
  cudaStreamDestroy(stream);
}

// blur on Backend::cuda carries 2- and 3-channel images as RGBA (the spare channels 0, dropped again).
TEST(GpuBlur, TwoAndThreeChannelImagesTravelAsRgba) {
  REQUIRE_GPU();
  for (int c : {2, 3})
    for (const char* m : {"separable", "pyramid-quasi", "gaussian"}) check_method(m, random_image(37, 23, c, 5u + c), 2.5);
}

// RGBA buffers off a 16-byte boundary get a clear error, not a misaligned-address fault.
TEST(GpuBlur, MisalignedRgbaBuffersAreRejected) {
  REQUIRE_GPU();
  auto plan = plan_blur("separable", 3.0);
  ASSERT_TRUE(plan.ok());
  auto engine = BlurEngine::create(engine_config(64, 32, 4, *plan));
  ASSERT_TRUE(engine.ok()) << engine.status().message();
  float* d = nullptr;
  ASSERT_EQ(cudaMalloc(&d, 2 * 64 * 32 * 4 * sizeof(float) + 64), cudaSuccess);
  float* out = d + 64 * 32 * 4 + 16;
  EXPECT_EQ((*engine)->run(d + 1, out, nullptr).code(), StatusCode::invalid_argument);
  EXPECT_EQ((*engine)->run(d, out + 2, nullptr).code(), StatusCode::invalid_argument);
  EXPECT_TRUE((*engine)->run(d, out, nullptr).ok());
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  cudaFree(d);
}

// The banded two-pass separable blur (intermediate in an L2-sized ring of rows) computes every
// output with the same taps in the same order as the unbanded passes: bit-identical results,
// for frames that do get banded (several bands, a partial last band, radii up to 60), grey and
// RGBA, float and float64 accumulation; and within 1e-5 of the CPU.
TEST(GpuBlur, BandedSeparableBitIdenticalToUnbanded) {
  REQUIRE_GPU();
  struct Case {
    int w, h, c;
    double sigma;
    const char* method;
  };
  const Case cases[] = {{3001, 2161, 4, 6.0, "separable"}, {3001, 2161, 4, 20.0, "separable"},
                        {4099, 1601, 1, 1.0, "separable"}, {1920, 1080, 4, 6.0, "gaussian"},
                        {2050, 3333, 1, 6.0, "gaussian"}};
  unsigned seed = 77;
  for (const Case& k : cases) {
    SCOPED_TRACE(std::string(k.method) + " " + std::to_string(k.w) + "x" + std::to_string(k.h) + " c" +
                 std::to_string(k.c) + " sigma " + std::to_string(k.sigma));
    auto plan = plan_blur(k.method, k.sigma);
    ASSERT_TRUE(plan.ok());
    const int radius = blur_math::kernel_radius(k.sigma, plan->get("truncate"));
    const gpu_blur::SeparableBands bands = gpu_blur::separable_bands(k.w, k.h, k.c, radius);
    ASSERT_GT(bands.ring, 0) << "this case was meant to be banded";
    ASSERT_GE(bands.ring, bands.band + 2 * radius);
    const Image img = random_image(k.w, k.h, k.c, seed++);
    const size_t bytes = img.pixels.size() * sizeof(float);
    float *din = nullptr, *d_banded = nullptr, *d_plain = nullptr;
    CUDA_OK(cudaMalloc(&din, bytes));
    CUDA_OK(cudaMalloc(&d_banded, bytes));
    CUDA_OK(cudaMalloc(&d_plain, bytes));
    CUDA_OK(cudaMemcpy(din, img.pixels.data(), bytes, cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemset(d_banded, 0xff, bytes));  // NaN poison: every output must be written
    CUDA_OK(cudaMemset(d_plain, 0xff, bytes));
    for (bool banded : {true, false}) {
      BlurEngineConfig cfg = engine_config(k.w, k.h, k.c, *plan);
      cuda::BlurTuning tuning;
      tuning.separable_banded = banded;
      tuning.separable_strips = false;  // the unbanded two passes: same taps in the same order
      auto engine = cuda::create_blur_engine(cfg, tuning);
      ASSERT_TRUE(engine.ok()) << engine.status().message();
      ASSERT_TRUE((*engine)->run(din, banded ? d_banded : d_plain, nullptr).ok());
    }
    Image a(k.w, k.h, k.c), b(k.w, k.h, k.c);
    CUDA_OK(cudaMemcpy(a.pixels.data(), d_banded, bytes, cudaMemcpyDeviceToHost));
    CUDA_OK(cudaMemcpy(b.pixels.data(), d_plain, bytes, cudaMemcpyDeviceToHost));
    cudaFree(din);
    cudaFree(d_banded);
    cudaFree(d_plain);
    EXPECT_EQ(std::memcmp(a.pixels.data(), b.pixels.data(), bytes), 0) << "banded and unbanded passes differ";
    auto cpu = blur(img, *plan);
    ASSERT_TRUE(cpu.ok());
    const Diff d = compare(a, *cpu);
    std::printf("[blur] banded %-9s %4dx%-4d c%d sigma %-4g ring %d band %d: max|diff| %.3g of max %.3g\n", k.method,
                k.w, k.h, k.c, k.sigma, bands.ring, bands.band, d.max_abs, d.ref_max);
    EXPECT_EQ(d.non_finite, 0u);
    EXPECT_LE(d.max_abs / std::max(d.ref_max, 1e-30), tolerance(k.method));
  }
}

// BlurWorkspace: engines run one after another share their transient planes. Each engine's
// output is bit-identical to a standalone engine's, including after the block has grown for a
// later, larger engine (every attached engine rebound) and after an engine was destroyed; the
// shared block is the largest engine's transient need, not the sum.
TEST(GpuBlur, WorkspaceSharedBetweenEngines) {
  REQUIRE_GPU();
  const int w = 517, h = 301;
  const Image img = random_image(w, h, 4, 91);
  const size_t bytes = img.pixels.size() * sizeof(float);
  float *din = nullptr, *dout = nullptr;
  CUDA_OK(cudaMalloc(&din, bytes));
  CUDA_OK(cudaMalloc(&dout, bytes));
  CUDA_OK(cudaMemcpy(din, img.pixels.data(), bytes, cudaMemcpyHostToDevice));
  auto make = [&](const char* method, double sigma, BlurWorkspace* ws) {
    auto plan = plan_blur(method, sigma);
    EXPECT_TRUE(plan.ok());
    BlurEngineConfig cfg = engine_config(w, h, 4, *plan);
    cfg.workspace = ws;
    auto e = BlurEngine::create(cfg);
    EXPECT_TRUE(e.ok()) << e.status().message();
    return std::move(*e);
  };
  auto run = [&](BlurEngine& e) {
    std::vector<float> out(img.pixels.size());
    EXPECT_EQ(cudaMemset(dout, 0xff, bytes), cudaSuccess);
    EXPECT_TRUE(e.run(din, dout, nullptr).ok());
    EXPECT_EQ(cudaMemcpy(out.data(), dout, bytes, cudaMemcpyDeviceToHost), cudaSuccess);
    return out;
  };
  const std::pair<const char*, double> cases[] = {{"pyramid-quasi", 6.0}, {"repeated-box", 4.0}, {"pyramid-box4", 20.0}};
  std::vector<std::vector<float>> reference;
  std::size_t standalone_total = 0, largest_transient = 0;
  for (const auto& [m, sg] : cases) {
    auto e = make(m, sg, nullptr);
    reference.push_back(run(*e));
    standalone_total += e->scratch_bytes();
  }
  BlurWorkspace ws;
  std::vector<std::unique_ptr<BlurEngine>> shared;
  for (const auto& [m, sg] : cases) shared.push_back(make(m, sg, &ws));  // the last one grows the block
  std::size_t shared_total = ws.bytes();
  for (size_t i = 0; i < shared.size(); ++i) {
    shared_total += shared[i]->scratch_bytes();
    auto alone = make(cases[i].first, cases[i].second, nullptr);
    largest_transient = std::max(largest_transient, alone->scratch_bytes() - shared[i]->scratch_bytes());
  }
  for (size_t i = 0; i < shared.size(); ++i)
    EXPECT_EQ(run(*shared[i]), reference[i]) << cases[i].first << " with a shared workspace";
  EXPECT_GE(ws.bytes(), largest_transient);
  EXPECT_LT(shared_total, standalone_total);
  std::printf("[blur] workspace: %zu bytes shared, %zu own; standalone engines %zu bytes\n", ws.bytes(),
              shared_total - ws.bytes(), standalone_total);
  shared.erase(shared.begin() + 1);                     // detach one engine
  shared.push_back(make("pyramid-quasi", 40.0, &ws));   // grows again: the others are rebound
  EXPECT_EQ(run(*shared[0]), reference[0]);
  EXPECT_EQ(run(*shared[1]), reference[2]);
  cudaFree(din);
  cudaFree(dout);
}

TEST(GpuBlur, RejectsBadConfigs) {
  auto plan = plan_blur("separable", 2.0);
  ASSERT_TRUE(plan.ok());
  BlurEngineConfig cfg;
  cfg.width = 16;
  cfg.height = 16;
  cfg.channels = 3;
  cfg.plan = *plan;
  EXPECT_EQ(BlurEngine::create(cfg).status().code(), StatusCode::invalid_argument);
  cfg.channels = 4;
  cfg.width = 0;
  EXPECT_EQ(BlurEngine::create(cfg).status().code(), StatusCode::invalid_argument);
  cfg.width = 16;
  cuda::BlurTuning tuning;
  tuning.separable_fused = true;  // the fused kernel's chunk is 16 or 32 rows, its strip a multiple
  tuning.separable_fused_chunk = 24;
  EXPECT_EQ(cuda::create_blur_engine(cfg, tuning).status().code(), StatusCode::invalid_argument);
  tuning.separable_fused_chunk = 32;
  tuning.separable_fused_strip = 100;
  EXPECT_EQ(cuda::create_blur_engine(cfg, tuning).status().code(), StatusCode::invalid_argument);
  cfg.plan = BlurPlan{};
  EXPECT_EQ(BlurEngine::create(cfg).status().code(), StatusCode::invalid_argument);
}

}  // namespace
