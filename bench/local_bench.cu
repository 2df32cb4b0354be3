// Benchmark of the CUDA local operators and summed-area tables (issue 4 part 5), own CUDA-event
// harness: warm-up, then the median of N timed frames, the input rotating among K buffers that
// together exceed the 50 MB L2 (so no frame reads its input from cache). GB/s counts the fewest
// bytes a frame must move: the input read once and the output written once (local operators),
// or the float plane read once and 8 bytes per table entry written once (tables: the size of a
// float64 table or of the hi/lo float32 pair tables). Output: one CSV line per measurement,
// "kind,name,width,height,ms,GBps", then nothing else; --quick runs one small size.
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "core/local_settings.hpp"
#include "cuda/local/local_launch.hpp"
#include "cuda/local/sat_gpu.hpp"
#include "cuda/tuning.hpp"
#include "tonekit/blur_cuda.hpp"
#include "tonekit/tone_mapper.hpp"
#include "bench_check.hpp"

using namespace tonekit;
using cuda::DodgeVariant;
using cuda::SatPrecision;


namespace {

int g_iters = 30, g_warm = 5;

template <class F>
double median_ms(F&& frame, int rotate) {
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  for (int i = 0; i < g_warm; ++i) frame(i % rotate);
  CK(cudaDeviceSynchronize());
  std::vector<float> t;
  for (int i = 0; i < g_iters; ++i) {
    CK(cudaEventRecord(a));
    frame(i % rotate);
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, a, b));
    t.push_back(ms);
  }
  CK(cudaGetLastError());
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

// Half RGBA frames: a smooth landscape over 12 stops with noise (never zeros).
std::vector<std::uint16_t> make_half_frame(int w, int h, unsigned seed) {
  std::vector<float> f(static_cast<std::size_t>(w) * h * 4);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  std::vector<std::uint16_t> out(f.size());
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const float stops = 4.0f * std::sin(0.004f * x) * std::cos(0.006f * y) + (((x / 41 + y / 23) % 7) == 0 ? 5.0f : 0.0f);
      const float l = std::exp2(stops + 0.5f * u(rng));
      for (int c = 0; c < 4; ++c) {
        const __half hv = __float2half(c == 3 ? 1.0f : l * (0.7f + 0.6f * u(rng)));
        std::memcpy(&out[(static_cast<std::size_t>(y) * w + x) * 4 + c], &hv, 2);
      }
    }
  return out;
}

// Float planes of uniform noise in [lo, hi), as many copies as keep the rotation above L2 (at
// least 2); the caller frees them.
std::vector<float*> random_planes(int w, int h, unsigned seed, float lo, float hi) {
  const std::size_t n = static_cast<std::size_t>(w) * h;
  std::vector<float*> planes(std::max<int>(2, static_cast<int>((120u << 20) / (n * 4)) + 1));
  std::vector<float> host(n);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(lo, hi);
  for (float& v : host) v = u(rng);
  for (float*& p : planes) {
    CK(cudaMalloc(&p, n * 4));
    CK(cudaMemcpy(p, host.data(), n * 4, cudaMemcpyHostToDevice));
  }
  return planes;
}

const char* g_only = nullptr;  // --only

// Half RGBA input frames, enough of them to rotate through more than L2 (every one the same
// pixels), and one RGBA8 output, on the device.
struct OpFrames {
  std::size_t in_bytes = 0, out_bytes = 0;
  int rotate = 0;
  std::vector<void*> ins;
  void* out = nullptr;
  OpFrames(int w, int h)
      : in_bytes(static_cast<std::size_t>(w) * h * 8), out_bytes(static_cast<std::size_t>(w) * h * 4),
        rotate(std::max<int>(2, static_cast<int>((120u << 20) / in_bytes) + 1)), ins(rotate) {
    const std::vector<std::uint16_t> host = make_half_frame(w, h, 1);
    for (int i = 0; i < rotate; ++i) {
      CK(cudaMalloc(&ins[i], in_bytes));
      CK(cudaMemcpy(ins[i], host.data(), in_bytes, cudaMemcpyHostToDevice));
    }
    CK(cudaMalloc(&out, out_bytes));
  }
  ~OpFrames() {
    for (void* p : ins) cudaFree(p);
    cudaFree(out);
  }
};

