// The CUDA backend against the CPU reference: every global operator, every input
// and output format, awkward sizes up to 8K, bad pixels, default and user streams, real images.
// Tolerances and why:
//  - log-average within 1e-6 relative (both sum float logs in double; the order differs);
//    min / max / smallest positive exact: core::luminance<float> is spelled as two FMAs, so the
//    CPU (vectorised clones and scalar loops alike) and the GPU round it identically.
//    NaN / Inf / negative counts exact.
//  - 8-bit: >= 99.99% of samples equal, never more than 1 apart (both call powf/logf, but the
//    CPU's libmvec and CUDA's libdevice differ by an ulp now and then).
//  - 16-bit: >= 99.9% within 1, never more than 2 apart (an ulp of powf is ~0.01 LSB at 16 bits).
//  - half / float: >= 99.99% within 1e-5 (float) / 1e-3 (half, one ulp near 1), never more than 1e-3 / 2e-3.
//  - histeq: a luminance within an ulp of a bin edge can land in the neighbour bin, whose table
//    entry may differ by more than a step: the same fraction rules, a looser maximum.
// Every test GTEST_SKIPs with the reason when there is no CUDA device.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "gpu/gpu_test_support.hpp"
#include "core/colour.hpp"
#include "core/half.hpp"
#include "core/robust_peak.hpp"
#include "cuda/tuning.hpp"
#include "gpu/pfm.hpp"
#include "tonekit/operators.hpp"
#include "tonekit/tone_mapper.hpp"
#include "tonekit/tonemap.hpp"

using namespace tonekit;
using cuda::ScanAlgorithm;
using cuda::StatsAlgorithm;

namespace {




// Every global operator of the registry, in registry order (a new operator is tested here
// without an edit).
const std::vector<const char*>& global_ops() {
  static const std::vector<const char*> ids = [] {
    std::vector<const char*> v;
    for (const OperatorDesc* op : all_operators())
      if (op->locality == Locality::global) v.push_back(op->id);
    return v;
  }();
  return ids;
}
const int kGlobalOpCount = static_cast<int>(global_ops().size());
const InputFormat kInputs[] = {InputFormat::rgb_f32, InputFormat::rgba_f32, InputFormat::rgba_f16};
const OutputFormat kOutputs[] = {{PixelType::u8, 4},  {PixelType::u8, 3},  {PixelType::u16, 3}, {PixelType::u16, 4},
                                 {PixelType::f16, 4}, {PixelType::f16, 3}, {PixelType::f32, 3}, {PixelType::f32, 4}};

int in_channels(InputFormat f) { return f == InputFormat::rgb_f32 ? 3 : 4; }

// A float image (the source of truth) and its bytes in the input format.
struct Frame {
  int w = 0, h = 0;
  InputFormat fmt = InputFormat::rgb_f32;
  std::size_t stride = 0;            // bytes between rows of `bytes`
  std::vector<unsigned char> bytes;  // rows of `stride` bytes
  ImageView view() const {
    return ImageView{const_cast<unsigned char*>(bytes.data()), w, h, in_channels(fmt),
                     fmt == InputFormat::rgba_f16 ? PixelType::f16 : PixelType::f32, stride, MemorySpace::host};
  }
};

Frame make_frame(const std::vector<float>& px, int w, int h, int src_c, InputFormat fmt, std::size_t pad = 0) {
  Frame f;
  f.w = w;
  f.h = h;
  f.fmt = fmt;
  const int c = in_channels(fmt);
  f.stride = input_pixel_bytes(fmt) * w + pad;
  f.bytes.assign(f.stride * h, 0);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      for (int k = 0; k < c; ++k) {
        const float v = k < src_c ? px[(static_cast<std::size_t>(y) * w + x) * src_c + k] : 1.0f;
        unsigned char* p = f.bytes.data() + f.stride * y;
        if (fmt == InputFormat::rgba_f16) {
          const std::uint16_t hbits = core::float_to_half(v);
          std::memcpy(p + (x * c + k) * 2, &hbits, 2);
        } else {
          std::memcpy(p + (x * c + k) * 4, &v, 4);
        }
      }
  return f;
}

// Log-uniform positive values over 16 stops either side of 1; alpha in [-0.2, 1.2].
std::vector<float> random_pixels(int w, int h, unsigned seed, bool bad_pixels) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> e(-11.0f, 11.0f), u(0.0f, 1.0f), a(-0.2f, 1.2f);
  std::vector<float> px(static_cast<std::size_t>(w) * h * 4);
  for (std::size_t i = 0; i < px.size(); ++i) px[i] = (i % 4 == 3) ? a(rng) : std::exp(e(rng));
  if (bad_pixels) {
    const float bad[] = {NAN, INFINITY, -INFINITY, -1.5f, 0.0f, -0.0f};
    for (std::size_t i = 0; i < px.size(); ++i)
      if (u(rng) < 0.01f) px[i] = bad[rng() % 6];
    for (int x = 0; x < std::min(w, 8); ++x)  // a black run
      for (int k = 0; k < 4; ++k) px[x * 4 + k] = 0.0f;
  }
  return px;
}

struct DeviceBuffers {
  void* in = nullptr;
  void* out = nullptr;
  ~DeviceBuffers() {
    cudaFree(in);
    cudaFree(out);
  }
};

