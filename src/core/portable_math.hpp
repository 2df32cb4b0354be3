// Float exp2 / log2 / pow / exp / log made of IEEE basic operations and exponent bits only, so the CPU reference and the CUDA kernels compute them bit for bit alike when built
// without contraction (video_kernels.cpp: -ffp-contract=off) or wherever nvcc would fuse (the map
// kernels keep -fmad=true): the products and sums that could fuse are spelled mul_rn / add_rn.
// libm's powf and CUDA's powf are each within an ulp or two but round differently, and the video
// transfers magnify that: PQ's exponents (1/m2 = 0.0127 then 1/m1 = 6.28) turn a last-bit
// difference into ~3e-5 relative, enough to move 8-bit codes in ~0.5 % of samples
// (tests/gpu/test_gpu_video.cpp). Accuracy: log2 and exp2 within ~2 ulp (Taylor series to s^9
// and u^7 on reduced ranges); pow(x, y) = exp2(y log2 x) within ~|y log2 x| * 1e-7 relative.
#pragma once
#include <math.h>
#include <string.h>

#include "core/hd.hpp"

namespace tonekit::core {

// The bits of a float and back (memcpy: exact on both backends; the device compiles it to a move).
TK_HD int float_bits(float x) {
  int i;
  memcpy(&i, &x, sizeof i);
  return i;
}
TK_HD float bits_float(int i) {
  float x;
  memcpy(&x, &i, sizeof x);
  return x;
}

// log2(x) for x > 0 (finite): x = m 2^e with m in [sqrt(1/2), sqrt(2)) from the bits (subnormals
// scaled by 2^24 first); ln m = 2 atanh(s), s = (m - 1) / (m + 1), |s| <= 0.1716: the series to
// s^9 leaves < 1e-9 relative.
TK_HD float portable_log2f(float x) {
  int e = 0;
  if (x < 1.17549435e-38f) {  // subnormal
    x *= 16777216.0f;
    e = -24;
  }
  const int bits = float_bits(x);
  e += ((bits >> 23) & 255) - 127;
  float m = bits_float((bits & 0x007FFFFF) | 0x3F800000);  // [1, 2)
  if (m > 1.41421356f) {
    m *= 0.5f;
    e += 1;
  }
  const float s = (m - 1.0f) / (m + 1.0f);
  const float s2 = s * s;
  float series = add_rn(0.14285714f, mul_rn(s2, 0.11111111f));
  series = add_rn(1.0f, mul_rn(s2, add_rn(0.33333333f, mul_rn(s2, add_rn(0.2f, mul_rn(s2, series))))));
  return add_rn(static_cast<float>(e), mul_rn(2.0f * s * series, 1.44269504f));  // 1 / ln 2
}

// 2^t: t = n + f, f in [-1/2, 1/2]; e^(f ln 2) by its Taylor series to u^7 (< 6e-9 relative);
// 2^n from the exponent bits (in two factors below 2^-126, where the results are subnormal).
TK_HD float portable_exp2f(float t) {
  if (t > 128.0f) return INFINITY;
  if (t < -150.0f) return 0.0f;
  const float n = floorf(t + 0.5f);
  const float u = (t - n) * 0.69314718f;
  float p = add_rn(0.0013888889f, mul_rn(u, 0.00019841270f));
  p = add_rn(0.041666668f, mul_rn(u, add_rn(0.0083333338f, mul_rn(u, p))));
  p = add_rn(0.5f, mul_rn(u, add_rn(0.16666667f, mul_rn(u, p))));
  p = add_rn(1.0f, mul_rn(u, add_rn(1.0f, mul_rn(u, p))));
  const int k = static_cast<int>(n);
  if (k > 127) return p * 2.0f * bits_float((k - 1 + 127) << 23);
  if (k < -126) return p * bits_float((k + 64 + 127) << 23) * 5.42101086e-20f;  // 2^(k+64) 2^-64
  return p * bits_float((k + 127) << 23);
}

// x^y for x >= 0 (0^y = 0 for y > 0, x^0 = 1).
TK_HD float portable_powf(float x, float y) {
  if (y == 0.0f) return 1.0f;
  if (!(x > 0.0f)) return 0.0f;
  if (x == 1.0f) return 1.0f;
  return portable_exp2f(y * portable_log2f(x));
}

TK_HD float portable_expf(float x) { return portable_exp2f(x * 1.44269504f); }
TK_HD float portable_logf(float x) { return portable_log2f(x) * 0.69314718f; }

// The video transfers' maths: float through the portable forms, double through libm (tests).
TK_HD float video_pow(float a, float b) { return portable_powf(a, b); }
TK_HD double video_pow(double a, double b) { return ::pow(a, b); }
TK_HD float video_exp(float a) { return portable_expf(a); }
TK_HD double video_exp(double a) { return ::exp(a); }
TK_HD float video_log(float a) { return a > 0.0f ? portable_logf(a) : -INFINITY; }
TK_HD double video_log(double a) { return ::log(a); }

}  // namespace tonekit::core
