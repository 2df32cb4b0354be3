// Objective quality on the GPU (issue 17: "a score live at 4K (<= 50 ms)"): GpuQuality's TMQI +
// FSITM, each alone, colour fidelity alone, all three, the LDR side against a prepared reference
// (what the studio and map --auto pay per candidate: with and without colour) and the host entry
// (pageable uploads included), against the CPU reference (TMQI, FSITM, colour fidelity).
// GPU rows: CUDA events around each call on a user stream (every call ends by synchronising,
// since the scores come back to the host), --warmup runs first (default 3, plans and scratch
// sized there), then the median, min and 90th percentile of --iters runs (default 30), inputs
// rotated over 3 pairs so no run reads a cached input twice in a row. CPU rows: wall time of
// quality::tmqi / quality::fsitm / quality::colour_fidelity after one warm-up (--cpu-runs,
// default 1; --no-cpu skips them).
// Output: a table, then `row,...` CSV lines (docs/performance.md has the results).
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "tonekit/quality.hpp"
#include "tonekit/quality_cuda.hpp"
#include "bench_check.hpp"

using namespace tonekit;
using quality::GpuMetrics;


namespace {

struct Options {
  std::vector<std::pair<int, int>> sizes{{3840, 2160}};
  int iters = 30, warmup = 3, cpu_runs = 1;
  bool cpu = true;
};

struct Pair {
  Image hdr;
  OutputImage ldr;
};

// A textured scene (log ramp over 3 decades, +-45 % noise per channel) and its global Reinhard
// mapping at gamma 1/2.2, 8-bit RGB: no flat areas, every scale busy.
Pair make_pair(int width, int height, unsigned seed) {
  Pair p;
  p.hdr = Image(width, height, 3);
  p.ldr.allocate(width, height, 3, PixelType::u8);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      const float base = std::pow(10.0f, 3.0f * x / (width - 1) - 1.5f);
      const std::size_t i = (static_cast<std::size_t>(y) * width + x) * 3;
      for (int c = 0; c < 3; ++c) {
        const float v = base * (1.0f + 0.45f * u(rng)) * (0.7f + 0.2f * c);
        p.hdr.pixels[i + c] = v;
        p.ldr.bytes[i + c] = static_cast<std::uint8_t>(std::lround(255.0 * std::pow(v / (1.0 + v), 1.0 / 2.2)));
      }
    }
  return p;
}

struct DevicePair {
  float* hdr = nullptr;
  unsigned char* ldr = nullptr;
  ImageView hdr_view, ldr_view;
};

struct Stats {
  double median, min, p90;
};
Stats stats(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return {v[v.size() / 2], v.front(), v[std::min(v.size() - 1, v.size() * 9 / 10)]};
}