struct Comparison {
  std::size_t samples = 0, within = 0;
  double max_diff = 0;
};

double sample(const OutputImage& img, std::size_t i) { return gpu_test::output_sample(img, i); }

// How far the GPU may be from the CPU reference for an operator's output.
struct Tolerance {
  bool histeq = false;
  bool through_pq = false;        // bt2390, spline: the curve runs in PQ signal (core::pq_eotf after the knee)
  bool per_channel_mode = false;  // a colour mode other than luminance (rgb, max-rgb, hybrid)
};

void expect_outputs_agree(const OutputImage& gpu, const OutputImage& cpu, const Tolerance& t, const std::string& what) {
  const bool histeq = t.histeq;
  const std::size_t n = static_cast<std::size_t>(cpu.width) * cpu.height * cpu.channels;
  double tol = 0, max_allowed = 1, min_fraction = 0.9999;
  switch (cpu.type) {
    case PixelType::u8: tol = 0; max_allowed = 1; break;
    case PixelType::u16: tol = 1; max_allowed = 2; min_fraction = 0.999; break;
    case PixelType::f16: tol = 1e-3; max_allowed = 2e-3; break;
    case PixelType::f32: tol = 1e-5; max_allowed = 1e-3; break;
  }
  // PQ's EOTF magnifies a last-bit difference of its signal ~7x near white (its exponents 1/m2 then
  // 1/m1 = 6.28; the GPU's SFU reciprocal and fused products in the curves' polynomials differ
  // there by an ulp or two): float outputs within 1e-4. The colour modes other than luminance
  // evaluate the curve per channel (up to four times a pixel), so more 8-bit samples sit an ulp
  // from a code boundary: 99.9 % equal. Every sample stays within max_allowed (one 8-bit code).
  if (t.through_pq && cpu.type == PixelType::f32) tol = 1e-4;
  if (t.per_channel_mode && cpu.type == PixelType::u8) min_fraction = 0.999;
  if (histeq) max_allowed = cpu.type == PixelType::u16 ? 65535.0 * 0.02 : (cpu.type == PixelType::u8 ? 6 : 0.02);
  Comparison c;
  for (std::size_t i = 0; i < n; ++i) {
    const double a = sample(gpu, i), b = sample(cpu, i);
    const double d = std::fabs(a - b);
    if (!(d <= tol) && !std::isnan(a)) {}
    if (std::isnan(a) || std::isnan(b)) { ADD_FAILURE() << what << ": NaN at " << i; return; }
    c.within += d <= tol;
    c.max_diff = std::max(c.max_diff, d);
  }
  c.samples = n;
  // Tiny images: one sample may disagree (99.99% of 3 samples is all of them).
  const std::size_t allowed_off = std::max<std::size_t>(1, static_cast<std::size_t>(std::floor((1.0 - min_fraction) * n)));
  EXPECT_LE(n - c.within, allowed_off) << what << ": " << (n - c.within) << " of " << n << " samples differ by more than " << tol;
  EXPECT_LE(c.max_diff, max_allowed) << what << ": largest difference";
}

void expect_stats_agree(const FrameStats& g, const FrameStats& c, const std::string& what) {
  EXPECT_EQ(g.pixel_count, c.pixel_count) << what;
  EXPECT_NEAR(g.log_average, c.log_average, 1e-6 * c.log_average) << what;
  EXPECT_EQ(static_cast<float>(g.min_luminance), static_cast<float>(c.min_luminance)) << what << ": min luminance";
  EXPECT_EQ(static_cast<float>(g.max_luminance), static_cast<float>(c.max_luminance)) << what << ": max luminance";
  EXPECT_EQ(static_cast<float>(g.min_positive_luminance), static_cast<float>(c.min_positive_luminance))
      << what << ": smallest positive luminance";
  EXPECT_EQ(g.nan_count, c.nan_count) << what;
  EXPECT_EQ(g.inf_count, c.inf_count) << what;
  EXPECT_EQ(g.negative_count, c.negative_count) << what;
  if (c.peak_luminance == c.max_luminance) {
    EXPECT_EQ(static_cast<float>(g.peak_luminance), static_cast<float>(c.peak_luminance)) << what << ": peak";
  } else {  // the robust peak: the same integer histogram and double search; a pixel within an ulp
            // of a bin edge could move one count, so one bin of ln L is the bound
    const double bin = (std::log(c.max_luminance) - std::log(c.min_positive_luminance)) / core::kPeakBins;
    EXPECT_NEAR(std::log(g.peak_luminance), std::log(c.peak_luminance), bin) << what << ": robust peak";
  }
}

std::string describe(const char* op, InputFormat in, OutputFormat out, int w, int h) {
  return std::string(op) + " " + input_format_name(in) + " -> " + pixel_type_name(out.type) + "x" +
         std::to_string(out.channels) + " " + std::to_string(w) + "x" + std::to_string(h);
}

// Every statistics variant (src/cuda/tuning.hpp).
constexpr StatsAlgorithm kAllStats[] = {StatsAlgorithm::fused, StatsAlgorithm::harris, StatsAlgorithm::mjp,
                                        StatsAlgorithm::cub,   StatsAlgorithm::bulk,   StatsAlgorithm::async};

