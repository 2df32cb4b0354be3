// local-laplacian and exposure-fusion (issue 36) on the device against the CPU reference: the
// collapsed outputs of the pyramids (cuda_local::launch_local_laplacian / launch_exposure_fusion
// against cpu::local's on the same planes and statistics: the same floats, both built without
// contraction), then whole
// frames through the ToneMapper against cpu::tone_map: sizes 1x1 to 8K, odd sizes and the 32 x 8
// tile +- 1, every input format, several outputs, parameters at their range ends, NaN / Inf /
// negative / zero pixels, a user stream and repeated frames. Tolerance (issue 36): 8-bit samples
// equal in >= 99.99 %, never more than 2 apart (the colour and transfer stages' powf differ by an
// ulp between libdevice and libmvec). Outputs are poisoned before each run. Skips without a GPU.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "core/colour_parts.hpp"
#include "core/fusion.hpp"
#include "core/half.hpp"
#include "core/laplacian.hpp"
#include "core/local_settings.hpp"
#include "cpu/local/local_tone_map.hpp"
#include "cuda/local/local_launch.hpp"
#include "gpu/gpu_test_support.hpp"
#include "tonekit/tone_mapper.hpp"
#include "tonekit/tonemap.hpp"

using namespace tonekit;

namespace {

int channels_of(InputFormat f) { return f == InputFormat::rgb_f32 ? 3 : 4; }

// HDR scene: smooth landscape over ~14 stops, hard-edged bright blocks, noise, colour.
std::vector<float> scene(int w, int h, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  std::vector<float> px(static_cast<std::size_t>(w) * h * 4);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      float stops = 5.0f * std::sin(6.28f * x / std::max(w, 2)) * std::cos(4.0f * y / std::max(h, 2)) +
                    1.5f * std::sin(0.07f * (x + 3 * y));
      if (((x / 41) + (y / 23)) % 5 == 0) stops += 6.0f;
      const float l = std::exp2(stops + 0.4f * (u(rng) - 0.5f));
      float* p = px.data() + (static_cast<std::size_t>(y) * w + x) * 4;
      for (int c = 0; c < 3; ++c) p[c] = l * (0.5f + u(rng));
      p[3] = u(rng);
    }
  return px;
}

std::vector<unsigned char> encode(const std::vector<float>& px, int w, int h, InputFormat fmt) {
  const int c = channels_of(fmt);
  std::vector<unsigned char> bytes(input_pixel_bytes(fmt) * w * h);
  for (std::size_t i = 0; i < static_cast<std::size_t>(w) * h; ++i)
    for (int k = 0; k < c; ++k) {
      const float v = px[i * 4 + k];
      if (fmt == InputFormat::rgba_f16) {
        const std::uint16_t hb = core::float_to_half(v);
        std::memcpy(bytes.data() + (i * c + k) * 2, &hb, 2);
      } else {
        std::memcpy(bytes.data() + (i * c + k) * 4, &v, 4);
      }
    }
  return bytes;
}

using gpu_test::output_sample;

const char* kPyramidOps[] = {"local-laplacian", "exposure-fusion"};

Params op_params(const char* op, std::vector<std::pair<std::string, std::string>> set = {}) {
  auto p = prepare_params(op, set);
  EXPECT_TRUE(p.ok()) << p.status().message();
  return p.value();
}


struct RunOptions {
  bool user_stream = false;
  int frames = 1;
};

