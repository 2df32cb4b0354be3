// Several GPUs (issue 19): one frame split over 1..N GPUs (MultiGpuToneMapper, bands in each
// GPU's memory: the video-wall mode) against the single-GPU ToneMapper on the whole frame, and a
// batch of independent frames spread over 1..N GPUs. docs/performance.md has the results.
//   tonekit_multi_bench [--sizes 8K,16K] [--ops reinhard,reinhard-sat,reinhard+glare] [--frames 60] [--quick]
// Per-frame time: the median over `frames` frames of one frame's wall time from the first GPU's
// launch to every GPU's completion (process + synchronize: latency), and the throughput time
// (frames enqueued back to back, then one synchronize: wall / frames). The single GPU's time is
// the ToneMapper's, by CUDA events (median), on the same machine in the same run. Scaling
// efficiency = t(1 GPU) / (n x t(n GPUs)). The all-reduce's share: its CUDA events on the first
// band's stream (timings on, a separate pass), waiting for the slowest GPU included.
// Memory floor: one read of the input (half RGBA, 8 B/px) and one write of the output (RGBA8,
// 4 B/px) at 3.35 TB/s (H100 SXM datasheet) per GPU, over the GPUs sharing the frame.
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "tonekit/multi_gpu.hpp"
#include "tonekit/tone_mapper.hpp"

namespace {

using namespace tonekit;
using Clock = std::chrono::steady_clock;

constexpr double kBandwidth = 3.35e12;  // bytes/s per GPU (H100 SXM HBM3)

#define CHECK_CUDA(x)                                                                              \
  do {                                                                                             \
    cudaError_t e_ = (x);                                                                          \
    if (e_ != cudaSuccess) {                                                                       \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_));       \
      std::exit(1);                                                                                \
    }                                                                                              \
  } while (0)
#define CHECK_OK(x)                                                                                \
  do {                                                                                             \
    const Status s_ = (x);                                                                         \
    if (!s_.ok()) {                                                                                \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, s_.message().c_str());       \
      std::exit(1);                                                                                \
    }                                                                                              \
  } while (0)

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

// A half RGBA frame with luminance over ~6 decades (smooth pools times noise), made on the host.
std::vector<__half> frame_pixels(int w, int h) {
  std::vector<__half> px(static_cast<std::size_t>(w) * h * 4);
  const int workers = std::max(1u, std::min(16u, std::thread::hardware_concurrency()));
  std::vector<std::thread> pool;
  for (int t = 0; t < workers; ++t)
    pool.emplace_back([&, t] {
      std::uint32_t r = 0x9E3779B9u * (t + 1);
      for (int y = t * h / workers; y < (t + 1) * h / workers; ++y)
        for (int x = 0; x < w; ++x) {
          r ^= r << 13, r ^= r >> 17, r ^= r << 5;
          const double l = std::exp2(9.0 * std::sin(7.0 * x / w) * std::cos(5.0 * y / h) + (r & 1023) / 1024.0);
          const std::size_t i = (static_cast<std::size_t>(y) * w + x) * 4;
          px[i] = __float2half(float(l * 0.9));
          px[i + 1] = __float2half(float(l));
          px[i + 2] = __float2half(float(l * 1.1));
          px[i + 3] = __float2half(1.0f);
        }
    });
  for (std::thread& t : pool) t.join();
  return px;
}

// "op", or "op+glare": glare 0.1 at the default radius, as the night-drive renderer runs it (the
// shared glare pyramid, split with the frame: per-row key sums and one level gathered per frame).
ToneMapperConfig config_for(const std::string& spec, int w, int h) {
  const std::string suffix = "+glare";
  const bool glare = spec.size() > suffix.size() && spec.compare(spec.size() - suffix.size(), suffix.size(), suffix) == 0;
  const std::string op = glare ? spec.substr(0, spec.size() - suffix.size()) : spec;
  ToneMapperConfig c;
  c.width = w;
  c.height = h;
  c.input = InputFormat::rgba_f16;
  c.output = {PixelType::u8, 4};
  if (glare) c.glare.strength = 0.1;
  Result<Params> p = prepare_params(op);
  if (!p.ok()) {
    std::fprintf(stderr, "%s\n", p.status().message().c_str());
    std::exit(2);
  }
  c.params = *p;
  return c;
}

