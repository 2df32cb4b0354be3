// Video layouts and colour on the device (ToneMapper's decode and encode stages) against the CPU
// reference cpu::tone_map_frame on the same frames: every input layout x transfer (PQ, HLG,
// linear) x primaries, global and local operators, interleaved RGBA8 and yuv420p / NV12 outputs,
// odd and awkward sizes, padded planes, poisoned outputs, bad float samples counted. Skips
// without a GPU. Tolerances: 8-bit codes within 1 (global operators) or 2 (local), >= 99.9 %
// equal: the CPU decoder's transfer loops are built with -ffast-math and vectorised (libmvec), the
// device's are CUDA's powf/expf, so scene values differ in the last float bits.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "cpu/video_decode.hpp"
#include "cuda/tuning.hpp"
#include "cuda/video_stages.hpp"
#include "gpu/gpu_test_support.hpp"
#include "tonekit/device_frames.hpp"
#include "tonekit/operators.hpp"
#include "tonekit/tone_mapper.hpp"
#include "tonekit/video.hpp"
#include "tonekit/video_tonemap.hpp"

namespace tonekit {
namespace {

struct HostFrame {
  InputFormat format;
  int w, h;
  std::vector<std::vector<unsigned char>> planes;  // each plane's rows, `stride` apart
  std::vector<std::size_t> strides;
  FramePlanes host() const {
    FramePlanes p;
    for (std::size_t i = 0; i < planes.size(); ++i) {
      p.data[i] = planes[i].data();
      p.stride[i] = strides[i];
    }
    return p;
  }
};

// A smooth gradient with noise (so 4:2:0 chroma has structure), in codes or floats per layout;
// `pad` extra bytes per row on every plane. Float layouts get a few NaN / Inf / negative samples.
HostFrame make_frame(InputFormat f, int w, int h, std::size_t pad, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  HostFrame fr{f, w, h, {}, {}};
  for (int p = 0; p < plane_count(f); ++p) {
    const std::size_t stride = plane_row_bytes(f, p, w) + pad;
    const int rows = plane_rows(f, p, h);
    fr.strides.push_back(stride);
    fr.planes.emplace_back(stride * rows, 0xEE);
    std::vector<unsigned char>& plane = fr.planes.back();
    const int samples = static_cast<int>(plane_row_bytes(f, p, w) / (f == InputFormat::gbrpf32 ? 4 : 2));
    for (int y = 0; y < rows; ++y)
      for (int i = 0; i < samples; ++i) {
        const float t = 0.5f * (float(i) / std::max(1, samples) + float(y) / std::max(1, rows));
        const float v = std::min(1.0f, std::max(0.0f, 0.8f * t + 0.2f * u(rng)));
        unsigned char* at = plane.data() + y * stride;
        if (f == InputFormat::gbrpf32) {
          float x = v * v * (u(rng) < 0.01f ? 4.0f : 1.0f);  // a few above 1 (clipped by PQ / HLG)
          const float r = u(rng);
          if (r < 0.002f) x = NAN;
          else if (r < 0.004f) x = INFINITY;
          else if (r < 0.006f) x = -1.0f;
          std::memcpy(at + 4 * i, &x, 4);
        } else {
          std::uint16_t code;
          if (f == InputFormat::rgb48) code = static_cast<std::uint16_t>(v * 65535.0f);
          else {
            const bool chroma = p > 0;
            const unsigned c10 = chroma ? 64 + static_cast<unsigned>((0.3f + 0.4f * v) * 896) : 64 + static_cast<unsigned>(v * 876);
            code = static_cast<std::uint16_t>(f == InputFormat::p010 ? c10 << 6 : c10);
          }
          std::memcpy(at + 2 * i, &code, 2);
        }
      }
  }
  return fr;
}

void check_video(const HostFrame& fr, const InputColour& colour, const char* op, OutputLayout layout, int tolerance,
                 const std::vector<std::pair<std::string, std::string>>& settings = {}) {
  std::string what = std::string(op) + " " + input_format_name(fr.format) + " " + transfer_name(colour.transfer) +
                     " " + primaries_name(colour.primaries) + " gamut " + gamut_mapping_name(colour.gamut) + " -> " +
                     output_layout_name(layout) + " " + std::to_string(fr.w) + "x" + std::to_string(fr.h);
  for (const auto& [name, value] : settings) what += " " + name + "=" + value;
  Result<Params> params = prepare_params(op, settings);
  ASSERT_TRUE(params.ok());
  const OutputFormat rgba{PixelType::u8, 4};
  std::vector<std::uint8_t> ref;
  FrameStats ref_stats;
  ASSERT_TRUE(cpu::tone_map_frame(fr.host(), fr.format, colour, fr.w, fr.h, *params, layout, rgba, ref, &ref_stats).ok())
      << what;

  ToneMapperConfig cfg;
  cfg.width = fr.w;
  cfg.height = fr.h;
  cfg.input = fr.format;
  cfg.colour = colour;
  cfg.output = rgba;
  cfg.output_layout = layout;
  cfg.params = *params;
  auto mapper = ToneMapper::create(cfg);
  ASSERT_TRUE(mapper.ok()) << what << ": " << mapper.status().message();
  std::vector<void*> d_planes;
  FramePlanes dev;
  for (std::size_t p = 0; p < fr.planes.size(); ++p) {
    void* d = nullptr;
    CUDA_OK(cudaMalloc(&d, fr.planes[p].size()));
    CUDA_OK(cudaMemcpy(d, fr.planes[p].data(), fr.planes[p].size(), cudaMemcpyHostToDevice));
    d_planes.push_back(d);
    dev.data[p] = d;
    dev.stride[p] = fr.strides[p];
  }
  void* d_out = nullptr;
  CUDA_OK(cudaMalloc(&d_out, ref.size()));
  cudaStream_t stream;
  CUDA_OK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  std::vector<std::uint8_t> first;
  for (int run = 0; run < 2; ++run) {  // poisoned with 0xFF, then 0x00: no sample left unwritten
    CUDA_OK(cudaMemset(d_out, run == 0 ? 0xFF : 0x00, ref.size()));
    Status s = mapper.value()->process(dev, d_out, 0, stream, 1.0 / 30);
    ASSERT_TRUE(s.ok()) << what << ": " << s.message();
    CUDA_OK(cudaStreamSynchronize(stream));
    std::vector<std::uint8_t> got(ref.size());
    CUDA_OK(cudaMemcpy(got.data(), d_out, got.size(), cudaMemcpyDeviceToHost));
    if (run == 1) {
      EXPECT_EQ(got, first) << what << ": output depends on the poison";
      break;
    }
    first = got;
    int worst = 0;
    std::size_t differing = 0, beyond = 0;
    std::string first_differences;  // where they are, for a failure's message
    for (std::size_t i = 0; i < got.size(); ++i) {
      const int d = std::abs(int(got[i]) - int(ref[i]));
      worst = std::max(worst, d);
      differing += d != 0;
      beyond += d > tolerance;
      if (d != 0 && differing <= 4)
        first_differences += " [byte " + std::to_string(i) + ": gpu " + std::to_string(got[i]) + " cpu " + std::to_string(ref[i]) + "]";
    }
    // Local operators pick a scale per pixel by a threshold on the activity; the device's key is
    // within 1e-7 of the CPU's (float per-thread log partials), so a pixel sitting on the
    // threshold can take the neighbouring scale: a handful per 4K frame of smooth video content
    // (H100, 4097x2161 P010 reinhard-sat: 1 pixel, 41 codes). Allowed: 1 sample per million.
    if (beyond) std::printf("[video] %s: %zu samples beyond %d (largest %d)\n", what.c_str(), beyond, tolerance, worst);
    const std::size_t flips = tolerance > 1 ? std::max<std::size_t>(0, got.size() / 1000000) : 0;
    EXPECT_LE(beyond, flips) << what << ": largest difference " << worst;
    EXPECT_LE(differing, std::max<std::size_t>(2, got.size() / 1000))
        << what << ": " << differing << " of " << got.size() << first_differences;
    FrameStats gs;
    ASSERT_TRUE(mapper.value()->read_stats(gs).ok());
    EXPECT_EQ(gs.nan_count, ref_stats.nan_count) << what;
    EXPECT_EQ(gs.inf_count, ref_stats.inf_count) << what;
    EXPECT_EQ(gs.negative_count, ref_stats.negative_count) << what;
    EXPECT_NEAR(gs.log_average, ref_stats.log_average, 1e-5 * ref_stats.log_average) << what;
  }
  cudaStreamDestroy(stream);
  for (void* d : d_planes) cudaFree(d);
  cudaFree(d_out);
}

InputColour colour_of(Transfer t, Primaries p, YuvMatrix m = YuvMatrix::bt2020_ncl, YuvRange r = YuvRange::limited) {
  InputColour c;
  c.transfer = t;
  c.primaries = p;
  c.matrix = m;
  c.range = r;
  return c;
}

TEST(GpuVideo, test_gpu_video_layouts_transfers_match_cpu) {
  REQUIRE_GPU();
  const InputFormat formats[] = {InputFormat::p010, InputFormat::yuv420p10, InputFormat::rgb48, InputFormat::gbrpf32};
  const Transfer transfers[] = {Transfer::pq, Transfer::hlg, Transfer::linear};
  const struct { int w, h; } sizes[] = {{1, 1}, {7, 5}, {130, 67}};
  unsigned seed = 1;
  for (const InputFormat f : formats)
    for (const Transfer t : transfers)
      for (const auto& sz : sizes) {
        const Primaries prim = (seed % 2) ? Primaries::bt2020 : Primaries::bt709;
        const HostFrame fr = make_frame(f, sz.w, sz.h, sz.w == 130 ? 8 : 0, seed++);
        check_video(fr, colour_of(t, prim), "reinhard", OutputLayout::interleaved, 1);
        check_video(fr, colour_of(t, prim), "reinhard-sat", OutputLayout::interleaved, 2);
      }
}

TEST(GpuVideo, test_gpu_video_yuv_outputs_match_cpu) {
  REQUIRE_GPU();
  const struct { int w, h; } sizes[] = {{1, 1}, {2, 2}, {5, 3}, {131, 70}};
  unsigned seed = 100;
  for (const auto& sz : sizes)
    for (const OutputLayout l : {OutputLayout::yuv420p, OutputLayout::nv12}) {
      const HostFrame fr = make_frame(InputFormat::p010, sz.w, sz.h, 0, seed++);
      check_video(fr, colour_of(Transfer::pq, Primaries::bt2020), "reinhard", l, 1);
      check_video(fr, colour_of(Transfer::hlg, Primaries::bt2020, YuvMatrix::bt709, YuvRange::full), "drago-local", l, 2);
      // reinhard-sat's tile map encodes the 4:2:0 frame itself (encode_tile_420): partial tiles.
      check_video(fr, colour_of(Transfer::pq, Primaries::bt2020), "reinhard-sat", l, 2);
    }
}

// The gamut mappings (core/gamut.hpp, in the decode) and the display curves' colour modes
// (core/colour_modes.hpp: the map kernel and the fused map + 4:2:0 encode kernel) against the
// CPU: every operator with a `mode` (from the registry) in every mode, PQ BT.2020 input through
// each gamut mapping, interleaved RGBA and yuv420p out. Saturated random colours put many pixels
// outside BT.709, so the soft gamut paths (bisection included) run.
TEST(GpuVideo, GamutMappingsAndColourModesMatchCpu) {
  REQUIRE_GPU();
  unsigned seed = 300;
  for (const GamutMapping g : {GamutMapping::clip, GamutMapping::desaturate, GamutMapping::perceptual})
    for (const InputFormat f : {InputFormat::p010, InputFormat::gbrpf32}) {
      const HostFrame fr = make_frame(f, 131, 70, 0, seed++);
      InputColour colour = colour_of(Transfer::pq, Primaries::bt2020);
      colour.gamut = g;
      for (const OperatorDesc* op : all_operators()) {
        bool has_mode = false;
        for (const ParamDesc* p : all_params(*op)) has_mode |= std::string(p->name) == "mode";
        if (!has_mode) continue;
        for (const char* mode : {"luminance", "rgb", "max-rgb", "hybrid"})
          for (const OutputLayout l : {OutputLayout::interleaved, OutputLayout::yuv420p})
            check_video(fr, colour, op->id, l, 1, {{"mode", mode}});
      }
      check_video(fr, colour, "reinhard", OutputLayout::yuv420p, 1);
    }
}

// 4097 x 2161 (tile + 1 in both axes), P010 PQ BT.2020 -> NV12, temporal on: the video path
// (reinhard's map and reinhard-sat's tile map each writing the 4:2:0 frame themselves).
TEST(GpuVideo, test_gpu_video_large_odd_frame) {
  REQUIRE_GPU();
  const HostFrame fr = make_frame(InputFormat::p010, 4097, 2161, 0, 7);
  check_video(fr, colour_of(Transfer::pq, Primaries::bt2020), "reinhard", OutputLayout::nv12, 1);
  check_video(fr, colour_of(Transfer::pq, Primaries::bt2020), "reinhard-sat", OutputLayout::interleaved, 2);
  check_video(fr, colour_of(Transfer::pq, Primaries::bt2020), "reinhard-sat", OutputLayout::nv12, 2);
}

// The large sizes for every video layout: 4097 x 2161 (a tile + 1 both ways) for each
// layout x transfer, every registered operator in turn (those the 12 cases leave, on P010 HDR10);
// 7680 x 4320 for each layout in HDR10 (PQ, BT.2020) with the default global and local operators
// (NV12 out for P010).
TEST(GpuVideo, test_gpu_video_every_layout_at_large_sizes) {
  REQUIRE_GPU();
  const InputFormat formats[] = {InputFormat::p010, InputFormat::yuv420p10, InputFormat::rgb48, InputFormat::gbrpf32};
  const auto& ops = all_operators();
  std::size_t next = 0;
  unsigned seed = 500;
  for (const InputFormat f : formats)
    for (const Transfer t : {Transfer::pq, Transfer::hlg, Transfer::linear}) {
      const OperatorDesc* op = ops[next++ % ops.size()];
      const HostFrame fr = make_frame(f, 4097, 2161, 0, seed++);
      check_video(fr, colour_of(t, seed % 2 ? Primaries::bt2020 : Primaries::bt709), op->id, OutputLayout::interleaved,
                  op->locality == Locality::local ? 2 : 1);
    }
  for (unsigned k = 0; next < ops.size(); ++k) {  // the operators the layouts did not reach: P010 HDR10
    const OperatorDesc* op = ops[next++];
    const HostFrame fr = make_frame(InputFormat::p010, 4097, 2161, 0, seed++);
    check_video(fr, colour_of(Transfer::pq, Primaries::bt2020), op->id, k % 2 ? OutputLayout::nv12 : OutputLayout::interleaved,
                op->locality == Locality::local ? 2 : 1);
  }
  for (const InputFormat f : formats) {
    const HostFrame fr = make_frame(f, 7680, 4320, 0, seed++);
    const InputColour hdr10 = colour_of(Transfer::pq, Primaries::bt2020);
    check_video(fr, hdr10, "reinhard", f == InputFormat::p010 ? OutputLayout::nv12 : OutputLayout::interleaved, 1);
    check_video(fr, hdr10, "reinhard-sat", f == InputFormat::p010 ? OutputLayout::nv12 : OutputLayout::interleaved, 2);
  }
}

TEST(GpuVideo, test_gpu_video_bad_calls_are_clear_errors) {
  REQUIRE_GPU();
  ToneMapperConfig cfg;
  cfg.width = 8;
  cfg.height = 8;
  cfg.input = InputFormat::p010;
  cfg.colour = colour_of(Transfer::pq, Primaries::bt2020);
  cfg.params = prepare_params("reinhard").value();
  cfg.colour.reference_white = 0.0;  // out of range
  EXPECT_FALSE(ToneMapper::create(cfg).ok());
  cfg.colour.reference_white = 203.0;
  cfg.output_layout = OutputLayout::nv12;
  auto m = ToneMapper::create(cfg);
  ASSERT_TRUE(m.ok()) << m.status().message();
  void* d = nullptr;
  CUDA_OK(cudaMalloc(&d, 4096));
  // Planar input through the single-pointer call, a null chroma plane, a strided NV12 output.
  Status a = m.value()->process(d, 0, d, 0);
  EXPECT_FALSE(a.ok());
  EXPECT_NE(a.message().find("FramePlanes"), std::string::npos) << a.message();
  FramePlanes p;
  p.data[0] = d;
  EXPECT_FALSE(m.value()->process(p, d, 0).ok());
  p.data[1] = d;
  EXPECT_FALSE(m.value()->process(p, d, 64).ok());
  EXPECT_TRUE(m.value()->process(p, d, 0).ok());
  CUDA_OK(cudaDeviceSynchronize());
  cudaFree(d);
}

}  // namespace
}  // namespace tonekit

