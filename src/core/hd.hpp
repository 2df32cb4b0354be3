// __host__ __device__ for maths shared by the CPU reference and the CUDA kernels
// (write the maths once, schedule it per backend: docs/conventions.md).
#pragma once
#if defined(__CUDACC__)
#define TK_HD __host__ __device__ __forceinline__
#else
#define TK_HD inline
#endif

#include <math.h>

// Precision-preserving maths for templates over float and double: unqualified pow(float, float)
// would resolve to the double ::pow on the host (slower, and the GPU would round differently).
namespace tonekit::core {
TK_HD float tk_pow(float a, float b) { return powf(a, b); }
TK_HD double tk_pow(double a, double b) { return ::pow(a, b); }
TK_HD float tk_log(float a) { return logf(a); }
TK_HD double tk_log(double a) { return ::log(a); }
TK_HD float tk_log1p(float a) { return log1pf(a); }
TK_HD double tk_log1p(double a) { return ::log1p(a); }
TK_HD float tk_floor(float a) { return floorf(a); }
TK_HD double tk_floor(double a) { return ::floor(a); }
TK_HD float tk_exp(float a) { return expf(a); }
TK_HD double tk_exp(double a) { return ::exp(a); }
TK_HD float tk_log10(float a) { return log10f(a); }
TK_HD double tk_log10(double a) { return ::log10(a); }
TK_HD float tk_sqrt(float a) { return sqrtf(a); }
TK_HD double tk_sqrt(double a) { return ::sqrt(a); }
}  // namespace tonekit::core