void bench_ops(int w, int h) {
  OpFrames frames(w, h);
  const std::size_t in_bytes = frames.in_bytes, out_bytes = frames.out_bytes;
  const int rotate = frames.rotate;
  const std::vector<void*>& ins = frames.ins;
  void* out = frames.out;
  struct Case {
    const char* name;
    const char* op;
    int sat;
    DodgeVariant variant;
    SatPrecision prec;
    const char* set_scales;
    int tile_width = 64;
    int tile_height = 32;
    const char* param = "scales";  // the parameter set_scales sets
  };
  const Case cases[] = {
      {"reinhard-sat tile-local 64x64", "reinhard-sat", 0, DodgeVariant::readonly_cache, SatPrecision::tile_local_f64, nullptr, 64, 64},
      // The `scales` parameter's speed for detail (thesis 7.5): fewer levels in the search.
      {"reinhard-sat tile-local 64x64 scales=6", "reinhard-sat", 0, DodgeVariant::readonly_cache, SatPrecision::tile_local_f64, "6", 64, 64},
      {"reinhard-sat tile-local 64x64 scales=4", "reinhard-sat", 0, DodgeVariant::readonly_cache, SatPrecision::tile_local_f64, "4", 64, 64},
      {"reinhard-sat tile-local 64x32", "reinhard-sat", 0, DodgeVariant::readonly_cache, SatPrecision::tile_local_f64, nullptr, 64},
      {"reinhard-sat tile-local 32x32", "reinhard-sat", 0, DodgeVariant::readonly_cache, SatPrecision::tile_local_f64, nullptr, 32},
      {"reinhard-sat tiled-f32", "reinhard-sat", 0, DodgeVariant::global_loads, SatPrecision::tiled_f32_pairs, nullptr},
      {"reinhard-sat f64-lookback global", "reinhard-sat", 4, DodgeVariant::global_loads, SatPrecision::global_f64, nullptr},
      {"reinhard-sat f64-lookback readonly", "reinhard-sat", 4, DodgeVariant::readonly_cache, SatPrecision::global_f64, nullptr},
      {"reinhard-sat f64-lookback shared", "reinhard-sat", 4, DodgeVariant::shared_tiles, SatPrecision::global_f64, nullptr},
      {"reinhard-sat f64-scan-transpose-scan", "reinhard-sat", 3, DodgeVariant::readonly_cache, SatPrecision::global_f64, nullptr},
      {"reinhard-local", "reinhard-local", 0, DodgeVariant::readonly_cache, SatPrecision::tiled_f32_pairs, nullptr},
      {"drago-local", "drago-local", 0, DodgeVariant::readonly_cache, SatPrecision::tiled_f32_pairs, nullptr},
      // Issue 36: the local Laplacian filter at its default K = 10, and at K = 6 and 16.
      {"local-laplacian", "local-laplacian", 0, DodgeVariant::readonly_cache, SatPrecision::tiled_f32_pairs, nullptr},
      {"local-laplacian levels=6", "local-laplacian", 0, DodgeVariant::readonly_cache, SatPrecision::tiled_f32_pairs, "6", 64, 32, "levels"},
      {"local-laplacian levels=16", "local-laplacian", 0, DodgeVariant::readonly_cache, SatPrecision::tiled_f32_pairs, "16", 64, 32, "levels"},
      // Issue 36: exposure fusion at its default N = 5, and at N = 3.
      {"exposure-fusion", "exposure-fusion", 0, DodgeVariant::readonly_cache, SatPrecision::tiled_f32_pairs, nullptr},
      {"exposure-fusion exposures=3", "exposure-fusion", 0, DodgeVariant::readonly_cache, SatPrecision::tiled_f32_pairs, "3", 64, 32, "exposures"},
  };
  for (const Case& c : cases) {
    if (g_only && !std::strstr(c.name, g_only)) continue;
    std::vector<std::pair<std::string, std::string>> set;
    if (std::string(c.op) == "reinhard-sat") set.push_back({"sat", std::to_string(c.sat)});
    if (c.set_scales) set.push_back({c.param, c.set_scales});
    auto params = prepare_params(c.op, set);
    if (!params.ok()) { std::fprintf(stderr, "%s\n", params.status().message().c_str()); std::exit(1); }
    ToneMapperConfig cfg;
    cfg.width = w;
    cfg.height = h;
    cfg.input = InputFormat::rgba_f16;
    cfg.output = {PixelType::u8, 4};
    cfg.params = params.value();
    cuda::Tuning tuning;
    tuning.variant = c.variant;
    tuning.sat_auto = c.prec;
    tuning.tile_width = c.tile_width;
    tuning.tile_height = c.tile_height;
    auto m = cuda::create_tone_mapper(cfg, tuning);
    if (!m.ok()) { std::fprintf(stderr, "%s\n", m.status().message().c_str()); std::exit(1); }
    ToneMapper& mapper = *m.value();
    const double ms = median_ms([&](int i) { if (!mapper.process(ins[i], 0, out, 0, nullptr).ok()) std::exit(2); }, rotate);
    std::printf("op,%s,%d,%d,%.4f,%.1f\n", c.name, w, h, ms, (in_bytes + out_bytes) / (ms * 1e6));
    if (c.sat == 0 && c.prec == SatPrecision::tile_local_f64 && !c.set_scales && c.tile_height == 64) {
      // Temporal adaptation on (issue 14: the step in the statistics pass's last block) and
      // glare (strength 0.1, the CLI's default radius) in the same pipeline.
      ToneMapperConfig tc = cfg;
      tc.temporal = true;
      auto t = cuda::create_tone_mapper(tc, tuning);
      if (!t.ok()) std::exit(2);
      const double tms = median_ms([&](int i) { if (!t.value()->process(ins[i], 0, out, 0, nullptr, 1.0 / 60).ok()) std::exit(2); }, rotate);
      std::printf("op,%s temporal,%d,%d,%.4f,%.1f\n", c.name, w, h, tms, (in_bytes + out_bytes) / (tms * 1e6));
      tc.glare.strength = 0.1;
      auto g = cuda::create_tone_mapper(tc, tuning);
      if (!g.ok()) { std::fprintf(stderr, "%s\n", g.status().message().c_str()); std::exit(2); }
      const double gms = median_ms([&](int i) { if (!g.value()->process(ins[i], 0, out, 0, nullptr, 1.0 / 60).ok()) std::exit(2); }, rotate);
      std::printf("op,%s temporal+glare,%d,%d,%.4f,%.1f\n", c.name, w, h, gms, (in_bytes + out_bytes) / (gms * 1e6));
    }
    // Stage split of one frame.
    mapper.enable_timings(true);
    if (!mapper.process(ins[0], 0, out, 0, nullptr).ok()) std::exit(2);
    StageTimings st;
    if (mapper.read_timings(st).ok())
      std::printf("stages,%s,%d,%d,stats+lum %.4f,local %.4f,map %.4f\n", c.name, w, h, st.stats_ms, st.local_ms, st.map_ms);
  }
}

