#include "cpu/map_kernels.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "core/colour.hpp"
#include "core/half.hpp"
#include "cpu/isa_level.hpp"
#include "cpu/srgb_quantise.hpp"

// Compiled once per instruction-set level (cpu/isa_level.hpp), every call in the loops inlined
// (TK_ISA_INLINE_ALL).

namespace tonekit::cpu {
TK_ISA_BEGIN
namespace {

// Branch-free form of core::sanitise_channel through bit tests (valid under -ffast-math).
inline float sanitise(float v) {
  std::uint32_t b;
  std::memcpy(&b, &v, 4);
  const std::uint32_t mag = b & 0x7FFFFFFFu;
  float out = v;
  out = (mag == 0x7F800000u) ? core::kInfReplacement : out;
  out = ((mag > 0x7F800000u) | ((b >> 31) != 0)) ? 0.0f : out;
  return out;
}

template <int C>
inline void load_f32(const float* p, int n, Chunk& c) {
  for (int i = 0; i < n; ++i) {
    const float r = sanitise(p[i * C]);
    const float g = C >= 3 ? sanitise(p[i * C + 1]) : r;
    const float b = C >= 3 ? sanitise(p[i * C + 2]) : r;
    c.r[i] = r; c.g[i] = g; c.b[i] = b;
    c.a[i] = C == 4 ? core::clamp01(sanitise(p[i * C + 3])) : 1.0f;
    c.lw[i] = core::luminance(r, g, b);
  }
}

// TK_ISA_LEVEL: the level this copy of the file is compiled for (cpu/isa_level.hpp; 1 = v3, 2 = v4).
#if defined(__x86_64__) && TK_ISA_LEVEL >= 1
// Half RGB(A) rows at the levels with F16C (v3, v4): 8 halves a conversion into a float row, then
// the float loader. The conversion is exact, as core::half_to_float is; a NaN comes out quiet
// rather than with its payload, and sanitise sends every NaN to 0 alike (the scalar form below
// was ~2x slower per pixel than a float load).
template <int C>
inline void load_f16(const std::uint16_t* p, int n, Chunk& c) {
  alignas(64) float wide[kChunk * C];
  const int count = n * C;
  int i = 0;
  for (; i + 8 <= count; i += 8)
    _mm256_store_ps(wide + i, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i))));
  for (; i < count; ++i) wide[i] = core::half_to_float(p[i]);
  load_f32<C>(wide, n, c);
}
#else
template <int C>
inline void load_f16(const std::uint16_t* p, int n, Chunk& c) {
  for (int i = 0; i < n; ++i) {
    const float r = sanitise(core::half_to_float(p[i * C]));
    const float g = C >= 3 ? sanitise(core::half_to_float(p[i * C + 1])) : r;
    const float b = C >= 3 ? sanitise(core::half_to_float(p[i * C + 2])) : r;
    c.r[i] = r; c.g[i] = g; c.b[i] = b;
    c.a[i] = C == 4 ? core::clamp01(sanitise(core::half_to_float(p[i * C + 3]))) : 1.0f;
    c.lw[i] = core::luminance(r, g, b);
  }
}
#endif

// Quantises one channel plane into codes; a contiguous loop the compiler vectorises (powf
// included), then a separate interleaving store. The dither hash is one per pixel
// (core::dither_pixel_hash), computed once for the three channels by the caller: recomputing it
// in each channel's loop, as core::quantise does, tripled the map pass's CPU time (4K, 2 cores:
// 0.26 s with dither against 0.09 s without; docs/performance.md). Same bits either way.
template <unsigned kMax, bool kDither, class Encode>
inline void quantise_plane(const float* src, int n, int ch, const std::uint32_t* hashes, std::uint32_t* codes,
                           Encode encode) {
  for (int i = 0; i < n; ++i) {
    const float noise = kDither ? core::dither_noise_from_hash(hashes[i], ch) : 0.0f;
    codes[i] = core::quantise_noise(encode(src[i]), kMax, kDither, noise);
  }
}

// The fast curve over a plane: encode_srgb_fast, or encode_srgb_fast8 where the level has it.
inline void encode_srgb_plane(const float* src, int n, float* encoded) {
  int i = 0;
#if defined(__x86_64__) && TK_ISA_LEVEL >= 1
  for (; i + 8 <= n; i += 8) _mm256_store_ps(encoded + i, encode_srgb_fast8(_mm256_loadu_ps(src + i)));
#endif
  for (; i < n; ++i) encoded[i] = encode_srgb_fast(src[i]);
}

