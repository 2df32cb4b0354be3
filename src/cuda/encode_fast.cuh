// Fast per-channel output maths shared by the CUDA map kernels (global map_kernel.cuh and the
// local operators' local_kernels.cu): the CPU reference's core::encode_srgb / quantise /
// reconstruct_channel computed on the special-function unit and without the conversion pipe,
// each within an ulp or two of the reference (docs/performance.md, v2-v8, has what each saves).
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
// unit spacing, so its low bits are floor(t) (v3 in docs/performance.md: conversions were a quarter of the
// map pass's issue slots).
__device__ __forceinline__ int floor_small(float t) {
  return static_cast<int>(__float_as_uint(__fadd_rd(t, 12582912.0f))) - 0x4B400000;
}

// core::dither_noise_from_hash for the three channels at once: byte c of the result is channel
// c's field sum a + b in [0, 30] (the 4-bit fields are byte aligned, so one add serves all three),
// and byte 3 is 0x45, the top byte of 2^11, added in the same instruction for the permutes below.
__device__ __forceinline__ std::uint32_t dither_sums(std::uint32_t h) {
  return (h & 0x000F0F0Fu) + ((h >> 4) & 0x000F0F0Fu) + 0x45000000u;
}

// 2^11 + sum_c / 4096 as a float (sum_c in the lowest mantissa bits of 2^11): one byte permute
// of dither_sums, no conversion-pipe instruction.
__device__ __forceinline__ float dither_sum_float(std::uint32_t sums, int c) {
  return __uint_as_float(__byte_perm(sums, 0u, 0x3440u + static_cast<unsigned>(c)));
}

// Channel c's noise (sum - 15) / 16, bit for bit the CPU's: 256 (2^11 + sum / 4096) - (2^19 + 15 / 16)
// is exact in one fused multiply-add.
__device__ __forceinline__ float dither_noise_from_sums(std::uint32_t sums, int c) {
  return fmaf(dither_sum_float(sums, c), 256.0f, -(524288.0f + 15.0f / 16.0f));
}

// What srgb8_dither_word adds for the dither in its units of 256 codes: (noise + 0.5) / 256 =
// (sum - 7) / 4096, exact in one add with a single immediate.
__device__ __forceinline__ float dither_offset256_from_sums(std::uint32_t sums, int c) {
  return dither_sum_float(sums, c) - (2048.0f + 7.0f / 4096.0f);
}

__device__ __forceinline__ float dither_noise_fast(std::uint32_t h, int c) { return dither_noise_from_sums(dither_sums(h), c); }

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

// core::encode_srgb with transfer_pow for powf (white pinned to 1 as there).
__device__ __forceinline__ float encode_srgb_fast(float v) {
  v = fminf(fmaxf(v, 0.0f), 1.0f);
  const float curve = 1.055f * transfer_pow(v, static_cast<float>(1.0 / 2.4)) - 0.055f;
  return v <= 0.0031308f ? 12.92f * v : (v >= 1.0f ? 1.0f : curve);
}

// The default output path (v5): saturation 1, sRGB, dither on: no per-channel branches on the
// colour settings, one dither hash per pixel, clamps as min/max (values here are never NaN).
// Same results as core::encode_srgb + core::quantise_noise (16-bit codes; 8-bit ones take
// srgb8_dither_word).
template <unsigned kMax>
__device__ __forceinline__ unsigned quantise_dither_default(float encoded, float noise) {
  const float top = static_cast<float>(kMax);
  float scaled = fminf(encoded, 1.0f) * top;  // encoded >= 0
  constexpr float margin = static_cast<float>(kMax * core::kDitherEndMargin);
  if (scaled > margin && scaled < top - margin) scaled += noise;
  const int k = floor_small(fmaxf(scaled + 0.5f, 0.0f));
  return k > static_cast<int>(kMax) ? kMax : static_cast<unsigned>(k);
}

// srgb8_dither_word's curve segment: 255 (1.055 p - 0.055) / 256 = kSrgb8Scale p + kSrgb8Offset,
// the offset chosen so that p = 1 (white) gives exactly 255 / 256 (it is 1.6e-5 codes off
// 255 * 0.055 / 256; the difference of the two floats is exact).
constexpr float kSrgb8Scale = 255.0f * 1.055f / 256.0f;
constexpr float kSrgb8Offset = 255.0f / 256.0f - kSrgb8Scale;

// The 8-bit default output (v11-v14, docs/performance.md): core::encode_srgb then
// core::quantise_noise(.., 255, dither on, noise) of o = c * L_d / L_w >= 0, in 14 instructions.
// The clamp is the multiply's saturation; the work is in units of 256 codes, t = code value / 256,
// so that 255 and 1/256 fold into the segments' constants and the dithered add saturates at 0 by
// itself; the rounding's 0.5 rides with the dither (`offset256` is dither_offset256_from_sums),
// which is skipped within core::kDitherEndMargin of the ends (black and white stay, as the
// CPU's quantise_noise leaves them); t is clamped to 255.5 / 256 and floor(256 t) is the low byte
// of 256 t + 1.5 * 2^23 rounded down (exact: 256 t is). Returns that float's bits: the code is
// its low byte (pack_bytes takes it from there).
__device__ __forceinline__ unsigned srgb8_dither_word(float o, float offset256) {
  const float v = __saturatef(o);
  float t = v <= 0.0031308f ? v * (255.0f * 12.92f / 256.0f)
                            : fmaf(transfer_pow(v, static_cast<float>(1.0 / 2.4)), kSrgb8Scale, kSrgb8Offset);
  // Dither only farther than core::kDitherEndMargin from the ends; within it the rounding's 0.5
  // alone (t rounds to 0 or 255 / 256).
  constexpr float margin256 = static_cast<float>(255.0 * core::kDitherEndMargin / 256.0);
  const bool interior = t > margin256 && t < 255.0f / 256.0f - margin256;
  t = __saturatef(t + (interior ? offset256 : 0.5f / 256.0f));
  t = fminf(t, 255.5f / 256.0f);
  return __float_as_uint(__fmaf_rd(t, 256.0f, 12582912.0f));
}

// An 8-bit alpha code (core: lround(a * 255), a in [0, 1]) as srgb8_dither_word returns codes:
// a * 255 + 1.5 * 2^23 rounded to nearest, in one fused multiply-add. It differs from rounding
// half up only at an exact tie a * 255 = k + 1/2, i.e. a = (2k + 1) / 510, which a half or a float
// holds only for a = 1/2 (127.5 -> 128 either way).
__device__ __forceinline__ unsigned alpha8_word(float a) { return __float_as_uint(fmaf(a, 255.0f, 12582912.0f)); }

// One RGBA8 word from the low bytes of four words (three byte permutes).
__device__ __forceinline__ unsigned pack_bytes(unsigned r, unsigned g, unsigned b, unsigned a) {
  return __byte_perm(__byte_perm(r, g, 0x0040u), __byte_perm(b, a, 0x0040u), 0x5410u);
}

// 1 / x on the special-function unit (rcp.approx: within 1 ulp), for x >= kMinLuminance.
__device__ __forceinline__ float rcp_approx(float x) {
  float y;
  asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

}  // namespace tonekit::cuda
