// Blur speed study on the GPU (issue 5 part 3; Ernst 2013 ch. 4.4 on the CUDA backend): every
// method vs sigma (3, 6, 12, 24, 48) at 1024x1024 and vs resolution (512x512 .. 7680x4320) at
// sigma 6, RGBA float. CUDA events around each run, 3 warm-ups, median of --iters (>= 20) runs,
// inputs rotated over enough buffers to exceed 2x L2 (no timing of a cached input). GB/s counts
// the method's byte floor (input read once, output written once); "copy" is the fraction of a
// device-to-device copy of the same image measured in the same run. --cpu times the CPU
// reference on the same 1024x1024 sigma 6 image (one run after one warm-up) for the speed-up.
// Output: a table, then `row,...` CSV lines (docs/performance.md has the results).
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "cuda/tuning.hpp"
#include "tonekit/blur.hpp"
#include "tonekit/blur_cuda.hpp"
#include "bench_check.hpp"

using namespace tonekit;


namespace {

struct Variant {
  const char* label;
  const char* method;
  BlurSettings settings;
  bool fused = false;  // cuda::BlurTuning::separable_fused
  bool banded = false;  // cuda::BlurTuning::separable_banded
  int strip = 128, chunk = 32;  // cuda::BlurTuning::separable_fused_strip / _chunk
  bool strips = true;  // cuda::BlurTuning::separable_strips
};

const std::vector<Variant>& variants() {
  static const std::vector<Variant> v = {
      {"gaussian", "gaussian", {}},         {"separable", "separable", {}},
      {"separable-fused", "separable", {}, true},
      {"separable-banded", "separable", {}, false, true},
      {"separable-2pass", "separable", {}, false, false, 128, 32, false},
      {"separable-fused-s256", "separable", {}, true, false, 256, 32},
      {"separable-fused-c16", "separable", {}, true, false, 128, 16},
      {"separable-fused-s256-c16", "separable", {}, true, false, 256, 16},
      {"direct", "direct", {}},             {"fft", "fft", {}},
      {"pyramid-box2", "pyramid-box2", {}}, {"pyramid-box4", "pyramid-box4", {}},
      {"pyramid-quasi", "pyramid-quasi", {}}, {"spreading", "spreading", {}},
      {"reshuffle", "reshuffle", {}},       {"repeated-box", "repeated-box", {}},
      {"repeated-box-sat", "repeated-box", {{"sat", "1"}}}, {"diffusion", "diffusion", {}}};
  return v;
}

double median(std::vector<float> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

struct Bench {
  int iters = 20;
  size_t l2 = 50u << 20;
  cudaEvent_t e0, e1;
  Bench() {
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    cudaDeviceProp p{};
    CK(cudaGetDeviceProperties(&p, 0));
    l2 = static_cast<size_t>(p.l2CacheSize);
    std::printf("device: %s, %d SMs, L2 %zu MB\n", p.name, p.multiProcessorCount, l2 >> 20);
  }
  int rotation(size_t bytes) const { return static_cast<int>(std::clamp<size_t>((4 * l2 + bytes - 1) / bytes, 2, 8)); }

  // Median ms of a device-to-device copy of `bytes` (read + write counted: 2 bytes / time).
  double copy_gbs(size_t bytes) {
    const int n = rotation(bytes);
    std::vector<float*> a(n), b(n);
    for (int i = 0; i < n; ++i) {
      CK(cudaMalloc(&a[i], bytes));
      CK(cudaMalloc(&b[i], bytes));
      CK(cudaMemset(a[i], 0x3f, bytes));
    }
    std::vector<float> t;
    for (int it = 0; it < iters + 3; ++it) {
      CK(cudaEventRecord(e0));
      CK(cudaMemcpyAsync(b[it % n], a[it % n], bytes, cudaMemcpyDeviceToDevice));
      CK(cudaEventRecord(e1));
      CK(cudaEventSynchronize(e1));
      float ms = 0;
      CK(cudaEventElapsedTime(&ms, e0, e1));
      if (it >= 3) t.push_back(ms);
    }
    for (int i = 0; i < n; ++i) {
      cudaFree(a[i]);
      cudaFree(b[i]);
    }
    return 2.0 * bytes / (median(t) * 1e6);
  }
};

struct Row {
  std::string label, params;
  int w, h;
  double sigma, ms, gbs, copy_frac, cpu_ms;
};

bool run_case(Bench& b, const Variant& v, int w, int h, double sigma, double copy_gbs, bool cpu, Row& row) {
  auto plan = plan_blur(v.method, sigma, v.settings);
  if (!plan.ok()) {
    std::printf("%-17s %5dx%-5d sigma %-4g skipped: %s\n", v.label, w, h, sigma, plan.status().message().c_str());
    return false;
  }
  BlurEngineConfig cfg;
  cfg.width = w;
  cfg.height = h;
  cfg.channels = 4;
  cfg.plan = *plan;
  cuda::BlurTuning tuning;
  tuning.separable_fused = v.fused;
  tuning.separable_banded = v.banded;
  tuning.separable_fused_strip = v.strip;
  tuning.separable_fused_chunk = v.chunk;
  tuning.separable_strips = v.strips;
  auto engine = cuda::create_blur_engine(cfg, tuning);
  if (!engine.ok()) {
    std::printf("%-17s %5dx%-5d sigma %-4g skipped: %s\n", v.label, w, h, sigma, engine.status().message().c_str());
    return false;
  }
  const size_t n = static_cast<size_t>(w) * h * 4, bytes = n * sizeof(float);
  const int nb = b.rotation(bytes);
  std::vector<float> host(n);
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  for (float& x : host) x = u(rng);
  std::vector<float*> in(nb);
  float* out = nullptr;
  for (int i = 0; i < nb; ++i) {
    CK(cudaMalloc(&in[i], bytes));
    if (i == 0) CK(cudaMemcpy(in[0], host.data(), bytes, cudaMemcpyHostToDevice));
    else CK(cudaMemcpy(in[i], in[0], bytes, cudaMemcpyDeviceToDevice));
  }
  CK(cudaMalloc(&out, bytes));
  std::vector<float> t;
  bool ok = true;
  for (int it = 0; it < b.iters + 3 && ok; ++it) {
    CK(cudaEventRecord(b.e0));
    ok = (*engine)->run(in[it % nb], out, nullptr).ok();
    CK(cudaEventRecord(b.e1));
    CK(cudaEventSynchronize(b.e1));
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, b.e0, b.e1));
    if (it >= 3) t.push_back(ms);
  }
  CK(cudaGetLastError());
  for (float* p : in) cudaFree(p);
  cudaFree(out);
  if (!ok) {
    std::printf("%-17s run failed\n", v.label);
    return false;
  }
  row = Row{v.label, plan->describe(), w, h, sigma, median(t), 0, 0, -1};
  row.gbs = (*engine)->floor_bytes() / (row.ms * 1e6);
  row.copy_frac = row.gbs / copy_gbs;
  if (cpu) {
    Image img(w, h, 4);
    img.pixels = host;
    (void)blur(img, *plan);  // warm-up (thread pool, page faults)
    const auto c0 = std::chrono::steady_clock::now();
    auto r = blur(img, *plan);
    row.cpu_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - c0).count();
    if (!r.ok()) row.cpu_ms = -1;
  }
  std::printf("%-17s %5dx%-5d sigma %-4g %9.4f ms %8.1f GB/s %5.2f of copy", v.label, w, h, sigma, row.ms, row.gbs,
              row.copy_frac);
  if (row.cpu_ms > 0) std::printf("  cpu %9.2f ms  x%.0f", row.cpu_ms, row.cpu_ms / row.ms);
  std::printf("  [%s]\n", row.params.c_str());
  std::fflush(stdout);
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  bool quick = false, cpu = false;
  int iters = 20, at_w = 1024, at_h = 1024;
  std::string only;
  std::vector<double> sigmas = {3, 6, 12, 24, 48};
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--quick")) quick = true;
    else if (!std::strcmp(argv[i], "--cpu")) cpu = true;
    else if (!std::strcmp(argv[i], "--iters") && i + 1 < argc) iters = std::max(1, std::atoi(argv[++i]));
    else if (!std::strcmp(argv[i], "--only") && i + 1 < argc) only = argv[++i];
    else if (!std::strcmp(argv[i], "--at") && i + 1 < argc && std::sscanf(argv[i + 1], "%dx%d", &at_w, &at_h) == 2 &&
             at_w > 0 && at_h > 0) ++i;
    else if (!std::strcmp(argv[i], "--sigmas") && i + 1 < argc) {
      sigmas.clear();
      for (char* tok = std::strtok(argv[++i], ","); tok; tok = std::strtok(nullptr, ",")) sigmas.push_back(std::atof(tok));
    } else {
      std::printf("usage: %s [--quick] [--cpu] [--iters N] [--only LABEL] [--at WxH] [--sigmas S,S,...]\n"
                  "  --at, --sigmas: size and sigmas of the sigma sweep (default 1024x1024; 3,6,12,24,48)\n",
                  argv[0]);
      return 2;
    }
  }
  int ndev = 0;
  if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) {
    std::printf("no CUDA device: nothing to measure\n");
    return 0;
  }
  Bench b;
  b.iters = iters;
  std::vector<Row> rows;
  bool sizes_done = false;  // --at: the sigma sweep only
  const int sizes[][2] = {{512, 512}, {1024, 1024}, {1920, 1080}, {3840, 2160}, {7680, 4320}};
  std::printf("== sigma sweep, %dx%d RGBA float ==\n", at_w, at_h);
  const double copy1k = b.copy_gbs(static_cast<size_t>(at_w) * at_h * 16);
  std::printf("device-to-device copy: %.1f GB/s (read + write)\n", copy1k);
  for (double s : sigmas)
    for (const Variant& v : variants()) {
      if (!only.empty() && only != v.label) continue;
      Row r;
      if (run_case(b, v, at_w, at_h, s, copy1k, cpu && s == 6, r)) rows.push_back(r);
    }
  if (at_w != 1024 || at_h != 1024) sizes_done = true;
  if (!sizes_done) std::printf("== resolution sweep, sigma 6, RGBA float ==\n");
  for (const auto& sz : sizes) {
    if (sizes_done) break;
    if (sz[0] == 1024) continue;  // measured above
    if (quick && sz[0] == 512) continue;
    const double copy = b.copy_gbs(static_cast<size_t>(sz[0]) * sz[1] * 16);
    std::printf("-- %dx%d: device-to-device copy %.1f GB/s\n", sz[0], sz[1], copy);
    for (const Variant& v : variants()) {
      if (!only.empty() && only != v.label) continue;
      Row r;
      if (run_case(b, v, sz[0], sz[1], 6, copy, false, r)) rows.push_back(r);
    }
  }
  std::printf("row,method,width,height,sigma,ms,gbs,copy_fraction,cpu_ms,params\n");
  for (const Row& r : rows)
    std::printf("row,%s,%d,%d,%g,%.5f,%.1f,%.3f,%.2f,%s\n", r.label.c_str(), r.w, r.h, r.sigma, r.ms, r.gbs,
                r.copy_frac, r.cpu_ms, r.params.c_str());
  return 0;
}
