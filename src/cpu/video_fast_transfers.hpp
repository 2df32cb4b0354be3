// The fast video path's AVX-512 kernels, 16 values at a time: the two transfer curves (PQ EOTF
// in, BT.709 OETF out) and the encode's 8-bit quantisation. perf on the fast path before this (4K, 2 cores) put the two curves, each a pow
// spelled as exp2(b log2 a), at ~40 % of a frame's CPU.
// - PQ EOTF: the reference decoders' own table and interpolation (core::pq_eotf_table) through
//   gathers (of (T[i], T[i + 1]) pairs, one 64-bit element each: its share of a 4K stream's
//   samples 12 -> 9 %): the reference's values bit for bit, at the cost of the polynomial this replaced
//   (measured: 24 4K frames 2.05 s of user CPU either way; that polynomial, 32 segments of degree
//   5 plus octave segments for the dark signals, was within 3e-7 of the curve but not of the
//   table, and the darkest values feed the smallest positive luminance, which sets histeq's range
//   and Reinhard's auto key).
// - BT.709 OETF: a piecewise polynomial whose coefficients sit in registers: a segment's index
//   picks them with one permute each (vpermt2ps over 32 entries), then Horner. The linear part
//   4.5 L below 0.018 as is; above, quarter-octave segments of L in [2^-6, 1] (24, picked by L's
//   exponent and two leading mantissa bits; the first starts at 0.018), degree 4, fitted once at
//   first use from core::bt709_oetf<double> (Chebyshev interpolation); worst relative error
//   1.3e-7 (< 0.0001 of an 8-bit code). The other levels evaluate the same pieces
//   (bt709_oetf_piecewise, bt709_oetf_avx2): every level gives the same floats. Gathers from the reference's table instead cost 5 ms of
//   CPU more per 4K frame for no fewer flipped codes.
// Tests: tests/unit/test_stream_transfers.cpp.
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>

namespace tonekit::cpu {

// True when the AVX-512 kernels below run: the chosen level (cpu/isa_level.hpp) is v4.
bool fast_transfers_avx512();

// The BT.709 OETF's pieces (below): segment s covers L in [2^e (1 + j/4), 2^e (1 + (j+1)/4)],
// s = 4 (e + 6) + j (the first from 0.018); coeff[k][s] multiplies t^k, t = L a[s] + b[s].
struct OetfPieces {
  static constexpr int kDegree = 4;
  static constexpr int kFirstOctave = -6;
  static constexpr int kSegments = 4 * -kFirstOctave;
  static constexpr float kLinearEnd = 0.018f;  // BT.709: 4.5 L below
  const float* coeff[kDegree + 1];
  const float* a;
  const float* b;
};
const OetfPieces& bt709_oetf_pieces();

// bt709_oetf_avx512's lane, op for op (its min/max operand order, fma where it has fma): the
// other levels' loops give its floats bit for bit (std::fma is exact at every level; without
// FMA hardware libm computes it).
inline float bt709_oetf_piecewise(float x, const OetfPieces& p) {
  float l = 0.0f > x ? 0.0f : x;  // _mm512_max_ps(0, x)
  l = 1.0f < l ? 1.0f : l;        // _mm512_min_ps(1, l)
  std::uint32_t bits;
  std::memcpy(&bits, &l, 4);
  int idx = static_cast<int>(bits >> 21) - 4 * (127 + OetfPieces::kFirstOctave);
  idx = idx > 0 ? idx : 0;
  idx = idx < OetfPieces::kSegments - 1 ? idx : OetfPieces::kSegments - 1;
  const float t = std::fma(l, p.a[idx], p.b[idx]);
  float r = p.coeff[OetfPieces::kDegree][idx];
  for (int k = OetfPieces::kDegree - 1; k >= 0; --k) r = std::fma(r, t, p.coeff[k][idx]);
  return l < OetfPieces::kLinearEnd ? l * 4.5f : r;
}
// bt709_oetf_avx512 and pq_eotf_avx512 with AVX2 and FMA, 8 lanes (x86-64-v3): the same floats.
void bt709_oetf_avx2(float* v, int n);
void pq_eotf_avx2(float* v, int n, float scale);

// In place over n values: v = core::pq_eotf_table(table, v) * scale (bit for bit). AVX-512 only.
void pq_eotf_avx512(float* v, int n, float scale);
// In place over n values: v = bt709_oetf(clamp(v, 0, 1)) within 1.3e-7 relative. AVX-512 only.
void bt709_oetf_avx512(float* v, int n);

// The encode's quantisation (core::luma_code8, chroma_codes8, op for op, no contraction), 16
// pixels or blocks at a time: GCC left both loops scalar ("control flow in loop"), 18 % of a 4K
// frame's CPU. luma: display R'G'B' planes (after the OETF) -> Y' codes as whole floats, and each
// pixel's Cb, Cr; `noise` is the Y' dither per pixel (zeros without dither).
void luma_codes_avx512(const float* r, const float* g, const float* b, const float* noise, int n, float* luma_code,
                       float* cb, float* cr);
// chroma: the Cb, Cr codes of the leading multiple of 16 of `blocks` two-column blocks (their
// pixels' Cb, Cr in the top and bottom rows; `two_rows` false: the top row only); returns how many
// it did (the caller does the rest).
int chroma_codes_avx512(const float* cb_top, const float* cb_bottom, const float* cr_top, const float* cr_bottom,
                        int blocks, bool two_rows, const float* ncb, const float* ncr, float* cb_code, float* cr_code);

}  // namespace tonekit::cpu
