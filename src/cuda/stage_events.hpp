// Four CUDA events at the stage boundaries of one frame (before stage 1, between 1-2, 2-3,
// after 3), owned once per device object and read back on request: the per-stage timings of
// the GlobalPass and LocalPass of the ToneMapper.
#pragma once
#include <cuda_runtime.h>

#include "cuda/check.hpp"

namespace tonekit::cuda {

class StageEvents {
 public:
  StageEvents() = default;
  StageEvents(const StageEvents&) = delete;
  StageEvents& operator=(const StageEvents&) = delete;
  ~StageEvents() {
    for (cudaEvent_t e : ev_)
      if (e) cudaEventDestroy(e);
  }

  Status create() {
    for (cudaEvent_t& e : ev_) TK_CUDA_CHECK(cudaEventCreate(&e));
    return {};
  }
  Status record(int boundary, cudaStream_t stream) {
    TK_CUDA_CHECK(cudaEventRecord(ev_[boundary], stream));
    return {};
  }
  // Waits for the last boundary; ms[0..2] the three stages, ms[3] the whole frame.
  Status elapsed(float (&ms)[4]) const {
    TK_CUDA_CHECK(cudaEventSynchronize(ev_[3]));
    TK_CUDA_CHECK(cudaEventElapsedTime(&ms[0], ev_[0], ev_[1]));
    TK_CUDA_CHECK(cudaEventElapsedTime(&ms[1], ev_[1], ev_[2]));
    TK_CUDA_CHECK(cudaEventElapsedTime(&ms[2], ev_[2], ev_[3]));
    TK_CUDA_CHECK(cudaEventElapsedTime(&ms[3], ev_[0], ev_[3]));
    return {};
  }

 private:
  cudaEvent_t ev_[4] = {nullptr, nullptr, nullptr, nullptr};
};

}  // namespace tonekit::cuda
