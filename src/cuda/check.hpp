// Every CUDA call and launch checked with file and line (CUB's debug macro pattern; docs/conventions.md).
// Errors become Status values: out-of-memory and "no device" get their own codes.
#pragma once
#include <cuda_runtime.h>

#include <string>

#include "tonekit/status.hpp"

namespace tonekit::cuda {

inline Status cuda_error_status(cudaError_t e, const char* what, const char* file, int line) {
  std::string msg = std::string(what) + " failed: " + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ") at " +
                    file + ":" + std::to_string(line);
  switch (e) {
    case cudaErrorMemoryAllocation: return {StatusCode::out_of_memory, "CUDA out of memory: " + msg};
    case cudaErrorNoDevice:
    case cudaErrorInsufficientDriver:
    case cudaErrorInvalidDevice: return {StatusCode::no_device, "no usable CUDA device: " + msg};
    default: return {StatusCode::runtime_error, msg};
  }
}

}  // namespace tonekit::cuda

// Returns a Status from the enclosing function when `expr` fails.
#define TK_CUDA_CHECK(expr)                                                              \
  do {                                                                                   \
    cudaError_t tk_err_ = (expr);                                                        \
    if (tk_err_ != cudaSuccess)                                                          \
      return ::tonekit::cuda::cuda_error_status(tk_err_, #expr, __FILE__, __LINE__);     \
  } while (0)

// After a launch: configuration errors show up in cudaGetLastError.
#define TK_CUDA_CHECK_LAUNCH(name) TK_CUDA_CHECK((static_cast<void>(name), cudaGetLastError()))

namespace tonekit::cuda {

// An engine's create(): no_device ("WHO: no CUDA device") without a usable GPU, then makes
// `device` current (-1: keep the current one).
inline Status select_device(int device, const char* who) {
  int count = 0;
  if (cudaError_t e = cudaGetDeviceCount(&count); e != cudaSuccess || count == 0) {
    cudaGetLastError();
    return {StatusCode::no_device, std::string(who) + ": no CUDA device"};
  }
  if (device >= 0) TK_CUDA_CHECK(cudaSetDevice(device));
  return {};
}

}  // namespace tonekit::cuda
