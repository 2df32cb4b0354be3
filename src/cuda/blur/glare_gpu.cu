// GlareEngine (cuda/blur/glare_engine.hpp): apply_glare (src/blur/glare.cpp) on the device.
// One frame is a fixed sequence of launches on one stream, with no host synchronisation:
//   1. log_sum_kernel: per-block double partial sums of log(1e-6 + L) over the frame;
//   2. key_kernel (one block): the partials in a fixed order -> log-average and threshold, which
//      stay in device memory for the next launch (the host never sees them unless it asks);
//   3. bright_kernel: the bright pass into an RGBA (or grey) float plane, alpha 0;
//   4. per octave k: BlurEngine k (the octave's BlurPlan from plan_glare), then
//      accumulate_kernel: image += weight_k * blurred, octave by octave as the CPU adds them, so
//      both round the same sums in the same order.
// The per-pixel maths (pixel_luminance, glare_log_term, glare_bright_factor, glare_accumulate)
// is blur/blur_math.hpp's, shared with the CPU. Deterministic: the reduction's grid is fixed
// at create() and each block and the finish sum in a fixed tree order.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "blur/blur_math.hpp"
#include "cuda/check.hpp"
#include "cuda/device_allocations.hpp"
#include "tonekit/blur_cuda.hpp"
#include "cuda/blur/glare_engine.hpp"

namespace tonekit {
namespace {

constexpr int kThreads = 256;            // every glare kernel; the tree reductions assume it
constexpr int kMaxReduceBlocks = 1024;   // partials of the log-sum (8 KB); 4K: ~32 pixels a thread

// Sum of a block's `v` in a fixed order (shared-memory tree): the same bits every run.
__device__ double block_sum(double v, double* shared) {
  shared[threadIdx.x] = v;
  __syncthreads();
  for (int s = kThreads / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) shared[threadIdx.x] += shared[threadIdx.x + s];
    __syncthreads();
  }
  return shared[0];
}

__global__ void __launch_bounds__(kThreads)
    log_sum_kernel(const float* __restrict__ image, std::size_t n, int channels, double* __restrict__ partials) {
  __shared__ double shared[kThreads];
  double sum = 0.0;
  const std::size_t step = static_cast<std::size_t>(gridDim.x) * kThreads;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * kThreads + threadIdx.x; i < n; i += step)
    sum += blur_math::glare_log_term(blur_math::pixel_luminance(image + i * channels, channels));
  sum = block_sum(sum, shared);
  if (threadIdx.x == 0) partials[blockIdx.x] = sum;
}

// One block: log-average = exp(sum / n), threshold = float(threshold_factor * log-average).
__global__ void __launch_bounds__(kThreads)
    key_kernel(const double* __restrict__ partials, int count, std::size_t n, double threshold_factor,
               double* __restrict__ log_average, float* __restrict__ threshold) {
  __shared__ double shared[kThreads];
  double sum = 0.0;
  for (int i = threadIdx.x; i < count; i += kThreads) sum += partials[i];
  sum = block_sum(sum, shared);
  if (threadIdx.x == 0) {
    const double la = exp(sum / static_cast<double>(n));
    *log_average = la;
    *threshold = static_cast<float>(threshold_factor * la);
  }
}

// bright (bright_channels 4: RGB + alpha 0; 1: grey) from the frame's pixels.
__global__ void __launch_bounds__(kThreads)
    bright_kernel(const float* __restrict__ image, std::size_t n, int channels, const float* __restrict__ threshold,
                  float* __restrict__ bright, int bright_channels) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (i >= n) return;
  const float* px = image + i * channels;
  const float k = blur_math::glare_bright_factor(blur_math::pixel_luminance(px, channels), __ldg(threshold));
  if (bright_channels == 4) {
    reinterpret_cast<float4*>(bright)[i] =
        make_float4(blur_math::glare_bright_sample(k, px[0]), blur_math::glare_bright_sample(k, px[1]),
                    blur_math::glare_bright_sample(k, px[2]), 0.0f);
  } else {
    bright[i] = blur_math::glare_bright_sample(k, px[0]);
  }
}