// The video path of issue 14: 4K P010 PQ BT.2020 -> NV12 and -> RGBA8, temporal adaptation on,
// global and local operators (decode stage -> passes -> encode stage: cuda/video_stages.cu).
// The bytes floor is the P010 read (3 bytes a pixel) plus the output write (1.5 or 4).
void bench_video(int w, int h) {
  const std::size_t luma = std::size_t(w) * h * 2, chroma = std::size_t((w + 1) / 2) * ((h + 1) / 2) * 4;
  const int rotate = std::max<int>(2, static_cast<int>((120u << 20) / (luma + chroma)) + 1);
  std::vector<std::uint16_t> host((luma + chroma) / 2);
  for (std::size_t i = 0; i < host.size(); ++i)
    host[i] = static_cast<std::uint16_t>((64 + (i * 2654435761u >> 7) % 877) << 6);  // 10-bit codes, high bits
  std::vector<void*> frames(rotate);
  for (void*& f : frames) {
    CK(cudaMalloc(&f, luma + chroma));
    CK(cudaMemcpy(f, host.data(), luma + chroma, cudaMemcpyHostToDevice));
  }
  void* out = nullptr;
  CK(cudaMalloc(&out, std::size_t(w) * h * 4));
  for (const char* op : {"reinhard", "reinhard-sat"})
    for (const OutputLayout layout : {OutputLayout::nv12, OutputLayout::interleaved}) {
      ToneMapperConfig cfg;
      cfg.width = w;
      cfg.height = h;
      cfg.input = InputFormat::p010;
      cfg.colour.transfer = Transfer::pq;
      cfg.colour.primaries = Primaries::bt2020;
      cfg.output = {PixelType::u8, 4};
      cfg.output_layout = layout;
      cfg.params = prepare_params(op).value();
      cfg.temporal = true;
      auto m = ToneMapper::create(cfg);
      if (!m.ok()) { std::fprintf(stderr, "%s\n", m.status().message().c_str()); std::exit(1); }
      ToneMapper& mapper = *m.value();
      auto run = [&](int i) {
        const Status st = mapper.process(packed_planes(InputFormat::p010, frames[i], w, h), out, 0, nullptr, 1.0 / 60);
        if (!st.ok()) { std::fprintf(stderr, "video: %s\n", st.message().c_str()); std::exit(2); }
      };
      const double ms = median_ms(run, rotate);
      const double out_bytes = layout == OutputLayout::nv12 ? 1.5 * w * h : 4.0 * w * h;
      const double floor_bytes = double(luma + chroma) + out_bytes;
      mapper.enable_timings(true);
      run(0);
      StageTimings st;
      if (Status e = mapper.read_timings(st); !e.ok()) { std::fprintf(stderr, "video: %s\n", e.message().c_str()); std::exit(2); }
      std::printf("video,%s p010 pq bt2020 -> %s temporal,%d,%d,%.4f,%.1f GB/s floor-bytes,decode %.4f,stats %.4f,map %.4f,encode %.4f\n",
                  op, output_layout_name(layout), w, h, ms, floor_bytes / (ms * 1e6), st.decode_ms, st.stats_ms,
                  st.local_ms + st.map_ms, st.encode_ms);
    }
  for (void* f : frames) cudaFree(f);
  cudaFree(out);
}

