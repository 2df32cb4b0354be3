// The CUDA blur: every method of the blur registry (include/tonekit/blur.hpp) on the
// device, on float RGBA (4 channels, interleaved) or single-channel planes, borders clamped.
// Device API in the style of ToneMapper: BlurEngine::create() resolves nothing itself (it takes
// a BlurPlan from plan_blur, the one validator, so both backends run identical parameters),
// allocates all scratch and uploads the weights once; run() blurs one frame on a stream with no
// allocation and no host synchronisation. For host images: blur(image, plan, Backend::cuda)
// (tonekit/blur.hpp). Available when the build has CUDA (TONEKIT_HAS_CUDA); create()
// reports no_device when no GPU is present. The fft method loads cuFFT (libcufft.so) at run
// time; without it, create() for fft reports unsupported and every other method still works.
#pragma once
#include <cstddef>
#include <memory>

#include "tonekit/blur.hpp"
#include "tonekit/image.hpp"
#include "tonekit/status.hpp"

struct CUstream_st;  // cudaStream_t without cuda_runtime.h

namespace tonekit {

// Device scratch shared by BlurEngines that never run at the same time (one after another on
// one stream, e.g. a glare pass's octaves): each engine's transient planes (padded copy, pass
// buffers, pyramid levels) live in one block sized to the largest engine, instead of one set per
// engine. Engines attach at create() (the block grows then, never per frame) and detach when
// destroyed; the workspace must outlive them.
class BlurWorkspace {
 public:
  BlurWorkspace();
  ~BlurWorkspace();
  BlurWorkspace(const BlurWorkspace&) = delete;
  BlurWorkspace& operator=(const BlurWorkspace&) = delete;
  std::size_t bytes() const;  // device memory held
  struct Impl;

 private:
  friend class BlurEngine;
  std::unique_ptr<Impl> impl_;
};

struct BlurEngineConfig {
  int width = 0;
  int height = 0;
  int channels = 4;  // 1 (grey plane) or 4 (RGBA, interleaved; alpha is blurred too)
  BlurPlan plan;     // from plan_blur(method, sigma, settings)
  int device = -1;   // -1: the current device
  BlurWorkspace* workspace = nullptr;  // optional: transient planes shared with other engines
};

namespace cuda {
struct BlurEngineAccess;  // internal: the benchmarks' and GPU tests' tuning (src/cuda/tuning.hpp)
}

class BlurEngine {
 public:
  static Result<std::unique_ptr<BlurEngine>> create(const BlurEngineConfig& config);
  ~BlurEngine();
  BlurEngine(const BlurEngine&) = delete;
  BlurEngine& operator=(const BlurEngine&) = delete;

  // device_in, device_out: width x height pixels of `channels` floats, tightly packed, distinct;
  // 16-byte aligned for 4 channels (cudaMalloc's are), else invalid_argument.
  // Asynchronous on `stream` (nullptr = the legacy default stream).
  Status run(const float* device_in, float* device_out, CUstream_st* stream = nullptr);

  const BlurEngineConfig& config() const;
  std::size_t scratch_bytes() const;  // device memory held besides the caller's buffers (and the workspace)
  // Device bytes one run moves at the least (input read once, output written once).
  std::size_t floor_bytes() const;

 private:
  friend struct cuda::BlurEngineAccess;
  struct Impl;
  explicit BlurEngine(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace tonekit
