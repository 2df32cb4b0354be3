// Night vision stage on the GPU (issue 36 item 3; goal: <= 0.2 ms at 4K on an H100/H200):
// NightEngine::run on float RGBA frames of a mesopic scene (the stage active: rod fraction > 0),
// out of place. CUDA events around each run, 3 warm-ups, median of --iters (>= 20) runs, inputs
// rotated over enough buffers to exceed 4x L2. GB/s counts the stage's byte floor
// (NightEngine::floor_bytes: the frame read twice and written once, plus the half-resolution
// plane written and read when blurring; the blur's own passes are extra); "copy" is
// the fraction of a device-to-device copy of the same frame measured in the same run.
// Variants: the defaults (separable Gaussian acuity blur), the pyramid-quasi blur, no blur
// (acuity 0), a fixed adaptation (no log-sum pass) and noise on.
// Usage: tonekit_night_bench [--quick] [--iters N] [--at WxH] (default 3840x2160).
// Output: a table, then `row,...` CSV lines (docs/performance.md).
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "bench_check.hpp"
#include "cuda/blur/night_engine.hpp"
#include "tonekit/night.hpp"

using namespace tonekit;

namespace {

struct Variant {
  const char* label;
  const char* blur;
  std::vector<std::pair<std::string, std::string>> settings;
};

double median(std::vector<float> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  bool quick = false;
  int iters = 20, w = 3840, h = 2160;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--quick")) quick = true;
    else if (!std::strcmp(argv[i], "--iters") && i + 1 < argc) iters = std::max(1, std::atoi(argv[++i]));
    else if (!std::strcmp(argv[i], "--at") && i + 1 < argc && std::sscanf(argv[i + 1], "%dx%d", &w, &h) == 2 && w > 0 &&
             h > 0) ++i;
    else {
      std::printf("usage: %s [--quick] [--iters N] [--at WxH]\n", argv[0]);
      return 2;
    }
  }
  if (quick) w = 1024, h = 576;
  int ndev = 0;
  if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) {
    std::printf("no CUDA device: nothing to measure\n");
    return 0;
  }
  cudaDeviceProp prop{};
  CK(cudaGetDeviceProperties(&prop, 0));
  const std::size_t l2 = static_cast<std::size_t>(prop.l2CacheSize);
  std::printf("device: %s, %d SMs, L2 %zu MB; %dx%d float RGBA, median of %d runs\n", prop.name,
              prop.multiProcessorCount, l2 >> 20, w, h, iters);

  const std::size_t n = static_cast<std::size_t>(w) * h * 4, bytes = n * sizeof(float);
  const int rotation = static_cast<int>(std::clamp<std::size_t>((4 * l2 + bytes - 1) / bytes, 2, 8));
  // A mesopic scene: 0.001-1 cd/m^2 with a few bright samples, so the stage runs in full.
  std::vector<float> host(n);
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  for (std::size_t i = 0; i < n; ++i) host[i] = (i % 4 == 3) ? 1.0f : 0.001f * std::pow(1000.0f, u(rng));
  for (std::size_t i = 0; i < n; i += 4 * 9973) host[i] = host[i + 1] = host[i + 2] = 500.0f;
  std::vector<float*> in(rotation);
  float* out = nullptr;
  for (int i = 0; i < rotation; ++i) {
    CK(cudaMalloc(&in[i], bytes));
    CK(cudaMemcpy(in[i], host.data(), bytes, cudaMemcpyHostToDevice));
  }
  CK(cudaMalloc(&out, bytes));
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  auto time_it = [&](auto&& run) {
    std::vector<float> t;
    for (int it = 0; it < iters + 3; ++it) {
      CK(cudaEventRecord(e0));
      run(it);
      CK(cudaEventRecord(e1));
      CK(cudaEventSynchronize(e1));
      float ms = 0;
      CK(cudaEventElapsedTime(&ms, e0, e1));
      if (it >= 3) t.push_back(ms);
    }
    CK(cudaGetLastError());
    return median(t);
  };
  const double copy_ms = time_it([&](int it) { CK(cudaMemcpyAsync(out, in[it % rotation], bytes, cudaMemcpyDeviceToDevice)); });
  const double copy_gbs = 2.0 * bytes / (copy_ms * 1e6);
  std::printf("device-to-device copy: %.4f ms, %.1f GB/s (read + write)\n", copy_ms, copy_gbs);

  const std::vector<Variant> variants = {
      {"defaults", "separable", {}},
      {"pyramid-quasi", "pyramid-quasi", {}},
      {"no-blur", "separable", {{"acuity", "0"}}},
      {"fixed-adaptation", "separable", {{"adaptation", "0.05"}}},
      {"noise", "separable", {{"noise", "0.2"}}},
  };
  struct Row {
    std::string label;
    double ms, gbs, copy_frac, rod, sigma;
  };
  std::vector<Row> rows;
  for (const Variant& v : variants) {
    auto params = prepare_night(v.settings, v.blur);
    if (!params.ok()) {
      std::printf("%-17s skipped: %s\n", v.label, params.status().message().c_str());
      continue;
    }
    NightEngineConfig cfg;
    cfg.width = w;
    cfg.height = h;
    cfg.params = *params;
    auto engine = NightEngine::create(cfg);
    if (!engine.ok()) {
      std::printf("%-17s skipped: %s\n", v.label, engine.status().message().c_str());
      continue;
    }
    bool ok = true;
    const double ms = time_it([&](int it) { ok = ok && (*engine)->run(in[it % rotation], out, nullptr, it).ok(); });
    NightReport report;
    if (!ok || !(*engine)->read_report(report).ok()) {
      std::printf("%-17s run failed\n", v.label);
      continue;
    }
    const double gbs = (*engine)->floor_bytes() / (ms * 1e6);
    rows.push_back({v.label, ms, gbs, gbs / copy_gbs, report.rod_fraction, report.blur_sigma});
    std::printf("%-17s %9.4f ms %8.1f GB/s %5.2f of copy  rod %.3f  blur sigma %.2f px  scratch %.0f MB\n", v.label, ms,
                gbs, gbs / copy_gbs, report.rod_fraction, report.blur_sigma, (*engine)->scratch_bytes() / 1048576.0);
    std::fflush(stdout);
  }
  for (float* p : in) cudaFree(p);
  cudaFree(out);
  std::printf("row,variant,width,height,ms,gbs,copy_fraction,rod_fraction,blur_sigma\n");
  for (const Row& r : rows)
    std::printf("row,%s,%d,%d,%.5f,%.1f,%.3f,%.4f,%.3f\n", r.label.c_str(), w, h, r.ms, r.gbs, r.copy_frac, r.rod, r.sigma);
  return 0;
}
