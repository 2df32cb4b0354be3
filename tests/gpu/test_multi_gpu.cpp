// One frame over several GPUs (tonekit::MultiGpuToneMapper, issue 19) against the single-GPU
// ToneMapper on the same pixels: the bands' bytes equal the whole frame's, for every global
// operator and the three local ones, at 8K and 16K and at awkward sizes; temporal states stay
// identical on every GPU; bad configurations and buffers give clear errors. With one GPU the
// split degenerates to one band (the exchange is then a one-rank all-reduce); the tests name
// the GPU count they ran with. Skips without a GPU or without NCCL, with the reason.
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <algorithm>
#include <ios>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "gpu/gpu_test_support.hpp"
#include "tonekit/multi_gpu.hpp"
#include "tonekit/tone_mapper.hpp"

namespace tonekit {
namespace {

int device_count() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return n;
}

std::vector<int> all_devices() {
  std::vector<int> d(static_cast<std::size_t>(device_count()));
  for (std::size_t i = 0; i < d.size(); ++i) d[i] = static_cast<int>(i);
  return d;
}

// As many GPUs as a frame of `rows` allows: plan_bands gives each at least 64 rows (one
// alignment unit) and refuses more GPUs than that (tests/unit/test_frame_bands.cpp, ClearErrors).
std::vector<int> devices_for_rows(int rows) {
  std::vector<int> d = all_devices();
  d.resize(std::min<std::size_t>(d.size(), static_cast<std::size_t>(std::max(1, rows / 64))));
  return d;
}

std::uint64_t mix(std::uint64_t x) {  // splitmix64
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// Half RGBA with luminance over ~7 decades: smooth light pools (so local operators have
// structure to adapt to) times per-pixel noise, a few bright sources, and poisoned pixels
// (NaN, Inf, negative) scattered through every band.
void scene_rows(std::vector<__half>& px, int w, int h, std::uint64_t seed, int y0, int y1) {
  for (int y = y0; y < y1; ++y)
    for (int x = 0; x < w; ++x) {
      const std::size_t i = static_cast<std::size_t>(y) * w + x;
      const std::uint64_t r = mix(seed ^ i);
      const double u = x / double(w), v = y / double(h);
      const double pools = std::sin(9.0 * u + 2.0 * std::cos(7.0 * v)) * std::cos(5.0 * v - 3.0 * u);
      const double noise = (r & 0xFFFF) / 65536.0 - 0.5;
      double l = std::exp2(8.0 * pools + 1.5 * noise);
      if ((r >> 16) % 5003 == 0) l = 6.0e4;  // a lamp (near half's max)
      float c[4] = {float(l * (0.8 + 0.4 * ((r >> 24) & 0xFF) / 255.0)), float(l),
                    float(l * (0.7 + 0.6 * ((r >> 32) & 0xFF) / 255.0)), 1.0f};
      const std::uint64_t poison = (r >> 40) % 200003;
      if (poison == 1) c[0] = NAN;
      if (poison == 2) c[1] = INFINITY;
      if (poison == 3) c[2] = -1.0f;
      for (int k = 0; k < 4; ++k) px[4 * i + k] = __float2half(c[k]);
    }
}

std::vector<__half> scene(int w, int h, std::uint64_t seed) {
  std::vector<__half> px(static_cast<std::size_t>(w) * h * 4);
  const int workers = std::max(1u, std::min(16u, std::thread::hardware_concurrency()));
  std::vector<std::thread> pool;
  for (int t = 0; t < workers; ++t)
    pool.emplace_back([&, t] { scene_rows(px, w, h, seed, t * h / workers, (t + 1) * h / workers); });
  for (std::thread& t : pool) t.join();
  return px;
}

struct DeviceBuffer {
  void* p = nullptr;
  int device = 0;
  DeviceBuffer() = default;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() {
    if (p) {
      cudaSetDevice(device);
      cudaFree(p);
    }
  }
};

#define REQUIRE_NCCL(result)                                                                   \
  do {                                                                                         \
    if (!(result).ok() && (result).status().code() == StatusCode::unsupported)                  \
      GTEST_SKIP() << (result).status().message();                                             \
    ASSERT_TRUE((result).ok()) << (result).status().message();                                 \
  } while (0)

// The single-GPU ToneMapper's bytes for the frame (device 0).
std::vector<unsigned char> one_gpu(const ToneMapperConfig& cfg, const std::vector<__half>& in, int frames = 1,
                                   FrameStats* stats = nullptr) {
  std::vector<unsigned char> out(static_cast<std::size_t>(cfg.width) * cfg.height * 4);
  EXPECT_EQ(cudaSetDevice(0), cudaSuccess);
  auto m = ToneMapper::create(cfg);
  EXPECT_TRUE(m.ok()) << m.status().message();
  if (!m.ok()) return out;
  DeviceBuffer din, dout;
  EXPECT_EQ(cudaMalloc(&din.p, in.size() * sizeof(__half)), cudaSuccess);
  EXPECT_EQ(cudaMalloc(&dout.p, out.size()), cudaSuccess);
  EXPECT_EQ(cudaMemcpy(din.p, in.data(), in.size() * sizeof(__half), cudaMemcpyHostToDevice), cudaSuccess);
  EXPECT_EQ(cudaMemset(dout.p, 0xA5, out.size()), cudaSuccess);  // poisoned
  for (int f = 0; f < frames; ++f) {
    const Status s = (*m)->process(din.p, 0, dout.p, 0, nullptr, 1.0 / 30);
    EXPECT_TRUE(s.ok()) << s.message();
  }
  EXPECT_EQ(cudaMemcpy(out.data(), dout.p, out.size(), cudaMemcpyDeviceToHost), cudaSuccess);
  if (stats) EXPECT_TRUE((*m)->read_stats(*stats).ok());
  return out;
}

ToneMapperConfig frame_config(const char* op, int w, int h) {
  ToneMapperConfig cfg;
  cfg.width = w;
  cfg.height = h;
  cfg.input = InputFormat::rgba_f16;
  cfg.output = {PixelType::u8, 4};
  Result<Params> p = prepare_params(op);
  EXPECT_TRUE(p.ok()) << op;
  if (p.ok()) cfg.params = *p;
  return cfg;
}

// Bands on their own GPUs (video-wall mode): each band's input rows copied to its GPU, the own
// rows' outputs (poisoned first) copied back into one frame.
Status run_bands(MultiGpuToneMapper& m, const std::vector<__half>& in, int w, std::vector<unsigned char>& out) {
  const std::size_t in_row = std::size_t(w) * 4 * sizeof(__half), out_row = std::size_t(w) * 4;
  std::vector<DeviceBuffer> ins(m.bands().size()), outs(m.bands().size());
  std::vector<MultiGpuToneMapper::BandBuffers> buffers(m.bands().size());
  for (std::size_t i = 0; i < m.bands().size(); ++i) {
    const FrameBand& b = m.bands()[i];
    if (cudaSetDevice(b.device) != cudaSuccess) return invalid_argument("set device");
    ins[i].device = outs[i].device = b.device;
    if (cudaMalloc(&ins[i].p, in_row * b.input_rows()) != cudaSuccess || cudaMalloc(&outs[i].p, out_row * b.rows) != cudaSuccess ||
        cudaMemcpy(ins[i].p, reinterpret_cast<const unsigned char*>(in.data()) + in_row * b.input_first_row(),
                   in_row * b.input_rows(), cudaMemcpyHostToDevice) != cudaSuccess ||
        cudaMemset(outs[i].p, 0x5A, out_row * b.rows) != cudaSuccess)
      return invalid_argument("band buffers");
    buffers[i] = {ins[i].p, 0, outs[i].p, 0};
  }
  if (Status s = m.process(buffers, 1.0 / 30); !s.ok()) return s;
  if (Status s = m.synchronize(); !s.ok()) return s;
  for (std::size_t i = 0; i < m.bands().size(); ++i) {
    const FrameBand& b = m.bands()[i];
    cudaSetDevice(b.device);
    if (cudaMemcpy(out.data() + out_row * b.first_row, outs[i].p, out_row * b.rows, cudaMemcpyDeviceToHost) != cudaSuccess)
      return invalid_argument("download");
  }
  return {};
}

// One scene (seed) through the single-GPU ToneMapper (its bytes and statistics) and through the
// split mapper (process_host when `host`, else band buffers on each GPU, outputs poisoned first):
// the samples that differ and the largest difference in codes.
struct SplitResult {
  Status status;
  std::size_t differing = 0;
  int worst = 0;
  FrameStats whole;
};
SplitResult split_against_one(MultiGpuToneMapper& m, const ToneMapperConfig& cfg, bool host, std::uint64_t seed) {
  SplitResult r;
  const std::vector<__half> in = scene(cfg.width, cfg.height, seed);
  const std::vector<unsigned char> want = one_gpu(cfg, in, 1, &r.whole);
  std::vector<unsigned char> got(want.size(), 0x77);
  r.status = host ? m.process_host(in.data(), 0, got.data(), 0, 1.0 / 30) : run_bands(m, in, cfg.width, got);
  for (std::size_t i = 0; i < want.size(); ++i) {
    const int d = std::abs(int(want[i]) - int(got[i]));
    r.differing += d != 0;
    r.worst = std::max(r.worst, d);
  }
  return r;
}

struct Case {
  const char* op;
  int width, height;
  bool host;  // process_host (else band buffers on each GPU)
  const char* percentile = nullptr;  // peak_percentile, when set: the parts' histograms combine
};

class MultiGpuMatches : public ::testing::TestWithParam<Case> {};

// Every operator, global and local: the single GPU's bytes (integer statistics whose sums do not
// depend on the split, aligned bands so the local tables see the same tiles, frame-coordinate
// dither), and the same key bit for bit.
TEST_P(MultiGpuMatches, OneGpusBytes) {
  REQUIRE_GPU();
  const Case c = GetParam();
  ToneMapperConfig cfg = frame_config(c.op, c.width, c.height);
  if (c.percentile) cfg.params = prepare_params(c.op, {{"peak_percentile", c.percentile}}).value();
  MultiGpuConfig mc;
  mc.frame = cfg;
  mc.devices = devices_for_rows(c.height);
  auto m = MultiGpuToneMapper::create(mc);
  REQUIRE_NCCL(m);
  const SplitResult r = split_against_one(**m, cfg, c.host, 0x5EED0000u + c.width);
  ASSERT_TRUE(r.status.ok()) << r.status.message();
  const std::size_t differing = r.differing;
  const int worst = r.worst;
  const FrameStats& whole = r.whole;
  std::printf("[ multi    ] %s %dx%d on %zu GPU(s), %s: %zu differing samples, max %d\n", c.op, c.width, c.height,
              mc.devices.size(), c.host ? "host frame" : "band buffers", differing, worst);
  EXPECT_EQ(differing, 0u) << "max " << worst;
  FrameStats split;
  ASSERT_TRUE((*m)->read_stats(split).ok());
  EXPECT_EQ(split.pixel_count, static_cast<unsigned long long>(c.width) * c.height);
  // The key bit for bit: each group of 4 pixels' log-sum is rounded to the fixed-point unit before
  // any sum (group_stats_values), so the total does not depend on the split.
  EXPECT_EQ(split.log_sum, whole.log_sum) << std::hexfloat << split.log_sum << " vs " << whole.log_sum;
  EXPECT_EQ(split.log_average, whole.log_average) << std::hexfloat << split.log_average << " vs " << whole.log_average;
  EXPECT_EQ(split.max_luminance, whole.max_luminance);
  EXPECT_EQ(split.peak_luminance, whole.peak_luminance);  // integer histograms: the same search
  if (c.percentile) EXPECT_LT(split.peak_luminance, split.max_luminance);
  EXPECT_EQ(split.min_luminance, whole.min_luminance);
  EXPECT_EQ(split.nan_count, whole.nan_count);
  EXPECT_GT(split.nan_count + split.inf_count + split.negative_count, 0u);  // the poison was counted
}

INSTANTIATE_TEST_SUITE_P(
    Sizes, MultiGpuMatches,
    ::testing::Values(Case{"reinhard", 7680, 4320, false}, Case{"drago", 7680, 4320, true}, Case{"log", 7680, 4320, false},
                      Case{"linear", 7680, 4320, true}, Case{"histeq", 7680, 4320, false},
                      Case{"reinhard-sat", 7680, 4320, false}, Case{"reinhard-local", 7680, 4320, true},
                      Case{"drago-local", 7680, 4320, false}, Case{"reinhard", 15360, 8640, true},
                      Case{"reinhard-sat", 15360, 8640, false}, Case{"histeq", 15360, 8640, true},
                      Case{"reinhard-sat", 1001, 257, false}, Case{"reinhard", 1001, 257, true},
                      Case{"reinhard-local", 333, 129, false}, Case{"drago-local", 4097, 2161, true},
                      Case{"drago", 7680, 4320, false, "99.99"}, Case{"reinhard", 1001, 257, true, "99"},
                      Case{"drago-local", 4097, 2161, false, "99.9"}),
    [](const ::testing::TestParamInfo<Case>& i) {
      std::string n = std::string(i.param.op) + "_" + std::to_string(i.param.width) + "x" + std::to_string(i.param.height) +
                      (i.param.host ? "_host" : "_bands") + (i.param.percentile ? "_robust_peak" : "");
      for (char& ch : n)
        if (ch == '-') ch = '_';
      return n;
    });

// Temporal adaptation over a sequence with an exposure ramp and a cut: every GPU's state is the
// same, and the single GPU's; every frame's bytes match.
TEST(MultiGpu, TemporalStatesStayIdentical) {
  REQUIRE_GPU();
  const int w = 1920, h = 1088;
  ToneMapperConfig cfg = frame_config("reinhard", w, h);
  cfg.temporal = true;
  MultiGpuConfig mc;
  mc.frame = cfg;
  mc.devices = all_devices();
  auto m = MultiGpuToneMapper::create(mc);
  REQUIRE_NCCL(m);
  ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
  auto single = ToneMapper::create(cfg);
  ASSERT_TRUE(single.ok()) << single.status().message();
  DeviceBuffer din, dout;
  const std::vector<__half> base = scene(w, h, 77);
  ASSERT_EQ(cudaMalloc(&din.p, base.size() * sizeof(__half)), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&dout.p, std::size_t(w) * h * 4), cudaSuccess);
  const float gains[] = {1, 1.5f, 2, 4, 4, 300, 300, 1, 0.5f};
  for (float g : gains) {
    std::vector<__half> in(base.size());
    for (std::size_t i = 0; i < in.size(); ++i) in[i] = __float2half(__half2float(base[i]) * ((i & 3) == 3 ? 1.0f : g));
    std::vector<unsigned char> got(std::size_t(w) * h * 4), want(got.size());
    ASSERT_TRUE((*m)->process_host(in.data(), 0, got.data(), 0, 1.0 / 30).ok());
    ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(din.p, in.data(), in.size() * sizeof(__half), cudaMemcpyHostToDevice), cudaSuccess);
    ASSERT_TRUE((*single)->process(din.p, 0, dout.p, 0, nullptr, 1.0 / 30).ok());
    ASSERT_EQ(cudaMemcpy(want.data(), dout.p, want.size(), cudaMemcpyDeviceToHost), cudaSuccess);
    EXPECT_EQ(std::memcmp(got.data(), want.data(), got.size()), 0) << "gain " << g;
    // The bands' states are bit-identical (same combined statistics, same step); the single GPU's
    // log-sum rounds its blocks' fixed-point parts over another split of the pixels, so its key
    // may differ in the last bits of the double (2^-27 per block at most: < 1e-9 here).
    TemporalState one{}, first{};
    ASSERT_TRUE((*single)->read_temporal_state(one).ok());
    ASSERT_TRUE((*m)->read_temporal_state(0, first).ok());
    for (int b = 0; b < static_cast<int>(mc.devices.size()); ++b) {
      TemporalState st{};
      ASSERT_TRUE((*m)->read_temporal_state(b, st).ok());
      EXPECT_EQ(std::memcmp(&st.log_key, &first.log_key, sizeof(double)), 0) << "band " << b << ", gain " << g;
      EXPECT_EQ(std::memcmp(&st.log_peak, &first.log_peak, sizeof(double)), 0) << "band " << b << ", gain " << g;
      EXPECT_NEAR(st.log_key, one.log_key, 1e-9) << "band " << b << ", gain " << g;
      EXPECT_NEAR(st.log_peak, one.log_peak, 1e-9) << "band " << b;
      EXPECT_EQ(st.seeded, one.seeded);
      EXPECT_EQ(st.frames, one.frames);
      EXPECT_EQ(st.cuts, one.cuts);
    }
  }
  TemporalState st{};
  ASSERT_TRUE((*m)->read_temporal_state(0, st).ok());
  EXPECT_GE(st.cuts, 1u);  // the 75x jump was a cut
}

