// Automatic parameters on the GPU: auto_params' search
// (tonekit/auto_params.hpp: the same checks, proxy, candidates, objective and budget; one text,
// src/cpu/quality/auto_search.hpp) with each candidate mapped on the device by a ToneMapper and
// scored there by quality::GpuQuality against the proxy's HDR side, computed once per search.
// The proxy is uploaded once; per candidate nothing but the scores comes back: TMQI, FSITM and
// the colour penalty (mean CIEDE2000, from the CPU's per-pixel text) all run on the device.
//
// Agreement with the CPU search: the device map agrees with the CPU's within 1 LSB (>= 99.99 % of
// samples equal) and the scores within tests/gpu/test_gpu_quality.cpp's tolerances, so both
// usually pick the same values; tests/gpu/test_gpu_auto_params.cpp states the tolerance where a
// near-tie lets them differ.
//
// GpuAutoParams owns its device buffers, ToneMapper and GpuQuality, sized for the last proxy
// (reallocated only when the proxy's size changes), so a program scoring many images keeps one.
// Not thread-safe: one object per thread. Builds without CUDA: create() reports no_device.
#pragma once
#include <memory>

#include "tonekit/auto_params.hpp"
#include "tonekit/image.hpp"
#include "tonekit/operators.hpp"
#include "tonekit/status.hpp"

namespace tonekit {

class GpuAutoParams {
 public:
  // no_device without a usable GPU; `device` -1 keeps the current one (each search makes it
  // current again on the calling thread).
  static Result<std::unique_ptr<GpuAutoParams>> create(int device = -1);
  ~GpuAutoParams();
  GpuAutoParams(const GpuAutoParams&) = delete;
  GpuAutoParams& operator=(const GpuAutoParams&) = delete;

  // auto_params(hdr, start, budget) with the candidates on the GPU; the result's backend is cuda.
  // Errors: auto_params' input errors (invalid_argument, the same messages), unsupported without
  // cuFFT (FSITM), CUDA's errors as Status values.
  Result<AutoResult> search(const Image& hdr, const Params& start, const AutoBudget& budget = {});

  struct Impl;

 private:
  explicit GpuAutoParams(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace tonekit
