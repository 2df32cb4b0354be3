#include "cpu/video_fast_transfers.hpp"

// GCC 12 warns inside its own avx512fintrin.h (the _mm512_undefined_ps of the unmasked
// intrinsics, "__Y may be used uninitialized"): a false positive, silenced for this file only.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "core/video_colour.hpp"
#include "cpu/isa_level.hpp"

namespace tonekit::cpu {
namespace {

constexpr int kSegments = 32;  // one vpermt2ps table: two registers of 16 floats
constexpr int kOetfDegree = OetfPieces::kDegree;
constexpr int kOetfFirstOctave = OetfPieces::kFirstOctave;  // segments cover L in [2^-6, 1]; the linear part ends at 0.018
constexpr int kOetfSegments = OetfPieces::kSegments;
constexpr double kOetfLinearEnd = 0.018;  // BT.709: 4.5 L below
static_assert(static_cast<float>(kOetfLinearEnd) == OetfPieces::kLinearEnd);

// coeff[k][s]: the coefficient of t^k in segment s, t in [-1, 1] across the segment.
template <int D>
struct Piecewise {
  alignas(64) float coeff[D + 1][kSegments] = {};
};

// The degree-D polynomial in t (monomial coefficients, lowest first) interpolating f at the D + 1
// Chebyshev nodes of [lo, hi] mapped to t in [-1, 1]: Chebyshev coefficients by the discrete
// cosine sums, then T_j expanded into powers of t.
template <int D, class F>
std::array<double, D + 1> chebyshev_fit(F f, double lo, double hi) {
  constexpr int n = D + 1;
  std::array<double, n> values{}, cheb{};
  for (int k = 0; k < n; ++k) {
    const double t = std::cos(M_PI * (k + 0.5) / n);
    values[static_cast<std::size_t>(k)] = f(lo + (t + 1.0) * 0.5 * (hi - lo));
  }
  for (int j = 0; j < n; ++j) {
    double s = 0.0;
    for (int k = 0; k < n; ++k) s += values[static_cast<std::size_t>(k)] * std::cos(M_PI * j * (k + 0.5) / n);
    cheb[static_cast<std::size_t>(j)] = s * (j == 0 ? 1.0 : 2.0) / n;
  }
  // T_0 = 1, T_1 = t, T_{j+1} = 2t T_j - T_{j-1}, as monomial coefficient rows.
  std::array<std::array<double, n>, n> T{};
  T[0][0] = 1.0;
  if (n > 1) T[1][1] = 1.0;
  for (int j = 1; j + 1 < n; ++j)
    for (int p = 0; p < n; ++p)
      T[static_cast<std::size_t>(j + 1)][static_cast<std::size_t>(p)] =
          (p > 0 ? 2.0 * T[static_cast<std::size_t>(j)][static_cast<std::size_t>(p - 1)] : 0.0) -
          T[static_cast<std::size_t>(j - 1)][static_cast<std::size_t>(p)];
  std::array<double, n> mono{};
  for (int j = 0; j < n; ++j)
    for (int p = 0; p < n; ++p)
      mono[static_cast<std::size_t>(p)] += cheb[static_cast<std::size_t>(j)] * T[static_cast<std::size_t>(j)][static_cast<std::size_t>(p)];
  return mono;
}

struct Tables {
  Piecewise<kOetfDegree> oetf;  // segment s: L in [2^e (1 + j/4), 2^e (1 + (j+1)/4)], s = 4 (e + 6) + j,
                                // the first one from 0.018
  alignas(64) float oetf_a[kSegments] = {}, oetf_b[kSegments] = {};  // t = L a + b
  Tables() {
    for (int s = 0; s < kOetfSegments; ++s) {
      const double quarter = std::ldexp(1.0, kOetfFirstOctave + s / 4) / 4.0;
      // The first segment starts where the power curve does (below 0.018 the encoders take the
      // linear part, so the fit must not see it).
      const double lo = std::max(kOetfLinearEnd, std::ldexp(1.0, kOetfFirstOctave + s / 4) + (s % 4) * quarter);
      const double hi = std::ldexp(1.0, kOetfFirstOctave + s / 4) + (s % 4 + 1) * quarter;
      const auto c = chebyshev_fit<kOetfDegree>([](double l) { return core::bt709_oetf(l); }, lo, hi);
      for (int k = 0; k <= kOetfDegree; ++k) oetf.coeff[k][s] = static_cast<float>(c[static_cast<std::size_t>(k)]);
      oetf_a[s] = static_cast<float>(2.0 / (hi - lo));
      oetf_b[s] = static_cast<float>(-2.0 * lo / (hi - lo) - 1.0);
    }
  }
};

const Tables& tables() {
  static const Tables t;
  return t;
}

#define TK_AVX512 __attribute__((target("avx512f")))

// A 32-entry table held in two registers (loaded once per call, outside the pixel loop: the
// stores through the output pointer would otherwise force a reload per vector).
struct Reg32 {
  __m512 lo, hi;
};
TK_AVX512 inline Reg32 load32(const float* table) { return {_mm512_load_ps(table), _mm512_load_ps(table + 16)}; }
// Entry idx (0..31) of each lane.
TK_AVX512 inline __m512 pick(const Reg32& r, __m512i idx) { return _mm512_permutex2var_ps(r.lo, idx, r.hi); }

template <int D>
struct PiecewiseRegs {
  Reg32 c[D + 1];
};
template <int D>
TK_AVX512 inline PiecewiseRegs<D> load_piecewise(const Piecewise<D>& p) {
  PiecewiseRegs<D> r;
  for (int k = 0; k <= D; ++k) r.c[k] = load32(p.coeff[k]);
  return r;
}
template <int D>
TK_AVX512 inline __m512 horner(const PiecewiseRegs<D>& p, __m512i idx, __m512 t) {
  __m512 r = pick(p.c[D], idx);
  for (int k = D - 1; k >= 0; --k) r = _mm512_fmadd_ps(r, t, pick(p.c[k], idx));
  return r;
}

// Lanes 0, 2, ..., 30 of a two-register permute: the even elements of 32 consecutive values.
TK_AVX512 inline __m512i even_lanes() { return _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30); }

TK_AVX512 inline __m512 clamp01_v(__m512 v) {
  return _mm512_min_ps(_mm512_set1_ps(1.0f), _mm512_max_ps(_mm512_setzero_ps(), v));
}

struct OetfRegs {
  PiecewiseRegs<kOetfDegree> poly;
  Reg32 a, b;
};
TK_AVX512 inline __m512 oetf_v(const OetfRegs& tb, __m512 x) {
  const __m512 l = clamp01_v(x);
  // Exponent and two leading mantissa bits: L in [2^-6, 1) -> 484 .. 507.
  const __m512i key = _mm512_srli_epi32(_mm512_castps_si512(l), 21);
  const __m512i idx = _mm512_min_epi32(_mm512_max_epi32(_mm512_sub_epi32(key, _mm512_set1_epi32(4 * (127 + kOetfFirstOctave))),
                                                        _mm512_setzero_si512()),
                                       _mm512_set1_epi32(kOetfSegments - 1));
  const __m512 t = _mm512_fmadd_ps(l, pick(tb.a, idx), pick(tb.b, idx));
  const __m512 curve = horner(tb.poly, idx, t);
  const __mmask16 linear = _mm512_cmp_ps_mask(l, _mm512_set1_ps(static_cast<float>(kOetfLinearEnd)), _CMP_LT_OQ);
  return _mm512_mask_mov_ps(curve, linear, _mm512_mul_ps(l, _mm512_set1_ps(4.5f)));
}

// core::pq_eotf_table (the reference decoders' table and linear interpolation) times `scale`,
// 16 lanes, the interpolation in the reference's order (no contraction), so the values are the
// reference's bit for bit. The table is gathered as (T[i], T[i + 1]) pairs, 8 bytes each: one
// 64-bit element brings both ends of an interval, half the elements of two 32-bit gathers.
struct PqPairs {
  alignas(64) std::uint64_t pair[core::kPqTableIntervals];
  PqPairs() {
    const float* t = core::pq_eotf_table_host();
    for (int i = 0; i < core::kPqTableIntervals; ++i) {
      std::uint32_t lo, hi;
      std::memcpy(&lo, t + i, 4);
      std::memcpy(&hi, t + i + 1, 4);
      pair[i] = static_cast<std::uint64_t>(hi) << 32 | lo;
    }
  }
};
const PqPairs& pq_pairs() {
  static const PqPairs p;
  return p;
}

TK_AVX512 inline __m512 pq_table_v(const std::uint64_t* pairs, __m512 x, __m512 scale) {
  const __m512 sgn = _mm512_min_ps(_mm512_max_ps(x, _mm512_setzero_ps()), _mm512_set1_ps(1.0f));
  const __m512 xs = _mm512_mul_ps(sgn, _mm512_set1_ps(static_cast<float>(core::kPqTableIntervals)));
  const __m512i i = _mm512_min_epi32(_mm512_cvttps_epi32(xs), _mm512_set1_epi32(core::kPqTableIntervals - 1));
  const __m512 f = _mm512_sub_ps(xs, _mm512_cvtepi32_ps(i));
  const __m512 a = _mm512_castsi512_ps(_mm512_i32gather_epi64(_mm512_castsi512_si256(i), pairs, 8));
  const __m512 b = _mm512_castsi512_ps(_mm512_i32gather_epi64(_mm512_extracti64x4_epi64(i, 1), pairs, 8));
  const __m512i even = even_lanes();
  const __m512 lo = _mm512_permutex2var_ps(a, even, b);
  const __m512 hi = _mm512_permutex2var_ps(a, _mm512_add_epi32(even, _mm512_set1_epi32(1)), b);
  return _mm512_mul_ps(_mm512_add_ps(lo, _mm512_mul_ps(f, _mm512_sub_ps(hi, lo))), scale);
}

}  // namespace