// Which Gaussian wins at each of reinhard-local's scales (issue 4 item 3): one float plane,
// sigma_i = alpha_1 1.6^i / sqrt 2, the reference's 4-sigma window: separable (BlurEngine,
// truncate 4), FFT (cuFFT, BlurEngine) and Young & van Vliet's recursive filter (sigma >= 0.5).
void bench_gauss_study(int w, int h) {
  const std::size_t n = static_cast<std::size_t>(w) * h;
  const std::vector<float*> planes = random_planes(w, h, 5, 0.0f, 1.0f);
  const int rotate = static_cast<int>(planes.size());
  float *out = nullptr, *tmp = nullptr, *tmp2 = nullptr;
  CK(cudaMalloc(&out, n * 4));
  CK(cudaMalloc(&tmp, n * 4));
  CK(cudaMalloc(&tmp2, n * 4));
  for (int i = 0; i < core::kMaxLocalScales; ++i) {
    const double sigma = core::kReinhardAlpha1 * core::gaussian_scale(i) * 0.70710678118654752;
    double ms[3] = {-1, -1, -1};
    const char* methods[2] = {"separable", "fft"};
    for (int k = 0; k < 2; ++k) {
      auto plan = plan_blur(methods[k], sigma, {{"truncate", "4"}});
      if (!plan.ok()) continue;
      BlurEngineConfig cfg;
      cfg.width = w;
      cfg.height = h;
      cfg.channels = 1;
      cfg.plan = *plan;
      auto engine = BlurEngine::create(cfg);
      if (!engine.ok()) continue;
      ms[k] = median_ms([&](int r) { if (!(*engine)->run(planes[r], out, nullptr).ok()) std::exit(2); }, rotate);
    }
    if (sigma >= 0.5)
      ms[2] = median_ms([&](int r) { if (!cuda_local::launch_recursive_gauss(planes[r], w, h, sigma, tmp, tmp2, out, nullptr).ok()) std::exit(2); }, rotate);
    std::printf("gauss,level %d sigma %.3f radius %d,%d,%d,separable %.4f,fft %.4f,recursive %.4f\n", i, sigma,
                core::gaussian_radius(i), w, h, ms[0], ms[1], ms[2]);
  }
  for (float* p : planes) cudaFree(p);
  cudaFree(out);
  cudaFree(tmp);
  cudaFree(tmp2);
}

