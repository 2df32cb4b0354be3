// Colour maths shared by both backends: luminance, sanitising, colour reconstruction,
// output transfer and quantisation.
#pragma once
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "core/hd.hpp"

namespace tonekit::core {

// Sanitise policy (documented in README "Bad pixels"): per colour channel, NaN -> 0,
// negative values (-Inf included) -> 0, +Inf -> kInfReplacement, the largest finite half.
// A pixel counts once as NaN, Inf or negative when any of its channels was (NaN first).
// Statistics and curves see only sanitised values, so no output can hold NaN.
constexpr float kInfReplacement = 65504.0f;

// delta in the log-average (thesis Eq 4.1): keeps log finite for black pixels.
constexpr double kLogDelta = 1e-6;

enum PixelFlag : unsigned { kPixelClean = 0, kPixelNaN = 1, kPixelInf = 2, kPixelNegative = 4 };

template <class T>
TK_HD T sanitise_channel(T v, unsigned& flags) {
  if (v != v) { flags |= kPixelNaN; return T(0); }
  if (v < T(0)) { flags |= (v == -INFINITY) ? kPixelInf : kPixelNegative; return T(0); }
  if (v == INFINITY) { flags |= kPixelInf; return T(kInfReplacement); }
  return v;
}

// One count per pixel: NaN wins over Inf, Inf over negative.
TK_HD unsigned classify_flags(unsigned flags) {
  return (flags & kPixelNaN) ? kPixelNaN : (flags & kPixelInf) ? kPixelInf : (flags & kPixelNegative);
}

// BT.709 / sRGB primaries luminance (thesis Step 1; Qian 2013 Eq 6). In float it is spelled as
// two fused multiply-adds so every build (vectorised CPU clones, scalar CPU loops, CUDA) rounds
// it identically and the GPU's min/max match the CPU's bit for bit.
template <class T>
TK_HD T luminance(T r, T g, T b) {
  if constexpr (std::is_same_v<T, float>) {
    return fmaf(0.0722f, b, fmaf(0.7152f, g, 0.2126f * r));
  } else {
    return T(0.2126) * r + T(0.7152) * g + T(0.0722) * b;
  }
}

// Colour reconstruction C_out = L_d * (C_in / L_w)^s (Schlick 1994; Qian 2013 Eq 9).
// Black (L_w <= 0) stays black. s == 1 skips the power. C_in / L_w is spelled C_in * (1 / L_w),
// as the CUDA map computes it (one reciprocal per pixel): a grey pixel's float luminance may round
// an ulp above its channels, and the division then gives 1 - 2^-24 where the reciprocal gives 1, so
// that a flat white frame would leave white and dither to 254 in one sample of eight.
template <class T>
TK_HD T reconstruct_channel(T c, T lw, T ld, T saturation) {
  if (!(lw > T(0))) return T(0);
  const T inv = T(1) / lw;
  T ratio = c * inv;
  if (saturation == T(1)) return ld * ratio;
  return ld * tk_pow(ratio, saturation);
}

template <class T>
TK_HD T clamp01(T v) {
  return v < T(0) ? T(0) : (v > T(1) ? T(1) : v);
}

// Output transfer: gamma == 0 selects the sRGB curve (IEC 61966-2-1), otherwise v^(1/gamma).
// Written without branches around the pow so that the CPU loops vectorise.
template <class T>
TK_HD T encode_srgb(T v) {
  v = clamp01(v);
  const T curve = T(1.055) * tk_pow(v, T(1.0 / 2.4)) - T(0.055);
  // In float 1.055 - 0.055 is 1 - 2^-24: white is pinned to 1 so that quantise leaves it white
  // (undithered, code max) as it leaves black black.
  return v <= T(0.0031308) ? T(12.92) * v : (v >= T(1) ? T(1) : curve);
}

// Inverse of encode_srgb (IEC 61966-2-1): display code in [0, 1] to linear light.
template <class T>
TK_HD T decode_srgb(T v) {
  v = clamp01(v);
  return v <= T(0.04045) ? v / T(12.92) : tk_pow((v + T(0.055)) / T(1.055), T(2.4));
}

template <class T>
TK_HD T encode_gamma(T v, T inv_gamma) {
  return tk_pow(clamp01(v), inv_gamma);
}

template <class T>
TK_HD T encode_transfer(T v, T gamma) {
  return gamma == T(0) ? encode_srgb(v) : encode_gamma(v, T(1) / gamma);
}

// Deterministic hash (lowbias32, Wellons) so CPU and GPU dither identically.
TK_HD std::uint32_t hash32(std::uint32_t x) {
  x ^= x >> 16; x *= 0x7feb352dU; x ^= x >> 15; x *= 0x846ca68bU; x ^= x >> 16;
  return x;
}

// Triangular-PDF dither in (-1, 1) LSB for pixel (x, y), colour channel c < 3: ONE hash per
// pixel, h = hash32(x * golden ^ hash32(y)); channel c takes the two 4-bit uniforms a, b at bits
// [8c, 8c + 4) and [8c + 4, 8c + 8) of it and its noise is (a + b - 15) / 16 (31 levels,
// variance 1/6 - 1/1536 LSB^2, channels independent; a + b - 15 is distributed as a - b). 1/16 LSB
// steps are far below the LSB, so the quantiser's mean error stays flat (tests/unit/test_curves.cpp
// checks the distribution and the unbiased average). One hash per pixel and byte-aligned fields:
// the GPU map pass is bound by instruction issue (v8, v11 in docs/performance.md): it adds the three
// channels' fields in one integer add and turns each sum into a float by a byte permute.
TK_HD std::uint32_t dither_row_seed(int y) { return hash32(static_cast<std::uint32_t>(y) * 0x85EBCA77U + 0x2545F491U); }

TK_HD std::uint32_t dither_pixel_hash(int x, std::uint32_t row_seed) {
  return hash32(static_cast<std::uint32_t>(x) * 0x9E3779B1U ^ row_seed);
}

TK_HD float dither_noise_from_hash(std::uint32_t h, int c) {
  const unsigned shift = 8U * static_cast<unsigned>(c);
  const unsigned sum = ((h >> shift) & 15U) + ((h >> (shift + 4U)) & 15U);
  return (static_cast<float>(sum) - 15.0f) * (1.0f / 16.0f);
}

// No dither within kDitherEndMargin of the code range (8 float ulps of an encoded value near 1)
// of black or white: such a value rounds to the end code. The noise cannot be symmetric there (a
// code past the end is clipped), and a curve's last-ulp rounding at white (a grey pixel's float
// luminance an ulp above its channels, a display curve's peak a few ulps below 1 on one backend)
// must not decide whether one sample in eight of a white frame dithers to 254.
constexpr double kDitherEndMargin = 1.0 / (1 << 21);

TK_HD float dither_noise(int x, int y, int c) { return dither_noise_from_hash(dither_pixel_hash(x, dither_row_seed(y)), c); }

// Quantise an encoded value in [0, 1] to [0, max_code] given the pixel's dither noise. Dither is
// skipped at 0 and 1 so that black stays black and white stays white. Branch-free so that the
// CPU loops vectorise.
template <class T>
TK_HD unsigned quantise_noise(T v, unsigned max_code, bool dither, T noise) {
  T scaled = clamp01(v) * T(max_code);
  const T margin = T(max_code) * T(kDitherEndMargin);
  const bool interior = (scaled > margin) & (scaled < T(max_code) - margin);
  scaled += (dither & interior) ? noise : T(0);
  scaled = tk_floor(scaled + T(0.5));
  scaled = scaled < T(0) ? T(0) : scaled;
  scaled = scaled > T(max_code) ? T(max_code) : scaled;
  return static_cast<unsigned>(static_cast<int>(scaled));
}

template <class T>
TK_HD unsigned quantise(T v, unsigned max_code, bool dither, int x, int y, int c) {
  return quantise_noise(v, max_code, dither, T(dither_noise(x, y, c)));
}

}  // namespace tonekit::core