bool fast_transfers_avx512() { return isa_level() == IsaLevel::v4; }

const OetfPieces& bt709_oetf_pieces() {
  static const OetfPieces p = [] {
    const Tables& t = tables();
    OetfPieces q{};
    for (int k = 0; k <= kOetfDegree; ++k) q.coeff[k] = t.oetf.coeff[k];
    q.a = t.oetf_a;
    q.b = t.oetf_b;
    return q;
  }();
  return p;
}

#define TK_AVX2 __attribute__((target("avx2,fma")))

namespace {
// A 24-entry table (kOetfSegments) in three registers of 8.
struct Reg24 {
  __m256 r0, r1, r2;
};
TK_AVX2 inline Reg24 load24(const float* table) {
  return {_mm256_load_ps(table), _mm256_load_ps(table + 8), _mm256_load_ps(table + 16)};
}
// Entry idx (0..23) of each lane: a permute of each register, two blends (`hi1`: idx >= 8,
// `hi2`: idx >= 16), cheaper than a gather on the 2-core EPYC (the OETF 22 -> 13 % of a 4K
// frame's CPU at v3).
TK_AVX2 inline __m256 pick24(const Reg24& t, __m256i idx, __m256 hi1, __m256 hi2) {
  const __m256 a = _mm256_permutevar8x32_ps(t.r0, idx), b = _mm256_permutevar8x32_ps(t.r1, idx),
               c = _mm256_permutevar8x32_ps(t.r2, idx);
  return _mm256_blendv_ps(_mm256_blendv_ps(a, b, hi1), c, hi2);
}
struct OetfAvx2 {
  Reg24 coeff[kOetfDegree + 1], a, b;
};
// oetf_v in 8 lanes, op for op.
TK_AVX2 inline __m256 oetf_avx2(const OetfAvx2& k, __m256 x) {
  const __m256 l = _mm256_min_ps(_mm256_set1_ps(1.0f), _mm256_max_ps(_mm256_setzero_ps(), x));
  const __m256i key = _mm256_srli_epi32(_mm256_castps_si256(l), 21);
  const __m256i idx = _mm256_min_epi32(
      _mm256_max_epi32(_mm256_sub_epi32(key, _mm256_set1_epi32(4 * (127 + kOetfFirstOctave))), _mm256_setzero_si256()),
      _mm256_set1_epi32(kOetfSegments - 1));
  const __m256 hi1 = _mm256_castsi256_ps(_mm256_cmpgt_epi32(idx, _mm256_set1_epi32(7)));
  const __m256 hi2 = _mm256_castsi256_ps(_mm256_cmpgt_epi32(idx, _mm256_set1_epi32(15)));
  const __m256 t = _mm256_fmadd_ps(l, pick24(k.a, idx, hi1, hi2), pick24(k.b, idx, hi1, hi2));
  __m256 r = pick24(k.coeff[kOetfDegree], idx, hi1, hi2);
  for (int d = kOetfDegree - 1; d >= 0; --d) r = _mm256_fmadd_ps(r, t, pick24(k.coeff[d], idx, hi1, hi2));
  const __m256 linear = _mm256_cmp_ps(l, _mm256_set1_ps(static_cast<float>(kOetfLinearEnd)), _CMP_LT_OQ);
  return _mm256_blendv_ps(r, _mm256_mul_ps(l, _mm256_set1_ps(4.5f)), linear);
}
// A shuffle's [a0 a2 b0 b2 | a4 a6 b4 b6] in order: 64-bit blocks 0, 2, 1, 3.
TK_AVX2 inline __m256 order(__m256 v) {
  return _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(v), _MM_SHUFFLE(3, 1, 2, 0)));
}
// pq_table_v in 8 lanes: the reference's interpolation, op for op; the (T[i], T[i + 1]) pairs by
// two 4-lane 64-bit gathers (half the elements of two 8-lane float gathers: 17 -> 11 % of a 4K
// frame's CPU at v3), split into the two ends by shuffles.
TK_AVX2 inline __m256 pq_table_avx2(const std::uint64_t* pairs, __m256 x, __m256 scale) {
  const __m256 sgn = _mm256_min_ps(_mm256_max_ps(x, _mm256_setzero_ps()), _mm256_set1_ps(1.0f));
  const __m256 xs = _mm256_mul_ps(sgn, _mm256_set1_ps(static_cast<float>(core::kPqTableIntervals)));
  const __m256i i = _mm256_min_epi32(_mm256_cvttps_epi32(xs), _mm256_set1_epi32(core::kPqTableIntervals - 1));
  const __m256 f = _mm256_sub_ps(xs, _mm256_cvtepi32_ps(i));
  const auto* base = reinterpret_cast<const long long*>(pairs);
  const __m256 a = _mm256_castsi256_ps(_mm256_i32gather_epi64(base, _mm256_castsi256_si128(i), 8));
  const __m256 b = _mm256_castsi256_ps(_mm256_i32gather_epi64(base, _mm256_extracti128_si256(i, 1), 8));
  const __m256 lo = order(_mm256_shuffle_ps(a, b, _MM_SHUFFLE(2, 0, 2, 0)));
  const __m256 hi = order(_mm256_shuffle_ps(a, b, _MM_SHUFFLE(3, 1, 3, 1)));
  return _mm256_mul_ps(_mm256_add_ps(lo, _mm256_mul_ps(f, _mm256_sub_ps(hi, lo))), scale);
}
}  // namespace