void bench_sat(int w, int h) {
  const std::size_t n = static_cast<std::size_t>(w) * h;
  const std::vector<float*> planes = random_planes(w, h, 3, 0.01f, 100.0f);
  const int rotate = static_cast<int>(planes.size());
  double* table = nullptr;
  CK(cudaMalloc(&table, sat::table_entries(w, h) * sizeof(double)));
  cuda_local::SatWork work;
  if (!cuda_local::sat_work_create(w, h, work).ok()) std::exit(1);
  const double bytes = static_cast<double>(n) * 4 + static_cast<double>(sat::table_entries(w, h)) * 8;
  struct A {
    const char* name;
    sat::SatAlgorithm algo;
    int radix;
  };
  const A algos[] = {{"recursive-doubling-k2", sat::SatAlgorithm::recursive_doubling, 2},
                     {"recursive-doubling-k4", sat::SatAlgorithm::recursive_doubling, 4},
                     {"blelloch", sat::SatAlgorithm::blelloch, 2},
                     {"scan-transpose-scan", sat::SatAlgorithm::scan_transpose_scan, 2},
                     {"decoupled-lookback", sat::SatAlgorithm::decoupled_lookback, 2}};
  for (const A& a : algos) {
    work.radix = a.radix;
    const double ms = median_ms([&](int i) { if (!cuda_local::build_sat_device(a.algo, planes[i], w, h, w, table, work, nullptr).ok()) std::exit(2); }, rotate);
    std::printf("sat,%s,%d,%d,%.4f,%.1f\n", a.name, w, h, ms, bytes / (ms * 1e6));
  }
  float *hi = nullptr, *lo = nullptr;
  const std::size_t tn = sat::tiled_entries(w, h);
  CK(cudaMalloc(&hi, tn * 4));
  CK(cudaMalloc(&lo, tn * 4));
  const double ms = median_ms([&](int i) { if (!cuda_local::build_sat_tiled_device(planes[i], w, h, w, hi, lo, nullptr).ok()) std::exit(2); }, rotate);
  std::printf("sat,tiled-f32-pairs,%d,%d,%.4f,%.1f\n", w, h, ms, (static_cast<double>(n) * 4 + tn * 8.0) / (ms * 1e6));
  // Copy bandwidth at the same size: read the plane's bytes + write the table's bytes.
  void *src = nullptr, *dst = nullptr;
  const std::size_t cb = static_cast<std::size_t>(bytes / 2);
  CK(cudaMalloc(&src, cb));
  CK(cudaMalloc(&dst, cb));
  CK(cudaMemset(src, 1, cb));
  const double cms = median_ms([&](int) { CK(cudaMemcpyAsync(dst, src, cb, cudaMemcpyDeviceToDevice)); }, 1);
  std::printf("copy,d2d,%d,%d,%.4f,%.1f\n", w, h, cms, 2.0 * cb / (cms * 1e6));
  cudaFree(src);
  cudaFree(dst);
  cudaFree(hi);
  cudaFree(lo);
  cuda_local::sat_work_destroy(work);
  cudaFree(table);
  for (float* p : planes) cudaFree(p);
}

}  // namespace