// image's colour channels += weight * blurred (alpha and any further channels untouched).
__global__ void __launch_bounds__(kThreads)
    accumulate_kernel(float* __restrict__ image, std::size_t n, int channels, const float* __restrict__ blurred,
                      int blurred_channels, float weight) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (i >= n) return;
  const int colour = blur_math::glare_colour_channels(channels);
  float* px = image + i * channels;
  const float* b = blurred + i * blurred_channels;
  for (int ch = 0; ch < colour; ++ch) px[ch] = blur_math::glare_accumulate(px[ch], weight, b[ch]);
}

unsigned blocks_for(std::size_t n) { return static_cast<unsigned>((n + kThreads - 1) / kThreads); }

// create()'s frame: at least one pixel (apply_glare lets an empty image through as a no-op;
// cuda_apply_glare does too, before it gets here), at most kMaxImagePixels.
Status check_frame(int width, int height, int channels) {
  if (width <= 0 || height <= 0 || static_cast<std::int64_t>(width) * height > kMaxImagePixels)
    return invalid_argument("glare: image size " + std::to_string(width) + "x" + std::to_string(height) +
                            " out of range");
  if (channels <= 0) return invalid_argument("glare: image has no pixels or an inconsistent size");
  return {};
}

}  // namespace

struct GlareEngine::Impl {
  GlareEngineConfig cfg;
  std::size_t n = 0;
  int bright_channels = 0;  // 4 (RGBA, alpha 0) for colour frames, 1 for grey
  std::vector<GlareOctave> octaves;
  // The octaves run one after another: their blur engines share one workspace for their padded
  // planes and pyramid levels (declared first, so it outlives them).
  BlurWorkspace workspace;
  std::vector<std::unique_ptr<BlurEngine>> blurs;  // one per octave
  cuda::DeviceAllocations memory;
  float* bright = nullptr;
  float* blurred = nullptr;
  double* partials = nullptr;
  double* log_average = nullptr;
  float* threshold = nullptr;
  int reduce_blocks = 0;

  Status create() {
    if (octaves.empty()) return {};
    n = static_cast<std::size_t>(cfg.width) * cfg.height;
    bright_channels = blur_math::glare_colour_channels(cfg.channels) == 3 ? 4 : 1;
    for (const GlareOctave& o : octaves) {
      BlurEngineConfig bc;
      bc.width = cfg.width;
      bc.height = cfg.height;
      bc.channels = bright_channels;
      bc.plan = o.blur;
      bc.device = cfg.device;
      bc.workspace = &workspace;
      auto engine = BlurEngine::create(bc);
      if (!engine.ok()) return engine.status();
      blurs.push_back(std::move(*engine));
    }
    reduce_blocks = static_cast<int>(std::min<std::size_t>(blocks_for(n), kMaxReduceBlocks));
    if (Status s = memory.alloc(&bright, n * bright_channels); !s.ok()) return s;
    if (Status s = memory.alloc(&blurred, n * bright_channels); !s.ok()) return s;
    if (Status s = memory.alloc(&partials, static_cast<std::size_t>(reduce_blocks)); !s.ok()) return s;
    if (Status s = memory.alloc(&log_average, 1); !s.ok()) return s;
    if (Status s = memory.alloc(&threshold, 1); !s.ok()) return s;
    TK_CUDA_CHECK(cudaMemset(log_average, 0, sizeof(double)));  // read_key before the first run: 0
    TK_CUDA_CHECK(cudaMemset(threshold, 0, sizeof(float)));
    return {};
  }