TK_AVX2 void bt709_oetf_avx2(float* v, int n) {
  const Tables& tb = tables();
  OetfAvx2 k;
  for (int d = 0; d <= kOetfDegree; ++d) k.coeff[d] = load24(tb.oetf.coeff[d]);
  k.a = load24(tb.oetf_a);
  k.b = load24(tb.oetf_b);
  int i = 0;
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(v + i, oetf_avx2(k, _mm256_loadu_ps(v + i)));
  if (i < n) {
    alignas(32) float tail[8] = {};
    std::memcpy(tail, v + i, sizeof(float) * static_cast<std::size_t>(n - i));
    _mm256_store_ps(tail, oetf_avx2(k, _mm256_load_ps(tail)));
    std::memcpy(v + i, tail, sizeof(float) * static_cast<std::size_t>(n - i));
  }
}

TK_AVX2 void pq_eotf_avx2(float* v, int n, float scale) {
  const float* table = core::pq_eotf_table_host();
  const std::uint64_t* pairs = pq_pairs().pair;
  const __m256 s = _mm256_set1_ps(scale);
  int i = 0;
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(v + i, pq_table_avx2(pairs, _mm256_loadu_ps(v + i), s));
  for (; i < n; ++i) v[i] = core::pq_eotf_table(table, v[i]) * scale;
}