// Many frames in a row: no device memory grows (the bands' scratch is allocated once).
TEST(MultiGpu, ManyFramesNoLeak) {
  REQUIRE_GPU();
  const int w = 1280, h = 720;
  MultiGpuConfig mc;
  mc.frame = frame_config("reinhard-sat", w, h);
  mc.devices = all_devices();
  auto m = MultiGpuToneMapper::create(mc);
  REQUIRE_NCCL(m);
  const std::vector<__half> in = scene(w, h, 5);
  std::vector<unsigned char> out(std::size_t(w) * h * 4);
  ASSERT_TRUE((*m)->process_host(in.data(), 0, out.data(), 0).ok());
  auto free_bytes = [&] {
    std::vector<std::size_t> free(mc.devices.size());
    for (std::size_t i = 0; i < free.size(); ++i) {
      std::size_t total = 0;
      EXPECT_EQ(cudaSetDevice(mc.devices[i]), cudaSuccess);
      EXPECT_EQ(cudaMemGetInfo(&free[i], &total), cudaSuccess);
    }
    return free;
  };
  const std::vector<std::size_t> before = free_bytes();
  for (int f = 0; f < 200; ++f) ASSERT_TRUE((*m)->process_host(in.data(), 0, out.data(), 0).ok());
  EXPECT_EQ(free_bytes(), before);
}

