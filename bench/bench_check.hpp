// The benchmarks' CUDA check: a failed call prints what failed and where, and ends the run
// (a benchmark has nothing sensible to go on with).
#pragma once
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

#define CK(expr)                                                                                          \
  do {                                                                                                    \
    cudaError_t e_ = (expr);                                                                              \
    if (e_ != cudaSuccess) {                                                                              \
      std::fprintf(stderr, "%s failed: %s (%s:%d)\n", #expr, cudaGetErrorString(e_), __FILE__, __LINE__); \
      std::exit(1);                                                                                       \
    }                                                                                                     \
  } while (0)
