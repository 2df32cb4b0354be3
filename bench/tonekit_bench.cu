// Benchmark harness for the CUDA backend (docs/performance.md, "How we measure"): warm-up, CUDA events, medians
// of many runs, rotating input buffers (each larger than L2 at 4K/8K, so no run reads the
// previous run's data from L2 unless the pass itself left it there), bytes declared per stage.
// Axes: resolution x operator x format (half RGBA -> RGBA8, float RGB -> RGB8); the statistics
// and scan variants; the map order; host-to-host streamed throughput against the PCIe bound
// measured in the same run. The device-to-device copy bandwidth is measured first and every
// stage is reported as a fraction of it, for the minimal bytes of that stage.
// Usage: tonekit_bench [--quick] [--json out.json] [--res WxH] [--op ID]
#include <cuda_runtime.h>

#include <cuda_fp16.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "cuda/tuning.hpp"
#include "tonekit/device_frames.hpp"
#include "tonekit/tone_mapper.hpp"
#include "bench_check.hpp"

using namespace tonekit;
using cuda::ScanAlgorithm;
using cuda::StatsAlgorithm;

namespace {


__device__ unsigned hash(unsigned x) {
  x ^= x >> 16; x *= 0x7feb352dU; x ^= x >> 15; x *= 0x846ca68bU; x ^= x >> 16;
  return x;
}

// Log-uniform HDR values over ~30 stops, alpha in [0, 1]; never zeros.
__global__ void fill_input(unsigned char* p, std::size_t pixels, int channels, bool half, unsigned seed) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < pixels; i += std::size_t(gridDim.x) * blockDim.x)
    for (int c = 0; c < channels; ++c) {
      const unsigned h = hash(static_cast<unsigned>(i * channels + c) ^ seed);
      const float u = (h & 0xFFFFFF) * (1.0f / 16777216.0f);
      const float v = c == 3 ? u : exp2f(u * 30.0f - 20.0f);
      if (half) reinterpret_cast<__half*>(p)[i * channels + c] = __float2half(v);
      else reinterpret_cast<float*>(p)[i * channels + c] = v;
    }
}

// A spatially coherent frame (smooth luminance over ~12 stops, a glint every 4099 pixels): the
// case of photographs and renders, where neighbouring pixels fall into the same histogram bins
// (the robust peak's rows "(smooth)"; fill_input's random pixels rarely share one).
__global__ void fill_smooth(unsigned char* p, int w, int h, int channels, bool half, unsigned seed) {
  const std::size_t pixels = std::size_t(w) * h;
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < pixels; i += std::size_t(gridDim.x) * blockDim.x) {
    const float x = float(i % w), y = float(i / w);
    float l = exp2f(4.0f * __sinf(x * 0.0021f + seed) + 2.0f * __cosf(y * 0.0033f) - 2.0f);
    if (i % 4099 == 0) l = 3.0e4f;
    for (int c = 0; c < channels; ++c) {
      const float v = c == 3 ? 1.0f : l * (0.9f + 0.1f * c);
      if (half) reinterpret_cast<__half*>(p)[i * channels + c] = __float2half(v);
      else reinterpret_cast<float*>(p)[i * channels + c] = v;
    }
  }
}

// Keeps the device busy while the host enqueues a frame (launch gaps: docs/performance.md, "How we measure"). With the
// stream idle, e0 is stamped at once and the frame starts only when its first launch reaches the
// device, which charges the host's launch overhead (several microseconds per frame) to the device
// time; a renderer enqueueing frames asynchronously never pays it.
__global__ void spin_kernel(long long cycles) {
  const long long t0 = clock64();
  while (clock64() - t0 < cycles) {
  }
}

// Reads a buffer larger than L2, so that the dirty lines of the previous frame's output are
// written back before the timed region (the statistics row "fused-clean-l2").
__global__ void evict_kernel(const float4* p, std::size_t n, float* sink) {
  float s = 0.0f;
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x)
    s += p[i].x;
  if (s == 1234.5f) *sink = s;  // never true for the zeroed buffer; keeps the loads
}

