// NightEngine (cuda/blur/night_engine.hpp): apply_night (src/cpu/blur/night.cpp) on the device.
// One frame is a fixed sequence of launches on one stream, with no host synchronisation:
//   1. row_sum_kernel, one block per pair of rows: each row's double sum of log(1e-6 + L) of the
//      sanitised colour in a fixed tree (skipped for a fixed adaptation), and, when blurring, the
//      half-resolution plane of sanitised 2x2 means the blur reads (a NaN must not spread);
//   2. state_kernel (one block): the rows in a fixed order -> adapting luminance -> rod fraction
//      (core::night_rod_fraction), left in device memory;
//   3. the acuity blur: a BlurEngine (the blur library's method, "separable" by default, sigma / 2)
//      of the half-resolution plane;
//   4. night_map_kernel: per pixel the blurred plane read bilinearly and core::night_pixel, or,
//      where the rod fraction is 0, the input unchanged (nothing written in place).
// Compiled with -fmad=false (src/cuda/CMakeLists.txt) so the per-pixel maths rounds as the CPU's;
// the remaining differences are CUDA's log2f/log10/exp against glibc's and the blur's summation
// order (tests/gpu/test_gpu_night.cpp states the tolerance).
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "api/cuda_entry.hpp"
#include "core/night.hpp"
#include "cuda/blur/block_sum.cuh"
#include "cpu/blur/night_plan.hpp"
#include "cuda/blur/night_engine.hpp"
#include "cuda/check.hpp"
#include "cuda/device_allocations.hpp"
#include "tonekit/blur_cuda.hpp"