struct RunOptions {
  bool user_stream = false;
  bool check_poison = false;  // run twice over outputs poisoned with 0x00 and 0xFF
  std::size_t out_pad = 0;
  StatsAlgorithm stats = StatsAlgorithm::fused;
  ScanAlgorithm scan = ScanAlgorithm::blelloch;
  int stats_blocks_per_sm = 0;
  std::vector<std::pair<std::string, std::string>> settings;
};

// Maps `frame` on the GPU and on the CPU and compares statistics and outputs.
void check_against_cpu(const Frame& frame, const char* op, OutputFormat out_fmt, const RunOptions& o = {}) {
  std::string what = describe(op, frame.fmt, out_fmt, frame.w, frame.h) + " stats=" + cuda::stats_algorithm_name(o.stats) +
                     " scan=" + cuda::scan_algorithm_name(o.scan) + (o.user_stream ? " user-stream" : " default-stream");
  for (const auto& [name, value] : o.settings) what += " " + name + "=" + value;
  auto params = prepare_params(op, o.settings);
  ASSERT_TRUE(params.ok()) << params.status().message();
  // CPU reference.
  OutputImage ref;
  ref.allocate(frame.w, frame.h, out_fmt.channels, out_fmt.type);
  FrameStats ref_stats;
  ASSERT_TRUE(cpu::tone_map(frame.view(), params.value(), ref.view(), &ref_stats).ok());
  // GPU.
  ToneMapperConfig cfg;
  cfg.width = frame.w;
  cfg.height = frame.h;
  cfg.input = frame.fmt;
  cfg.output = out_fmt;
  cfg.params = params.value();
  cuda::Tuning tuning;
  tuning.stats = o.stats;
  tuning.stats_blocks_per_sm = o.stats_blocks_per_sm;
  tuning.scan = o.scan;
  auto mapper = cuda::create_tone_mapper(cfg, tuning);
  ASSERT_TRUE(mapper.ok()) << mapper.status().message();
  DeviceBuffers d;
  const std::size_t out_row = bytes_per_channel(out_fmt.type) * out_fmt.channels * frame.w;
  const std::size_t out_stride = out_row + o.out_pad;
  CUDA_OK(cudaMalloc(&d.in, frame.bytes.size()));
  CUDA_OK(cudaMalloc(&d.out, out_stride * frame.h));
  CUDA_OK(cudaMemcpy(d.in, frame.bytes.data(), frame.bytes.size(), cudaMemcpyHostToDevice));
  cudaStream_t stream = nullptr;
  if (o.user_stream) CUDA_OK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  ByteBuffer first;
  const int runs = o.check_poison ? 2 : 1;
  for (int run = 0; run < runs; ++run) {
    CUDA_OK(cudaMemset(d.out, run == 0 ? 0xFF : 0x00, out_stride * frame.h));
    Status s = mapper.value()->process(d.in, frame.stride, d.out, out_stride, stream);
    ASSERT_TRUE(s.ok()) << s.message();
    CUDA_OK(cudaStreamSynchronize(stream));
    std::vector<unsigned char> host(out_stride * frame.h);
    CUDA_OK(cudaMemcpy(host.data(), d.out, host.size(), cudaMemcpyDeviceToHost));
    OutputImage got;
    got.allocate(frame.w, frame.h, out_fmt.channels, out_fmt.type);
    for (int y = 0; y < frame.h; ++y) std::memcpy(got.bytes.data() + out_row * y, host.data() + out_stride * y, out_row);
    if (run == 0) {
      FrameStats gs;
      ASSERT_TRUE(mapper.value()->read_stats(gs).ok());
      expect_stats_agree(gs, ref_stats, what);
      Tolerance t;
      t.histeq = std::string(op) == "histeq";
      t.through_pq = std::string(op) == "bt2390" || std::string(op) == "spline";
      for (const auto& [name, value] : o.settings) t.per_channel_mode |= name == "mode" && value != "luminance";
      expect_outputs_agree(got, ref, t, what);
      first = got.bytes;
    } else {
      EXPECT_EQ(first, got.bytes) << what << ": output depends on the poison value (unwritten samples or a race)";
    }
    for (int y = 0; o.out_pad && y < frame.h; ++y)  // the padding between rows stays untouched
      for (std::size_t b = out_row; b < out_stride; ++b)
        ASSERT_EQ(host[out_stride * y + b], run == 0 ? 0xFF : 0x00) << what << ": wrote into row padding";
  }
  if (stream) cudaStreamDestroy(stream);
}

// ---- every operator x every input format x every output format, small awkward sizes ----
struct Size { int w, h; };
class GpuFormats : public ::testing::TestWithParam<std::tuple<int, int, int, int>> {};

TEST_P(GpuFormats, test_gpu_matches_cpu) {
  REQUIRE_GPU();
  const Size sizes[] = {{1, 1}, {7, 3}, {31, 17}, {130, 67}};
  const auto [op, in, out, size] = GetParam();
  const Size sz = sizes[size];
  const auto px = random_pixels(sz.w, sz.h, 1000u + op * 97 + in * 13 + out * 7 + size, size >= 2);
  const Frame f = make_frame(px, sz.w, sz.h, 4, kInputs[in], size == 3 ? 16 : 0);
  RunOptions o;
  o.user_stream = (op + out) % 2 == 1;
  o.check_poison = true;
  o.out_pad = size == 3 ? 5 * bytes_per_channel(kOutputs[out].type) : 0;
  check_against_cpu(f, global_ops()[op], kOutputs[out], o);
}