  Status run(float* image, cudaStream_t s) {
    if (octaves.empty()) return {};
    const int c = cfg.channels;
    log_sum_kernel<<<reduce_blocks, kThreads, 0, s>>>(image, n, c, partials);
    TK_CUDA_CHECK_LAUNCH("log_sum_kernel");
    key_kernel<<<1, kThreads, 0, s>>>(partials, reduce_blocks, n, cfg.params.threshold, log_average, threshold);
    TK_CUDA_CHECK_LAUNCH("key_kernel");
    bright_kernel<<<blocks_for(n), kThreads, 0, s>>>(image, n, c, threshold, bright, bright_channels);
    TK_CUDA_CHECK_LAUNCH("bright_kernel");
    for (std::size_t k = 0; k < octaves.size(); ++k) {
      if (Status st = blurs[k]->run(bright, blurred, s); !st.ok()) return st;
      accumulate_kernel<<<blocks_for(n), kThreads, 0, s>>>(image, n, c, blurred, bright_channels, octaves[k].weight);
      TK_CUDA_CHECK_LAUNCH("accumulate_kernel");
    }
    return {};
  }

  std::size_t total_bytes() const {
    std::size_t b = memory.bytes() + workspace.bytes();
    for (const auto& e : blurs) b += e->scratch_bytes();
    return b;
  }
};

GlareEngine::GlareEngine(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
GlareEngine::~GlareEngine() = default;

Result<std::unique_ptr<GlareEngine>> GlareEngine::create(const GlareEngineConfig& config) {
  Result<std::vector<GlareOctave>> octaves = plan_glare(config.params, config.width, config.height);
  if (!octaves.ok()) return octaves.status();
  if (Status s = check_frame(config.width, config.height, config.channels); !s.ok()) return s;
  if (Status s = cuda::select_device(config.device, "glare"); !s.ok()) return s;
  auto impl = std::make_unique<Impl>();
  impl->cfg = config;
  impl->octaves = std::move(*octaves);
  if (Status s = impl->create(); !s.ok()) return s;
  return std::unique_ptr<GlareEngine>(new GlareEngine(std::move(impl)));
}

Status GlareEngine::run(float* device_image, CUstream_st* stream) {
  if (!impl_->octaves.empty() && !device_image) return invalid_argument("glare: null device image");
  return impl_->run(device_image, stream);
}

bool GlareEngine::active() const { return !impl_->octaves.empty(); }

Status GlareEngine::read_key(GlareKey& key, CUstream_st* stream) const {
  if (!active()) return invalid_argument("glare: the effect is off (strength 0 or radius too small): no key");
  TK_CUDA_CHECK(cudaMemcpyAsync(&key.log_average, impl_->log_average, sizeof(double), cudaMemcpyDeviceToHost, stream));
  TK_CUDA_CHECK(cudaMemcpyAsync(&key.threshold, impl_->threshold, sizeof(float), cudaMemcpyDeviceToHost, stream));
  TK_CUDA_CHECK(cudaStreamSynchronize(stream));
  return {};
}

const GlareEngineConfig& GlareEngine::config() const { return impl_->cfg; }
std::size_t GlareEngine::scratch_bytes() const { return impl_->total_bytes(); }

Status cuda_apply_glare(Image& image, const GlareParams& params) {
  // apply_glare's checks (plan_glare), so that every error reads the same; the effect off
  // (strength 0, tiny radius) is a no-op that needs no device, as on the CPU.
  Result<std::vector<GlareOctave>> octaves = plan_glare(params, image);
  if (!octaves.ok()) return octaves.status();
  if (octaves->empty()) return {};
  GlareEngineConfig cfg;
  cfg.width = image.width;
  cfg.height = image.height;
  cfg.channels = image.channels;
  cfg.params = params;
  auto engine = GlareEngine::create(cfg);
  if (!engine.ok()) return engine.status();
  const std::size_t bytes = image.pixels.size() * sizeof(float);
  cuda::DeviceBuffer<float> frame;
  TK_CUDA_CHECK(cudaMalloc(&frame.p, bytes));
  TK_CUDA_CHECK(cudaMemcpy(frame.p, image.pixels.data(), bytes, cudaMemcpyHostToDevice));
  if (Status s = (*engine)->run(frame.p, nullptr); !s.ok()) return s;
  TK_CUDA_CHECK(cudaMemcpy(image.pixels.data(), frame.p, bytes, cudaMemcpyDeviceToHost));
  return {};
}

}  // namespace tonekit