void report(const char* label, int w, int h, const Stats& s, int runs) {
  std::printf("%-34s %5dx%-5d %10.3f %10.3f %10.3f %6d\n", label, w, h, s.median, s.min, s.p90, runs);
  std::fflush(stdout);
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> const char* {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--quick") {
      o.sizes = {{1280, 720}};
      o.iters = 5;
      o.warmup = 1;
    } else if (a == "--res") {
      o.sizes.clear();
      std::string list = next();
      for (std::size_t p = 0; p < list.size();) {
        const std::size_t e = std::min(list.find(',', p), list.size());
        int w = 0, h = 0;
        if (std::sscanf(list.substr(p, e - p).c_str(), "%dx%d", &w, &h) != 2) {
          std::fprintf(stderr, "--res takes WxH[,WxH...]\n");
          std::exit(2);
        }
        o.sizes.emplace_back(w, h);
        p = e + 1;
      }
    } else if (a == "--iters") {
      o.iters = std::max(1, std::atoi(next()));
    } else if (a == "--warmup") {
      o.warmup = std::max(0, std::atoi(next()));
    } else if (a == "--cpu-runs") {
      o.cpu_runs = std::max(1, std::atoi(next()));
    } else if (a == "--no-cpu") {
      o.cpu = false;
    } else {
      std::fprintf(stderr,
                   "usage: tonekit_quality_bench [--quick] [--res WxH[,WxH]] [--iters N] [--warmup N] [--cpu-runs N] "
                   "[--no-cpu]\n");
      std::exit(2);
    }
  }
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  auto created = quality::GpuQuality::create();
  if (!created.ok()) {
    // No GPU: not a failure of the benchmark (ctest -L bench on machines without one).
    std::printf("tonekit_quality_bench: %s (skipped)\n", created.status().message().c_str());
    return 0;
  }
  quality::GpuQuality& q = **created;
  cudaDeviceProp prop{};
  int device = 0;
  CK(cudaGetDevice(&device));
  CK(cudaGetDeviceProperties(&prop, device));
  std::printf("device %s, %d warm-up + %d runs per GPU row, ms\n", prop.name, o.warmup, o.iters);
  std::printf("%-34s %11s %10s %10s %10s %6s\n", "row", "size", "median", "min", "p90", "runs");
  cudaStream_t stream;
  CK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cudaEvent_t start, stop;
  CK(cudaEventCreate(&start));
  CK(cudaEventCreate(&stop));
  std::vector<std::string> csv;

  for (const auto& size : o.sizes) {
    const int w = size.first, h = size.second;  // named, not bound: lambdas capture them (C++17 CUDA)
    std::vector<Pair> pairs;
    std::vector<DevicePair> dev(3);
    for (unsigned k = 0; k < 3; ++k) {
      pairs.push_back(make_pair(w, h, 100 + k));
      DevicePair& d = dev[k];
      CK(cudaMalloc(&d.hdr, pairs[k].hdr.pixels.size() * sizeof(float)));
      CK(cudaMalloc(&d.ldr, pairs[k].ldr.bytes.size()));
      CK(cudaMemcpy(d.hdr, pairs[k].hdr.pixels.data(), pairs[k].hdr.pixels.size() * sizeof(float),
                    cudaMemcpyHostToDevice));
      CK(cudaMemcpy(d.ldr, pairs[k].ldr.bytes.data(), pairs[k].ldr.bytes.size(), cudaMemcpyHostToDevice));
      d.hdr_view = ImageView{d.hdr, w, h, 3, PixelType::f32, 0, MemorySpace::device};
      d.ldr_view = ImageView{d.ldr, w, h, 3, PixelType::u8, 0, MemorySpace::device};
    }
    // One GPU row: `call(k)` on input k of the rotation, timed with events on `stream`.
    auto gpu_row = [&](const char* label, const std::function<Status(int)>& call) {
      for (int i = 0; i < o.warmup; ++i)
        if (Status s = call(i % 3); !s.ok()) {
          std::printf("%-34s %5dx%-5d failed: %s\n", label, w, h, s.message().c_str());
          return;
        }
      std::vector<double> ms;
      for (int i = 0; i < o.iters; ++i) {
        CK(cudaEventRecord(start, stream));
        const Status s = call(i % 3);
        CK(cudaEventRecord(stop, stream));
        CK(cudaEventSynchronize(stop));
        if (!s.ok()) {
          std::printf("%-34s %5dx%-5d failed: %s\n", label, w, h, s.message().c_str());
          return;
        }
        float t = 0;
        CK(cudaEventElapsedTime(&t, start, stop));
        ms.push_back(t);
      }
      const Stats st = stats(ms);
      report(label, w, h, st, o.iters);
      csv.push_back(std::string("row,") + label + "," + std::to_string(w) + "x" + std::to_string(h) + "," +
                    std::to_string(st.median) + "," + std::to_string(st.min) + "," + std::to_string(st.p90));
    };
    auto device_score = [&](GpuMetrics m) {
      return [&, m](int k) { return q.score(dev[k].hdr_view, dev[k].ldr_view, stream, m).status(); };
    };
    gpu_row("gpu tmqi+fsitm (device views)", device_score(GpuMetrics::both));
    gpu_row("gpu tmqi (device views)", device_score(GpuMetrics::tmqi));
    gpu_row("gpu fsitm (device views)", device_score(GpuMetrics::fsitm));
    gpu_row("gpu colour (device views)", device_score(GpuMetrics::colour));
    gpu_row("gpu all three (device views)", device_score(GpuMetrics::all));
    // The LDR side alone: the reference prepared once from pair 0, LDRs rotated.
    if (Status s = q.set_reference(dev[0].hdr_view, stream, GpuMetrics::all); s.ok()) {
      gpu_row("gpu ldr side, reference set", [&](int k) {
        return q.score_against_reference(dev[k].ldr_view, stream, GpuMetrics::both).status();
      });
      gpu_row("gpu colour, reference set", [&](int k) {
        return q.score_against_reference(dev[k].ldr_view, stream, GpuMetrics::colour).status();
      });
      gpu_row("gpu ldr side + colour, ref. set", [&](int k) {
        return q.score_against_reference(dev[k].ldr_view, stream, GpuMetrics::all).status();
      });
    }
    // The host entry: pageable uploads of the float RGB HDR and the 8-bit LDR included.
    gpu_row("gpu tmqi+fsitm (host images)",
            [&](int k) { return q.score(pairs[k].hdr, pairs[k].ldr, GpuMetrics::both).status(); });
    std::printf("%-34s %5dx%-5d %10.1f MB\n", "gpu scratch", w, h, q.scratch_bytes() / 1e6);

    if (o.cpu) {
      auto cpu_row = [&](const char* label, const std::function<Status()>& call) {
        if (Status s = call(); !s.ok()) {  // warm-up (and the check that it runs at all)
          std::printf("%-34s %5dx%-5d failed: %s\n", label, w, h, s.message().c_str());
          return;
        }
        std::vector<double> ms;
        for (int i = 0; i < o.cpu_runs; ++i) {
          const auto t0 = std::chrono::steady_clock::now();
          (void)call();
          ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
        }
        const Stats st = stats(ms);
        report(label, w, h, st, o.cpu_runs);
        csv.push_back(std::string("row,") + label + "," + std::to_string(w) + "x" + std::to_string(h) + "," +
                      std::to_string(st.median) + "," + std::to_string(st.min) + "," + std::to_string(st.p90));
      };
      cpu_row("cpu tmqi", [&] { return quality::tmqi(pairs[0].hdr, pairs[0].ldr).status(); });
      cpu_row("cpu fsitm", [&] { return quality::fsitm(pairs[0].hdr, pairs[0].ldr).status(); });
      cpu_row("cpu colour", [&] { return quality::colour_fidelity(pairs[0].hdr, pairs[0].ldr).status(); });
    }
    for (DevicePair& d : dev) {
      CK(cudaFree(d.hdr));
      CK(cudaFree(d.ldr));
    }
  }
  for (const std::string& line : csv) std::printf("%s\n", line.c_str());
  CK(cudaEventDestroy(start));
  CK(cudaEventDestroy(stop));
  CK(cudaStreamDestroy(stream));
  return 0;
}
