// GpuAutoParams (include/tonekit/auto_params_cuda.hpp): auto_params' search (quality/auto_search.hpp,
// the CPU's own code) with a scorer that maps each candidate on the device and scores it there.
// Per candidate: ToneMapper::set_params (no allocation: the operator stays) and process() from
// the proxy uploaded once into the 8-bit render buffer; GpuQuality::score_against_reference on
// the device render with all three metrics (the HDR side set once per search), whose copy of the
// results back is the candidate's only synchronisation: nothing else crosses the bus.
// The colour penalty (mean CIEDE2000) ran on the CPU on a downloaded render, on a worker thread
// while the GPU scored TMQI and FSITM; on an H200 it was then what the search waited for (212 of
// drago's 260 ms at 4K, docs/performance.md), so it runs on the device now, from the CPU's own
// per-pixel text (src/cpu/quality/colour_maths.hpp, src/cuda/quality/colour_gpu.cu).
#include <cuda_runtime.h>

#include "cuda/check.hpp"
#include "cpu/quality/auto_search.hpp"
#include "tonekit/auto_params_cuda.hpp"
#include "tonekit/quality.hpp"
#include "tonekit/quality_cuda.hpp"
#include "tonekit/tone_mapper.hpp"

namespace tonekit {

using detail::AutoClock;

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
  // the mapper on `start`'s operator, the HDR side of the three metrics computed.
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
    return quality->set_reference(view, stream, quality::GpuMetrics::all);
  }

  // One candidate: mapped and scored on the device.
  Result<AutoScores> score(const Params& params) {
    if (Status s = mapper->set_params(params); !s.ok()) return s;
    if (Status s = mapper->process(proxy, 0, render, 0, stream); !s.ok()) return s;
    const ImageView device_shown{render, width, height, 3, PixelType::u8, 0, MemorySpace::device};
    auto scores = quality->score_against_reference(device_shown, stream, quality::GpuMetrics::all);
    if (!scores.ok()) return scores.status();
    AutoScores s;
    s.tmqi = scores->tmqi.q;
    s.fsitm = scores->fsitm.mean;
    s.delta_e2000 = scores->colour.delta_e2000_mean;
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
  auto result =
      detail::coordinate_search(start, budget, begin, [&](const Params& params) { return gpu.score(params); });
  if (!result.ok()) return result.status();
  result->proxy_width = proxy.width;
  result->proxy_height = proxy.height;
  result->backend = Backend::cuda;
  return result;
}

}  // namespace tonekit
