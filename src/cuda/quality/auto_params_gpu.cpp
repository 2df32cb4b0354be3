// GpuAutoParams (include/tonekit/auto_params_cuda.hpp): auto_params' search (quality/auto_search.hpp,
// the CPU's own code) with a scorer that maps each candidate on the device and scores it there.
// Per candidate: ToneMapper::set_params (no allocation: the operator stays) and process() from
// the proxy uploaded once into the 8-bit render buffer; the render's download (w x h x 3 bytes,
// 249 KB for the 384 x 216 proxy of a 4K image); GpuQuality::score_against_reference on the
// device render (the HDR side set once per search), the only synchronisation besides the
// download's.
//
// The colour penalty (mean CIEDE2000) stays on the CPU, on the downloaded render. Measured on the
// build machine (2 cores, 384 x 216 proxy): quality::colour_fidelity 3.3 ms, against 2.8 ms for
// the CPU's TMQI and 7.1 ms for its FSITM (HDR side precomputed). Expected on a 16-core GPU host:
// about a millisecond (its p95 sort is serial), the order of the GPU's TMQI + FSITM on so small
// a frame (launch bound; the 4K LDR side is 5.6 ms, bench/QUALITY_NOTES.md). It runs on a worker thread while
// the GPU scores, so only what outlasts the GPU's scoring is waited for: the `auto` line and
// AutoResult::colour_wait_seconds report both numbers (bench/QUALITY_NOTES.md, to be measured).
// A device CIEDE2000 would need the L*a*b* and CIEDE2000 maths (quality/ciede2000*.cpp,
// colour_batch.cpp) in __host__ __device__ form, a second text of it: not worth it while the
// CPU's cost is hidden; if the measurement says otherwise, that refactor comes first.
#include <cuda_runtime.h>

#include <chrono>
#include <future>
#include <system_error>

#include "cuda/check.hpp"
#include "quality/auto_search.hpp"
#include "tonekit/auto_params_cuda.hpp"
#include "tonekit/quality.hpp"
#include "tonekit/quality_cuda.hpp"
#include "tonekit/tone_mapper.hpp"

namespace tonekit {
namespace {

using detail::AutoClock;

double seconds_since(AutoClock::time_point t) { return std::chrono::duration<double>(AutoClock::now() - t).count(); }

}  // namespace

struct GpuAutoParams::Impl {
  int device = 0;
  cudaStream_t stream = nullptr;
  std::unique_ptr<quality::GpuQuality> quality;
  std::unique_ptr<ToneMapper> mapper;
  // The proxy (float RGB, or RGBA when the image is its own proxy) and its 8-bit RGB render,
  // sized for the last search's proxy.
  float* proxy = nullptr;
  unsigned char* render = nullptr;
  int width = 0, height = 0, channels = 0;
  // The colour penalty's CPU time and the part of it waited for, over one search.
  double colour_seconds = 0.0, colour_wait_seconds = 0.0;

  // Freed on its own device (map --devices: the selector that owns it is destroyed on another
  // thread), the caller's current device restored.
  ~Impl() {
    int current = device;
    const bool switched = cudaGetDevice(&current) == cudaSuccess && current != device &&
                          cudaSetDevice(device) == cudaSuccess;
    mapper.reset();
    quality.reset();
    cudaFree(proxy);
    cudaFree(render);
    if (stream) cudaStreamDestroy(stream);
    if (switched) cudaSetDevice(current);
  }

  // Buffers and mapper for the proxy's size (kept when it has not changed), the proxy uploaded,
  // the mapper on `start`'s operator, the HDR side of TMQI and FSITM computed.
  Status prepare(const Image& hdr, const Params& start) {
    TK_CUDA_CHECK(cudaSetDevice(device));
    if (!mapper || hdr.width != width || hdr.height != height || hdr.channels != channels) {
      mapper.reset();
      width = height = channels = 0;
      TK_CUDA_CHECK(cudaFree(proxy));
      TK_CUDA_CHECK(cudaFree(render));
      proxy = nullptr;
      render = nullptr;
      TK_CUDA_CHECK(cudaMalloc(&proxy, hdr.pixels.size() * sizeof(float)));
      TK_CUDA_CHECK(cudaMalloc(&render, static_cast<std::size_t>(hdr.width) * hdr.height * 3));
      ToneMapperConfig config;
      config.width = hdr.width;
      config.height = hdr.height;
      config.input = hdr.channels == 4 ? InputFormat::rgba_f32 : InputFormat::rgb_f32;
      config.output = OutputFormat{PixelType::u8, 3};  // what the CPU search maps to (auto_params.cpp)
      config.device = device;
      config.params = start;
      auto created = ToneMapper::create(config);
      if (!created.ok()) return created.status();
      mapper = std::move(*created);
      width = hdr.width;
      height = hdr.height;
      channels = hdr.channels;
    } else if (Status s = mapper->set_params(start); !s.ok()) {
      return s;
    }
    TK_CUDA_CHECK(cudaMemcpyAsync(proxy, hdr.pixels.data(), hdr.pixels.size() * sizeof(float), cudaMemcpyHostToDevice,
                                  stream));
    const ImageView view{proxy, width, height, channels, PixelType::f32, 0, MemorySpace::device};
    return quality->set_reference(view, stream, quality::GpuMetrics::both);
  }