namespace tonekit {
namespace {

constexpr int kThreads = 256;  // row_sum_kernel and state_kernel; the tree assumes it

struct NightState {
  double adapting;
  double rod;
};

// How a source's pixels are read: packed-aligned float RGBA (one 16-byte load), float RGB(A) of
// any alignment, or half RGBA.
enum SourceKind { kRgbaVector = 0, kFloatScalar = 1, kHalfRgba = 2 };

struct Src {
  const unsigned char* p;
  std::size_t stride;
  int channels;
};

template <int Kind>
__device__ __forceinline__ float4 load_source(const Src& s, int x, int y) {
  const unsigned char* row = s.p + static_cast<std::size_t>(y) * s.stride;
  if constexpr (Kind == kRgbaVector) {
    return reinterpret_cast<const float4*>(row)[x];
  } else if constexpr (Kind == kHalfRgba) {
    const uint2 q = reinterpret_cast<const uint2*>(row)[x];
    return make_float4(__half2float(__ushort_as_half(static_cast<unsigned short>(q.x & 0xFFFFu))),
                       __half2float(__ushort_as_half(static_cast<unsigned short>(q.x >> 16))),
                       __half2float(__ushort_as_half(static_cast<unsigned short>(q.y & 0xFFFFu))),
                       __half2float(__ushort_as_half(static_cast<unsigned short>(q.y >> 16))));
  } else {
    const float* px = reinterpret_cast<const float*>(row) + static_cast<std::size_t>(x) * s.channels;
    return make_float4(px[0], px[1], px[2], s.channels == 4 ? px[3] : 1.0f);
  }
}

// One block per pair of rows (2b, 2b + 1; the last alone when the height is odd): each row's
// double sum of log(1e-6 + L) of the sanitised colour in a fixed tree, and, when blurring, row b
// of the half-resolution plane (core::night_box of the sanitised 2x2 blocks, edges replicated).
template <int Kind, bool Sum, bool Half>
__global__ void __launch_bounds__(kThreads)
    row_sum_kernel(Src src, int width, int height, double* __restrict__ row_sums, float* __restrict__ half) {
  __shared__ double shared[kThreads];
  const int ya = 2 * static_cast<int>(blockIdx.x), yb = min(ya + 1, height - 1);
  const bool second = ya + 1 < height;
  const int hw = core::night_half(width);
  double sum_a = 0.0, sum_b = 0.0;
  for (int i = threadIdx.x; i < hw; i += kThreads) {
    const int xa = 2 * i, xb = min(xa + 1, width - 1);
    const float4 q[4] = {load_source<Kind>(src, xa, ya), load_source<Kind>(src, xb, ya), load_source<Kind>(src, xa, yb),
                         load_source<Kind>(src, xb, yb)};
    float c[4][3];
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      c[k][0] = core::night_clean(q[k].x);
      c[k][1] = core::night_clean(q[k].y);
      c[k][2] = core::night_clean(q[k].z);
    }
    if constexpr (Sum) {
      const bool pair = xb != xa;
      sum_a += core::night_log_term(c[0][0], c[0][1], c[0][2]);
      if (pair) sum_a += core::night_log_term(c[1][0], c[1][1], c[1][2]);
      if (second) {
        sum_b += core::night_log_term(c[2][0], c[2][1], c[2][2]);
        if (pair) sum_b += core::night_log_term(c[3][0], c[3][1], c[3][2]);
      }
    }
    if constexpr (Half) {
      float m[3];
#pragma unroll
      for (int ch = 0; ch < 3; ++ch) m[ch] = core::night_box(c[0][ch], c[1][ch], c[2][ch], c[3][ch]);
      reinterpret_cast<float4*>(half)[static_cast<std::size_t>(blockIdx.x) * hw + i] = make_float4(m[0], m[1], m[2], 0.0f);
    }
  }
  if constexpr (Sum) {
    const double a = gpu_blur::block_sum<kThreads>(sum_a, shared);
    if (threadIdx.x == 0) row_sums[ya] = a;
    __syncthreads();  // shared is reused
    const double b = gpu_blur::block_sum<kThreads>(sum_b, shared);
    if (threadIdx.x == 0 && second) row_sums[ya + 1] = b;
  }
}

// rows == 0: a fixed adaptation (no sums).
__global__ void __launch_bounds__(kThreads)
    state_kernel(const double* __restrict__ row_sums, int rows, double pixels, double cd_per_unit,
                 double fixed_adaptation, core::NightConstants k, NightState* __restrict__ state) {
  __shared__ double shared[kThreads];
  double sum = 0.0;
  for (int i = threadIdx.x; i < rows; i += kThreads) sum += row_sums[i];
  const double total = gpu_blur::block_sum<kThreads>(sum, shared);
  if (threadIdx.x == 0) {
    const double adapting = rows > 0 ? cd_per_unit * ::exp(total / pixels) : fixed_adaptation;
    state->adapting = adapting;
    state->rod = core::night_rod_fraction(k, adapting);
  }
}

// out may be the source itself (a packed float RGBA frame in place): plain loads, each thread
// reads its pixel before writing it.
template <int Kind, bool Blur>
__global__ void night_map_kernel(Src src, float* out, int width, int height, const float* __restrict__ blurred,
                                 core::NightConstants k, const NightState* __restrict__ state, std::uint32_t frame) {
  // blurred: the half-resolution plane (core::night_half of width x height), float RGBA.
  const int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  const int y = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
  if (x >= width || y >= height) return;
  const double rod = state->rod;
  const std::size_t i = static_cast<std::size_t>(y) * width + x;
  const float4 q = load_source<Kind>(src, x, y);
  if (rod == 0.0) {  // the identity: bit for bit (in place: nothing to write)
    if (out != reinterpret_cast<const float*>(src.p)) reinterpret_cast<float4*>(out)[i] = q;
    return;
  }
  float rgb[3] = {core::night_clean(q.x), core::night_clean(q.y), core::night_clean(q.z)};
  float b[3] = {0.0f, 0.0f, 0.0f};
  if constexpr (Blur) {
    const int hw = core::night_half(width);
    const core::NightTap tx = core::night_tap(x, hw), ty = core::night_tap(y, core::night_half(height));
    const float4* plane = reinterpret_cast<const float4*>(blurred);
    const float4 a00 = __ldg(plane + static_cast<std::size_t>(ty.i0) * hw + tx.i0);
    const float4 a01 = __ldg(plane + static_cast<std::size_t>(ty.i0) * hw + tx.i1);
    const float4 a10 = __ldg(plane + static_cast<std::size_t>(ty.i1) * hw + tx.i0);
    const float4 a11 = __ldg(plane + static_cast<std::size_t>(ty.i1) * hw + tx.i1);
    b[0] = core::night_bilinear(a00.x, a01.x, a10.x, a11.x, tx.f, ty.f);
    b[1] = core::night_bilinear(a00.y, a01.y, a10.y, a11.y, tx.f, ty.f);
    b[2] = core::night_bilinear(a00.z, a01.z, a10.z, a11.z, tx.f, ty.f);
  }
  core::night_pixel(rgb, b, k, static_cast<float>(rod), x, y, frame);
  reinterpret_cast<float4*>(out)[i] = make_float4(rgb[0], rgb[1], rgb[2], q.w);
}

}  // namespace

