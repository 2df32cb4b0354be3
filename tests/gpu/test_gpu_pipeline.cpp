// The one device pipeline (tonekit::ToneMapper) beyond a single operator: temporal adaptation on
// the device against the CPU model (core::temporal_step through cpu::tone_map's hook), operator
// switches global <-> local with and without reallocation, glare inside the pipeline against
// apply_glare + the CPU map, and the temporal state's read / reset / seed. Skips without a GPU.
// Tolerances: the device sums log luminance as float per thread (4 pixels) before its float64 /
// fixed-point totals, so its log-average is within 1e-6 relative of the CPU's float64 sum (the
// single-frame tests' tolerance); the states' logs therefore agree within 1e-6 (measured on the
// H100: 2e-7), the cut counts exactly, and 8-bit outputs within 1 code (global) or 2 (local).
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "gpu/gpu_test_support.hpp"
#include "tonekit/blur.hpp"
#include "tonekit/synth.hpp"
#include "tonekit/temporal.hpp"
#include "tonekit/tone_mapper.hpp"
#include "tonekit/tonemap.hpp"

namespace tonekit {
namespace {

struct DeviceFrame {
  void* in = nullptr;
  void* out = nullptr;
  ~DeviceFrame() {
    cudaFree(in);
    cudaFree(out);
  }
};

// A still of the night drive scaled by `gain`: the frames of a synthetic exposure ramp.
Image scaled(const Image& base, float gain) {
  Image img = base;
  for (float& v : img.pixels) v *= gain;
  return img;
}

int max_difference(std::span<const unsigned char> a, std::span<const unsigned char> b, std::size_t* differing) {
  int worst = 0;
  *differing = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const int d = std::abs(int(a[i]) - int(b[i]));
    worst = std::max(worst, d);
    *differing += d != 0;
  }
  return worst;
}

// A sequence with a slow ramp, a step, a hard cut and a return, mapped on the device with
// temporal adaptation on and on the CPU with the same model: states and outputs agree.
void check_temporal_sequence(const char* op, int w, int h, int tolerance,
                             const std::vector<std::pair<std::string, std::string>>& settings = {}) {
  Result<Image> base = synth::render_scene("night-drive", w, h);
  ASSERT_TRUE(base.ok());
  const std::vector<float> gains = {1, 1.2f, 1.5f, 2, 3, 3, 3, 200, 200, 180, 1, 1, 0.5f, 0.5f};
  const double dt = 1.0 / 30;
  Result<Params> params = prepare_params(op, settings);
  ASSERT_TRUE(params.ok());
  ToneMapperConfig cfg;
  cfg.width = w;
  cfg.height = h;
  cfg.input = InputFormat::rgb_f32;
  cfg.output = {PixelType::u8, 4};
  cfg.params = *params;
  cfg.temporal = true;
  auto mapper = ToneMapper::create(cfg);
  ASSERT_TRUE(mapper.ok()) << mapper.status().message();
  DeviceFrame d;
  const std::size_t in_bytes = std::size_t(w) * h * 3 * sizeof(float), out_bytes = std::size_t(w) * h * 4;
  CUDA_OK(cudaMalloc(&d.in, in_bytes));
  CUDA_OK(cudaMalloc(&d.out, out_bytes));
  TemporalState cpu_state;
  for (std::size_t n = 0; n < gains.size(); ++n) {
    const Image frame = scaled(*base, gains[n]);
    CUDA_OK(cudaMemcpy(d.in, frame.pixels.data(), in_bytes, cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemset(d.out, 0xAB, out_bytes));  // poisoned
    ASSERT_TRUE(mapper.value()->process(d.in, 0, d.out, 0, nullptr, dt).ok());
    std::vector<unsigned char> gpu(out_bytes);
    CUDA_OK(cudaMemcpy(gpu.data(), d.out, out_bytes, cudaMemcpyDeviceToHost));

    OutputImage ref;
    ref.allocate(w, h, 4, PixelType::u8);
    cpu::CurveStatsHook hook = [&](const FrameStats& f) { return temporal_update(cpu_state, f, TemporalParams{}, dt); };
    ASSERT_TRUE(cpu::tone_map(frame.view(), *params, ref.view(), nullptr, nullptr, &hook).ok());

    TemporalState gpu_state;
    ASSERT_TRUE(mapper.value()->read_temporal_state(gpu_state).ok());
    const std::string what = std::string(op) + " frame " + std::to_string(n);
    EXPECT_NEAR(gpu_state.log_key, cpu_state.log_key, 1e-6) << what;
    EXPECT_NEAR(gpu_state.log_peak, cpu_state.log_peak, 1e-6) << what;
    EXPECT_EQ(gpu_state.cuts, cpu_state.cuts) << what;
    EXPECT_EQ(gpu_state.frames, cpu_state.frames) << what;
    FrameStats own, adapted;
    ASSERT_TRUE(mapper.value()->read_stats(own, &adapted).ok());
    EXPECT_NEAR(std::log(adapted.log_average), cpu_state.log_key, 1e-6);
    std::size_t differing = 0;
    EXPECT_LE(max_difference(gpu, ref.bytes, &differing), tolerance) << what;
    EXPECT_LE(differing, gpu.size() / 1000) << what;  // >= 99.9 % equal
  }
  TemporalState end;
  ASSERT_TRUE(mapper.value()->read_temporal_state(end).ok());
  EXPECT_EQ(end.cuts, 2u);  // up 200x (7.6 stops) and back down: two cuts
}

TEST(GpuPipeline, test_gpu_temporal_matches_cpu_global) {
  REQUIRE_GPU();
  check_temporal_sequence("reinhard", 131, 77, 1);
  check_temporal_sequence("drago", 64, 33, 1);
}

TEST(GpuPipeline, test_gpu_temporal_matches_cpu_local) {
  REQUIRE_GPU();
  check_temporal_sequence("reinhard-sat", 131, 77, 2);
}

// The adapted peak is the robust one when the operator asks for it (peak_percentile < 100).
TEST(GpuPipeline, test_gpu_temporal_robust_peak_matches_cpu) {
  REQUIRE_GPU();
  check_temporal_sequence("drago", 131, 77, 1, {{"peak_percentile", "99.9"}});
  check_temporal_sequence("reinhard", 64, 33, 1, {{"peak_percentile", "99"}});
  check_temporal_sequence("drago-local", 131, 77, 2, {{"peak_percentile", "99.99"}});
}

// The host API's temporal entry (tone_map_temporal) on CUDA against the CPU, frame by frame
// through the cached device mapper; a plain tone_map between two frames (the same cached mapper,
// temporal off) does not disturb the caller's state.
TEST(GpuPipeline, test_gpu_host_api_temporal_matches_cpu) {
  REQUIRE_GPU();
  for (auto [w, h] : {std::pair{333, 197}, std::pair{1920, 1080}}) {
    Result<Image> base = synth::render_scene("night-drive", w, h);
    ASSERT_TRUE(base.ok());
    for (const char* op : {"reinhard", "drago", "reinhard-sat"}) {
      Result<Params> params = prepare_params(op, {{"dither", "0"}});
      ASSERT_TRUE(params.ok());
      TemporalState gpu_state, cpu_state;
      const double dt = 1.0 / 30;
      int n = 0;
      for (float gain : {1.0f, 1.5f, 3.0f, 3.0f, 200.0f, 1.0f, 0.5f}) {
        const Image frame = scaled(*base, gain);
        OutputImage gpu, cpu, plain;
        gpu.bytes.assign(std::size_t(w) * h * 4, 0xAB);  // poisoned
        ASSERT_TRUE(tone_map_temporal(frame.view(), *params, {PixelType::u8, 4}, Backend::cuda, gpu_state, TemporalParams{},
                                      dt, gpu)
                        .ok());
        ASSERT_TRUE(tone_map_temporal(frame.view(), *params, {PixelType::u8, 4}, Backend::cpu, cpu_state, TemporalParams{},
                                      dt, cpu)
                        .ok());
        const std::string what = std::string(op) + " " + std::to_string(w) + "x" + std::to_string(h) + " frame " +
                                 std::to_string(n++);
        EXPECT_NEAR(gpu_state.log_key, cpu_state.log_key, 1e-6) << what;
        EXPECT_NEAR(gpu_state.log_peak, cpu_state.log_peak, 1e-6) << what;
        EXPECT_EQ(gpu_state.cuts, cpu_state.cuts) << what;
        EXPECT_EQ(gpu_state.frames, cpu_state.frames) << what;
        std::size_t differing = 0;
        const int tolerance = std::strcmp(op, "reinhard-sat") == 0 ? 2 : 1;
        EXPECT_LE(max_difference(gpu.bytes, cpu.bytes, &differing), tolerance) << what;
        EXPECT_LE(differing, gpu.bytes.size() / 1000) << what;
        ASSERT_TRUE(tone_map(frame, *params, {PixelType::u8, 4}, Backend::cuda, plain).ok());  // temporal off between
      }
      EXPECT_EQ(gpu_state.cuts, 2u) << op;
    }
  }
}

TEST(GpuPipeline, test_gpu_temporal_reset_seed_and_determinism) {
  REQUIRE_GPU();
  const int w = 40, h = 30;
  Result<Image> base = synth::render_scene("night-drive", w, h);
  ASSERT_TRUE(base.ok());
  ToneMapperConfig cfg;
  cfg.width = w;
  cfg.height = h;
  cfg.input = InputFormat::rgb_f32;
  cfg.output = {PixelType::u8, 4};
  cfg.params = prepare_params("reinhard").value();
  cfg.temporal = true;
  auto a = ToneMapper::create(cfg), b = ToneMapper::create(cfg);
  ASSERT_TRUE(a.ok() && b.ok());
  DeviceFrame d;
  CUDA_OK(cudaMalloc(&d.in, base->pixels.size() * sizeof(float)));
  CUDA_OK(cudaMalloc(&d.out, std::size_t(w) * h * 4));
  CUDA_OK(cudaMemcpy(d.in, base->pixels.data(), base->pixels.size() * sizeof(float), cudaMemcpyHostToDevice));
  for (int n = 0; n < 5; ++n) {
    ASSERT_TRUE(a.value()->process(d.in, 0, d.out, 0, nullptr, 0.02).ok());
    ASSERT_TRUE(b.value()->process(d.in, 0, d.out, 0, nullptr, 0.02).ok());
  }
  TemporalState sa, sb;
  ASSERT_TRUE(a.value()->read_temporal_state(sa).ok());
  ASSERT_TRUE(b.value()->read_temporal_state(sb).ok());
  EXPECT_EQ(std::memcmp(&sa, &sb, sizeof sa), 0) << "two runs of the same frames differ";
  EXPECT_EQ(sa.frames, 5u);
  // Seed a darker past, process once: the key moves toward the frame but not all the way.
  TemporalState seeded = sa;
  seeded.log_key -= 2.0 * std::log(2.0);
  seeded.last_frame_log_key = sa.last_frame_log_key;
  ASSERT_TRUE(a.value()->seed_temporal(seeded).ok());
  ASSERT_TRUE(a.value()->process(d.in, 0, d.out, 0, nullptr, 0.02).ok());
  TemporalState after;
  ASSERT_TRUE(a.value()->read_temporal_state(after).ok());
  EXPECT_GT(after.log_key, seeded.log_key);
  EXPECT_LT(after.log_key, sa.log_key);
  // Reset: the next frame seeds the state to the frame itself.
  ASSERT_TRUE(a.value()->reset_temporal().ok());
  ASSERT_TRUE(a.value()->process(d.in, 0, d.out, 0, nullptr, 5.0).ok());
  ASSERT_TRUE(a.value()->read_temporal_state(after).ok());
  EXPECT_EQ(after.frames, 1u);
  EXPECT_DOUBLE_EQ(after.log_key, sa.last_frame_log_key);
  // A negative time step is rejected.
  EXPECT_FALSE(a.value()->process(d.in, 0, d.out, 0, nullptr, -1.0).ok());
}

// One object, operators switched between frames: the outputs equal fresh objects' and the CPU's,
// the first switch to a pass allocates and switching back does not.
TEST(GpuPipeline, test_gpu_operator_switch_global_local) {
  REQUIRE_GPU();
  const int w = 97, h = 61;
  Result<Image> img = synth::render_scene("night-drive", w, h);
  ASSERT_TRUE(img.ok());
  ToneMapperConfig cfg;
  cfg.width = w;
  cfg.height = h;
  cfg.input = InputFormat::rgb_f32;
  cfg.output = {PixelType::u8, 3};
  cfg.params = prepare_params("reinhard").value();
  auto mapper = ToneMapper::create(cfg);
  ASSERT_TRUE(mapper.ok());
  DeviceFrame d;
  CUDA_OK(cudaMalloc(&d.in, img->pixels.size() * sizeof(float)));
  CUDA_OK(cudaMalloc(&d.out, std::size_t(w) * h * 3));
  CUDA_OK(cudaMemcpy(d.in, img->pixels.data(), img->pixels.size() * sizeof(float), cudaMemcpyHostToDevice));
  const struct { const char* op; bool allocates; } steps[] = {
      {"reinhard-sat", true}, {"drago", false}, {"reinhard-sat", false}, {"drago-local", true}, {"linear", false}};
  for (const auto& step : steps) {
    Result<Params> p = prepare_params(step.op);
    ASSERT_TRUE(p.ok());
    bool reallocated = !step.allocates;
    ASSERT_TRUE(mapper.value()->set_params(*p, &reallocated).ok()) << step.op;
    EXPECT_EQ(reallocated, step.allocates) << step.op;
    CUDA_OK(cudaMemset(d.out, 0x5A, std::size_t(w) * h * 3));
    ASSERT_TRUE(mapper.value()->process(d.in, 0, d.out, 0).ok()) << step.op;
    std::vector<unsigned char> got(std::size_t(w) * h * 3);
    CUDA_OK(cudaMemcpy(got.data(), d.out, got.size(), cudaMemcpyDeviceToHost));
    OutputImage ref;
    ref.allocate(w, h, 3, PixelType::u8);
    ASSERT_TRUE(cpu::tone_map(img->view(), *p, ref.view()).ok());
    std::size_t differing = 0;
    EXPECT_LE(max_difference(got, ref.bytes, &differing), p->op().locality == Locality::local ? 2 : 1) << step.op;
    EXPECT_LE(differing, got.size() / 1000) << step.op;
  }
  EXPECT_GT(mapper.value()->scratch_bytes(), 0u);
}

// Glare inside the pipeline equals apply_glare on the host followed by the CPU map.
TEST(GpuPipeline, test_gpu_glare_in_pipeline_matches_cpu) {
  REQUIRE_GPU();
  const int w = 160, h = 90;
  Result<Image> img = synth::render_scene("night-drive", w, h);
  ASSERT_TRUE(img.ok());
  GlareParams glare;
  glare.strength = 0.1;
  for (const char* op : {"reinhard", "reinhard-sat"}) {
    for (const InputFormat fmt : {InputFormat::rgb_f32, InputFormat::rgba_f16}) {
      // Input on the device in fmt; the CPU reference sees the same values (half-rounded for f16).
      Image source = *img;
      std::vector<unsigned char> bytes;
      if (fmt == InputFormat::rgba_f16) {
        Image rgba(w, h, 4);
        for (int i = 0; i < w * h; ++i) {
          for (int c = 0; c < 3; ++c) rgba.pixels[4 * i + c] = __half2float(__float2half(img->pixels[3 * i + c]));
          rgba.pixels[4 * i + 3] = 1.0f;
        }
        source = rgba;
        bytes.resize(std::size_t(w) * h * 8);
        for (std::size_t i = 0; i < rgba.pixels.size(); ++i) {
          const __half hv = __float2half(rgba.pixels[i]);
          std::memcpy(bytes.data() + 2 * i, &hv, 2);
        }
      } else {
        bytes.resize(img->pixels.size() * sizeof(float));
        std::memcpy(bytes.data(), img->pixels.data(), bytes.size());
      }
      ToneMapperConfig cfg = gpu_test::mapper_config(w, h, fmt, {PixelType::u8, 3}, op);
      cfg.glare = glare;
      auto mapper = ToneMapper::create(cfg);
      ASSERT_TRUE(mapper.ok()) << mapper.status().message();
      DeviceFrame d;
      CUDA_OK(cudaMalloc(&d.in, bytes.size()));
      CUDA_OK(cudaMalloc(&d.out, std::size_t(w) * h * 3));
      CUDA_OK(cudaMemcpy(d.in, bytes.data(), bytes.size(), cudaMemcpyHostToDevice));
      ASSERT_TRUE(mapper.value()->process(d.in, 0, d.out, 0).ok());
      std::vector<unsigned char> got(std::size_t(w) * h * 3);
      CUDA_OK(cudaMemcpy(got.data(), d.out, got.size(), cudaMemcpyDeviceToHost));
      // The input buffer is untouched (glare works on a copy).
      std::vector<unsigned char> after(bytes.size());
      CUDA_OK(cudaMemcpy(after.data(), d.in, after.size(), cudaMemcpyDeviceToHost));
      EXPECT_EQ(after, bytes);
      Image glared = source;
      ASSERT_TRUE(apply_glare(glared, glare).ok());
      // A half input stays half through the glare (the glared frame is in the input's format,
      // finite sums saturating at 65504): the reference rounds the same way.
      if (fmt == InputFormat::rgba_f16)
        for (float& v : glared.pixels)
          v = __half2float(__float2half(std::isfinite(v) ? std::clamp(v, -65504.0f, 65504.0f) : v));
      OutputImage ref;
      ref.allocate(w, h, 3, PixelType::u8);
      ASSERT_TRUE(cpu::tone_map(glared.view(), cfg.params, ref.view()).ok());
      std::size_t differing = 0;
      const std::string what = std::string(op) + (fmt == InputFormat::rgba_f16 ? " half" : " float");
      EXPECT_LE(max_difference(got, ref.bytes, &differing), 2) << what;
      EXPECT_LE(differing, got.size() / 500) << what;
      // Without glare the image differs (the headlights bloom).
      OutputImage plain;
      plain.allocate(w, h, 3, PixelType::u8);
      ASSERT_TRUE(cpu::tone_map(source.view(), cfg.params, plain.view()).ok());
      EXPECT_NE(plain.bytes, got) << what;
    }
  }
}

}  // namespace
}  // namespace tonekit