namespace tonekit {
namespace {

// The decode stage with the simplest map after it: the linear operator with a fixed exposure and a
// float output, against cpu::tone_map of cpu::decode_frame's scene. Differences are the decode's
// and the float map's last bits (the map's own agreement is tested in test_gpu_tone_map.cpp).
TEST(GpuVideo, test_gpu_video_decode_matches_cpu_decode) {
  REQUIRE_GPU();
  const InputFormat formats[] = {InputFormat::p010, InputFormat::rgb48};
  for (const InputFormat f : formats)
    for (const Transfer t : {Transfer::pq, Transfer::hlg}) {
      const HostFrame fr = make_frame(f, 130, 67, 0, 77);
      const InputColour colour = colour_of(t, Primaries::bt2020);
      Image scene;
      ASSERT_TRUE(cpu::decode_frame(fr.host(), f, colour, fr.w, fr.h, scene).ok());
      // exposure 1/64: PQ reaches 10000 / 203 = 49.3, all below 1 after it (float outputs clip at 1).
      Result<Params> params = prepare_params("linear", {{"normalize", "0"}, {"exposure", "0.015625"}, {"dither", "0"}});
      ASSERT_TRUE(params.ok()) << params.status().message();
      ToneMapperConfig cfg;
      cfg.width = fr.w;
      cfg.height = fr.h;
      cfg.input = f;
      cfg.colour = colour;
      cfg.output = {PixelType::f32, 3};
      cfg.params = *params;
      auto mapper = ToneMapper::create(cfg);
      ASSERT_TRUE(mapper.ok());
      std::vector<void*> d_planes;
      FramePlanes dev;
      for (std::size_t p = 0; p < fr.planes.size(); ++p) {
        void* d = nullptr;
        CUDA_OK(cudaMalloc(&d, fr.planes[p].size()));
        CUDA_OK(cudaMemcpy(d, fr.planes[p].data(), fr.planes[p].size(), cudaMemcpyHostToDevice));
        d_planes.push_back(d);
        dev.data[p] = d;
        dev.stride[p] = fr.strides[p];
      }
      OutputImage ref;
      ref.allocate(fr.w, fr.h, 3, PixelType::f32);
      ASSERT_TRUE(cpu::tone_map(scene.view(), *params, ref.view()).ok());
      const float* want_values = reinterpret_cast<const float*>(ref.bytes.data());
      std::vector<float> got(std::size_t(fr.w) * fr.h * 3);
      void* d_out = nullptr;
      CUDA_OK(cudaMalloc(&d_out, got.size() * 4));
      ASSERT_TRUE(mapper.value()->process(dev, d_out, 0).ok());
      CUDA_OK(cudaMemcpy(got.data(), d_out, got.size() * 4, cudaMemcpyDeviceToHost));
      double worst = 0;
      std::size_t differing = 0, first = got.size();
      for (std::size_t i = 0; i < got.size(); ++i) {
        const float want = want_values[i];
        // Values below 1e-6 (display light) are 0 in every 8-bit or 16-bit output; the device
        // flushes subnormals in the map pass.
        if (std::fabs(want) < 1e-6f && std::fabs(got[i]) < 1e-6f) continue;
        const double rel = std::fabs(double(got[i]) - want) / std::max(1e-30, double(std::fabs(want)));
        if (got[i] != want && first == got.size()) first = i;
        differing += got[i] != want;
        worst = std::max(worst, rel);
      }
      const std::string what = std::string(input_format_name(f)) + " " + transfer_name(t);
      std::printf("[video] decode %-10s %-4s: %zu of %zu values differ, max rel %.3g", input_format_name(f),
                  transfer_name(t), differing, got.size(), worst);
      if (first < got.size())
        std::printf(" (first at %zu: gpu %.9g cpu %.9g, scene %.9g)", first, got[first], double(want_values[first]),
                    double(scene.pixels[first]));
      std::printf("\n");
      EXPECT_LE(worst, 1e-6) << what;
      for (void* d : d_planes) cudaFree(d);
      cudaFree(d_out);
    }
}

// The 4:2:0 block decode (a thread per 2 x 2 block, the default) against the per-pixel decode
// kernel on the same frames: the same floats, bit for bit (both in the -fmad=false file, the same
// expressions on the same codes). Random codes over the whole 16-bit word (P010's low bits and
// yuv420p10's codes past 1023 must be ignored / clamped alike), every transfer, both matrices and
// ranges, BT.2020 (gamut policy) and BT.709, odd sizes (the last chroma column and row clamped;
// odd widths store pixel by pixel), padded planes, 1x1 to 4K, outputs poisoned with NaN.
TEST(GpuVideo, BlockDecodeSameFloatsAsPixelDecode) {
  REQUIRE_GPU();
  struct Size {
    int w, h;
  };
  const Size sizes[] = {{1, 1}, {2, 2}, {3, 1}, {1, 3}, {5, 3}, {129, 67}, {130, 66}, {257, 129}, {3840, 2160}};
  std::mt19937 rng(20261127);
  int checked = 0;
  for (const InputFormat f : {InputFormat::p010, InputFormat::yuv420p10})
    for (const Size sz : sizes)
      for (const Transfer t : {Transfer::pq, Transfer::hlg, Transfer::linear}) {
        const bool big = sz.w > 1000;
        const InputColour colour = colour_of(t, (checked & 1) ? Primaries::bt709 : Primaries::bt2020,
                                             (checked & 2) ? YuvMatrix::bt709 : YuvMatrix::bt2020_ncl,
                                             (checked & 4) ? YuvRange::full : YuvRange::limited);
        ++checked;
        const std::size_t pad = big ? 0 : 6;
        std::vector<std::vector<std::uint16_t>> host;
        std::vector<void*> dev_planes;
        FramePlanes dev;
        for (int p = 0; p < plane_count(f); ++p) {
          const std::size_t stride = plane_row_bytes(f, p, sz.w) + pad;
          const std::size_t words = stride / 2 * plane_rows(f, p, sz.h);
          host.emplace_back(words);
          for (std::uint16_t& w : host.back()) w = static_cast<std::uint16_t>(rng());
          void* d = nullptr;
          CUDA_OK(cudaMalloc(&d, words * 2));
          CUDA_OK(cudaMemcpy(d, host.back().data(), words * 2, cudaMemcpyHostToDevice));
          dev_planes.push_back(d);
          dev.data[p] = d;
          dev.stride[p] = stride;
        }
        const std::size_t n = std::size_t(sz.w) * sz.h * 3;
        float *d_pixel = nullptr, *d_block = nullptr;
        unsigned* d_counts = nullptr;
        CUDA_OK(cudaMalloc(&d_pixel, n * 4));
        CUDA_OK(cudaMalloc(&d_block, n * 4));
        CUDA_OK(cudaMalloc(&d_counts, 3 * sizeof(unsigned)));
        CUDA_OK(cudaMemset(d_pixel, 0xFF, n * 4));  // NaN
        CUDA_OK(cudaMemset(d_block, 0xFF, n * 4));
        CUDA_OK(cudaMemset(d_counts, 0, 3 * sizeof(unsigned)));
        ASSERT_TRUE(cuda::launch_video_decode(dev, f, colour, sz.w, sz.h, d_pixel, d_counts, nullptr,
                                              cuda::VideoDecodeKernel::per_pixel)
                        .ok());
        ASSERT_TRUE(cuda::launch_video_decode(dev, f, colour, sz.w, sz.h, d_block, d_counts, nullptr,
                                              cuda::VideoDecodeKernel::best)
                        .ok());
        CUDA_OK(cudaDeviceSynchronize());
        std::vector<float> pixel(n), block(n);
        CUDA_OK(cudaMemcpy(pixel.data(), d_pixel, n * 4, cudaMemcpyDeviceToHost));
        CUDA_OK(cudaMemcpy(block.data(), d_block, n * 4, cudaMemcpyDeviceToHost));
        const std::string what = std::string(input_format_name(f)) + " " + transfer_name(t) + " " +
                                 std::to_string(sz.w) + "x" + std::to_string(sz.h);
        std::size_t differ = 0, first = n, nan = 0;
        for (std::size_t i = 0; i < n; ++i) {
          if (std::memcmp(&pixel[i], &block[i], 4) != 0) {
            if (first == n) first = i;
            ++differ;
          }
          nan += std::isnan(block[i]);
        }
        EXPECT_EQ(nan, 0u) << what << ": values left unwritten (poison)";
        EXPECT_EQ(differ, 0u) << what << ": first at " << first << " (pixel " << (first < n ? pixel[first] : 0.f)
                              << ", block " << (first < n ? block[first] : 0.f) << ")";
        for (void* d : dev_planes) cudaFree(d);
        cudaFree(d_pixel);
        cudaFree(d_block);
        cudaFree(d_counts);
      }
  EXPECT_EQ(checked, 2 * 9 * 3);
}

// The statistics gathered in the 4:2:0 decode (cuda::Tuning::decode_statistics, the default)
// against the statistics pass over the decoded frame (the option off), two ToneMappers on the same
// frames: the same FrameStats (key, extremes, peak), the same adapted state and the same output
// bytes, bit for bit. Every global curve (histeq's histogram and the robust peak still read the
// decoded frame) and the local operators (their pass finishes the gathered totals too), temporal
// adaptation over three frames, RGBA8 and NV12 outputs, P010 and yuv420p10 with random codes
// (out-of-gamut colours included), outputs poisoned. Glare changes the decoded frame after the
// decode, so it takes the statistics pass (checked: the option changes nothing there).
// Small and odd sizes (the groups and blocks at the frame's edges) here, 4K below.
void check_decode_statistics(const std::vector<std::pair<int, int>>& sizes, bool every_op) {
  struct Op {
    const char* name;
    std::vector<std::pair<std::string, std::string>> params;
    bool glare;
  };
  const Op ops[] = {{"reinhard", {}, false},
                    {"drago", {{"peak_percentile", "99.99"}}, false},
                    {"log", {}, false},
                    {"linear", {}, false},
                    {"histeq", {}, false},
                    {"reinhard-sat", {}, false},
                    {"reinhard-local", {}, false},
                    {"drago-local", {}, false},
                    {"reinhard", {}, true}};
  std::mt19937 rng(1127);
  int compared = 0;
  for (const InputFormat f : {InputFormat::p010, InputFormat::yuv420p10})
    for (const auto& [w, h] : sizes)
      for (const Op& op : ops) {
        const std::string name = op.name;
        const bool main_curve = name == "reinhard" || name == "drago" || name == "histeq" || name == "reinhard-sat";
        if (!every_op && (op.glare || !main_curve)) continue;
        for (const OutputLayout layout : {OutputLayout::interleaved, OutputLayout::nv12}) {
          const std::string what = std::string(op.name) + (op.glare ? "+glare " : " ") + input_format_name(f) + " " +
                                   output_layout_name(layout) + " " + std::to_string(w) + "x" + std::to_string(h);
          Result<Params> params = prepare_params(op.name, op.params);
          ASSERT_TRUE(params.ok()) << what << ": " << params.status().message();
          std::unique_ptr<ToneMapper> mappers[2];
          for (int fused = 0; fused < 2; ++fused) {
            ToneMapperConfig cfg;
            cfg.width = w;
            cfg.height = h;
            cfg.input = f;
            cfg.colour = colour_of(Transfer::pq, Primaries::bt2020);
            cfg.output = {PixelType::u8, 4};
            cfg.output_layout = layout;
            cfg.params = *params;
            cfg.temporal = true;
            if (op.glare) cfg.glare.strength = 0.1;
            cuda::Tuning tuning;
            tuning.decode_statistics = fused == 1;
            auto m = cuda::create_tone_mapper(cfg, tuning);
            ASSERT_TRUE(m.ok()) << what << ": " << m.status().message();
            mappers[fused] = std::move(m.value());
          }
          std::vector<void*> d_planes;
          FramePlanes dev;
          std::vector<std::vector<std::uint16_t>> host;
          for (int p = 0; p < plane_count(f); ++p) {
            const std::size_t stride = plane_row_bytes(f, p, w);
            host.emplace_back(stride / 2 * plane_rows(f, p, h));
            void* d = nullptr;
            CUDA_OK(cudaMalloc(&d, host.back().size() * 2));
            d_planes.push_back(d);
            dev.data[p] = d;
            dev.stride[p] = stride;
          }
          const std::size_t out_bytes = output_frame_bytes(layout, w, h, 4, 1);
          unsigned char* d_out[2] = {nullptr, nullptr};
          CUDA_OK(cudaMalloc(&d_out[0], out_bytes));
          CUDA_OK(cudaMalloc(&d_out[1], out_bytes));
          for (int frame = 0; frame < 3; ++frame) {
            // Frame 1 darker (codes scaled down): the adaptation moves.
            for (int p = 0; p < plane_count(f); ++p) {
              for (std::uint16_t& w : host[p]) {
                unsigned code = rng() % 1024;
                if (frame == 1 && p == 0) code = 64 + code / 4;
                if (p > 0 && (rng() & 3)) code = 512 + (code % 200) - 100;  // mostly moderate chroma, some extreme
                w = static_cast<std::uint16_t>(f == InputFormat::p010 ? code << 6 : code);
              }
              CUDA_OK(cudaMemcpy(d_planes[p], host[p].data(), host[p].size() * 2, cudaMemcpyHostToDevice));
            }
            std::vector<unsigned char> got[2];
            FrameStats stats[2], adapted[2];
            for (int fused = 0; fused < 2; ++fused) {
              CUDA_OK(cudaMemset(d_out[fused], 0xAB, out_bytes));
              ASSERT_TRUE(mappers[fused]->process(dev, d_out[fused], 0, nullptr, 1.0 / 30).ok()) << what;
              ASSERT_TRUE(mappers[fused]->read_stats(stats[fused], &adapted[fused]).ok()) << what;
              got[fused].resize(out_bytes);
              CUDA_OK(cudaMemcpy(got[fused].data(), d_out[fused], out_bytes, cudaMemcpyDeviceToHost));
            }
            const std::string at = what + " frame " + std::to_string(frame);
            EXPECT_EQ(stats[0].pixel_count, stats[1].pixel_count) << at;
            EXPECT_EQ(stats[0].log_sum, stats[1].log_sum) << at;
            EXPECT_EQ(stats[0].log_average, stats[1].log_average) << at;
            EXPECT_EQ(stats[0].min_luminance, stats[1].min_luminance) << at;
            EXPECT_EQ(stats[0].max_luminance, stats[1].max_luminance) << at;
            EXPECT_EQ(stats[0].min_positive_luminance, stats[1].min_positive_luminance) << at;
            EXPECT_EQ(stats[0].peak_luminance, stats[1].peak_luminance) << at;
            EXPECT_EQ(adapted[0].log_average, adapted[1].log_average) << at;
            EXPECT_EQ(adapted[0].peak_luminance, adapted[1].peak_luminance) << at;
            EXPECT_EQ(stats[1].pixel_count, std::uint64_t(w) * h) << at;
            EXPECT_GT(stats[1].log_average, 0.0) << at;
            EXPECT_TRUE(got[0] == got[1]) << at << ": output bytes differ";
            ++compared;
          }
          TemporalState state[2];
          ASSERT_TRUE(mappers[0]->read_temporal_state(state[0]).ok());
          ASSERT_TRUE(mappers[1]->read_temporal_state(state[1]).ok());
          EXPECT_EQ(state[0].log_key, state[1].log_key) << what;
          EXPECT_EQ(state[0].log_peak, state[1].log_peak) << what;
          EXPECT_EQ(state[0].cuts, state[1].cuts) << what;
          for (void* d : d_planes) cudaFree(d);
          cudaFree(d_out[0]);
          cudaFree(d_out[1]);
        }
      }
  EXPECT_GT(compared, every_op ? 200 : 20);
}

TEST(GpuVideo, DecodeStatisticsSameAsStatisticsPass) {
  REQUIRE_GPU();
  check_decode_statistics({{1, 1}, {3, 3}, {5, 2}, {2, 5}, {129, 67}, {257, 130}}, true);
}

TEST(GpuVideo, DecodeStatisticsSameAsStatisticsPass4K) {
  REQUIRE_GPU();
  check_decode_statistics({{3840, 2160}}, false);
}

// DeviceFrameMapper, the stream's CUDA path: three frames in flight (upload, kernels and download
// on three streams) give the bytes of one frame at a time, with the temporal state carried in
// frame order (a dark run and a jump back make the adaptation and a scene cut matter); host
// buffers pageable (staged), page-locked by cudaMallocHost or by lock_host_buffer (read and
// written by the copies themselves); every
// output byte written over a poison; statistics read right after a submit are that frame's.
TEST(GpuVideo, test_gpu_device_frames_in_flight_match_one_at_a_time) {
  REQUIRE_GPU();
  const int w = 318, h = 178, frames = 14;
  const InputFormat f = InputFormat::yuv420p10;
  const std::size_t in_bytes = frame_bytes(f, w, h);
  std::vector<std::vector<unsigned char>> inputs;
  for (int i = 0; i < frames; ++i) {
    const HostFrame fr = make_frame(f, w, h, 0, 900 + i);
    std::vector<unsigned char> packed(in_bytes);
    const FramePlanes dst = packed_planes(f, packed.data(), w, h);
    for (std::size_t p = 0; p < fr.planes.size(); ++p)
      std::memcpy(const_cast<void*>(dst.data[p]), fr.planes[p].data(), fr.planes[p].size());
    // Luma scaled per frame: bright, a dark run, then bright again (a cut), so the state matters.
    const float scale = i < 4 ? 1.0f : i < 9 ? 0.15f : 0.9f;
    auto* y = reinterpret_cast<std::uint16_t*>(packed.data());
    for (std::size_t k = 0; k < std::size_t(w) * h; ++k) y[k] = static_cast<std::uint16_t>(64 + (y[k] - 64) * scale);
    inputs.push_back(std::move(packed));
  }
  for (const char* op : {"reinhard", "reinhard-sat"}) {
    for (OutputLayout layout : {OutputLayout::yuv420p, OutputLayout::interleaved}) {
      ToneMapperConfig cfg;
      cfg.width = w;
      cfg.height = h;
      cfg.input = f;
      cfg.colour = colour_of(Transfer::pq, Primaries::bt2020);
      cfg.output = {PixelType::u8, layout == OutputLayout::interleaved ? 4 : 3};
      cfg.output_layout = layout;
      Result<Params> params = prepare_params(op, {});
      ASSERT_TRUE(params.ok());
      cfg.params = *params;
      cfg.temporal = true;
      const std::string what = std::string(op) + (layout == OutputLayout::interleaved ? " rgba" : " yuv420p");

      auto one = DeviceFrameMapper::create(cfg, 1);
      ASSERT_TRUE(one.ok()) << one.status().message();
      const std::size_t out_bytes = one.value()->output_bytes();
      std::vector<std::vector<unsigned char>> want(frames, std::vector<unsigned char>(out_bytes, 0xCD));
      std::vector<FrameStats> want_stats(frames);
      for (int i = 0; i < frames; ++i) {
        ASSERT_TRUE(one.value()->map(inputs[i].data(), want[i].data(), 1.0 / 30).ok()) << what;
        ASSERT_TRUE(one.value()->read_stats(want_stats[i]).ok());
      }
      EXPECT_NE(want[2], want[6]) << what << ": the dark run must look different";

      // 0: pageable (staged), 1: cudaMallocHost, 2: pageable locked with lock_host_buffer.
      for (const int mode : {0, 1, 2}) {
        const bool locked = mode == 1;
        auto many = DeviceFrameMapper::create(cfg, 3);
        ASSERT_TRUE(many.ok());
        ASSERT_EQ(many.value()->frames_in_flight(), 3);
        std::vector<unsigned char*> in(frames), out(frames);
        std::vector<std::vector<unsigned char>> pageable_out(frames);
        for (int i = 0; i < frames; ++i) {
          if (locked) {
            void* a = nullptr;
            void* b = nullptr;
            CUDA_OK(cudaMallocHost(&a, in_bytes));
            CUDA_OK(cudaMallocHost(&b, out_bytes));
            std::memcpy(a, inputs[i].data(), in_bytes);
            in[i] = static_cast<unsigned char*>(a);
            out[i] = static_cast<unsigned char*>(b);
          } else {
            pageable_out[i].assign(out_bytes, 0);
            in[i] = inputs[i].data();
            out[i] = pageable_out[i].data();
          }
          std::memset(out[i], 0xAB, out_bytes);  // poison
        }
        // Mode 2: page-aligned malloc'd buffers (no page shared between two of them), locked and
        // unlocked by the mapper.
        struct Free {
          void operator()(unsigned char* p) const { std::free(p); }
        };
        std::vector<std::unique_ptr<unsigned char, Free>> own;
        auto aligned = [&](std::size_t n) {
          own.emplace_back(static_cast<unsigned char*>(std::aligned_alloc(4096, (n + 4095) / 4096 * 4096)));
          return own.back().get();
        };
        if (mode == 2)
          for (int i = 0; i < frames; ++i) {
            in[i] = aligned(in_bytes);
            std::memcpy(in[i], inputs[i].data(), in_bytes);
            out[i] = aligned(out_bytes);
            std::memset(out[i], 0xAB, out_bytes);
            EXPECT_TRUE(many.value()->lock_host_buffer(in[i], in_bytes)) << what << " frame " << i;
            EXPECT_TRUE(many.value()->lock_host_buffer(out[i], out_bytes)) << what << " frame " << i;
          }
        for (int i = 0; i < frames; ++i) {
          ASSERT_TRUE(many.value()->submit(in[i], out[i], 1.0 / 30).ok()) << what;
          EXPECT_LE(many.value()->pending(), 3);
          FrameStats stats;
          ASSERT_TRUE(many.value()->read_stats(stats).ok());
          EXPECT_EQ(stats.log_sum, want_stats[i].log_sum) << what << " frame " << i;
        }
        EXPECT_EQ(many.value()->pending(), 3);
        while (many.value()->pending() > 0) ASSERT_TRUE(many.value()->complete_oldest().ok());
        EXPECT_TRUE(many.value()->oldest_ready());
        for (int i = 0; i < frames; ++i)
          EXPECT_EQ(0, std::memcmp(out[i], want[i].data(), out_bytes))
              << what << " mode " << mode << ": frame " << i << " differs";
        if (mode == 2)
          for (int i = 0; i < frames; ++i) {
            many.value()->unlock_host_buffer(in[i]);
            many.value()->unlock_host_buffer(out[i]);
          }
        if (locked)
          for (int i = 0; i < frames; ++i) {
            cudaFreeHost(in[i]);
            cudaFreeHost(out[i]);
          }
      }
    }
  }
}

}  // namespace
}  // namespace tonekit