struct NightEngine::Impl {
  NightEngineConfig cfg;
  blur_impl::NightPlan plan;
  cuda::DeviceAllocations memory;
  double* row_sums = nullptr;
  NightState* state = nullptr;
  float* clean = nullptr;
  float* blurred = nullptr;
  std::unique_ptr<BlurEngine> blur;

  std::size_t pixels() const { return static_cast<std::size_t>(cfg.width) * cfg.height; }
  std::size_t half_pixels() const {
    return static_cast<std::size_t>(core::night_half(cfg.width)) * core::night_half(cfg.height);
  }

  Status create() {
    if (!plan.active) return {};
    if (Status s = memory.alloc(&state, 1); !s.ok()) return s;
    if (plan.fixed_adaptation <= 0.0)
      if (Status s = memory.alloc(&row_sums, static_cast<std::size_t>(cfg.height)); !s.ok()) return s;
    if (plan.constants.blur) {
      if (Status s = memory.alloc(&clean, half_pixels() * 4); !s.ok()) return s;
      if (Status s = memory.alloc(&blurred, half_pixels() * 4); !s.ok()) return s;
      BlurEngineConfig b;
      b.width = core::night_half(cfg.width);
      b.height = core::night_half(cfg.height);
      b.channels = 4;
      b.plan = plan.blur;
      b.device = cfg.device;
      auto engine = BlurEngine::create(b);
      if (!engine.ok()) return engine.status();
      blur = std::move(*engine);
    }
    return {};
  }

  template <int Kind>
  Status run(const Src& in, float* out, cudaStream_t stream, std::uint32_t frame) {
    const bool sum = plan.fixed_adaptation <= 0.0, blur_on = plan.constants.blur != 0;
    const unsigned rows = static_cast<unsigned>(cfg.height), pairs = (rows + 1) / 2;
    const int w = cfg.width, h = cfg.height;
    if (sum && blur_on) row_sum_kernel<Kind, true, true><<<pairs, kThreads, 0, stream>>>(in, w, h, row_sums, clean);
    else if (sum) row_sum_kernel<Kind, true, false><<<pairs, kThreads, 0, stream>>>(in, w, h, row_sums, nullptr);
    else if (blur_on) row_sum_kernel<Kind, false, true><<<pairs, kThreads, 0, stream>>>(in, w, h, nullptr, clean);
    TK_CUDA_CHECK_LAUNCH("night row_sum_kernel");
    state_kernel<<<1, kThreads, 0, stream>>>(row_sums, sum ? cfg.height : 0, static_cast<double>(pixels()),
                                             plan.cd_per_unit, plan.fixed_adaptation,
                                             plan.constants, state);
    TK_CUDA_CHECK_LAUNCH("night state_kernel");
    if (blur_on)
      if (Status s = blur->run(clean, blurred, stream); !s.ok()) return s;
    const dim3 block(32, 8);
    const dim3 grid((static_cast<unsigned>(cfg.width) + 31) / 32, (rows + 7) / 8);
    if (blur_on)
      night_map_kernel<Kind, true><<<grid, block, 0, stream>>>(in, out, cfg.width, cfg.height, blurred, plan.constants, state, frame);
    else
      night_map_kernel<Kind, false><<<grid, block, 0, stream>>>(in, out, cfg.width, cfg.height, nullptr, plan.constants, state, frame);
    TK_CUDA_CHECK_LAUNCH("night night_map_kernel");
    return {};
  }
};

