// CPU backend benchmark (issue 2, section 8): in-process tone mapping of a 3840x2160 float RGB
// frame to RGB8, per operator. Google Benchmark; reports ms per frame and the input rate.
// Run: build/bin/bench_cpu_tonemap --benchmark_filter=reinhard
#include <benchmark/benchmark.h>

#include <cmath>
#include <random>

#include "tonekit/tonemap.hpp"

using namespace tonekit;

namespace {

Image make_frame(int w, int h) {
  // A log-uniform luminance field over 6 decades with colour; deterministic.
  Image img(w, h, 3);
  std::mt19937 rng(42);
  std::uniform_real_distribution<float> e(-3.0f, 3.0f), c(0.3f, 1.0f);
  for (std::size_t i = 0; i < img.pixels.size(); i += 3) {
    float l = std::pow(10.0f, e(rng));
    img.pixels[i] = l * c(rng);
    img.pixels[i + 1] = l * c(rng);
    img.pixels[i + 2] = l * c(rng);
  }
  return img;
}

void BM_CpuToneMap(benchmark::State& state, const char* op, PixelType out_type) {
  const int w = static_cast<int>(state.range(0)), h = static_cast<int>(state.range(1));
  static Image frame;
  if (frame.width != w || frame.height != h) frame = make_frame(w, h);
  auto params = prepare_params(op).value();
  OutputImage out;
  out.allocate(w, h, 3, out_type);
  for (auto _ : state) {
    Status s = cpu::tone_map(frame.view(), params, out.view());
    if (!s.ok()) state.SkipWithError(s.message().c_str());
    benchmark::DoNotOptimize(out.bytes.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * w * h * 12);
}

void register_all() {
  for (const OperatorDesc* op : all_operators()) {
    benchmark::RegisterBenchmark((std::string("cpu/") + op->id + "/rgb32f->rgb8").c_str(), BM_CpuToneMap, op->id, PixelType::u8)
        ->Args({3840, 2160})
        ->Args({1920, 1080})
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime()
        ->MinTime(1.0);
  }
}

}  // namespace

int main(int argc, char** argv) {
  register_all();
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
