// Programmatic dependent launch (sm_90): a kernel launched with the
// cudaLaunchAttributeProgrammaticStreamSerialization attribute may start while the previous
// kernel on its stream is still running, once every block of that kernel has called
// trigger_dependents() (or exited). It must call wait_for_previous_grid() before it reads
// anything the previous kernel writes; the wait returns when that grid has completed and its
// memory is visible. Launched without the attribute, both are no-ops in effect.
#pragma once
#include <cuda_runtime.h>

#include "cuda/check.hpp"

namespace tonekit::cuda {

__device__ __forceinline__ void trigger_dependents() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;");
#endif
}

__device__ __forceinline__ void wait_for_previous_grid() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

// kernel<<<grid, block, smem, stream>>>(args...), as a programmatic dependent launch when
// `programmatic` is set.
template <class... Params, class... Args>
Status launch_pdl(void (*kernel)(Params...), dim3 grid, dim3 block, std::size_t smem, cudaStream_t stream,
                  bool programmatic, Args&&... args) {
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = grid;
  cfg.blockDim = block;
  cfg.dynamicSmemBytes = smem;
  cfg.stream = stream;
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr[0].val.programmaticStreamSerializationAllowed = 1;
  cfg.attrs = attr;
  cfg.numAttrs = programmatic ? 1 : 0;
  TK_CUDA_CHECK(cudaLaunchKernelEx(&cfg, kernel, std::forward<Args>(args)...));
  return {};
}

}  // namespace tonekit::cuda