// The sRGB plane without libm's powf (cpu/srgb_quantise.hpp): the fast curve and quantisation in
// loops without branches, then the reference over the few samples too close to call: its codes.
// The few are found 32 samples at a time by a vector compare (a scalar test of every sample was
// an eighth of the quantiser).
template <unsigned kMax, bool kDither>
inline void quantise_srgb_plane(const float* src, int n, int ch, const std::uint32_t* hashes, std::uint32_t* codes) {
  alignas(64) float rounded[kChunk];
  encode_srgb_plane(src, n, rounded);
  for (int i = 0; i < n; ++i)
    rounded[i] = srgb_rounded_encoded<kMax>(rounded[i], kDither ? core::dither_noise_from_hash(hashes[i], ch) : 0.0f);
  for (int i = 0; i < n; ++i) codes[i] = srgb_code<kMax>(rounded[i], rounded[i]);
  constexpr int kBlock = 32;
  for (int b = 0; b < n; b += kBlock) {
    const int end = std::min(n, b + kBlock);
    int unsure = 0;
    if (end - b == kBlock)
      for (int i = 0; i < kBlock; ++i) unsure |= static_cast<int>(!(rounded[b + i] >= kSrgbUnsureMargin<kMax>));  // NaN too
    else
      unsure = 1;
    if (!unsure) continue;
    for (int i = b; i < end; ++i) {
      if (rounded[i] >= kSrgbUnsureMargin<kMax>) continue;
      const float noise = kDither ? core::dither_noise_from_hash(hashes[i], ch) : 0.0f;
      codes[i] = core::quantise_noise(core::encode_srgb(src[i]), kMax, kDither, noise);
    }
  }
}

template <unsigned kMax, bool kDither>
inline void quantise_colour(const float* src, int n, int ch, float gamma, const std::uint32_t* hashes,
                            std::uint32_t* codes) {
  if (gamma == 0.0f) {
    quantise_srgb_plane<kMax, kDither>(src, n, ch, hashes, codes);
  } else {
    const float inv_gamma = 1.0f / gamma;
    quantise_plane<kMax, kDither>(src, n, ch, hashes, codes, [inv_gamma](float v) { return core::encode_gamma(v, inv_gamma); });
  }
}

template <class T, unsigned kMax, bool kDither>
inline void store_quantised(const Chunk& c, int x0, int n, int y, int channels, float gamma, T* out) {
  alignas(64) std::uint32_t codes[4][kChunk];
  alignas(64) std::uint32_t hashes[kChunk];
  if (kDither) {
    const std::uint32_t row_seed = core::dither_row_seed(y);
    for (int i = 0; i < n; ++i) hashes[i] = core::dither_pixel_hash(x0 + i, row_seed);
  }
  quantise_colour<kMax, kDither>(c.r, n, 0, gamma, hashes, codes[0]);
  quantise_colour<kMax, kDither>(c.g, n, 1, gamma, hashes, codes[1]);
  quantise_colour<kMax, kDither>(c.b, n, 2, gamma, hashes, codes[2]);
  if (channels == 4) {
    quantise_plane<kMax, false>(c.a, n, 3, hashes, codes[3], [](float v) { return v; });  // alpha: linear, no dither
    for (int i = 0; i < n; ++i)
      for (int ch = 0; ch < 4; ++ch) out[i * 4 + ch] = static_cast<T>(codes[ch][i]);
  } else {
    for (int i = 0; i < n; ++i)
      for (int ch = 0; ch < 3; ++ch) out[i * 3 + ch] = static_cast<T>(codes[ch][i]);
  }
}

template <class T, class Convert>
inline void store_linear(const Chunk& c, int n, int channels, T* out, Convert convert) {
  for (int i = 0; i < n; ++i) {
    out[i * channels + 0] = convert(core::clamp01(c.r[i]));
    out[i * channels + 1] = convert(core::clamp01(c.g[i]));
    out[i * channels + 2] = convert(core::clamp01(c.b[i]));
    if (channels == 4) out[i * channels + 3] = convert(c.a[i]);
  }
}

}  // namespace

template <int C>
inline void load_luminance_f32(const float* p, int n, float* lw) {
  for (int i = 0; i < n; ++i) {
    const float r = sanitise(p[i * C]);
    const float g = C >= 3 ? sanitise(p[i * C + 1]) : r;
    const float b = C >= 3 ? sanitise(p[i * C + 2]) : r;
    lw[i] = core::luminance(r, g, b);
  }
}