void check_frame(const std::vector<float>& px, int w, int h, InputFormat fmt, const Params& params, OutputFormat out_fmt,
                 const RunOptions& run = {}) {
  std::string what = std::string(params.op().id) + " " + input_format_name(fmt) + " -> " + pixel_type_name(out_fmt.type) + "x" +
                     std::to_string(out_fmt.channels) + " " + std::to_string(w) + "x" + std::to_string(h);
  for (const ParamDesc* p : all_params(params.op())) what += " " + std::string(p->name) + "=" + std::to_string(params.get(p->name));
  SCOPED_TRACE(what);
  const std::vector<unsigned char> bytes = encode(px, w, h, fmt);
  const ImageView in{const_cast<unsigned char*>(bytes.data()), w, h, channels_of(fmt),
                     fmt == InputFormat::rgba_f16 ? PixelType::f16 : PixelType::f32, 0, MemorySpace::host};
  OutputImage cpu;
  cpu.allocate(w, h, out_fmt.channels, out_fmt.type);
  ASSERT_TRUE(cpu::tone_map(in, params, cpu.view()).ok());

  ToneMapperConfig cfg;
  cfg.width = w;
  cfg.height = h;
  cfg.input = fmt;
  cfg.output = out_fmt;
  cfg.params = params;
  auto mapper = ToneMapper::create(cfg);
  ASSERT_TRUE(mapper.ok()) << mapper.status().message();
  OutputImage gpu;
  gpu.allocate(w, h, out_fmt.channels, out_fmt.type);
  void *d_in = nullptr, *d_out = nullptr;
  CUDA_OK(cudaMalloc(&d_in, bytes.size()));
  CUDA_OK(cudaMalloc(&d_out, gpu.bytes.size()));
  CUDA_OK(cudaMemcpy(d_in, bytes.data(), bytes.size(), cudaMemcpyHostToDevice));
  cudaStream_t stream = nullptr;
  if (run.user_stream) CUDA_OK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  for (int i = 0; i < run.frames; ++i) {
    CUDA_OK(cudaMemsetAsync(d_out, 0xA5, gpu.bytes.size(), stream));  // poison: every sample must be written
    ASSERT_TRUE(mapper.value()->process(d_in, 0, d_out, 0, stream).ok());
  }
  CUDA_OK(cudaStreamSynchronize(stream));
  CUDA_OK(cudaMemcpy(gpu.bytes.data(), d_out, gpu.bytes.size(), cudaMemcpyDeviceToHost));
  if (stream) cudaStreamDestroy(stream);
  cudaFree(d_in);
  cudaFree(d_out);

  const std::size_t n = gpu.bytes.size() / bytes_per_channel(out_fmt.type);
  const double tol = out_fmt.type == PixelType::u8 ? 0 : out_fmt.type == PixelType::u16 ? 1 : out_fmt.type == PixelType::f16 ? 1e-3 : 1e-5;
  const double max_allowed = out_fmt.type == PixelType::u8 ? 2 : out_fmt.type == PixelType::u16 ? 2 * 257 : 0.01;
  std::size_t off = 0;
  double worst = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double a = output_sample(gpu, i), b = output_sample(cpu, i);
    ASSERT_FALSE(std::isnan(a)) << "NaN at " << i;
    const double d = std::fabs(a - b);
    off += d > tol;
    worst = std::max(worst, d);
    if (d > max_allowed) {
      ADD_FAILURE() << "sample " << i << " (pixel " << i / out_fmt.channels % w << ", " << i / out_fmt.channels / w
                    << "): GPU " << a << " CPU " << b;
      return;
    }
  }
  // >= 99.99 % equal; one sample of a tiny frame may differ.
  const std::size_t allowed = std::max<std::size_t>(n < 10000 ? 1 : 0, static_cast<std::size_t>(1e-4 * n));
  EXPECT_LE(off, allowed) << off << " of " << n << " samples differ by more than " << tol;
  std::printf("[ llf ] %-60s differing %zu of %zu (%.5f%%), max %.3g\n", what.substr(0, 60).c_str(), off, n, 100.0 * off / n, worst);
}

struct Size {
  int w, h;
};
class GpuLaplacian : public ::testing::TestWithParam<Size> {};