INSTANTIATE_TEST_SUITE_P(All, GpuFormats,
                         ::testing::Combine(::testing::Range(0, kGlobalOpCount), ::testing::Range(0, 3), ::testing::Range(0, 8),
                                            ::testing::Range(0, 4)));

// ---- large frames: every operator, the two benchmark formats, 1080p, odd 4K+1, 8K ----
class GpuLarge : public ::testing::TestWithParam<std::tuple<int, int, int>> {};

TEST_P(GpuLarge, test_gpu_large_matches_cpu) {
  REQUIRE_GPU();
  const Size sizes[] = {{1920, 1080}, {4097, 2161}, {7680, 4320}};
  const auto [op, pair, size] = GetParam();
  const Size sz = sizes[size];
  const InputFormat in = pair == 0 ? InputFormat::rgba_f16 : InputFormat::rgb_f32;
  const OutputFormat out = pair == 0 ? OutputFormat{PixelType::u8, 4} : OutputFormat{PixelType::u8, 3};
  const auto px = random_pixels(sz.w, sz.h, 77u + op + 10 * pair + 100 * size, true);
  RunOptions o;
  o.user_stream = size == 1;
  o.check_poison = size == 1;
  check_against_cpu(make_frame(px, sz.w, sz.h, 4, in), global_ops()[op], out, o);
}

INSTANTIATE_TEST_SUITE_P(All, GpuLarge, ::testing::Combine(::testing::Range(0, kGlobalOpCount), ::testing::Range(0, 2), ::testing::Range(0, 3)));

// ---- every input x output format at 1080p+1 with reinhard (vector and scalar tails) ----
TEST(GpuFormatsLarge, test_gpu_all_formats_1081p) {
  REQUIRE_GPU();
  const auto px = random_pixels(1921, 1081, 5, true);
  for (int in = 0; in < 3; ++in)
    for (int out = 0; out < 8; ++out) check_against_cpu(make_frame(px, 1921, 1081, 4, kInputs[in]), "reinhard", kOutputs[out]);
}

// ---- statistics and scan variants agree with the CPU ----
TEST(GpuVariants, test_gpu_stats_and_scan_variants) {
  REQUIRE_GPU();
  const auto px = random_pixels(4097, 2161, 11, true);
  const Frame f = make_frame(px, 4097, 2161, 4, InputFormat::rgba_f16);
  for (StatsAlgorithm a : kAllStats)
    for (ScanAlgorithm s : {ScanAlgorithm::blelloch, ScanAlgorithm::cub}) {
      RunOptions o;
      o.stats = a;
      o.scan = s;
      o.user_stream = s == ScanAlgorithm::cub;
      check_against_cpu(f, "histeq", {PixelType::u8, 4}, o);
      check_against_cpu(f, "reinhard", {PixelType::u8, 4}, o);
    }
  for (StatsAlgorithm a : {StatsAlgorithm::fused, StatsAlgorithm::async})
    for (int bps : {1, 2}) {  // fewer blocks per SM: more groups per thread, fewer partials
      RunOptions o;
      o.stats = a;
      o.stats_blocks_per_sm = bps;
      check_against_cpu(f, "reinhard", {PixelType::u8, 4}, o);
    }
  RunOptions o;
  o.settings = {{"bins", "65536"}};  // beyond the shared-memory histogram: global atomics
  check_against_cpu(f, "histeq", {PixelType::u8, 4}, o);
  o.settings = {{"bins", "2"}};
  check_against_cpu(f, "histeq", {PixelType::u8, 4}, o);
}

// ---- parameter extremes ----
TEST(GpuParams, test_gpu_parameter_settings) {
  REQUIRE_GPU();
  const auto px = random_pixels(257, 129, 21, true);
  const Frame f = make_frame(px, 257, 129, 4, InputFormat::rgba_f32);
  const std::vector<std::pair<const char*, std::vector<std::pair<std::string, std::string>>>> cases = {
      {"reinhard", {{"auto_key", "1"}}},        {"reinhard", {{"white", "2.5"}, {"key", "0.5"}}},
      {"reinhard", {{"saturation", "0.6"}}},    {"drago", {{"bias", "0.5"}, {"exposure", "3"}}},
      {"linear", {{"normalize", "0"}, {"exposure", "0.01"}}}, {"log", {{"exposure", "100"}, {"gamma", "2.2"}}},
      {"reinhard", {{"dither", "0"}}},          {"histeq", {{"saturation", "1.4"}}}};
  for (const auto& [op, settings] : cases) {
    RunOptions o;
    o.settings = settings;
    check_against_cpu(f, op, {PixelType::u8, 4}, o);
    check_against_cpu(f, op, {PixelType::u16, 3}, o);
  }
}