// The read floor of a pass (row "read-floor-clean-l2"): the simplest kernel that reads the same
// bytes once - 16-byte loads, four in flight per thread, grid-stride, one wave - so a pass's time
// can be set against what any single read of this frame costs here, fixed costs included.
__global__ void read_floor_kernel(const uint4* p, std::size_t n, unsigned* sink) {
  unsigned acc = 0;
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
  for (; i + 3 * stride < n; i += 4 * stride) {
    const uint4 a = __ldg(p + i), b = __ldg(p + i + stride), c = __ldg(p + i + 2 * stride), d = __ldg(p + i + 3 * stride);
    acc ^= (a.x ^ a.y ^ a.z ^ a.w) ^ (b.x ^ b.y ^ b.z ^ b.w) ^ (c.x ^ c.y ^ c.z ^ c.w) ^ (d.x ^ d.y ^ d.z ^ d.w);
  }
  for (; i < n; i += stride) {
    const uint4 a = __ldg(p + i);
    acc ^= a.x ^ a.y ^ a.z ^ a.w;
  }
  if (acc == 0x9E3779B9u) *sink = acc;  // keeps the loads
}

enum class Lead { host_sync, spin, evict_spin };

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

struct Row {
  std::string res, op, format, stage, variant;
  double ms, bytes, gbps, frac;
};
std::vector<Row> rows;
double copy_gbps = 0;

void add_row(const std::string& res, const std::string& op, const std::string& fmt, const std::string& stage,
             const std::string& variant, double ms, double bytes) {
  const double gbps = bytes / (ms * 1e-3) / 1e9;
  rows.push_back({res, op, fmt, stage, variant, ms, bytes, gbps, gbps / copy_gbps});
}

// Device-to-device copy of a large buffer: bytes read + written per second.
double measure_copy(std::size_t bytes, int reps) {
  void *a, *b;
  CK(cudaMalloc(&a, bytes));
  CK(cudaMalloc(&b, bytes));
  CK(cudaMemset(a, 1, bytes));
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  std::vector<double> t;
  for (int i = 0; i < reps + 3; ++i) {
    CK(cudaEventRecord(e0));
    CK(cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice));
    CK(cudaEventRecord(e1));
    CK(cudaEventSynchronize(e1));
    float ms;
    CK(cudaEventElapsedTime(&ms, e0, e1));
    if (i >= 3) t.push_back(ms);
  }
  CK(cudaFree(a));
  CK(cudaFree(b));
  return 2.0 * bytes / (median(t) * 1e-3) / 1e9;
}

struct Format {
  const char* name;
  InputFormat in;
  OutputFormat out;
};

ToneMapperConfig frame_config(int w, int h, const Format& fmt, const char* op) {
  ToneMapperConfig cfg;
  cfg.width = w;
  cfg.height = h;
  cfg.input = fmt.in;
  cfg.output = fmt.out;
  cfg.params = prepare_params(op).value();
  return cfg;
}

