// CPU benchmark of the local operators (issue: local operators, item 5): in-process tone mapping
// of float RGB frames to RGB8 with reinhard-local, reinhard-sat, drago-local, local-laplacian and
// exposure-fusion (issue 36), the summed-area
// table build alone, and reinhard-sat's `scales` sweep (thesis 7.5: fewer box levels, faster).
// Two frames: "scene", a structured HDR frame (smooth sky gradient, a sun, windows, a textured
// dark foreground: the scale search runs deep) and "noise", per-pixel log-uniform noise over
// 6 decades as in bench_cpu_tonemap (the search stops at the first levels).
// Run: build/bin/bench_cpu_local --benchmark_filter=reinhard-sat
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <cmath>
#include <map>
#include <memory>
#include <random>
#include <string>

#include "cpu/sat/sat_table.hpp"
#include "tonekit/tonemap.hpp"

using namespace tonekit;

namespace {

Image make_scene(int w, int h) {
  Image img(w, h, 3);
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> n(-1.0f, 1.0f);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const float u = static_cast<float>(x) / w, v = static_cast<float>(y) / h;
      float l;
      if (v < 0.55f) {  // sky: smooth gradient, a sun disc
        l = 50.0f + 400.0f * (0.55f - v);
        const float du = u - 0.7f, dv = v - 0.2f;
        if (du * du + dv * dv < 0.002f) l = 20000.0f;
      } else {  // foreground: dark, textured, with bright windows
        l = 0.05f + 0.5f * (1.0f + std::sin(40.0f * u) * std::sin(30.0f * v)) + 0.05f * n(rng);
        if (std::fmod(u * 24.0f, 1.0f) < 0.3f && std::fmod(v * 18.0f, 1.0f) < 0.4f && v > 0.7f) l = 300.0f;
      }
      float* p = img.row(y) + 3 * x;
      p[0] = l * 0.9f;
      p[1] = l;
      p[2] = l * 1.2f;
    }
  return img;
}

Image make_noise(int w, int h) {
  Image img(w, h, 3);
  std::mt19937 rng(42);
  std::uniform_real_distribution<float> e(-3.0f, 3.0f), c(0.3f, 1.0f);
  for (std::size_t i = 0; i < img.pixels.size(); i += 3) {
    const float l = std::pow(10.0f, e(rng));
    img.pixels[i] = l * c(rng);
    img.pixels[i + 1] = l * c(rng);
    img.pixels[i + 2] = l * c(rng);
  }
  return img;
}

const Image& frame(const std::string& kind, int w, int h) {
  static std::map<std::string, std::unique_ptr<Image>> cache;
  const std::string key = kind + std::to_string(w) + "x" + std::to_string(h);
  auto& slot = cache[key];
  if (!slot) slot = std::make_unique<Image>(kind == "scene" ? make_scene(w, h) : make_noise(w, h));
  return *slot;
}

// Process CPU time (all threads) in ms: on a shared machine, cpu_ms / threads estimates the wall
// time the frame would take on idle cores.
double process_cpu_ms() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return (u.ru_utime.tv_sec + u.ru_stime.tv_sec) * 1e3 + (u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e-3;
}

void BM_Local(benchmark::State& state, std::string op, std::string kind,
              std::vector<std::pair<std::string, std::string>> settings) {
  const int w = static_cast<int>(state.range(0)), h = static_cast<int>(state.range(1));
  const Image& in = frame(kind, w, h);
  auto params = prepare_params(op, settings);
  if (!params.ok()) {
    state.SkipWithError(params.status().message().c_str());
    return;
  }
  OutputImage out;
  out.allocate(w, h, 3, PixelType::u8);
  MapTimings t;
  const double cpu0 = process_cpu_ms();
  for (auto _ : state) {
    Status s = cpu::tone_map(in.view(), params.value(), out.view(), nullptr, &t);
    if (!s.ok()) state.SkipWithError(s.message().c_str());
    benchmark::DoNotOptimize(out.bytes.data());
  }
  state.counters["cpu_ms_per_frame"] = (process_cpu_ms() - cpu0) / static_cast<double>(state.iterations());
  state.counters["stats_ms"] = t.stats_ms;
  state.counters["local_ms"] = t.map_ms;
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * w * h * 12);
}

void BM_SatBuild(benchmark::State& state) {
  const int w = static_cast<int>(state.range(0)), h = static_cast<int>(state.range(1));
  std::vector<float> plane(static_cast<std::size_t>(w) * h);
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> u(0.0f, 10.0f);
  for (float& v : plane) v = u(rng);
  std::unique_ptr<double[]> table(new double[sat::table_entries(w, h)]);
  for (auto _ : state) {
    sat::build_sat_f64(plane.data(), w, h, w, table.get());
    benchmark::DoNotOptimize(table.get());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * w * h * 4);
}

void add(const std::string& name, void (*fn)(benchmark::State&, std::string, std::string,
                                              std::vector<std::pair<std::string, std::string>>),
         const std::string& op, const std::string& kind, std::vector<std::pair<std::string, std::string>> set) {
  benchmark::RegisterBenchmark(name.c_str(), fn, op, kind, set)
      ->Args({3840, 2160})
      ->Args({1920, 1080})
      ->Unit(benchmark::kMillisecond)
      ->UseRealTime()
      ->MinTime(1.0);
}

void register_all() {
  for (const char* kind : {"scene", "noise"})
    for (const char* op : {"reinhard-sat", "reinhard-local", "drago-local", "local-laplacian", "exposure-fusion"})
      add(std::string("cpu/") + op + "/" + kind + "/rgb32f->rgb8", BM_Local, op, kind, {});
  for (int scales = 1; scales <= 8; ++scales)
    add("cpu/reinhard-sat/scene/scales=" + std::to_string(scales), BM_Local, "reinhard-sat", "scene",
        {{"scales", std::to_string(scales)}});
  benchmark::RegisterBenchmark("cpu/sat-build-f64", BM_SatBuild)
      ->Args({3840, 2160})
      ->Args({7680, 4320})
      ->Unit(benchmark::kMillisecond)
      ->UseRealTime()
      ->MinTime(1.0);
}

}  // namespace

int main(int argc, char** argv) {
  register_all();
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