TK_AVX512 void pq_eotf_avx512(float* v, int n, float scale) {
  const std::uint64_t* table = pq_pairs().pair;
  const __m512 s = _mm512_set1_ps(scale);
  int i = 0;
  for (; i + 16 <= n; i += 16) _mm512_storeu_ps(v + i, pq_table_v(table, _mm512_loadu_ps(v + i), s));
  if (i < n) {
    const __mmask16 m = static_cast<__mmask16>((1u << (n - i)) - 1u);
    _mm512_mask_storeu_ps(v + i, m, pq_table_v(table, _mm512_maskz_loadu_ps(m, v + i), s));
  }
}

TK_AVX512 void bt709_oetf_avx512(float* v, int n) {
  const Tables& t = tables();
  const OetfRegs tb{load_piecewise(t.oetf), load32(t.oetf_a), load32(t.oetf_b)};
  int i = 0;
  for (; i + 16 <= n; i += 16) _mm512_storeu_ps(v + i, oetf_v(tb, _mm512_loadu_ps(v + i)));
  if (i < n) {
    const __mmask16 m = static_cast<__mmask16>((1u << (n - i)) - 1u);
    _mm512_mask_storeu_ps(v + i, m, oetf_v(tb, _mm512_maskz_loadu_ps(m, v + i)));
  }
}