TEST(MultiGpu, SwitchesOperatorWithinThePlannedContext) {
  REQUIRE_GPU();
  const int w = 2048, h = 1024;
  MultiGpuConfig mc;
  mc.frame = frame_config("reinhard", w, h);
  mc.devices = all_devices();
  mc.context_rows = 27;  // enough for reinhard-local's largest Gaussian
  auto m = MultiGpuToneMapper::create(mc);
  REQUIRE_NCCL(m);
  const std::vector<__half> in = scene(w, h, 9);
  for (const char* op : {"reinhard-local", "reinhard-sat", "drago"}) {
    Result<Params> p = prepare_params(op);
    ASSERT_TRUE(p.ok());
    ASSERT_TRUE((*m)->set_params(*p).ok()) << op;
    std::vector<unsigned char> got(std::size_t(w) * h * 4);
    ASSERT_TRUE((*m)->process_host(in.data(), 0, got.data(), 0).ok()) << op;
    ToneMapperConfig cfg = mc.frame;
    cfg.params = *p;
    const std::vector<unsigned char> want = one_gpu(cfg, in);
    std::size_t differing = 0;
    for (std::size_t i = 0; i < got.size(); ++i) differing += std::abs(int(got[i]) - int(want[i])) > 1;
    EXPECT_EQ(differing, 0u) << op;
  }
}