void bench_device(int w, int h, const char* res, const Format& fmt, const char* op, int runs, bool variants) {
  const std::size_t pixels = std::size_t(w) * h;
  const std::size_t in_bytes = pixels * input_pixel_bytes(fmt.in);
  const std::size_t out_bytes = pixels * bytes_per_channel(fmt.out.type) * fmt.out.channels;
  constexpr int kBuffers = 3;
  void* in[kBuffers];
  void* out;
  for (int i = 0; i < kBuffers; ++i) {
    CK(cudaMalloc(&in[i], in_bytes));
    fill_input<<<1024, 256>>>(static_cast<unsigned char*>(in[i]), pixels, fmt.in == InputFormat::rgb_f32 ? 3 : 4,
                              fmt.in == InputFormat::rgba_f16, 1234u + i);
    CK(cudaGetLastError());
  }
  CK(cudaMalloc(&out, out_bytes));
  ToneMapperConfig cfg = frame_config(w, h, fmt, op);
  cfg.timings = true;
  cuda::Tuning tuning;  // the defaults, but for the variants timed below
  const bool histeq = std::string(op) == "histeq";

  int clock_khz = 0, device = 0;
  CK(cudaGetDevice(&device));
  CK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, device));
  const long long spin_cycles = static_cast<long long>(clock_khz) / 10;  // ~100 us
  constexpr std::size_t kEvictFloat4 = std::size_t(128) << 20 >> 4;       // 128 MB > L2
  float4* evict_buf = nullptr;
  float* sink = nullptr;
  CK(cudaMalloc(&evict_buf, kEvictFloat4 * sizeof(float4)));
  CK(cudaMemset(evict_buf, 0, kEvictFloat4 * sizeof(float4)));
  CK(cudaMalloc(&sink, sizeof(float)));
  auto run = [&](ToneMapper& m, std::vector<double>& total, std::vector<double>& st, std::vector<double>& hi,
                 std::vector<double>& mp, bool with_stages, Lead lead = Lead::spin) {
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    m.enable_timings(with_stages);
    for (int i = 0; i < runs + 10; ++i) {
      if (lead == Lead::evict_spin) {
        evict_kernel<<<1056, 256>>>(evict_buf, kEvictFloat4, sink);
        CK(cudaGetLastError());
      }
      if (lead != Lead::host_sync) {
        spin_kernel<<<1, 1>>>(spin_cycles);
        CK(cudaGetLastError());
      }
      CK(cudaEventRecord(e0));
      Status s = m.process(in[i % kBuffers], 0, out, 0, nullptr);
      if (!s.ok()) { std::fprintf(stderr, "process: %s\n", s.message().c_str()); std::exit(2); }
      CK(cudaEventRecord(e1));
      CK(cudaEventSynchronize(e1));
      if (i < 10) continue;  // warm-up
      float ms;
      CK(cudaEventElapsedTime(&ms, e0, e1));
      total.push_back(ms);
      if (with_stages) {
        StageTimings t;
        m.read_timings(t);
        st.push_back(t.stats_ms);
        hi.push_back(t.histogram_ms);
        mp.push_back(t.map_ms);
      }
    }
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
  };

  const double frame_bytes = double(in_bytes) * (histeq ? 3 : 2) + out_bytes;
  for (bool backwards : {true, false}) {
    if (!variants && !backwards) break;
    tuning.map_backwards = backwards;
    auto m = cuda::create_tone_mapper(cfg, tuning);
    if (!m.ok()) { std::fprintf(stderr, "create: %s\n", m.status().message().c_str()); std::exit(2); }
    std::vector<double> total, st, hi, mp, t2, a, b, c;
    run(*m.value(), total, a, b, c, false);  // whole frame, no stage events in between
    run(*m.value(), t2, st, hi, mp, true);   // per stage
    const std::string v = backwards ? "default" : "map-forwards";
    add_row(res, op, fmt.name, "frame", v, median(total), frame_bytes);
    if (backwards) {
      {  // temporal adaptation on (issue 14): the step runs in the statistics pass's last block
        ToneMapperConfig tc = cfg;
        tc.temporal = true;
        auto tm = cuda::create_tone_mapper(tc, tuning);
        if (!tm.ok()) { std::fprintf(stderr, "create: %s\n", tm.status().message().c_str()); std::exit(2); }
        std::vector<double> tt, x, y, z;
        run(*tm.value(), tt, x, y, z, false);
        add_row(res, op, fmt.name, "frame", "temporal", median(tt), frame_bytes);
      }
      if (cfg.params.has("peak_percentile")) {  // the robust peak (issue 14): one more read of the frame
        ToneMapperConfig pc = cfg;
        pc.params = prepare_params(op, {{"peak_percentile", "99.99"}}).value();
        auto pm = cuda::create_tone_mapper(pc, tuning);
        if (!pm.ok()) { std::fprintf(stderr, "create: %s\n", pm.status().message().c_str()); std::exit(2); }
        std::vector<double> tt, x, y, z;
        run(*pm.value(), tt, x, y, z, false);
        add_row(res, op, fmt.name, "frame", "robust-peak", median(tt), frame_bytes + double(in_bytes));
        pc.temporal = true;
        auto ptm = cuda::create_tone_mapper(pc, tuning);
        if (!ptm.ok()) { std::fprintf(stderr, "create: %s\n", ptm.status().message().c_str()); std::exit(2); }
        tt.clear();
        run(*ptm.value(), tt, x, y, z, false);
        add_row(res, op, fmt.name, "frame", "robust-peak+temporal", median(tt), frame_bytes + double(in_bytes));
        // The same on smooth frames (coherent bins), beside the default on them; the random
        // frames come back for the rows below.
        for (int i = 0; i < kBuffers; ++i) {
          fill_smooth<<<1024, 256>>>(static_cast<unsigned char*>(in[i]), w, h, fmt.in == InputFormat::rgb_f32 ? 3 : 4,
                                     fmt.in == InputFormat::rgba_f16, 7u * i);
          CK(cudaGetLastError());
        }
        auto dm = cuda::create_tone_mapper(cfg, tuning);
        if (!dm.ok()) { std::fprintf(stderr, "create: %s\n", dm.status().message().c_str()); std::exit(2); }
        tt.clear();
        run(*dm.value(), tt, x, y, z, false);
        add_row(res, op, fmt.name, "frame", "default (smooth)", median(tt), frame_bytes);
        tt.clear();
        run(*pm.value(), tt, x, y, z, false);
        add_row(res, op, fmt.name, "frame", "robust-peak (smooth)", median(tt), frame_bytes + double(in_bytes));
        for (int i = 0; i < kBuffers; ++i) {
          fill_input<<<1024, 256>>>(static_cast<unsigned char*>(in[i]), pixels, fmt.in == InputFormat::rgb_f32 ? 3 : 4,
                                    fmt.in == InputFormat::rgba_f16, 1234u + i);
          CK(cudaGetLastError());
        }
      }
      add_row(res, op, fmt.name, "stats", "fused", median(st), double(in_bytes));
      // The same with the host's launch overhead in the timed region (the device idle while the
      // host enqueues: sessions 1-3 measured this way), and the statistics with L2 clean of the
      // previous frame's output (its write-back otherwise shares the statistics' DRAM time).
      std::vector<double> t3, t4, st4, hi4, mp4;
      run(*m.value(), t3, a, b, c, false, Lead::host_sync);
      add_row(res, op, fmt.name, "frame", "host-sync", median(t3), frame_bytes);
      run(*m.value(), t4, st4, hi4, mp4, true, Lead::evict_spin);
      add_row(res, op, fmt.name, "stats", "fused-clean-l2", median(st4), double(in_bytes));
      if (std::string(op) == "reinhard") {
        int per_sm = 0, sms = 0;
        CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, read_floor_kernel, 256, 0));
        CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
        cudaEvent_t e0, e1;
        CK(cudaEventCreate(&e0));
        CK(cudaEventCreate(&e1));
        std::vector<double> t;
        for (int i = 0; i < runs + 10; ++i) {  // the lead of the clean-L2 statistics row
          evict_kernel<<<1056, 256>>>(evict_buf, kEvictFloat4, sink);
          spin_kernel<<<1, 1>>>(spin_cycles);
          CK(cudaGetLastError());
          CK(cudaEventRecord(e0));
          read_floor_kernel<<<per_sm * sms, 256>>>(static_cast<const uint4*>(in[i % kBuffers]), in_bytes / 16,
                                                   reinterpret_cast<unsigned*>(sink));
          CK(cudaGetLastError());
          CK(cudaEventRecord(e1));
          CK(cudaEventSynchronize(e1));
          float ms;
          CK(cudaEventElapsedTime(&ms, e0, e1));
          if (i >= 10) t.push_back(ms);
        }
        cudaEventDestroy(e0);
        cudaEventDestroy(e1);
        add_row(res, op, fmt.name, "stats", "read-floor-clean-l2", median(t), double(in_bytes));
      }
      if (histeq) add_row(res, op, fmt.name, "histogram+scan", "blelloch", median(hi), double(in_bytes));
    }
    add_row(res, op, fmt.name, "map", v, median(mp), double(in_bytes) + out_bytes);
  }
  if (variants) {
    tuning.map_backwards = true;
    tuning.programmatic_launch = false;  // v8's programmatic dependent launch off: its gain
    {
      auto m = cuda::create_tone_mapper(cfg, tuning);
      if (!m.ok()) { std::fprintf(stderr, "create: %s\n", m.status().message().c_str()); std::exit(2); }
      std::vector<double> total, a, b, c;
      run(*m.value(), total, a, b, c, false);
      add_row(res, op, fmt.name, "frame", "no-pdl", median(total), frame_bytes);
    }
    tuning.programmatic_launch = true;
    for (StatsAlgorithm a : {StatsAlgorithm::harris, StatsAlgorithm::mjp, StatsAlgorithm::cub, StatsAlgorithm::bulk,
                             StatsAlgorithm::async}) {
      tuning.stats = a;
      tuning.map_backwards = true;
      auto m = cuda::create_tone_mapper(cfg, tuning);
      std::vector<double> total, st, hi, mp;
      run(*m.value(), total, st, hi, mp, true);
      add_row(res, op, fmt.name, "stats", cuda::stats_algorithm_name(a), median(st), double(in_bytes));
      add_row(res, op, fmt.name, "frame", std::string("stats=") + cuda::stats_algorithm_name(a), median(total), frame_bytes);
      std::vector<double> t5, st5, hi5, mp5;
      run(*m.value(), t5, st5, hi5, mp5, true, Lead::evict_spin);
      add_row(res, op, fmt.name, "stats", std::string(cuda::stats_algorithm_name(a)) + "-clean-l2", median(st5),
              double(in_bytes));
    }
    tuning.stats = StatsAlgorithm::fused;
    for (int bps : {1, 2, 3, 4}) {  // blocks per SM of the fused statistics (the default: as many as fit)
      tuning.stats_blocks_per_sm = bps;
      auto m = cuda::create_tone_mapper(cfg, tuning);
      if (!m.ok()) { std::fprintf(stderr, "create: %s\n", m.status().message().c_str()); std::exit(2); }
      std::vector<double> total, st, hi, mp;
      run(*m.value(), total, st, hi, mp, true, Lead::evict_spin);
      add_row(res, op, fmt.name, "stats", "fused-clean-l2-bps" + std::to_string(bps), median(st), double(in_bytes));
    }
    tuning.stats_blocks_per_sm = 0;
    if (histeq) {
      tuning.scan = ScanAlgorithm::cub;
      auto m = cuda::create_tone_mapper(cfg, tuning);
      std::vector<double> total, st, hi, mp;
      run(*m.value(), total, st, hi, mp, true);
      add_row(res, op, fmt.name, "histogram+scan", "cub", median(hi), double(in_bytes));
    }
  }
  for (void* p : in) CK(cudaFree(p));
  CK(cudaFree(out));
  CK(cudaFree(evict_buf));
  CK(cudaFree(sink));
}