// The single-GPU ToneMapper on device 0: median ms per frame by CUDA events, 2 rotating inputs.
double one_gpu_ms(const ToneMapperConfig& cfg, const std::vector<__half>& px, int frames) {
  CHECK_CUDA(cudaSetDevice(0));
  auto m = ToneMapper::create(cfg);
  CHECK_OK(m.status());
  const std::size_t in_bytes = px.size() * sizeof(__half), out_bytes = std::size_t(cfg.width) * cfg.height * 4;
  void *in[2], *out;
  for (void*& p : in) {
    CHECK_CUDA(cudaMalloc(&p, in_bytes));
    CHECK_CUDA(cudaMemcpy(p, px.data(), in_bytes, cudaMemcpyHostToDevice));
  }
  CHECK_CUDA(cudaMalloc(&out, out_bytes));
  cudaEvent_t a, b;
  CHECK_CUDA(cudaEventCreate(&a));
  CHECK_CUDA(cudaEventCreate(&b));
  std::vector<double> t;
  for (int f = -5; f < frames; ++f) {
    CHECK_CUDA(cudaEventRecord(a));
    CHECK_OK((*m)->process(in[f & 1], 0, out, 0));
    CHECK_CUDA(cudaEventRecord(b));
    CHECK_CUDA(cudaEventSynchronize(b));
    float ms = 0;
    CHECK_CUDA(cudaEventElapsedTime(&ms, a, b));
    if (f >= 0) t.push_back(ms);
  }
  for (void* p : in) cudaFree(p);
  cudaFree(out);
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  return median(t);
}

struct SplitResult {
  double latency_ms = 0, throughput_ms = 0, exchange_ms = 0, total_ms = 0;
};

SplitResult split_ms(const ToneMapperConfig& cfg, const std::vector<__half>& px, int n, int frames) {
  MultiGpuConfig mc;
  mc.frame = cfg;
  for (int i = 0; i < n; ++i) mc.devices.push_back(i);
  auto made = MultiGpuToneMapper::create(mc);
  CHECK_OK(made.status());
  std::unique_ptr<MultiGpuToneMapper> owner = std::move(made.value());
  MultiGpuToneMapper& m = *owner;
  const std::size_t in_row = std::size_t(cfg.width) * 8, out_row = std::size_t(cfg.width) * 4;
  std::vector<void*> ins[2], outs;
  std::vector<MultiGpuToneMapper::BandBuffers> buffers[2];
  for (const FrameBand& b : m.bands()) {
    CHECK_CUDA(cudaSetDevice(b.device));
    for (int k = 0; k < 2; ++k) {
      void* p = nullptr;
      CHECK_CUDA(cudaMalloc(&p, in_row * b.input_rows()));
      CHECK_CUDA(cudaMemcpy(p, reinterpret_cast<const unsigned char*>(px.data()) + in_row * b.input_first_row(),
                            in_row * b.input_rows(), cudaMemcpyHostToDevice));
      ins[k].push_back(p);
    }
    void* o = nullptr;
    CHECK_CUDA(cudaMalloc(&o, out_row * b.rows));
    outs.push_back(o);
    for (int k = 0; k < 2; ++k) buffers[k].push_back({ins[k].back(), 0, o, 0});
  }
  SplitResult r;
  std::vector<double> lat;
  for (int f = -5; f < frames; ++f) {
    const auto t0 = Clock::now();
    CHECK_OK(m.process(buffers[f & 1]));
    CHECK_OK(m.synchronize());
    if (f >= 0) lat.push_back(ms_since(t0));
  }
  r.latency_ms = median(lat);
  std::vector<double> thr;
  for (int rep = 0; rep < 5; ++rep) {
    const auto t0 = Clock::now();
    for (int f = 0; f < frames; ++f) CHECK_OK(m.process(buffers[f & 1]));
    CHECK_OK(m.synchronize());
    thr.push_back(ms_since(t0) / frames);
  }
  r.throughput_ms = median(thr);
  // Timed pass (CUDA events on the first band's stream).
  MultiGpuConfig timed = mc;
  timed.frame.timings = true;
  owner.reset();  // one NCCL communicator set at a time
  auto tm = MultiGpuToneMapper::create(timed);
  CHECK_OK(tm.status());
  std::vector<double> ex, tot;
  for (int f = -5; f < frames; ++f) {
    CHECK_OK((*tm)->process(buffers[f & 1]));
    CHECK_OK((*tm)->synchronize());
    MultiGpuTimings t;
    CHECK_OK((*tm)->read_timings(t));
    if (f >= 0) {
      ex.push_back(t.exchange_ms);
      tot.push_back(t.total_ms);
    }
  }
  r.exchange_ms = median(ex);
  r.total_ms = median(tot);
  for (int k = 0; k < 2; ++k)
    for (void* p : ins[k]) cudaFree(p);
  for (void* p : outs) cudaFree(p);
  return r;
}

