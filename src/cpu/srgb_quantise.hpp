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
#if defined(__x86_64__)
#include <immintrin.h>
#endif

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

#if defined(__x86_64__)
// encode_srgb_fast for 8 values at the AVX2 + FMA levels in half its operations (the sRGB
// quantiser was a fifth of a 4K EXR -> PNG process, most of it the two polynomials): v = 2^e m,
// m in [1, 2), so v^(1/2.4) = 2^(5e/12) m^(5/12); the octave's 1.055 2^(5e/12) comes from a
// table of the 10 octaves of the curve's part, [2^-9, 1], by two register permutes, and m^(5/12)
// is a degree-7 polynomial (Chebyshev interpolant in x = 2m - 3, 8e-8 with float coefficients).
// Within kSrgbFastError like the portable form (tests/unit/test_isa_levels.cpp), which is all
// the quantiser needs: the reference redoes what is too close to call, so the codes are the same
// at every level. A NaN stays NaN (min and max return their second operand for it). Called
// from the v3 and v4 loops (cpu/map_kernels.cpp), whose targets include AVX2 and FMA.
__attribute__((target("avx2,fma"))) inline __m256 encode_srgb_fast8(__m256 v) {
  constexpr float kPoly[8] = {1.149400305e-05f, -4.286558033e-05f, 1.435515296e-04f, -6.016229745e-04f,
                              2.812993713e-03f, -1.598916948e-02f, 1.644518822e-01f, 1.184053659e+00f};
  const __m256 low_octaves = _mm256_setr_ps(7.841334492e-02f, 1.046692580e-01f, 1.397166997e-01f, 1.864994168e-01f,
                                            2.489468455e-01f, 3.323041797e-01f, 4.435728490e-01f, 5.920987129e-01f);
  const __m256 high_octaves = _mm256_setr_ps(7.903569937e-01f, 1.054999948e+00f, 1, 1, 1, 1, 1, 1);
  const __m256 one = _mm256_set1_ps(1.0f);
  const __m256 l = _mm256_min_ps(one, _mm256_max_ps(_mm256_setzero_ps(), v));
  const __m256i bits = _mm256_castps_si256(l);
  // e + 9: 0-9 on the curve's part; elsewhere some entry, unused (linear part, white).
  const __m256i octave = _mm256_sub_epi32(_mm256_srli_epi32(bits, 23), _mm256_set1_epi32(127 - 9));
  const __m256 m = _mm256_castsi256_ps(
      _mm256_or_si256(_mm256_and_si256(bits, _mm256_set1_epi32(0x007FFFFF)), _mm256_set1_epi32(0x3F800000)));
  const __m256 x = _mm256_fmsub_ps(_mm256_set1_ps(2.0f), m, _mm256_set1_ps(3.0f));  // exact
  __m256 p = _mm256_set1_ps(kPoly[0]);
  for (int k = 1; k < 8; ++k) p = _mm256_fmadd_ps(p, x, _mm256_set1_ps(kPoly[k]));
  const __m256 high = _mm256_castsi256_ps(_mm256_cmpgt_epi32(octave, _mm256_set1_epi32(7)));
  const __m256 scale = _mm256_blendv_ps(_mm256_permutevar8x32_ps(low_octaves, octave),
                                        _mm256_permutevar8x32_ps(high_octaves, octave), high);
  const __m256 curve = _mm256_fmsub_ps(scale, p, _mm256_set1_ps(0.055f));
  // Below white the curve stays below 1, as in encode_srgb_fast.
  const __m256 below_white = _mm256_min_ps(_mm256_set1_ps(0.99999994f), curve);
  const __m256 linear = _mm256_mul_ps(_mm256_set1_ps(12.92f), l);
  __m256 out = _mm256_blendv_ps(below_white, one, _mm256_cmp_ps(l, one, _CMP_GE_OQ));
  out = _mm256_blendv_ps(out, linear, _mm256_cmp_ps(l, _mm256_set1_ps(0.0031308f), _CMP_LE_OQ));
  return _mm256_blendv_ps(out, l, _mm256_cmp_ps(l, l, _CMP_UNORD_Q));  // NaN: the exponent's entry was not
}
#endif

// core::quantise_noise(encode_srgb(v), kMax, dither, noise) from the fast value, in two steps
// (each its own loop: together GCC left them scalar, "control flow in loop"):
// srgb_rounded(v, noise) is the value whose floor is the code (noise 0 without dither), or -1
// near the top, where the fast value may cross the end at which the dither stops; then
// srgb_code(u, slack) gives the code and, in `slack`, u's distance to the nearest integer (< 0
// for the -1): the code is the reference's wherever slack >= kSrgbUnsureMargin.
// (srgb_rounded_encoded: the same from encode_srgb_fast(v) or another curve within its bound.)
template <unsigned kMax>
inline float srgb_rounded_encoded(float encoded, float noise) {
  constexpr float max = static_cast<float>(kMax);
  const float scaled = core::clamp01(encoded) * max;
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
inline float srgb_rounded(float v, float noise) {
  return srgb_rounded_encoded<kMax>(encode_srgb_fast(v), noise);
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
