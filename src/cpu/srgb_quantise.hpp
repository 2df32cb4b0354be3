// The sRGB quantiser of the CPU map without a libm powf per sample (issue 33): encode_srgb
// (core/colour.hpp) as 1.055 exp2(log2(L) / 2.4) - 0.055 in plain float arithmetic (no table,
// no libm, no fma: GCC vectorises it at every instruction-set level and each gives the same
// floats), then core::quantise_noise's arithmetic; a sample whose scaled value lies within
// kSrgbUnsureMargin codes of a rounding boundary (or of the ends, where the dither stops) is
// redone by the reference (core::encode_srgb with powf, core::quantise_noise), so the codes are
// the reference's bit for bit, dithered or not.
// - log2 of the mantissa m in [1, 2): the degree-8 Chebyshev interpolant in x = 2m - 3 (max error
//   1.5e-7), the exponent added; exp2 of y = k + r, k = round(y), |r| <= 1/2: e^(r ln 2) by its
//   Taylor series to degree 7 (remainder < 6e-9), k put into the exponent bits.
//   Levels differ in nothing here: no fma, no libm, the same operations in every vector width.
// - Error of encode_srgb_fast against encode_srgb in double: below kSrgbFastError (absolute,
//   tests/unit/test_isa_levels.cpp measures it); the reference's own rounding (powf's, the
//   products') adds a few float ulps of the scaled value.
// - The margin: 8-bit 1e-3 of a code (the errors above are ~1e-4 of a code there), 16-bit 0.1
//   (~0.04 there): the reference redoes ~0.2 % of 8-bit samples, ~20 % of 16-bit ones.
#pragma once
#include <cstdint>
#include <cstring>

#include "core/colour.hpp"

namespace tonekit::cpu {

constexpr double kSrgbFastError = 6e-7;

template <unsigned kMax>
constexpr float kSrgbUnsureMargin = kMax <= 255u ? 1e-3f : 0.1f;

// log2(a) for normal a > 0.
inline float srgb_log2(float a) {
  // Highest power first (x = 2m - 3).
  constexpr float kPoly[9] = {-3.385038793e-05f, 1.153950872e-04f, -3.248442687e-04f,
                              1.170827821e-03f,  -4.454175193e-03f, 1.781574105e-02f,
                              -8.014961779e-02f, 4.808979927e-01f,  5.849625007e-01f};
  std::uint32_t bits;
  std::memcpy(&bits, &a, 4);
  const int e = static_cast<int>((bits >> 23) & 0xFFu) - 127;
  bits = (bits & 0x007FFFFFu) | 0x3F800000u;
  float m;
  std::memcpy(&m, &bits, 4);
  const float x = 2.0f * m - 3.0f;
  float p = kPoly[0];
  for (int k = 1; k < 9; ++k) p = p * x + kPoly[k];
  return static_cast<float>(e) + p;
}
// 2^y for y in [-126, 0].
inline float srgb_exp2(float y) {
  constexpr float kTaylor[8] = {1.0f / 5040.0f, 1.0f / 720.0f, 1.0f / 120.0f, 1.0f / 24.0f,
                                1.0f / 6.0f,    0.5f,          1.0f,          1.0f};
  // round(y) by truncating y + 128.5 (positive): a conversion every level vectorises.
  const int k = static_cast<int>(y + 128.5f) - 128;
  const float f = (y - static_cast<float>(k)) * 0.69314718f;
  float p = kTaylor[0];
  for (int i = 1; i < 8; ++i) p = p * f + kTaylor[i];
  const std::uint32_t scale = static_cast<std::uint32_t>(k + 127) << 23;
  float s;
  std::memcpy(&s, &scale, 4);
  return p * s;
}

// core::encode_srgb(v) within kSrgbFastError, branch-free (the reference's selects).
inline float encode_srgb_fast(float v) {
  const float l = core::clamp01(v);
  // The unused side of the select stays finite; a NaN stays NaN, so that its sample is redone.
  const float lp = l < 1e-30f ? 1e-30f : l;
  const float curve = 1.055f * srgb_exp2(srgb_log2(lp) * (1.0f / 2.4f)) - 0.055f;
  // Below white the curve stays below 1 (the reference's may round to 1 where this one does
  // not, or the other way: such a value is within the quantiser's margin of the top, see below).
  const float below_white = curve < 0.99999994f ? curve : 0.99999994f;
  return l <= 0.0031308f ? 12.92f * l : (l >= 1.0f ? 1.0f : below_white);
}

// core::quantise_noise(encode_srgb(v), kMax, dither, noise) from the fast value, in two steps
// (each its own loop: together GCC left them scalar, "control flow in loop"):
// srgb_rounded(v, noise) is the value whose floor is the code (noise 0 without dither), or -1
// near the top, where the fast value may cross the end at which the dither stops; then
// srgb_code(u, slack) gives the code and, in `slack`, u's distance to the nearest integer (< 0
// for the -1): the code is the reference's wherever slack >= kSrgbUnsureMargin.
template <unsigned kMax>
inline float srgb_rounded(float v, float noise) {
  constexpr float max = static_cast<float>(kMax);
  const float scaled = core::clamp01(encode_srgb_fast(v)) * max;
  // The noise times 1 or 0 rather than a select, the same sum (x + -0 == x), as with the select
  // after the clamp's GCC left the loop scalar. Exactly 0 here only in the linear part, computed
  // as the reference does, so the bottom end needs no margin.
  constexpr float margin = static_cast<float>(kMax * core::kDitherEndMargin);  // core::quantise_noise's
  const float interior = static_cast<float>((scaled > margin) & (scaled < max - margin));
  const float u = scaled + noise * interior + 0.5f;
  // White (v >= 1) is exactly max on both sides, and below it the fast curve stays below 1: only
  // scaled values in (max - margin, max) are unsure. -1 there (u + 1 is exact), u elsewhere
  // (a select left the loop scalar).
  const float top = static_cast<float>((scaled > max - kSrgbUnsureMargin<kMax>) & (scaled < max));
  return u - (u + 1.0f) * top;
}
template <unsigned kMax>
inline std::uint32_t srgb_code(float u, float& slack) {
  constexpr float max = static_cast<float>(kMax);
  // floor(u) by truncation: u >= 0 but for a dithered u in (-0.5, 0), which truncates to 0 where
  // floor gives -1; both quantise to 0.
  float f = static_cast<float>(static_cast<int>(u));
  const float frac = u - f;
  slack = u < 0.0f ? -1.0f : (frac < 0.5f ? frac : 1.0f - frac);
  f = f > max ? max : f;
  f = f < 0.0f ? 0.0f : f;
  return static_cast<std::uint32_t>(static_cast<int>(f));
}

}  // namespace tonekit::cpu
