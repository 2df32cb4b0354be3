// Shared by the GPU test files: skip with the printed reason when no CUDA device is present (the
// no-GPU CI passes the GPU tests by skipping), and check CUDA calls inside tests.
#pragma once
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <string>

namespace tonekit::gpu_test {

inline bool gpu_present(std::string& why) {
  int n = 0;
  const cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess || n == 0) {
    why = e != cudaSuccess ? std::string("no CUDA device: ") + cudaGetErrorString(e) : "no CUDA device present";
    cudaGetLastError();
    return false;
  }
  return true;
}

}  // namespace tonekit::gpu_test

#define REQUIRE_GPU()                                               \
  do {                                                              \
    std::string why_;                                               \
    if (!::tonekit::gpu_test::gpu_present(why_)) GTEST_SKIP() << why_; \
  } while (0)

#define CUDA_OK(expr) ASSERT_EQ((expr), cudaSuccess) << #expr << ": " << cudaGetErrorString(cudaGetLastError())