// ---- the display curves' colour modes (core/colour_modes.hpp): every operator with a `mode`
// (from the registry), every mode, with saturation and lifted blacks, on the map kernel's paths
// (8-bit sRGB default, 16-bit, float) ----
TEST(GpuParams, test_gpu_colour_modes_match_cpu) {
  REQUIRE_GPU();
  const auto px = random_pixels(257, 129, 23, true);
  const Frame f = make_frame(px, 257, 129, 4, InputFormat::rgba_f32);
  const Frame h = make_frame(px, 257, 129, 4, InputFormat::rgba_f16);
  for (const OperatorDesc* op : all_operators()) {
    bool has_mode = false, has_black = false;
    for (const ParamDesc* p : all_params(*op)) {
      has_mode |= std::string(p->name) == "mode";
      has_black |= std::string(p->name) == "target_black";
    }
    if (!has_mode) continue;
    for (const char* mode : {"luminance", "rgb", "max-rgb", "hybrid"}) {
      RunOptions o;
      o.settings = {{"mode", mode}};
      check_against_cpu(f, op->id, {PixelType::u8, 4}, o);
      check_against_cpu(h, op->id, {PixelType::u8, 3}, o);
      check_against_cpu(f, op->id, {PixelType::u16, 3}, o);
      check_against_cpu(f, op->id, {PixelType::f32, 3}, o);
      o.settings.push_back({"saturation", "0.7"});
      if (has_black) o.settings.push_back({"target_black", "0.5"});
      check_against_cpu(f, op->id, {PixelType::u8, 4}, o);
    }
  }
}

// ---- the robust peak (peak_percentile < 100): every operator with an L_max, every input format,
// 1x1 to 8K, percentiles from 50 to 99.99, degenerate frames ----
TEST(GpuRobustPeak, test_gpu_robust_peak_matches_cpu) {
  REQUIRE_GPU();
  const char* ops[] = {"linear", "log", "drago", "reinhard"};
  const Size sizes[] = {{1, 1}, {7, 3}, {31, 17}, {1920, 1080}, {4097, 2161}, {7680, 4320}};
  int n = 0;
  for (const Size sz : sizes)
    for (int in = 0; in < 3; ++in) {
      if (sz.w >= 4097 && in == 1) continue;  // the large sizes: the float RGB and half RGBA paths
      const auto px = random_pixels(sz.w, sz.h, 500u + sz.w + in, sz.w > 1);
      const Frame f = make_frame(px, sz.w, sz.h, 4, kInputs[in]);
      for (const char* op : ops) {
        if (sz.w >= 7680 && std::string(op) != "drago") continue;
        for (const char* pct : {"99.99", "50"}) {
          RunOptions o;
          o.settings = {{"peak_percentile", pct}};
          o.user_stream = (n % 2) == 1;
          o.check_poison = sz.w < 1920;
          ++n;
          check_against_cpu(f, op, {PixelType::u8, 4}, o);
        }
      }
    }
  // The path ran: a random frame's robust peak lies below its brightest pixel.
  const auto px = random_pixels(640, 360, 9, true);
  const Frame f = make_frame(px, 640, 360, 4, InputFormat::rgba_f16);
  ToneMapperConfig cfg;
  cfg.width = f.w;
  cfg.height = f.h;
  cfg.input = f.fmt;
  cfg.output = {PixelType::u8, 4};
  cfg.params = prepare_params("drago", {{"peak_percentile", "99.9"}}).value();
  auto mapper = ToneMapper::create(cfg);
  ASSERT_TRUE(mapper.ok()) << mapper.status().message();
  DeviceBuffers d;
  CUDA_OK(cudaMalloc(&d.in, f.bytes.size()));
  CUDA_OK(cudaMalloc(&d.out, std::size_t(f.w) * f.h * 4));
  CUDA_OK(cudaMemcpy(d.in, f.bytes.data(), f.bytes.size(), cudaMemcpyHostToDevice));
  ASSERT_TRUE(mapper.value()->process(d.in, f.stride, d.out, 0, nullptr).ok());
  FrameStats gs;
  ASSERT_TRUE(mapper.value()->read_stats(gs).ok());
  EXPECT_LT(gs.peak_luminance, 0.95 * gs.max_luminance);  // log-uniform channels: the top 0.1 % spans ~0.25 in ln L
  EXPECT_GT(gs.peak_luminance, gs.min_positive_luminance);
  // Switching the percentile between frames (set_params) takes effect on the next frame.
  ASSERT_TRUE(mapper.value()->set_params(prepare_params("drago").value()).ok());
  ASSERT_TRUE(mapper.value()->process(d.in, f.stride, d.out, 0, nullptr).ok());
  ASSERT_TRUE(mapper.value()->read_stats(gs).ok());
  EXPECT_EQ(gs.peak_luminance, gs.max_luminance);
  // Flat, black and all-bad frames keep the brightest pixel as their peak, on both backends.
  for (float v : {0.0f, 1.0f, NAN, -2.0f, 65504.0f}) {
    std::vector<float> flat(64 * 9 * 4, v);
    RunOptions o;
    o.settings = {{"peak_percentile", "99"}};
    check_against_cpu(make_frame(flat, 64, 9, 4, InputFormat::rgba_f32), "drago", {PixelType::u8, 4}, o);
  }
}

// ---- flat, black and all-bad frames ----
TEST(GpuEdgeCases, test_gpu_flat_black_and_bad_frames) {
  REQUIRE_GPU();
  for (float v : {0.0f, 1.0f, NAN, -2.0f, INFINITY, 65504.0f}) {
    std::vector<float> px(64 * 9 * 4, v);
    for (const char* op : global_ops()) check_against_cpu(make_frame(px, 64, 9, 4, InputFormat::rgba_f16), op, {PixelType::u8, 4});
  }
}