TEST(MultiGpu, ClearErrors) {
  REQUIRE_GPU();
  MultiGpuConfig mc;
  mc.frame = frame_config("reinhard", 1024, 512);
  mc.devices = {0, 0};
  auto dup = MultiGpuToneMapper::create(mc);
  if (!dup.ok() && dup.status().message().find("NCCL (libnccl") != std::string::npos) GTEST_SKIP() << dup.status().message();
  ASSERT_FALSE(dup.ok());
  EXPECT_EQ(dup.status().code(), StatusCode::invalid_argument);
  EXPECT_NE(dup.status().message().find("one band"), std::string::npos) << dup.status().message();

  mc.devices = {device_count()};
  auto missing = MultiGpuToneMapper::create(mc);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("no device"), std::string::npos) << missing.status().message();

  mc.devices = {};
  EXPECT_FALSE(MultiGpuToneMapper::create(mc).ok());

  mc.devices = all_devices();
  mc.frame.glare.strength = 1.0;
  mc.frame.glare.method = "gaussian";  // only a shared pyramid splits
  auto glare = MultiGpuToneMapper::create(mc);
  ASSERT_FALSE(glare.ok());
  EXPECT_EQ(glare.status().code(), StatusCode::unsupported);
  EXPECT_NE(glare.status().message().find("glare"), std::string::npos) << glare.status().message();
  mc.frame.glare = GlareParams{};

  mc.frame.height = 64 * static_cast<int>(mc.devices.size()) - 1;  // fewer than 64 rows a band
  EXPECT_FALSE(MultiGpuToneMapper::create(mc).ok());
  mc.frame.height = 512;

  auto m = MultiGpuToneMapper::create(mc);
  REQUIRE_NCCL(m);
  EXPECT_EQ((*m)->process({}, 0.0).code(), StatusCode::invalid_argument);
  std::vector<MultiGpuToneMapper::BandBuffers> nulls((*m)->bands().size());
  EXPECT_EQ((*m)->process(nulls, 0.0).code(), StatusCode::invalid_argument);
  std::vector<unsigned char> host(1024 * 512 * 8);
  std::vector<MultiGpuToneMapper::BandBuffers> on_host((*m)->bands().size(), {host.data(), 0, host.data(), 0});
  const Status h = (*m)->process(on_host, 0.0);
  EXPECT_EQ(h.code(), StatusCode::invalid_argument);
  EXPECT_NE(h.message().find("device"), std::string::npos) << h.message();
  Result<Params> local = prepare_params("reinhard-local");
  ASSERT_TRUE(local.ok());
  const Status wider = (*m)->set_params(*local);  // planned for reinhard: no context rows
  EXPECT_EQ(wider.code(), StatusCode::invalid_argument);
  EXPECT_NE(wider.message().find("context rows"), std::string::npos) << wider.message();
  // Still usable after the refused calls.
  std::vector<__half> in = scene(1024, 512, 3);
  std::vector<unsigned char> out(1024 * 512 * 4);
  EXPECT_TRUE((*m)->process_host(in.data(), 0, out.data(), 0).ok());
}

