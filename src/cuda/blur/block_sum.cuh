// A block's sum in a fixed order (shared-memory tree over Threads values): the same bits every
// run, whatever the scheduling. The glare's key and night vision's adapting luminance use it.
#pragma once
#include <cuda_runtime.h>

namespace tonekit::gpu_blur {

// Every thread of a block of exactly Threads (a power of two) calls it; shared holds Threads doubles.
template <int Threads>
__device__ double block_sum(double v, double* shared) {
  shared[threadIdx.x] = v;
  __syncthreads();
  for (int s = Threads / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) shared[threadIdx.x] += shared[threadIdx.x + s];
    __syncthreads();
  }
  return shared[0];
}

}  // namespace tonekit::gpu_blur