// ---- the statistics' flat form: unit boundaries and the tail (stats_kernels.cu, v21) ----
// Packed half and float RGBA frames are reduced in units of 32 threads x G groups (512 pixels
// for half, 256 for float RGBA); the pixels past the last whole unit go to the last block. The
// extremes and the bad pixels sit at the places a unit or tail bound would lose them: the first
// pixel, the last pixel of the last whole unit, the first of the tail and the last pixel.
TEST(GpuEdgeCases, test_gpu_stats_unit_boundaries) {
  REQUIRE_GPU();
  const Size sizes[] = {{511, 1}, {512, 1}, {513, 1}, {255, 1}, {257, 3}, {1023, 3}, {1024, 2}, {37, 29}};
  for (InputFormat fmt : {InputFormat::rgba_f16, InputFormat::rgba_f32})
    for (const Size sz : sizes) {
      const std::size_t n = static_cast<std::size_t>(sz.w) * sz.h;
      const std::size_t unit = fmt == InputFormat::rgba_f16 ? 512 : 256;
      std::vector<float> px(n * 4, 0.5f);
      auto set = [&](std::size_t i, float v) {
        if (i < n)
          for (int k = 0; k < 3; ++k) px[i * 4 + k] = v;
      };
      const std::size_t whole = n / unit * unit;  // pixels in whole units
      set(0, 0.001f);
      if (whole > 0) set(whole - 1, 3000.0f);  // the last pixel of the last whole unit
      set(whole, NAN);                         // the first pixel of the tail
      set(n - 1, 60000.0f);                    // the last pixel: the maximum
      if (n > 2) set(n - 2, -1.0f);
      check_against_cpu(make_frame(px, sz.w, sz.h, 4, fmt), "reinhard", {PixelType::u8, 4});
    }
}

// The frame totals are integer atomics reset by the last block: the same frame gives bit-equal
// statistics every time, and a frame's totals do not leak into the next one.
TEST(GpuToneMapper, test_gpu_stats_repeatable_across_frames) {
  REQUIRE_GPU();
  const int w = 1931, h = 1087;
  const Frame a = make_frame(random_pixels(w, h, 5, true), w, h, 4, InputFormat::rgba_f16);
  const Frame b = make_frame(random_pixels(w, h, 6, false), w, h, 4, InputFormat::rgba_f16);
  ToneMapperConfig cfg;
  cfg.width = w;
  cfg.height = h;
  cfg.input = InputFormat::rgba_f16;
  cfg.output = {PixelType::u8, 4};
  cfg.params = prepare_params("reinhard", {}).value();
  auto mapper = ToneMapper::create(cfg);
  ASSERT_TRUE(mapper.ok()) << mapper.status().message();
  DeviceBuffers d;
  CUDA_OK(cudaMalloc(&d.in, a.bytes.size()));
  CUDA_OK(cudaMalloc(&d.out, static_cast<std::size_t>(w) * h * 4));
  std::vector<FrameStats> seen;
  for (const Frame* f : {&a, &b, &a, &a}) {
    CUDA_OK(cudaMemcpy(d.in, f->bytes.data(), f->bytes.size(), cudaMemcpyHostToDevice));
    ASSERT_TRUE(mapper.value()->process(d.in, f->stride, d.out, static_cast<std::size_t>(w) * 4, nullptr).ok());
    CUDA_OK(cudaDeviceSynchronize());
    FrameStats s;
    ASSERT_TRUE(mapper.value()->read_stats(s).ok());
    seen.push_back(s);
  }
  EXPECT_NE(seen[0].log_sum, seen[1].log_sum);  // two different frames
  for (int i : {2, 3}) {
    EXPECT_EQ(seen[i].log_sum, seen[0].log_sum) << "frame " << i;
    EXPECT_EQ(seen[i].min_luminance, seen[0].min_luminance) << "frame " << i;
    EXPECT_EQ(seen[i].max_luminance, seen[0].max_luminance) << "frame " << i;
    EXPECT_EQ(seen[i].min_positive_luminance, seen[0].min_positive_luminance) << "frame " << i;
    EXPECT_EQ(seen[i].nan_count, seen[0].nan_count) << "frame " << i;
    EXPECT_EQ(seen[i].inf_count, seen[0].inf_count) << "frame " << i;
    EXPECT_EQ(seen[i].negative_count, seen[0].negative_count) << "frame " << i;
  }
  EXPECT_GT(seen[0].nan_count + seen[0].inf_count + seen[0].negative_count, 0u);
  EXPECT_EQ(seen[1].nan_count + seen[1].inf_count + seen[1].negative_count, 0u);
}