TK_ISA_INLINE_ALL void load_luminance_chunk(const void* row, int x0, int n, int channels, PixelType type, Chunk& c) {
  if (type != PixelType::f32) {  // half input: the general loader (half decode is scalar anyway)
    TK_ISA_NS::load_chunk(row, x0, n, channels, type, c);
    return;
  }
  const float* p = static_cast<const float*>(row) + static_cast<std::size_t>(x0) * channels;
  if (channels == 3) load_luminance_f32<3>(p, n, c.lw);
  else if (channels == 4) load_luminance_f32<4>(p, n, c.lw);
  else load_luminance_f32<1>(p, n, c.lw);
}

TK_ISA_INLINE_ALL void load_planar_chunk(const float* r, const float* g, const float* b, int n, Chunk& c) {
  for (int i = 0; i < n; ++i) {
    const float rv = sanitise(r[i]), gv = sanitise(g[i]), bv = sanitise(b[i]);
    c.r[i] = rv; c.g[i] = gv; c.b[i] = bv;
    c.a[i] = 1.0f;
    c.lw[i] = core::luminance(rv, gv, bv);
  }
}

TK_ISA_INLINE_ALL void load_planar_luminance_chunk(const float* r, const float* g, const float* b, int n, Chunk& c) {
  for (int i = 0; i < n; ++i) c.lw[i] = core::luminance(sanitise(r[i]), sanitise(g[i]), sanitise(b[i]));
}

TK_ISA_INLINE_ALL void load_chunk(const void* row, int x0, int n, int channels, PixelType type, Chunk& c) {
  if (type == PixelType::f32) {
    const float* p = static_cast<const float*>(row) + static_cast<std::size_t>(x0) * channels;
    if (channels == 3) load_f32<3>(p, n, c);
    else if (channels == 4) load_f32<4>(p, n, c);
    else load_f32<1>(p, n, c);
  } else {
    const std::uint16_t* p = static_cast<const std::uint16_t*>(row) + static_cast<std::size_t>(x0) * channels;
    if (channels == 3) load_f16<3>(p, n, c);
    else if (channels == 4) load_f16<4>(p, n, c);
    else load_f16<1>(p, n, c);
  }
}

namespace {
// logf(x) for finite x > 0, in plain float arithmetic that every level vectorises alike (libmvec's
// logf, which -ffast-math used here, rounds differently at each vector width): x = 2^e m with m in
// [sqrt(1/2), sqrt(2)), log m = 2 atanh(s), s = f / (2 + f), f = m - 1 (exact), the series to s^9
// (|s| < 0.172: remainder < 2e-9 relative), e ln 2 in two parts (the first product exact): within
// ~1.5 ulp of logf, unbiased, so the float64 sum and the key stay where logf puts them
// (tests/unit/test_isa_levels.cpp). Float64 arithmetic here, or a division in it, took a tenth of
// a 4K stream's CPU.
inline float log_for_stats(float x) {
  std::uint32_t b;
  std::memcpy(&b, &x, 4);
  // The mantissa into [sqrt(1/2), sqrt(2)) (0x3F3504F3 is sqrt(1/2)'s bits), e the exponent taken out.
  const std::uint32_t shifted = b - 0x3F3504F3u;
  const int e = static_cast<int>(shifted) >> 23;
  const std::uint32_t mb = b - (shifted & 0xFF800000u);
  float m;
  std::memcpy(&m, &mb, 4);
  const float f = m - 1.0f;
  const float s = f / (2.0f + f), s2 = s * s;
  float p = 1.0f / 9.0f;
  p = p * s2 + 1.0f / 7.0f;
  p = p * s2 + 1.0f / 5.0f;
  p = p * s2 + 1.0f / 3.0f;
  const float log_m = 2.0f * s + 2.0f * s * s2 * p;
  const float ef = static_cast<float>(e);
  return ef * 0.693145751953125f + (log_m + ef * 1.42860682030941723212e-6f);
}
inline std::uint32_t bits_of(float v) {
  std::uint32_t b;
  std::memcpy(&b, &v, 4);
  return b;
}
inline std::uint32_t bits_of_half(std::uint16_t h) {
  // Same classes as the float: sign to bit 31, Inf/NaN exponent to the float's.
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  const std::uint32_t mag = h & 0x7FFFu;
  const std::uint32_t fmag = mag >= 0x7C00u ? (0x7F800000u | (mag & 0x3FFu)) : mag;
  return sign | fmag;
}
template <int C, class Load>
inline void count_bad(int n, BadPixelCounts& counts, Load load) {
  std::uint32_t nan = 0, inf = 0, neg = 0;
  for (int i = 0; i < n; ++i) {
    std::uint32_t any_nan = 0, any_inf = 0, any_neg = 0;
    for (int ch = 0; ch < (C == 1 ? 1 : 3); ++ch) {
      const std::uint32_t b = load(i * C + ch);
      const std::uint32_t mag = b & 0x7FFFFFFFu;
      any_nan |= mag > 0x7F800000u;
      any_inf |= mag == 0x7F800000u;
      any_neg |= (b >> 31) & (mag != 0) & (mag <= 0x7F800000u);
    }
    nan += any_nan;
    inf += any_inf & (any_nan ^ 1u);
    neg += any_neg & ((any_nan | any_inf) ^ 1u);
  }
  counts.nan += nan;
  counts.inf += inf;
  counts.negative += neg;
}
}  // namespace