struct StreamResult {
  double fps = 0, bound_fps = 0, h2d_gbps = 0, d2h_gbps = 0;
};

// Host-to-host: pinned host frames through DeviceFrameMapper (tonekit/device_frames.hpp, 3 in
// flight: the upload of one frame, the kernels of another and the download of a third overlap;
// page-locked frames are copied from and to directly), against the PCIe bound measured now: the
// same uploads and downloads alone, concurrently on two streams.
StreamResult bench_stream(int w, int h, const Format& fmt, const char* op, int frames) {
  const ToneMapperConfig cfg = frame_config(w, h, fmt, op);
  auto mapper = DeviceFrameMapper::create(cfg, 3);
  if (!mapper.ok()) { std::fprintf(stderr, "mapper: %s\n", mapper.status().message().c_str()); std::exit(2); }
  DeviceFrameMapper& pipe = *mapper.value();
  const std::size_t ib = pipe.input_bytes(), ob = pipe.output_bytes();
  constexpr int kHost = 4;
  void* hin[kHost];
  void* hout[kHost];
  for (int i = 0; i < kHost; ++i) {
    CK(cudaMallocHost(&hin[i], ib));
    CK(cudaMallocHost(&hout[i], ob));
    std::memset(hout[i], 0, ob);
    std::vector<float> tmp(4096);
    for (std::size_t k = 0; k < tmp.size(); ++k) tmp[k] = 0.01f * (k % 997) + 0.001f;
    for (std::size_t off = 0; off < ib; off += sizeof(float) * tmp.size())
      std::memcpy(static_cast<char*>(hin[i]) + off, tmp.data(), std::min(ib - off, sizeof(float) * tmp.size()));
  }
  // `count` frames in order, then every pending one completed.
  auto run = [&](int count) -> Status {
    for (int f = 0; f < count; ++f)
      if (Status s = pipe.submit(hin[f % kHost], hout[f % kHost], 0.0); !s.ok()) return s;
    while (pipe.pending() > 0)
      if (Status s = pipe.complete_oldest(); !s.ok()) return s;
    return {};
  };
  StreamResult r;
  if (Status s = run(4); !s.ok()) { std::fprintf(stderr, "run: %s\n", s.message().c_str()); std::exit(2); }  // warm-up
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  std::vector<double> fps;
  for (int rep = 0; rep < 3; ++rep) {
    CK(cudaDeviceSynchronize());
    const auto t0 = std::chrono::steady_clock::now();
    Status s = run(frames);
    if (!s.ok()) { std::fprintf(stderr, "run: %s\n", s.message().c_str()); std::exit(2); }
    fps.push_back(frames / std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  r.fps = median(fps);
  // PCIe bound: uploads on one stream, downloads on another, no kernels.
  void *din, *dout;
  CK(cudaMalloc(&din, ib));
  CK(cudaMalloc(&dout, ob));
  cudaStream_t s1, s2;
  CK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
  CK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
  std::vector<double> bound;
  for (int rep = 0; rep < 3; ++rep) {
    CK(cudaDeviceSynchronize());
    const auto t0 = std::chrono::steady_clock::now();
    for (int f = 0; f < frames; ++f) {
      CK(cudaMemcpyAsync(din, hin[f % kHost], ib, cudaMemcpyHostToDevice, s1));
      CK(cudaMemcpyAsync(hout[f % kHost], dout, ob, cudaMemcpyDeviceToHost, s2));
    }
    CK(cudaDeviceSynchronize());
    bound.push_back(frames / std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  r.bound_fps = median(bound);
  auto one_way = [&](bool up) {
    CK(cudaEventRecord(e0, s1));
    for (int f = 0; f < frames; ++f) {
      if (up) CK(cudaMemcpyAsync(din, hin[f % kHost], ib, cudaMemcpyHostToDevice, s1));
      else CK(cudaMemcpyAsync(hout[f % kHost], dout, ob, cudaMemcpyDeviceToHost, s1));
    }
    CK(cudaEventRecord(e1, s1));
    CK(cudaEventSynchronize(e1));
    float ms;
    CK(cudaEventElapsedTime(&ms, e0, e1));
    return double(up ? ib : ob) * frames / (ms * 1e-3) / 1e9;
  };
  r.h2d_gbps = one_way(true);
  r.d2h_gbps = one_way(false);
  cudaFree(din);
  cudaFree(dout);
  for (int i = 0; i < kHost; ++i) {
    cudaFreeHost(hin[i]);
    cudaFreeHost(hout[i]);
  }
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  bool quick = false, profile = false;
  std::string json_path, only_res, only_op;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--quick")) quick = true;
    else if (!std::strcmp(argv[i], "--profile")) profile = true;  // one case, for ncu
    else if (!std::strcmp(argv[i], "--json") && i + 1 < argc) json_path = argv[++i];
    else if (!std::strcmp(argv[i], "--res") && i + 1 < argc) only_res = argv[++i];  // e.g. 3840x2160
    else if (!std::strcmp(argv[i], "--op") && i + 1 < argc) only_op = argv[++i];
    else {
      std::printf("usage: %s [--quick] [--profile] [--json FILE] [--res WxH] [--op ID]\n", argv[0]);
      return 2;
    }
  }
  const bool filtered = !only_res.empty() || !only_op.empty();
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) {
    std::printf("tonekit_bench: no CUDA device, nothing to measure\n");
    return 0;
  }
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  if (profile) {
    copy_gbps = 3000;
    bench_device(3840, 2160, "3840x2160", {"f16rgba->rgba8", InputFormat::rgba_f16, {PixelType::u8, 4}}, "reinhard", 20, false);
    return 0;
  }
  copy_gbps = measure_copy(std::size_t(1) << 30, quick ? 5 : 30);
  std::printf("device: %s, %d SMs, L2 %d MB; device-to-device copy %.0f GB/s (read + write)\n", prop.name,
              prop.multiProcessorCount, prop.l2CacheSize >> 20, copy_gbps);
  const Format formats[] = {{"f16rgba->rgba8", InputFormat::rgba_f16, {PixelType::u8, 4}},
                            {"f32rgb->rgb8", InputFormat::rgb_f32, {PixelType::u8, 3}}};
  struct Res { int w, h; const char* name; };
  const Res resolutions[] = {{1920, 1080, "1920x1080"}, {3840, 2160, "3840x2160"}, {7680, 4320, "7680x4320"}};
  std::vector<const char*> ops;  // every global operator of the registry
  for (const OperatorDesc* d : all_operators())
    if (d->locality == Locality::global) ops.push_back(d->id);
  const int runs = quick ? 5 : 200;
  for (const Res& r : resolutions) {
    if (quick && r.w > 1920) break;
    if (!only_res.empty() && only_res != r.name) continue;
    for (const Format& f : formats)
      for (const char* op : ops) {
        if (!only_op.empty() && only_op != op) continue;
        const bool variants = !quick && r.w == 3840 && (std::string(op) == "reinhard" || std::string(op) == "histeq");
        bench_device(r.w, r.h, r.name, f, op, runs, variants);
      }
  }
  std::vector<std::pair<std::string, StreamResult>> streams;
  for (const Format& f : formats) {
    if (quick || filtered) break;
    streams.push_back({std::string("3840x2160 reinhard ") + f.name, bench_stream(3840, 2160, f, "reinhard", 48)});
  }

  std::printf("\n%-10s %-9s %-15s %-15s %-20s %9s %9s %7s\n", "res", "op", "format", "stage", "variant", "ms", "GB/s", "copy%");
  for (const Row& r : rows)
    std::printf("%-10s %-9s %-15s %-15s %-20s %9.4f %9.1f %6.1f%%\n", r.res.c_str(), r.op.c_str(), r.format.c_str(),
                r.stage.c_str(), r.variant.c_str(), r.ms, r.gbps, 100 * r.frac);
  for (const auto& [name, s] : streams)
    std::printf("streamed host-to-host %s: %.1f frames/s; PCIe bound (same copies, no kernels) %.1f frames/s "
                "(%.0f%%); H2D %.1f GB/s, D2H %.1f GB/s\n",
                name.c_str(), s.fps, s.bound_fps, 100 * s.fps / s.bound_fps, s.h2d_gbps, s.d2h_gbps);
  if (!json_path.empty()) {
    FILE* f = std::fopen(json_path.c_str(), "w");
    if (!f) { std::perror(json_path.c_str()); return 2; }
    std::fprintf(f, "{\n  \"device\": \"%s\",\n  \"copy_gbps\": %.2f,\n  \"rows\": [\n", prop.name, copy_gbps);
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const Row& r = rows[i];
      std::fprintf(f, "    {\"res\": \"%s\", \"op\": \"%s\", \"format\": \"%s\", \"stage\": \"%s\", \"variant\": \"%s\", "
                      "\"ms\": %.5f, \"bytes\": %.0f, \"gbps\": %.2f, \"copy_fraction\": %.4f}%s\n",
                   r.res.c_str(), r.op.c_str(), r.format.c_str(), r.stage.c_str(), r.variant.c_str(), r.ms, r.bytes, r.gbps,
                   r.frac, i + 1 < rows.size() ? "," : "");
    }
    std::fprintf(f, "  ],\n  \"streams\": [\n");
    for (std::size_t i = 0; i < streams.size(); ++i) {
      const auto& [name, s] = streams[i];
      std::fprintf(f, "    {\"case\": \"%s\", \"fps\": %.2f, \"pcie_bound_fps\": %.2f, \"h2d_gbps\": %.2f, \"d2h_gbps\": %.2f}%s\n",
                   name.c_str(), s.fps, s.bound_fps, s.h2d_gbps, s.d2h_gbps, i + 1 < streams.size() ? "," : "");
    }
    std::fprintf(f, "  ]\n}\n");
    std::fclose(f);
  }
  return 0;
}