// ---- parameters change between frames on one mapper ----
TEST(GpuToneMapper, test_gpu_set_params_between_frames) {
  REQUIRE_GPU();
  const int w = 640, h = 360;
  const auto px = random_pixels(w, h, 3, false);
  const Frame f = make_frame(px, w, h, 4, InputFormat::rgba_f16);
  ToneMapperConfig cfg;
  cfg.width = w;
  cfg.height = h;
  cfg.params = prepare_params("reinhard").value();
  cfg.timings = true;
  auto mapper = ToneMapper::create(cfg);
  ASSERT_TRUE(mapper.ok()) << mapper.status().message();
  DeviceBuffers d;
  CUDA_OK(cudaMalloc(&d.in, f.bytes.size()));
  CUDA_OK(cudaMalloc(&d.out, static_cast<std::size_t>(w) * h * 4));
  CUDA_OK(cudaMemcpy(d.in, f.bytes.data(), f.bytes.size(), cudaMemcpyHostToDevice));
  for (const char* op : {"reinhard", "drago", "histeq", "log", "linear", "reinhard"}) {
    auto p = prepare_params(op).value();
    ASSERT_TRUE(mapper.value()->set_params(p).ok());
    ASSERT_TRUE(mapper.value()->process(d.in, 0, d.out, 0, nullptr).ok());
    OutputImage got, ref;
    got.allocate(w, h, 4, PixelType::u8);
    ref.allocate(w, h, 4, PixelType::u8);
    CUDA_OK(cudaMemcpy(got.bytes.data(), d.out, got.bytes.size(), cudaMemcpyDeviceToHost));
    ASSERT_TRUE(cpu::tone_map(f.view(), p, ref.view()).ok());
    expect_outputs_agree(got, ref, Tolerance{std::string(op) == "histeq"}, std::string("set_params ") + op);
    StageTimings t;
    ASSERT_TRUE(mapper.value()->read_timings(t).ok());
    EXPECT_GT(t.total_ms, 0.0);
    EXPECT_NE(mapper.value()->device_stats(), nullptr);
  }
}

// ---- the host API: tone_map(..., Backend::cuda) through the streamed pipeline ----
TEST(GpuHostApi, test_gpu_host_tone_map) {
  REQUIRE_GPU();
  for (int c : {3, 4}) {
    Image img(1023, 511, c);
    const auto px = random_pixels(1023, 511, 9 + c, true);
    for (int i = 0; i < 1023 * 511; ++i)
      for (int k = 0; k < c; ++k) img.pixels[i * c + k] = px[i * 4 + k];
    auto p = prepare_params("reinhard").value();
    for (OutputFormat of : {OutputFormat{PixelType::u8, 3}, OutputFormat{PixelType::u16, 4}}) {
      OutputImage g, r;
      FrameStats gs, rs;
      MapTimings t;
      Status s = tone_map(img, p, of, Backend::cuda, g, &gs, &t);
      ASSERT_TRUE(s.ok()) << s.message();
      ASSERT_TRUE(tone_map(img, p, of, Backend::cpu, r, &rs).ok());
      expect_stats_agree(gs, rs, "host api");
      expect_outputs_agree(g, r, Tolerance{}, "host api");
      EXPECT_GT(t.total_ms, 0.0);
    }
    OutputImage a;
    EXPECT_TRUE(tone_map(img, p, {PixelType::u8, 4}, Backend::automatic, a).ok());
  }
}

// ---- errors are Status values ----
TEST(GpuErrors, test_gpu_errors) {
  REQUIRE_GPU();
  ToneMapperConfig cfg;
  cfg.params = prepare_params("reinhard").value();
  EXPECT_EQ(ToneMapper::create(cfg).status().code(), StatusCode::invalid_argument);  // 0x0
  cfg.width = 8;
  cfg.height = 8;
  cfg.output.channels = 2;
  EXPECT_EQ(ToneMapper::create(cfg).status().code(), StatusCode::invalid_argument);
  cfg.output.channels = 4;
  cuda::Tuning tuning;
  tuning.stats_blocks_per_sm = -1;
  EXPECT_EQ(cuda::create_tone_mapper(cfg, tuning).status().code(), StatusCode::invalid_argument);
  tuning.stats_blocks_per_sm = 0;
  auto m = cuda::create_tone_mapper(cfg, tuning);
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m.value()->process(nullptr, 0, nullptr, 0).code(), StatusCode::invalid_argument);
  DeviceBuffers d;
  CUDA_OK(cudaMalloc(&d.in, 8 * 8 * 8));
  CUDA_OK(cudaMalloc(&d.out, 8 * 8 * 4));
  EXPECT_EQ(m.value()->process(d.in, 10, d.out, 0).code(), StatusCode::invalid_argument);  // stride < row
  FrameStats s;
  EXPECT_EQ(m.value()->read_stats(s).code(), StatusCode::invalid_argument);  // nothing run yet
  cfg.width = 1 << 15;
  cfg.height = 1 << 15;
  EXPECT_EQ(ToneMapper::create(cfg).status().code(), StatusCode::invalid_argument);  // > kMaxImagePixels
}