  // One candidate: mapped, downloaded into `shown` (the proxy's size, 8-bit RGB), scored.
  Result<AutoScores> score(const Image& hdr, const Params& params, OutputImage& shown) {
    if (Status s = mapper->set_params(params); !s.ok()) return s;
    if (Status s = mapper->process(proxy, 0, render, 0, stream); !s.ok()) return s;
    TK_CUDA_CHECK(cudaMemcpyAsync(shown.bytes.data(), render, shown.bytes.size(), cudaMemcpyDeviceToHost, stream));
    TK_CUDA_CHECK(cudaStreamSynchronize(stream));
    double colour_time = 0.0;
    auto colour_of = [&] {
      const AutoClock::time_point t = AutoClock::now();
      auto c = quality::colour_fidelity(hdr, shown);
      colour_time = seconds_since(t);
      return c;
    };
    std::future<Result<quality::ColourFidelity>> colour;
    try {
      colour = std::async(std::launch::async, colour_of);
    } catch (const std::system_error&) {
      // No thread to be had: the penalty is computed after the GPU's scores instead.
    }
    const ImageView device_shown{render, width, height, 3, PixelType::u8, 0, MemorySpace::device};
    auto scores = quality->score_against_reference(device_shown, stream, quality::GpuMetrics::both);
    const AutoClock::time_point wait = AutoClock::now();
    Result<quality::ColourFidelity> c = colour.valid() ? colour.get() : colour_of();
    colour_wait_seconds += seconds_since(wait);
    colour_seconds += colour_time;
    if (!scores.ok()) return scores.status();
    if (!c.ok()) return c.status();
    AutoScores s;
    s.tmqi = scores->tmqi.q;
    s.fsitm = scores->fsitm.mean;
    s.delta_e2000 = c->delta_e2000_mean;
    return s;
  }
};

GpuAutoParams::GpuAutoParams(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
GpuAutoParams::~GpuAutoParams() = default;

Result<std::unique_ptr<GpuAutoParams>> GpuAutoParams::create(int device) {
  if (Status s = cuda::select_device(device, "GpuAutoParams"); !s.ok()) return s;
  auto impl = std::make_unique<Impl>();
  TK_CUDA_CHECK(cudaGetDevice(&impl->device));
  TK_CUDA_CHECK(cudaStreamCreateWithFlags(&impl->stream, cudaStreamNonBlocking));
  auto quality = quality::GpuQuality::create(impl->device);
  if (!quality.ok()) return quality.status();
  impl->quality = std::move(*quality);
  return std::unique_ptr<GpuAutoParams>(new GpuAutoParams(std::move(impl)));
}

Result<AutoResult> GpuAutoParams::search(const Image& hdr, const Params& start, const AutoBudget& budget) {
  const AutoClock::time_point begin = AutoClock::now();
  if (Status s = detail::check_auto_inputs(hdr, budget); !s.ok()) return s;
  const Image proxy = detail::auto_proxy(hdr, budget.proxy_long_side);
  Impl& gpu = *impl_;
  if (Status s = gpu.prepare(proxy, start); !s.ok()) return s;
  OutputImage shown;
  shown.allocate(proxy.width, proxy.height, 3, PixelType::u8);
  gpu.colour_seconds = gpu.colour_wait_seconds = 0.0;
  auto result = detail::coordinate_search(start, budget, begin,
                                          [&](const Params& params) { return gpu.score(proxy, params, shown); });
  if (!result.ok()) return result.status();
  result->proxy_width = proxy.width;
  result->proxy_height = proxy.height;
  result->backend = Backend::cuda;
  result->colour_seconds = gpu.colour_seconds;
  result->colour_wait_seconds = gpu.colour_wait_seconds;
  return result;
}

}  // namespace tonekit