// A ToneMapper part without an exchange, or with no own rows, is refused at create().
TEST(FramePart, ClearErrors) {
  REQUIRE_GPU();
  ToneMapperConfig cfg = frame_config("reinhard-sat", 256, 128);
  cfg.part.context_above = 16;
  auto no_exchange = ToneMapper::create(cfg);
  ASSERT_FALSE(no_exchange.ok());
  EXPECT_NE(no_exchange.status().message().find("StatsExchange"), std::string::npos);
  struct Never final : StatsExchange {
    Status combine(unsigned long long*, std::size_t, unsigned*, std::size_t, CUstream_st*) override {
      return invalid_argument("unused");
    }
  } never;
  cfg.part.exchange = &never;
  cfg.part.context_above = 64;
  cfg.part.context_below = 64;
  EXPECT_FALSE(ToneMapper::create(cfg).ok());  // no own rows left
  cfg.part.context_below = 0;
  // Glare over a part needs the whole frame's height; with it, an exchange that cannot gather
  // rows fails at the first frame, with a message that says so.
  cfg.glare.strength = 1.0;
  cfg.glare.radius = 0.05;
  const Result<std::unique_ptr<ToneMapper>> no_height = ToneMapper::create(cfg);
  ASSERT_FALSE(no_height.ok());
  EXPECT_NE(no_height.status().message().find("frame_height"), std::string::npos) << no_height.status().message();
  cfg.part.frame_height = 128;  // the part's own rows are the frame's last 64: no rows needed below
  cfg.part.first_row = 64;
  auto no_gather = ToneMapper::create(cfg);
  ASSERT_TRUE(no_gather.ok()) << no_gather.status().message();
  void* in = nullptr;
  void* out = nullptr;
  CUDA_OK(cudaMalloc(&in, std::size_t(256) * 128 * 8));
  CUDA_OK(cudaMalloc(&out, std::size_t(256) * 128 * 4));
  CUDA_OK(cudaMemset(in, 0, std::size_t(256) * 128 * 8));
  const Status gathered = (*no_gather)->process(in, 0, out, 0, nullptr);
  EXPECT_EQ(gathered.code(), StatusCode::unsupported);
  EXPECT_NE(gathered.message().find("gather"), std::string::npos) << gathered.message();
  CUDA_OK(cudaDeviceSynchronize());
  cudaFree(in);
  cudaFree(out);
  cfg.glare = GlareParams{};
  cfg.part.frame_height = 0;
  cfg.input = InputFormat::p010;
  EXPECT_EQ(ToneMapper::create(cfg).status().code(), StatusCode::unsupported);
}

