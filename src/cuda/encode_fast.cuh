// Fast per-channel output maths shared by the CUDA map kernels (global map_kernel.cu and the
// local operators' local_kernels.cu): the CPU reference's core::encode_srgb / quantise /
// reconstruct_channel computed on the special-function unit and without the conversion pipe,
// each within an ulp or two of the reference (bench/NOTES.md v2-v8 measured what each saves).
// The dither is core::dither_noise_from_hash bit for bit.
#pragma once
#include <cstdint>

#include "core/colour.hpp"

namespace tonekit::cuda {

// v^e for v in [0, 1] on the special-function unit: ex2(lg2(v) e), each within 2^-22 relative;
// v = 0 gives ex2(-inf) = 0.
__device__ __forceinline__ float lg2_approx(float x) {
  float y;
  asm("lg2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}
__device__ __forceinline__ float ex2_approx(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}
__device__ __forceinline__ float transfer_pow(float v, float e) { return ex2_approx(lg2_approx(v) * e); }

// floor(t) for t in (-2^22, 2^22) without the conversion unit: 1.5 * 2^23 + t rounded down has
// unit spacing, so its low bits are floor(t) (bench/NOTES.md v3: conversions were a quarter of the
// map pass's issue slots).
__device__ __forceinline__ int floor_small(float t) {
  return static_cast<int>(__float_as_uint(__fadd_rd(t, 12582912.0f))) - 0x4B400000;
}

// core::dither_noise_from_hash with the 5-bit fields turned into floats by exponent bits:
// 1 + k / 32 is exact, so (1 + k_a / 32) - (1 + k_b / 32) is exactly (k_a - k_b) / 32, the CPU's
// value, in 5 instructions and no conversion.
__device__ __forceinline__ float dither_noise_fast(std::uint32_t h, int c) {
  const unsigned shift = 10u * static_cast<unsigned>(c);
  const float a = __uint_as_float(0x3F800000u | (((h >> shift) & 31u) << 18));
  const float b = __uint_as_float(0x3F800000u | (((h >> (shift + 5u)) & 31u) << 18));
  return a - b;
}

// lroundf(x) for x >= 0 (half away from zero), without the conversion unit.
__device__ __forceinline__ unsigned round_half_up(float x) {
  const float big = __fadd_rd(x, 12582912.0f);
  const float fl = big - 12582912.0f;  // floor(x), exact
  const int f = static_cast<int>(__float_as_uint(big)) - 0x4B400000;
  return static_cast<unsigned>(f + ((x - fl) >= 0.5f ? 1 : 0));
}

// The smallest luminance whose reciprocal is finite: below it a pixel maps to black (the CPU's
// c / L_w * L_d is below 1e-37 there too), so c * rcp(L_w) never meets 0 * inf.
constexpr float kMinLuminance = 1.17549435e-38f;

// The default output path (v5): saturation 1, sRGB, dither on: no per-channel branches on the
// colour settings, one dither hash per pixel, clamps as min/max (values here are never NaN).
// Same results as core::encode_srgb + core::quantise_noise.
template <unsigned kMax>
__device__ __forceinline__ unsigned quantise_dither_default(float encoded, float noise) {
  const float top = static_cast<float>(kMax);
  float scaled = fminf(encoded, 1.0f) * top;  // encoded >= 0
  if (scaled > 0.0f && scaled < top) scaled += noise;
  const int k = floor_small(fmaxf(scaled + 0.5f, 0.0f));
  return k > static_cast<int>(kMax) ? kMax : static_cast<unsigned>(k);
}

__device__ __forceinline__ float encode_srgb_default(float v) {
  v = fminf(fmaxf(v, 0.0f), 1.0f);
  const float curve = 1.055f * transfer_pow(v, static_cast<float>(1.0 / 2.4)) - 0.055f;
  return v <= 0.0031308f ? 12.92f * v : curve;
}

// 1 / x on the special-function unit (rcp.approx: within 1 ulp), for x >= kMinLuminance.
__device__ __forceinline__ float rcp_approx(float x) {
  float y;
  asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

}  // namespace tonekit::cuda