// A batch of independent frames over n GPUs: a ToneMapper and two buffers per GPU, one host
// thread per GPU; frames per second of the whole batch.
double batch_fps(const ToneMapperConfig& cfg, const std::vector<__half>& px, int n, int frames_per_gpu) {
  std::vector<std::thread> threads;
  const auto t0 = Clock::now();
  for (int d = 0; d < n; ++d)
    threads.emplace_back([&, d] {
      CHECK_CUDA(cudaSetDevice(d));
      ToneMapperConfig c = cfg;
      c.device = d;
      auto m = ToneMapper::create(c);
      CHECK_OK(m.status());
      void *in = nullptr, *out = nullptr;
      CHECK_CUDA(cudaMalloc(&in, px.size() * sizeof(__half)));
      CHECK_CUDA(cudaMemcpy(in, px.data(), px.size() * sizeof(__half), cudaMemcpyHostToDevice));
      CHECK_CUDA(cudaMalloc(&out, std::size_t(cfg.width) * cfg.height * 4));
      cudaStream_t s;
      CHECK_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
      for (int f = 0; f < frames_per_gpu; ++f) CHECK_OK((*m)->process(in, 0, out, 0, s));
      CHECK_CUDA(cudaStreamSynchronize(s));
      cudaStreamDestroy(s);
      cudaFree(in);
      cudaFree(out);
    });
  for (std::thread& t : threads) t.join();
  return n * frames_per_gpu / (ms_since(t0) / 1000.0);
}

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  std::size_t a = 0;
  while (a <= s.size()) {
    const std::size_t b = s.find(',', a);
    out.push_back(s.substr(a, b == std::string::npos ? std::string::npos : b - a));
    if (b == std::string::npos) break;
    a = b + 1;
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  std::string sizes = "8K,16K", ops = "reinhard,reinhard-sat,reinhard+glare,reinhard-sat+glare";
  int frames = 60;
  bool quick = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--sizes" && i + 1 < argc) sizes = argv[++i];
    else if (a == "--ops" && i + 1 < argc) ops = argv[++i];
    else if (a == "--frames" && i + 1 < argc) frames = std::max(1, std::atoi(argv[++i]));
    else if (a == "--quick") quick = true;
    else {
      std::fprintf(stderr, "usage: tonekit_multi_bench [--sizes 8K,16K] [--ops reinhard,reinhard-sat] [--frames N] [--quick]\n");
      return 2;
    }
  }
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    std::printf("tonekit_multi_bench: no CUDA device, nothing to measure\n");
    return 0;
  }
  if (quick) sizes = "1080p", ops = "reinhard", frames = 5;
  cudaDeviceProp prop{};
  CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
  std::printf("devices: %d x %s\n", count, prop.name);
  std::printf("%-6s %-18s %5s %10s %10s %10s %9s %8s %8s %7s\n", "size", "op", "gpus", "latency", "thruput", "1-gpu",
              "scaling", "exch_ms", "exch%", "floor%");
  for (const std::string& size : split_list(sizes)) {
    int w = 1920, h = 1080;
    if (size == "4K") w = 3840, h = 2160;
    else if (size == "8K") w = 7680, h = 4320;
    else if (size == "16K") w = 15360, h = 8640;
    const std::vector<__half> px = frame_pixels(w, h);
    const double floor_one = (double(w) * h * 12.0) / kBandwidth * 1e3;  // ms: read 8 B + write 4 B per pixel
    for (const std::string& op : split_list(ops)) {
      const ToneMapperConfig cfg = config_for(op, w, h);
      const double one = one_gpu_ms(cfg, px, frames);
      for (int n = 1; n <= count; ++n) {
        const SplitResult r = split_ms(cfg, px, n, frames);
        std::printf("%-6s %-18s %5d %10.4f %10.4f %10.4f %8.1f%% %8.4f %7.1f%% %6.1f%%\n", size.c_str(), op.c_str(), n,
                    r.latency_ms, r.throughput_ms, one, 100.0 * one / (n * r.throughput_ms), r.exchange_ms,
                    r.total_ms > 0 ? 100.0 * r.exchange_ms / r.total_ms : 0.0, 100.0 * floor_one / n / r.throughput_ms);
      }
    }
  }
  // A batch of 4K frames spread over the GPUs.
  {
    const int w = quick ? 1920 : 3840, h = quick ? 1080 : 2160;
    const std::vector<__half> px = frame_pixels(w, h);
    for (const std::string& op : split_list(ops)) {
      const ToneMapperConfig cfg = config_for(op, w, h);
      double base = 0.0;
      for (int n = 1; n <= count; ++n) {
        const double fps = batch_fps(cfg, px, n, quick ? 10 : 2000);
        if (n == 1) base = fps;
        std::printf("batch %dx%d %-13s gpus %d: %9.0f frames/s (scaling %.1f%%)\n", w, h, op.c_str(), n, fps,
                    100.0 * fps / (n * base));
      }
    }
  }
  return 0;
}