// ---- a small run of every kernel (all operators, formats, variants, both histogram paths) for
// compute-sanitizer memcheck and racecheck (ctest -L gpu runs them under compute-sanitizer too); sizes kept small ----
TEST(GpuSanitizer, test_gpu_sanitizer_subset) {
  REQUIRE_GPU();
  for (const Size sz : {Size{31, 17}, Size{130, 67}}) {
    const auto px = random_pixels(sz.w, sz.h, 5u + sz.w, true);
    for (const char* op : global_ops())
      for (int in = 0; in < 3; ++in) {
        RunOptions o;
        o.user_stream = in == 1;
        check_against_cpu(make_frame(px, sz.w, sz.h, 4, kInputs[in], 16), op, kOutputs[in], o);
        check_against_cpu(make_frame(px, sz.w, sz.h, 4, kInputs[in]), op, kOutputs[in + 3], o);
      }
  }
  const auto px = random_pixels(257, 129, 99, true);
  const Frame f = make_frame(px, 257, 129, 4, InputFormat::rgba_f16);
  for (StatsAlgorithm a : kAllStats)
    for (ScanAlgorithm s : {ScanAlgorithm::blelloch, ScanAlgorithm::cub}) {
      RunOptions o;
      o.stats = a;
      o.scan = s;
      check_against_cpu(f, "histeq", {PixelType::u8, 4}, o);
    }
  RunOptions o;
  o.settings = {{"bins", "65536"}};
  check_against_cpu(f, "histeq", {PixelType::u8, 4}, o);
}

// ---- real images: PFM files from $TONEKIT_GPU_IMAGES (scripts/build_gpu_bundle.sh) ----
TEST(GpuRealImages, test_gpu_real_images) {
  REQUIRE_GPU();
  const char* dir = std::getenv("TONEKIT_GPU_IMAGES");
  if (!dir || !*dir) GTEST_SKIP() << "TONEKIT_GPU_IMAGES is not set (a folder of .pfm files)";
  int count = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.path().extension() != ".pfm") continue;
    Image img;
    ASSERT_TRUE(test::read_pfm(e.path().string(), img)) << e.path();
    ++count;
    for (const char* op : global_ops()) {
      SCOPED_TRACE(e.path().filename().string());
      check_against_cpu(make_frame(img.pixels, img.width, img.height, 3, InputFormat::rgb_f32), op, {PixelType::u8, 3});
      check_against_cpu(make_frame(img.pixels, img.width, img.height, 3, InputFormat::rgba_f16), op, {PixelType::u8, 4});
    }
  }
  if (count == 0) GTEST_SKIP() << "no .pfm files in " << dir;
}

}  // namespace

// The host API on a half RGBA view (what `tonekit map --backend cuda` passes for a half EXR,
// io::read_half_rgba): uploaded and mapped as half, the bytes of the same values widened to a
// float image first, on the device; within one code of the CPU's. Awkward sizes, RGB and RGBA
// outputs, NaN / Inf / negative samples counted alike.
TEST(GpuHostApi, test_gpu_half_view_matches_float_image) {
  REQUIRE_GPU();
  for (const auto& [w, h] : {std::pair{1, 1}, std::pair{3840, 2160}, std::pair{1001, 257}, std::pair{4097, 3}}) {
    std::mt19937 rng(static_cast<unsigned>(w * 31 + h));
    std::uniform_real_distribution<float> stops(-14.0f, 14.0f);
    std::vector<std::uint16_t> half(static_cast<std::size_t>(w) * h * 4);
    Image widened(w, h, 4);
    for (std::size_t i = 0; i < half.size(); ++i) {
      half[i] = core::float_to_half(i % 4 == 3 ? 1.0f : std::exp2(stops(rng)));
      if (i == 6) half[i] = 0x7E00;   // NaN
      if (i == 9) half[i] = 0x7C00;   // +Inf
      if (i == 13) half[i] = 0xC000;  // -2
      widened.pixels[i] = core::half_to_float(half[i]);
    }
    const ImageView view{half.data(), w, h, 4, PixelType::f16, 0, MemorySpace::host};
    for (const char* op : {"reinhard", "drago", "reinhard-sat"}) {
      Result<Params> params = prepare_params(op, {});
      ASSERT_TRUE(params.ok());
      for (const int channels : {3, 4}) {
        const OutputFormat format{PixelType::u8, channels};
        OutputImage from_half, from_float, cpu;
        from_half.bytes.assign(std::size_t(w) * h * channels, 0xAB);  // poison
        FrameStats sh, sf;
        ASSERT_TRUE(tone_map(view, *params, format, Backend::cuda, from_half, &sh).ok()) << op;
        ASSERT_TRUE(tone_map(widened, *params, format, Backend::cuda, from_float, &sf).ok()) << op;
        ASSERT_TRUE(tone_map(view, *params, format, Backend::cpu, cpu).ok()) << op;
        const std::string what = std::string(op) + " " + std::to_string(w) + "x" + std::to_string(h) + " to " +
                                 std::to_string(channels) + " channels";
        EXPECT_TRUE(from_half.bytes == from_float.bytes) << what;
        EXPECT_EQ(sh.nan_count, sf.nan_count) << what;
        EXPECT_EQ(sh.inf_count, sf.inf_count) << what;
        EXPECT_EQ(sh.negative_count, sf.negative_count) << what;
        // Bit for bit: the log-sum is rounded per group of 4 consecutive pixels whichever kernel
        // and layout read the frame (stats_kernels.cu load_item).
        EXPECT_EQ(sh.log_average, sf.log_average) << what;
        ASSERT_EQ(cpu.bytes.size(), from_half.bytes.size());
        int worst = 0;
        for (std::size_t i = 0; i < cpu.bytes.size(); ++i)
          worst = std::max(worst, std::abs(int(cpu.bytes[i]) - int(from_half.bytes[i])));
        EXPECT_LE(worst, std::string(op) == "reinhard-sat" ? 2 : 1) << what;
      }
    }
  }
}
