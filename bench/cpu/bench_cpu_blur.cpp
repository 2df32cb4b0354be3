// CPU speed study of the blur methods (issue: blur library, item 3; the seed's section 4.4 on the
// CPU): every registered method with its automatic parameters at sigma 3, 6, 12, 24, 48 on a
// 512x512 float RGBA frame (all four channels blurred), plus a single-channel plane. Direct
// convolution and reshuffling are O(sigma^2) per pixel: run up to sigma 12 only (24 would take
// ~10 s per frame). Items per second = pixels per second.
// Run: build/bin/bench_cpu_blur --benchmark_min_time=0.3
#include <benchmark/benchmark.h>

#include <random>
#include <string>

#include "tonekit/blur.hpp"

using namespace tonekit;

namespace {

Image make_frame(int w, int h, int c) {
  Image img(w, h, c);
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> u(0.0f, 4.0f);
  for (float& v : img.pixels) v = u(rng);
  return img;
}

void bm_blur(benchmark::State& state, std::string method, int channels) {
  const double sigma = static_cast<double>(state.range(0));
  const int size = static_cast<int>(state.range(1));
  const Image img = make_frame(size, size, channels);
  Result<BlurPlan> plan = plan_blur(method, sigma);
  if (!plan.ok()) {
    state.SkipWithError(plan.status().message().c_str());
    return;
  }
  for (auto _ : state) {
    Result<Image> out = blur(img, *plan);
    benchmark::DoNotOptimize(out->pixels.data());
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(size) * size);
  state.SetLabel(plan->describe());
}

const int kRegistered = [] {
  for (const BlurMethodDesc* m : all_blur_methods()) {
    const std::string id = m->id;
    const bool quadratic = id == "direct" || id == "reshuffle";
    for (int channels : {4, 1}) {
      auto* b = benchmark::RegisterBenchmark((id + (channels == 4 ? "/rgba" : "/grey")).c_str(), bm_blur, id, channels);
      b->ArgNames({"sigma", "size"})->Unit(benchmark::kMillisecond)->UseRealTime();
      for (int sigma : {3, 6, 12, 24, 48})
        if (!quadratic || sigma <= 12) b->Args({sigma, 512});
    }
  }
  return 0;
}();

}  // namespace

BENCHMARK_MAIN();