// Glare over a split frame (the shared glare pyramid: the key's per-row sums and the exchange
// level's rows gathered between the GPUs): the single GPU's bytes, global and local operators,
// at 16K, 8K, 4K and awkward sizes, on every GPU the frame allows (one: the part path alone).
TEST(MultiGpu, GlareMatchesOneGpu) {
  REQUIRE_GPU();
  struct GlareCase {
    const char* op;
    int width, height;
    double radius;
    bool host;
  };
  // 16K: the exchange level is 6 (63 rows of context, the most a band reads).
  const GlareCase cases[] = {{"reinhard", 15360, 8640, 0.01, true},      {"reinhard", 7680, 4320, 0.01, false},
                             {"reinhard-sat", 3840, 2160, 0.01, true},
                             {"drago", 1001, 257, 0.02, false}, {"reinhard-local", 1920, 1080, 0.005, true}};
  for (const GlareCase& c : cases) {
    ToneMapperConfig cfg = frame_config(c.op, c.width, c.height);
    cfg.glare.strength = 0.5;
    cfg.glare.radius = c.radius;
    MultiGpuConfig mc;
    mc.frame = cfg;
    mc.devices = devices_for_rows(c.height);
    auto m = MultiGpuToneMapper::create(mc);
    REQUIRE_NCCL(m);
    const Result<int> halo = glare_context_rows(cfg.glare, c.width, c.height);
    ASSERT_TRUE(halo.ok()) << halo.status().message();
    for (const FrameBand& b : (*m)->bands()) {  // every band reads the glare's halo (or ends at the frame's edge)
      EXPECT_TRUE(b.context_above >= halo.value() || b.first_row == b.context_above);
      EXPECT_TRUE(b.context_below >= halo.value() || b.first_row + b.rows + b.context_below == c.height);
    }
    const SplitResult r = split_against_one(**m, cfg, c.host, 0x61A4E000u + c.width);
    ASSERT_TRUE(r.status.ok()) << r.status.message();
    const std::size_t differing = r.differing;
    const int worst = r.worst;
    const FrameStats& whole = r.whole;
    std::printf("[ multi    ] %s + glare %dx%d on %zu GPU(s) (halo %d rows): %zu differing samples, max %d\n", c.op, c.width,
                c.height, mc.devices.size(), halo.value(), differing, worst);
    EXPECT_EQ(differing, 0u) << c.op << " " << c.width << "x" << c.height;
    FrameStats split;
    ASSERT_TRUE((*m)->read_stats(split).ok());
    EXPECT_EQ(split.log_average, whole.log_average) << "the key of the glared frame";
  }
}

}  // namespace
}  // namespace tonekit