// The pyramids themselves: the GPU's collapsed log output equals the CPU's float for float.
TEST_P(GpuLaplacian, test_gpu_laplacian_pyramids_equal_cpu) {
  REQUIRE_GPU();
  const auto [w, h] = GetParam();
  const std::vector<float> px = scene(w, h, 3u + w);
  std::vector<float> lw(static_cast<std::size_t>(w) * h);
  for (std::size_t i = 0; i < lw.size(); ++i) lw[i] = core::luminance_fma(px[i * 4], px[i * 4 + 1], px[i * 4 + 2]);
  FrameStats st{};
  st.max_luminance = *std::max_element(lw.begin(), lw.end());
  st.min_positive_luminance = *std::min_element(lw.begin(), lw.end());
  for (int levels : {2, 10, 16}) {
    const core::LlfCurve c = core::make_llf_curve(levels == 2 ? 0.1 : 0.6, levels == 16 ? 1.0 : 0.35, levels == 2 ? 0.1 : 1.0,
                                                  levels, 0.0);
    std::vector<float> cpu_out(lw.size(), NAN);
    const core::LlfFrame cf = cpu::local::local_laplacian_output(lw.data(), w, h, c, st.max_luminance, st.min_positive_luminance,
                                                                  cpu_out.data());
    cuda_local::LlfScratch sc;
    sc.pyramid_floats = core::llf_geometry(w, h, core::kLlfMaxK + 1).total();
    sc.output_floats = core::llf_geometry(w, h, 1).total();
    float* plane = nullptr;
    FrameStats* d_stats = nullptr;
    CUDA_OK(cudaMalloc(&sc.pyramid, std::max<std::size_t>(1, sc.pyramid_floats) * 4));
    CUDA_OK(cudaMalloc(&sc.output, std::max<std::size_t>(1, sc.output_floats) * 4));
    CUDA_OK(cudaMalloc(&sc.out0, lw.size() * 4));
    CUDA_OK(cudaMalloc(&sc.frame, sizeof(core::LlfFrame)));
    CUDA_OK(cudaMalloc(&plane, lw.size() * 4));
    CUDA_OK(cudaMalloc(&d_stats, sizeof(FrameStats)));
    CUDA_OK(cudaMemcpy(plane, lw.data(), lw.size() * 4, cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(d_stats, &st, sizeof st, cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemset(sc.out0, 0xFF, lw.size() * 4));  // NaN poison
    ASSERT_TRUE(cuda_local::launch_local_laplacian(plane, w, h, d_stats, c, sc, nullptr).ok());
    std::vector<float> gpu_out(lw.size());
    core::LlfFrame gf;
    CUDA_OK(cudaMemcpy(gpu_out.data(), sc.out0, lw.size() * 4, cudaMemcpyDeviceToHost));
    CUDA_OK(cudaMemcpy(&gf, sc.frame, sizeof gf, cudaMemcpyDeviceToHost));
    for (void* p : {static_cast<void*>(sc.pyramid), static_cast<void*>(sc.output), static_cast<void*>(sc.out0),
                    static_cast<void*>(sc.frame), static_cast<void*>(plane), static_cast<void*>(d_stats)})
      cudaFree(p);
    EXPECT_EQ(gf.floor_lum, cf.floor_lum);
    EXPECT_EQ(gf.step, cf.step);
    EXPECT_EQ(gf.anchor, cf.anchor);
    EXPECT_EQ(gf.top, cf.top);
    std::size_t unequal = 0;
    float worst = 0;
    for (std::size_t i = 0; i < lw.size(); ++i) {
      ASSERT_FALSE(std::isnan(gpu_out[i])) << i;
      unequal += gpu_out[i] != cpu_out[i];
      worst = std::max(worst, std::fabs(gpu_out[i] - cpu_out[i]));
    }
    std::printf("[ llf ] pyramids %dx%d K=%d: %zu of %zu differ, max %.3g\n", w, h, levels, unequal, lw.size(), worst);
    EXPECT_LE(worst, 1e-5f);
    EXPECT_LE(unequal, lw.size() / 100000);
  }
}

// exposure-fusion's blended display value O_0: the GPU's equals the CPU's float for float (the
// same p, q and weights; the exposures from the same statistics).
TEST_P(GpuLaplacian, test_gpu_fusion_pyramids_equal_cpu) {
  REQUIRE_GPU();
  const auto [w, h] = GetParam();
  const std::vector<float> px = scene(w, h, 13u + w);
  const std::size_t n = static_cast<std::size_t>(w) * h;
  std::vector<float> lw(n), p(n), q(3 * n);
  for (std::size_t i = 0; i < n; ++i) {
    lw[i] = core::luminance_fma(px[i * 4], px[i * 4 + 1], px[i * 4 + 2]);
    p[i] = core::fusion_encode(lw[i]);
    for (int k = 0; k < 3; ++k) q[k * n + i] = core::fusion_encode(px[i * 4 + k]);
  }
  FrameStats st{};
  st.max_luminance = *std::max_element(lw.begin(), lw.end());
  st.log_average = 0.37;
  for (const core::FusionParams fp : {core::FusionParams{}, core::FusionParams{8, 2.0, 0.0, 2.0, 0.05}, core::FusionParams{2, 0.0, 2.0, 0.0, 1.0}}) {
    const core::FusionFrame f = core::make_fusion_frame(fp, st.max_luminance, st.log_average);
    std::vector<float> weights(f.n * n), cpu_out(n, NAN);
    cpu::local::exposure_fusion_weights(p.data(), q.data(), w, h, f, weights.data());
    cpu::local::exposure_fusion_output(p.data(), weights.data(), w, h, f, cpu_out.data());
    cuda_local::FusionScratch sc;
    sc.pyramid_floats = core::llf_geometry(w, h, 2 * core::kFusionMaxExposures).total();
    sc.output_floats = core::llf_geometry(w, h, 1).total();
    float* plane = nullptr;
    void* d_in = nullptr;
    FrameStats* d_stats = nullptr;
    CUDA_OK(cudaMalloc(&sc.pyramid, std::max<std::size_t>(1, sc.pyramid_floats) * 4));
    CUDA_OK(cudaMalloc(&sc.output, std::max<std::size_t>(1, sc.output_floats) * 4));
    CUDA_OK(cudaMalloc(&sc.out0, n * 4));
    CUDA_OK(cudaMalloc(&sc.q, 3 * n * 4));
    CUDA_OK(cudaMalloc(&sc.weights, core::kFusionMaxExposures * n * 4));
    CUDA_OK(cudaMalloc(&sc.frame, sizeof(core::FusionFrame)));
    CUDA_OK(cudaMalloc(&plane, n * 4));
    CUDA_OK(cudaMalloc(&d_in, px.size() * 4));
    CUDA_OK(cudaMalloc(&d_stats, sizeof(FrameStats)));
    CUDA_OK(cudaMemcpy(plane, lw.data(), n * 4, cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(d_in, px.data(), px.size() * 4, cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(d_stats, &st, sizeof st, cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemset(sc.out0, 0xFF, n * 4));  // NaN poison
    ASSERT_TRUE(cuda_local::launch_exposure_fusion(InputFormat::rgba_f32, static_cast<const unsigned char*>(d_in),
                                                   static_cast<std::size_t>(w) * 16, plane, w, h, d_stats, fp, sc, nullptr)
                    .ok());
    std::vector<float> gpu_out(n);
    CUDA_OK(cudaMemcpy(gpu_out.data(), sc.out0, n * 4, cudaMemcpyDeviceToHost));
    for (void* ptr : {static_cast<void*>(sc.pyramid), static_cast<void*>(sc.output), static_cast<void*>(sc.out0),
                      static_cast<void*>(sc.q), static_cast<void*>(sc.weights), static_cast<void*>(sc.frame),
                      static_cast<void*>(plane), d_in, static_cast<void*>(d_stats)})
      cudaFree(ptr);
    std::size_t unequal = 0;
    float worst = 0;
    for (std::size_t i = 0; i < n; ++i) {
      ASSERT_FALSE(std::isnan(gpu_out[i])) << i;
      unequal += gpu_out[i] != cpu_out[i];
      worst = std::max(worst, std::fabs(gpu_out[i] - cpu_out[i]));
    }
    std::printf("[ fusion ] pyramids %dx%d N=%d: %zu of %zu differ, max %.3g\n", w, h, f.n, unequal, n, worst);
    EXPECT_LE(worst, 1e-5f);
    EXPECT_LE(unequal, n / 100000);
  }
}

TEST_P(GpuLaplacian, test_gpu_laplacian_matches_cpu) {
  REQUIRE_GPU();
  const auto [w, h] = GetParam();
  const std::vector<float> px = scene(w, h, 7u + h);
  for (const char* op : kPyramidOps) {
    check_frame(px, w, h, InputFormat::rgba_f16, op_params(op), {PixelType::u8, 4});
    if (static_cast<long long>(w) * h <= 4000000) check_frame(px, w, h, InputFormat::rgba_f32, op_params(op), {PixelType::u8, 4});
  }
}

// 1x1, odd sizes, the 32 x 8 tile +- 1 at level 0 and at level 1 (64 x 16), 1080p, odd 4K, 8K.
INSTANTIATE_TEST_SUITE_P(Sizes, GpuLaplacian,
                         ::testing::Values(Size{1, 1}, Size{2, 1}, Size{1, 7}, Size{31, 7}, Size{33, 9}, Size{63, 15},
                                           Size{65, 17}, Size{129, 33}, Size{1920, 1080}, Size{4097, 2161},
                                           Size{7680, 4320}),
                         [](const auto& info) { return std::to_string(info.param.w) + "x" + std::to_string(info.param.h); });

// Every parameter at both ends of its range, formats and outputs, a user stream and two frames.
TEST(GpuLaplacianSanitizer, test_gpu_laplacian_params_formats_streams) {
  REQUIRE_GPU();
  const int w = 131, h = 67;
  const std::vector<float> px = scene(w, h, 5u);
  for (const char* id : kPyramidOps) {
    const OperatorDesc* op = find_operator(id);
    ASSERT_NE(op, nullptr);
    for (const ParamDesc* p : all_params(*op))
      for (double v : {p->min_value, p->max_value})
        check_frame(px, w, h, InputFormat::rgba_f16, op_params(id, {{p->name, std::to_string(v)}}), {PixelType::u8, 4});
  }
  check_frame(px, w, h, InputFormat::rgba_f32,
              op_params("exposure-fusion", {{"exposures", "8"}, {"contrast", "2"}, {"chroma", "0"}, {"sigma", "0.05"}}),
              {PixelType::u8, 4});
  check_frame(px, w, h, InputFormat::rgba_f32, op_params("local-laplacian", {{"detail", "0.1"}, {"range", "0"}, {"sigma", "0.1"}, {"levels", "2"}}),
              {PixelType::u8, 4});
  check_frame(px, w, h, InputFormat::rgba_f32, op_params("local-laplacian", {{"detail", "2"}, {"range", "1"}, {"sigma", "3"}, {"levels", "16"}}),
              {PixelType::u8, 4});
  for (InputFormat in : {InputFormat::rgb_f32, InputFormat::rgba_f32, InputFormat::rgba_f16})
    for (OutputFormat out : {OutputFormat{PixelType::u8, 3}, OutputFormat{PixelType::u8, 4}, OutputFormat{PixelType::u16, 4},
                             OutputFormat{PixelType::f32, 3}}) {
      RunOptions r;
      r.user_stream = out.type == PixelType::u16;
      r.frames = 2;
      for (const char* op : kPyramidOps) check_frame(px, w, h, in, op_params(op), out, r);
    }
}

// NaN, +-Inf, negatives, -0, zeros and half's largest value: sanitised as on the CPU, no NaN out.
TEST(GpuLaplacianEdgeCases, test_gpu_laplacian_bad_pixels_match_cpu) {
  REQUIRE_GPU();
  const int w = 197, h = 131;
  std::vector<float> px = scene(w, h, 23u);
  std::mt19937 rng(29);
  const float bad[] = {NAN, INFINITY, -INFINITY, -1.5f, -0.0f, 65504.0f, 0.0f};
  for (std::size_t i = 0; i < px.size(); ++i)
    if (rng() % 50 == 0) px[i] = bad[rng() % 7];
  for (int x = 0; x < 60; ++x)
    for (int k = 0; k < 3; ++k) px[(static_cast<std::size_t>(60) * w + x) * 4 + k] = 0.0f;
  std::vector<float> black(static_cast<std::size_t>(33) * 9 * 4, 0.0f);  // an all-black frame
  for (const char* op : kPyramidOps) {
    for (InputFormat in : {InputFormat::rgb_f32, InputFormat::rgba_f32, InputFormat::rgba_f16})
      check_frame(px, w, h, in, op_params(op), {PixelType::u8, 4});
    check_frame(black, 33, 9, InputFormat::rgba_f32, op_params(op), {PixelType::u8, 4});
  }
}

}  // namespace