TK_ISA_INLINE_ALL void count_bad_pixels(const void* row, int x0, int n, int channels, PixelType type, BadPixelCounts& counts) {
  if (type == PixelType::f32) {
    const float* p = static_cast<const float*>(row) + static_cast<std::size_t>(x0) * channels;
    if (channels == 3) count_bad<3>(n, counts, [p](int i) { return bits_of(p[i]); });
    else if (channels == 4) count_bad<4>(n, counts, [p](int i) { return bits_of(p[i]); });
    else count_bad<1>(n, counts, [p](int i) { return bits_of(p[i]); });
  } else {
    const std::uint16_t* p = static_cast<const std::uint16_t*>(row) + static_cast<std::size_t>(x0) * channels;
    if (channels == 3) count_bad<3>(n, counts, [p](int i) { return bits_of_half(p[i]); });
    else if (channels == 4) count_bad<4>(n, counts, [p](int i) { return bits_of_half(p[i]); });
    else count_bad<1>(n, counts, [p](int i) { return bits_of_half(p[i]); });
  }
}

TK_ISA_INLINE_ALL void reduce_luminance(const Chunk& c, int n, LuminanceReduction& r) {
  // Separate loops: each is a plain reduction or map that GCC vectorises (a combined loop with
  // the min-positive select and the float64 sum did not).
  const float delta = static_cast<float>(core::kLogDelta);
  const float inf = __builtin_inff();
  alignas(64) float logs[kChunk];
  for (int i = 0; i < n; ++i) logs[i] = log_for_stats(delta + c.lw[i]);
  // float64 accumulation (issue 2: sums in double) in 8 running sums, element i into sum i % 8,
  // added in a fixed order at the end: the same sum at every vector width (a plain loop vectorised
  // only with reassociation, whose order followed the width).
  double part[8] = {};
  int i8 = 0;
  for (; i8 + 8 <= n; i8 += 8)
    for (int j = 0; j < 8; ++j) part[j] += static_cast<double>(logs[i8 + j]);
  for (int j = 0; i8 + j < n; ++j) part[j] += static_cast<double>(logs[i8 + j]);
  const double sum = ((part[0] + part[1]) + (part[2] + part[3])) + ((part[4] + part[5]) + (part[6] + part[7]));
  float mn = r.min, mx = r.max, mp = r.min_positive;
  for (int i = 0; i < n; ++i) {
    const float l = c.lw[i];
    mn = std::min(mn, l);
    mx = std::max(mx, l);
    mp = std::min(mp, l > 0.0f ? l : inf);
  }
  r.min = mn; r.max = mx; r.min_positive = mp;
  r.log_sum += sum;
}

// The frame's curve (cast to float once per chunk, as the CUDA kernels do once per block) over the
// chunk's luminances; the operator's curve inlined into each level's loop.
TK_ISA_INLINE_ALL void curve_chunk(const core::CurveSettings& s, Chunk& c, int n) {
  core::visit_curve(core::cast_curve<float>(s), [&](const auto& curve) {
    for (int i = 0; i < n; ++i) c.ld[i] = curve(c.lw[i]);
  });
}

TK_ISA_INLINE_ALL void colour_chunk(Chunk& c, int n, float saturation) {
  if (saturation == 1.0f) {
    for (int i = 0; i < n; ++i) {
      const float lw = c.lw[i], ld = c.ld[i];
      c.r[i] = core::reconstruct_channel(c.r[i], lw, ld, 1.0f);
      c.g[i] = core::reconstruct_channel(c.g[i], lw, ld, 1.0f);
      c.b[i] = core::reconstruct_channel(c.b[i], lw, ld, 1.0f);
    }
  } else {
    for (int i = 0; i < n; ++i) {
      const float lw = c.lw[i], ld = c.ld[i];
      c.r[i] = core::reconstruct_channel(c.r[i], lw, ld, saturation);
      c.g[i] = core::reconstruct_channel(c.g[i], lw, ld, saturation);
      c.b[i] = core::reconstruct_channel(c.b[i], lw, ld, saturation);
    }
  }
}

