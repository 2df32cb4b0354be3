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

// a * b and a + b each rounded on its own on both backends. nvcc fuses a * b + c into one fma
// unless told otherwise (-fmad=true: the map kernels keep it for speed), the CPU loops are built
// without contraction; maths whose last bit is magnified later (PQ's exponent 78.8) spells its
// products and sums with these so that the GPU computes the CPU's floats bit for bit.
#if defined(__CUDA_ARCH__)
TK_HD float mul_rn(float a, float b) { return __fmul_rn(a, b); }
TK_HD float add_rn(float a, float b) { return __fadd_rn(a, b); }
TK_HD double mul_rn(double a, double b) { return __dmul_rn(a, b); }
TK_HD double add_rn(double a, double b) { return __dadd_rn(a, b); }
#else
TK_HD float mul_rn(float a, float b) { return a * b; }
TK_HD float add_rn(float a, float b) { return a + b; }
TK_HD double mul_rn(double a, double b) { return a * b; }
TK_HD double add_rn(double a, double b) { return a + b; }
#endif
}  // namespace tonekit::core