// The post-process of the night-drive renderer alone (issue 18: <= 0.5 ms at 4K on an H100):
// reinhard-sat (tile-local 64 x 64) + temporal adaptation + glare 0.1, half RGBA in, RGBA8 out;
// the median frame, then one frame's stage split (glare, statistics, local, map). --glare runs
// only this, so that ncu can take the glare's kernels of a few frames.
void bench_glare(int w, int h) {
  OpFrames frames(w, h);
  const int rotate = frames.rotate;
  const std::vector<void*>& ins = frames.ins;
  void* out = frames.out;
  ToneMapperConfig cfg;
  cfg.width = w;
  cfg.height = h;
  cfg.input = InputFormat::rgba_f16;
  cfg.output = {PixelType::u8, 4};
  cfg.params = prepare_params("reinhard-sat").value();
  cuda::Tuning tuning;
  tuning.sat_auto = SatPrecision::tile_local_f64;
  tuning.tile_width = 64;
  tuning.tile_height = 64;
  cfg.temporal = true;
  for (double strength : {0.0, 0.1}) {
    cfg.glare.strength = strength;
    auto m = cuda::create_tone_mapper(cfg, tuning);
    if (!m.ok()) { std::fprintf(stderr, "%s\n", m.status().message().c_str()); std::exit(2); }
    const double ms = median_ms([&](int i) { if (!m.value()->process(ins[i], 0, out, 0, nullptr, 1.0 / 60).ok()) std::exit(2); }, rotate);
    m.value()->enable_timings(true);
    StageTimings st;
    if (!m.value()->process(ins[0], 0, out, 0, nullptr, 1.0 / 60).ok() || !m.value()->read_timings(st).ok()) std::exit(2);
    std::printf("glare,%dx%d,strength %.1f,%.4f ms,stages glare %.4f stats %.4f local %.4f map %.4f total %.4f\n", w, h, strength,
                ms, st.glare_ms, st.stats_ms, st.local_ms, st.map_ms, st.total_ms);
  }
}

int main(int argc, char** argv) {
  bool quick = false, profile = false, gauss = false, ops = false;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--ops")) ops = true;  // the operators at the three sizes only
    if (!std::strcmp(argv[i], "--only") && i + 1 < argc) g_only = argv[++i];  // operator rows whose name has this
    if (!std::strcmp(argv[i], "--quick")) quick = true;
    if (!std::strcmp(argv[i], "--gauss")) gauss = true;  // the Gaussian study at 4K only
    if (!std::strcmp(argv[i], "--profile")) profile = true;  // the operators at 4K only, for ncu
    if (!std::strcmp(argv[i], "--iters") && i + 1 < argc) g_iters = std::atoi(argv[++i]);
  }
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    std::printf("no CUDA device: nothing measured\n");
    return 0;
  }
  cudaDeviceProp p;
  CK(cudaGetDeviceProperties(&p, 0));
  std::printf("# device %s, %d SMs, L2 %d MB; median of %d after %d warm-up\n", p.name, p.multiProcessorCount, p.l2CacheSize >> 20,
              g_iters, g_warm);
  if (gauss) {
    bench_gauss_study(3840, 2160);
    return 0;
  }
  bool video = false;
  for (int i = 1; i < argc; ++i)
    if (!std::strcmp(argv[i], "--video")) video = true;  // the video path at 4K only
  if (video) {
    bench_video(3840, 2160);
    return 0;
  }
  for (int i = 1; i < argc; ++i)
    if (!std::strcmp(argv[i], "--glare")) {  // the renderer's post-process at 4K (and 8K) only
      bench_glare(3840, 2160);
      bench_glare(7680, 4320);
      return 0;
    }
  if (profile) {
    g_iters = 3;
    bench_ops(3840, 2160);
    return 0;
  }
  if (quick) {
    bench_ops(640, 360);
    bench_sat(640, 360);
    bench_gauss_study(640, 360);
    return 0;
  }
  for (auto [w, h] : {std::pair{1920, 1080}, std::pair{3840, 2160}, std::pair{7680, 4320}}) bench_ops(w, h);
  if (ops) return 0;
  bench_gauss_study(3840, 2160);
  for (auto [w, h] : {std::pair{1024, 1024}, std::pair{1920, 1080}, std::pair{2048, 2048}, std::pair{3840, 2160},
                      std::pair{4096, 4096}, std::pair{7680, 4320}})
    bench_sat(w, h);
  return 0;
}