NightEngine::NightEngine(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
NightEngine::~NightEngine() = default;

Result<std::unique_ptr<NightEngine>> NightEngine::create(const NightEngineConfig& config) {
  auto plan = blur_impl::plan_night(config.params, config.width, config.height, 4);
  if (!plan.ok()) return plan.status();
  if (Status s = cuda::select_device(config.device, "night"); !s.ok()) return s;
  auto impl = std::make_unique<Impl>();
  impl->cfg = config;
  impl->plan = *plan;
  if (Status s = impl->create(); !s.ok()) return s;
  return std::unique_ptr<NightEngine>(new NightEngine(std::move(impl)));
}

Status NightEngine::run(const float* device_in, float* device_out, CUstream_st* stream, std::uint32_t frame) {
  if (!device_in || !device_out) return invalid_argument("night: null device image");
  if ((reinterpret_cast<std::uintptr_t>(device_in) | reinterpret_cast<std::uintptr_t>(device_out)) & 15u)
    return invalid_argument("night: device frames must be 16-byte aligned");
  if (!impl_->plan.active) {
    if (device_out != device_in)
      TK_CUDA_CHECK(cudaMemcpyAsync(device_out, device_in, impl_->pixels() * 4 * sizeof(float), cudaMemcpyDeviceToDevice,
                                    stream));
    return {};
  }
  const Src src{reinterpret_cast<const unsigned char*>(device_in), static_cast<std::size_t>(impl_->cfg.width) * 16, 4};
  return impl_->run<kRgbaVector>(src, device_out, stream, frame);
}

Status NightEngine::run(const NightSource& in, float* device_out, CUstream_st* stream, std::uint32_t frame) {
  if (!in.data || !device_out) return invalid_argument("night: null device image");
  if (in.half ? in.channels != 4 : (in.channels != 3 && in.channels != 4))
    return invalid_argument("night: a source is float RGB or RGBA, or half RGBA");
  const std::size_t row = static_cast<std::size_t>(impl_->cfg.width) * (in.half ? 8 : 4 * in.channels);
  const std::size_t stride = in.stride ? in.stride : row;
  if (stride < row) return invalid_argument("night: source stride " + std::to_string(stride) + " below the row's " + std::to_string(row) + " bytes");
  if (reinterpret_cast<std::uintptr_t>(device_out) & 15u) return invalid_argument("night: the output must be 16-byte aligned");
  if (in.data == device_out) return invalid_argument("night: a source must not be the output (run it in place on float RGBA)");
  if (in.half && ((reinterpret_cast<std::uintptr_t>(in.data) | stride) & 7u))
    return invalid_argument("night: half RGBA frames and their rows must be 8-byte aligned");
  if (!in.half && ((reinterpret_cast<std::uintptr_t>(in.data) | stride) & 3u))
    return invalid_argument("night: float frames and their rows must be 4-byte aligned");
  const Src src{static_cast<const unsigned char*>(in.data), stride, in.channels};
  const bool vector = !in.half && in.channels == 4 && ((reinterpret_cast<std::uintptr_t>(in.data) | stride) & 15u) == 0;
  if (!impl_->plan.active) return invalid_argument("night: the stage is off for these parameters (active() is false)");
  if (in.half) return impl_->run<kHalfRgba>(src, device_out, stream, frame);
  return vector ? impl_->run<kRgbaVector>(src, device_out, stream, frame) : impl_->run<kFloatScalar>(src, device_out, stream, frame);
}

bool NightEngine::active() const { return impl_->plan.active; }

Status NightEngine::read_report(NightReport& report, CUstream_st* stream) const {
  report = NightReport{};
  if (!active()) return {};
  NightState s{};
  TK_CUDA_CHECK(cudaMemcpyAsync(&s, impl_->state, sizeof s, cudaMemcpyDeviceToHost, stream));
  TK_CUDA_CHECK(cudaStreamSynchronize(stream));
  report = {s.adapting, s.rod, s.rod > 0.0 ? impl_->plan.sigma : 0.0};
  return {};
}

const NightEngineConfig& NightEngine::config() const { return impl_->cfg; }

std::size_t NightEngine::scratch_bytes() const {
  return impl_->memory.bytes() + (impl_->blur ? impl_->blur->scratch_bytes() : 0);
}

std::size_t NightEngine::floor_bytes() const {
  const std::size_t frame = impl_->pixels() * 4 * sizeof(float), half = impl_->half_pixels() * 4 * sizeof(float);
  return impl_->plan.constants.blur ? 3 * frame + 2 * half : 3 * frame;
}

namespace {

// The host entry's engine and frame buffer, kept while the device, size and parameters stay the
// same (as tone_map's cached mapper; leaked at exit on purpose: freeing device memory from a
// static destructor races the runtime's own teardown).
struct HostCache {
  std::mutex mutex;
  int device = -1;
  std::vector<std::pair<std::string, double>> values;
  std::string method;
  std::unique_ptr<NightEngine> engine;
  cuda::DeviceBuffer<float> frame;
  std::size_t frame_pixels = 0;
};

}  // namespace

Status cuda_entry::apply_night_host(Image& image, const NightParams& params, std::uint32_t frame, NightReport* report) {
  // apply_night's checks first, so that every error reads the same; the identity needs no device.
  if (report) *report = NightReport{};
  auto plan = blur_impl::plan_night(params, image.width, image.height, image.channels);
  if (!plan.ok()) return plan.status();
  if (image.pixels.size() != static_cast<std::size_t>(image.width) * image.height * image.channels)
    return invalid_argument("night: image has an inconsistent size");
  if (!plan->active) return {};
  static HostCache* cache = new HostCache;  // leaked on purpose (above)
  std::lock_guard lock(cache->mutex);
  int device = 0;
  TK_CUDA_CHECK(cudaGetDevice(&device));
  const NightEngineConfig* held = cache->engine ? &cache->engine->config() : nullptr;
  if (!held || cache->device != device || held->width != image.width || held->height != image.height ||
      cache->values != params.values() || cache->method != params.blur_method) {
    cache->engine.reset();
    NightEngineConfig cfg;
    cfg.width = image.width;
    cfg.height = image.height;
    cfg.params = params;
    auto engine = NightEngine::create(cfg);
    if (!engine.ok()) return engine.status();
    cache->engine = std::move(*engine);
    cache->device = device;
    cache->values = params.values();
    cache->method = params.blur_method;
  }
  const std::size_t n = static_cast<std::size_t>(image.width) * image.height;
  if (cache->frame_pixels != n || !cache->frame.p) {
    cudaFree(cache->frame.p);
    cache->frame.p = nullptr;
    cache->frame_pixels = 0;
    TK_CUDA_CHECK(cudaMalloc(&cache->frame.p, n * 4 * sizeof(float)));
    cache->frame_pixels = n;
  }
  const int c = image.channels;
  std::vector<float> rgba;
  const float* upload = image.pixels.data();
  if (c == 3) {  // RGB travels as RGBA (alpha 0, dropped again)
    rgba.assign(n * 4, 0.0f);
    for (std::size_t i = 0; i < n; ++i)
      for (int ch = 0; ch < 3; ++ch) rgba[i * 4 + ch] = image.pixels[i * 3 + ch];
    upload = rgba.data();
  }
  const std::size_t bytes = n * 4 * sizeof(float);
  TK_CUDA_CHECK(cudaMemcpy(cache->frame.p, upload, bytes, cudaMemcpyHostToDevice));
  if (Status s = cache->engine->run(cache->frame.p, cache->frame.p, nullptr, frame); !s.ok()) return s;
  if (c == 3) {
    TK_CUDA_CHECK(cudaMemcpy(rgba.data(), cache->frame.p, bytes, cudaMemcpyDeviceToHost));
    for (std::size_t i = 0; i < n; ++i)
      for (int ch = 0; ch < 3; ++ch) image.pixels[i * 3 + ch] = rgba[i * 4 + ch];
  } else {
    TK_CUDA_CHECK(cudaMemcpy(image.pixels.data(), cache->frame.p, bytes, cudaMemcpyDeviceToHost));
  }
  if (report) return cache->engine->read_report(*report, nullptr);
  return {};
}

}  // namespace tonekit