// The curves with a colour mode other than luminance (core/colour_modes.hpp): curve and colour
// together, per pixel, by the one TK_HD definition the CUDA kernels call.
TK_ISA_INLINE_ALL void mode_chunk(const core::CurveSettings& s, Chunk& c, int n, float saturation) {
  core::visit_curve(core::cast_curve<float>(s), [&](const auto& curve) {
    const int mode = core::colour_mode_of(curve);
    for (int i = 0; i < n; ++i) core::map_colour_mode(curve, mode, c.r[i], c.g[i], c.b[i], c.lw[i], saturation);
  });
}

void map_colour_chunk(const core::CurveSettings& s, Chunk& c, int n, float saturation) {
  if (core::curve_colour_mode(s) == core::kModeLuminance) {  // today's path, its bytes unchanged
    TK_ISA_NS::curve_chunk(s, c, n);
    TK_ISA_NS::colour_chunk(c, n, saturation);
  } else {
    TK_ISA_NS::mode_chunk(s, c, n, saturation);
  }
}

TK_ISA_INLINE_ALL void store_chunk(const Chunk& c, int x0, int n, int y, int channels, PixelType type, float gamma, bool dither,
                           void* out_row) {
  const std::size_t offset = static_cast<std::size_t>(x0) * channels;
  switch (type) {
    case PixelType::u8: {
      auto* out = static_cast<std::uint8_t*>(out_row) + offset;
      if (dither) store_quantised<std::uint8_t, 255u, true>(c, x0, n, y, channels, gamma, out);
      else store_quantised<std::uint8_t, 255u, false>(c, x0, n, y, channels, gamma, out);
      break;
    }
    case PixelType::u16: {
      auto* out = static_cast<std::uint16_t*>(out_row) + offset;
      if (dither) store_quantised<std::uint16_t, 65535u, true>(c, x0, n, y, channels, gamma, out);
      else store_quantised<std::uint16_t, 65535u, false>(c, x0, n, y, channels, gamma, out);
      break;
    }
    case PixelType::f32:
      store_linear(c, n, channels, static_cast<float*>(out_row) + offset, [](float v) { return v; });
      break;
    case PixelType::f16:
      store_linear(c, n, channels, static_cast<std::uint16_t*>(out_row) + offset,
                   [](float v) { return core::float_to_half(v); });
      break;
  }
}

TK_ISA_END

#if TK_ISA_PRIMARY
void load_chunk(const void* row, int x0, int n, int channels, PixelType type, Chunk& c) {
  TK_ISA_DISPATCH(load_chunk(row, x0, n, channels, type, c));
}
void load_luminance_chunk(const void* row, int x0, int n, int channels, PixelType type, Chunk& c) {
  TK_ISA_DISPATCH(load_luminance_chunk(row, x0, n, channels, type, c));
}
void load_planar_chunk(const float* r, const float* g, const float* b, int n, Chunk& c) {
  TK_ISA_DISPATCH(load_planar_chunk(r, g, b, n, c));
}
void load_planar_luminance_chunk(const float* r, const float* g, const float* b, int n, Chunk& c) {
  TK_ISA_DISPATCH(load_planar_luminance_chunk(r, g, b, n, c));
}
void count_bad_pixels(const void* row, int x0, int n, int channels, PixelType type, BadPixelCounts& counts) {
  TK_ISA_DISPATCH(count_bad_pixels(row, x0, n, channels, type, counts));
}
void reduce_luminance(const Chunk& c, int n, LuminanceReduction& r) { TK_ISA_DISPATCH(reduce_luminance(c, n, r)); }
void curve_chunk(const core::CurveSettings& s, Chunk& c, int n) { TK_ISA_DISPATCH(curve_chunk(s, c, n)); }
void colour_chunk(Chunk& c, int n, float saturation) { TK_ISA_DISPATCH(colour_chunk(c, n, saturation)); }
void map_colour_chunk(const core::CurveSettings& s, Chunk& c, int n, float saturation) {
  TK_ISA_DISPATCH(map_colour_chunk(s, c, n, saturation));
}
void store_chunk(const Chunk& c, int x0, int n, int y, int channels, PixelType type, float gamma, bool dither,
                 void* out_row) {
  TK_ISA_DISPATCH(store_chunk(c, x0, n, y, channels, type, gamma, dither, out_row));
}
#endif  // TK_ISA_PRIMARY

}  // namespace tonekit::cpu