// ---- 8-bit Y'CbCr codes (core::luma_code8 / chroma_codes8's arithmetic, op for op) ----

namespace {

// A core constant in every lane, as T(constant) rounds it for float.
TK_AVX512 inline __m512 splat(double v) { return _mm512_set1_ps(static_cast<float>(v)); }

// core::quantise_code8 with the noise already zero where there is no dither.
TK_AVX512 inline __m512 quantise_v(__m512 code, double lo, double hi, __m512 noise) {
  const __m512 vlo = splat(lo), vhi = splat(hi);
  // core::quantise_code8's interior: kDitherEndMargin of the range inside each end.
  const float margin = static_cast<float>(hi - lo) * static_cast<float>(core::kDitherEndMargin);
  const __mmask16 interior = _mm512_cmp_ps_mask(code, _mm512_set1_ps(static_cast<float>(lo) + margin), _CMP_GT_OQ) &
                             _mm512_cmp_ps_mask(code, _mm512_set1_ps(static_cast<float>(hi) - margin), _CMP_LT_OQ);
  const __m512 v = _mm512_mask_add_ps(code, interior, code, noise);
  const __m512 r = _mm512_roundscale_ps(_mm512_add_ps(v, _mm512_set1_ps(0.5f)), _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
  return _mm512_min_ps(_mm512_max_ps(r, vlo), vhi);
}

TK_AVX512 inline void luma_v(const float* r, const float* g, const float* b, const float* noise, float* luma_code,
                             float* cb, float* cr, __mmask16 m) {
  const __m512 vr = _mm512_maskz_loadu_ps(m, r), vg = _mm512_maskz_loadu_ps(m, g), vb = _mm512_maskz_loadu_ps(m, b);
  const __m512 y = _mm512_add_ps(_mm512_add_ps(_mm512_mul_ps(splat(core::kBt709Kr), vr), _mm512_mul_ps(splat(core::kBt709Kg), vg)),
                                 _mm512_mul_ps(splat(core::kBt709Kb), vb));
  _mm512_mask_storeu_ps(cb, m, _mm512_mul_ps(_mm512_sub_ps(vb, y), splat(core::kBt709CbScale)));
  _mm512_mask_storeu_ps(cr, m, _mm512_mul_ps(_mm512_sub_ps(vr, y), splat(core::kBt709CrScale)));
  const __m512 code = _mm512_add_ps(splat(core::kLumaCode8Black), _mm512_mul_ps(splat(core::kLumaCode8Range), clamp01_v(y)));
  _mm512_mask_storeu_ps(luma_code, m,
                        quantise_v(code, core::kLumaCode8Black, core::kLumaCode8White, _mm512_maskz_loadu_ps(m, noise)));
}

// The 16 4:2:0 blocks whose columns start at top[0] (32 values a row): v[2j] + v[2j + 1] of the
// top row, then (with two rows) + v01, + v11 in core::block_mean's order.
TK_AVX512 inline __m512 pair_sum_at(const float* top, const float* bottom, bool two_rows, const __m512i& even,
                                    const __m512i& odd) {
  const __m512 t0 = _mm512_loadu_ps(top), t1 = _mm512_loadu_ps(top + 16);
  __m512 v = _mm512_add_ps(_mm512_permutex2var_ps(t0, even, t1), _mm512_permutex2var_ps(t0, odd, t1));
  if (two_rows) {  // core::block_mean's order: ((v00 + v10) + v01) + v11
    const __m512 b0 = _mm512_loadu_ps(bottom), b1 = _mm512_loadu_ps(bottom + 16);
    v = _mm512_add_ps(_mm512_add_ps(v, _mm512_permutex2var_ps(b0, even, b1)), _mm512_permutex2var_ps(b0, odd, b1));
  }
  return v;
}
TK_AVX512 inline __m512 chroma_code_v(__m512 sum, float scale, __m512 noise) {
  const __m512 c = _mm512_min_ps(_mm512_max_ps(_mm512_mul_ps(sum, _mm512_set1_ps(scale)), _mm512_set1_ps(-0.5f)),
                                 _mm512_set1_ps(0.5f));
  return quantise_v(_mm512_add_ps(splat(core::kChromaCode8Mid), _mm512_mul_ps(splat(core::kChromaCode8Range), c)),
                    core::kChromaCode8Min, core::kChromaCode8Max, noise);
}

}  // namespace

TK_AVX512 int chroma_codes_avx512(const float* cb_top, const float* cb_bottom, const float* cr_top, const float* cr_bottom,
                                  int blocks, bool two_rows, const float* ncb, const float* ncr, float* cb_code,
                                  float* cr_code) {
  const __m512i even = even_lanes();
  const __m512i odd = _mm512_add_epi32(even, _mm512_set1_epi32(1));
  const float scale = two_rows ? 0.25f : 0.5f;
  int bx = 0;
  for (; bx + 16 <= blocks; bx += 16) {
    const int x0 = 2 * bx;
    _mm512_storeu_ps(cb_code + bx, chroma_code_v(pair_sum_at(cb_top + x0, cb_bottom + x0, two_rows, even, odd), scale,
                                                 _mm512_loadu_ps(ncb + bx)));
    _mm512_storeu_ps(cr_code + bx, chroma_code_v(pair_sum_at(cr_top + x0, cr_bottom + x0, two_rows, even, odd), scale,
                                                 _mm512_loadu_ps(ncr + bx)));
  }
  return bx;
}

TK_AVX512 void luma_codes_avx512(const float* r, const float* g, const float* b, const float* noise, int n,
                                 float* luma_code, float* cb, float* cr) {
  int i = 0;
  for (; i + 16 <= n; i += 16) luma_v(r + i, g + i, b + i, noise + i, luma_code + i, cb + i, cr + i, 0xFFFF);
  if (i < n) luma_v(r + i, g + i, b + i, noise + i, luma_code + i, cb + i, cr + i, static_cast<__mmask16>((1u << (n - i)) - 1u));
}

}  // namespace tonekit::cpu
