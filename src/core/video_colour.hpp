// Video colour maths shared by the CPU reference and the CUDA kernels (issue 14 item 2): the
// BT.2100 transfers (PQ, HLG and its OOTF), BT.2020 -> BT.709 primaries with the gamut policy of
// tonekit/video.hpp, Y'CbCr <-> R'G'B' (BT.2020 NCL, BT.709; limited / full range), 4:2:0 chroma
// upsampling weights, the BT.709 OETF and the 8-bit 4:2:0 output quantisation. One definition
// for both backends: the maths is TK_HD, templated over float / double; the per-pixel pieces both
// backends call as is (linearise_pixel, display_pixel_ycbcr, block_mean, luma_code8,
// chroma_codes8) work in float. make_video_linearise and bt_rgb_to_xyz are host set-up.
#pragma once
#include <cstdint>

#include "core/colour.hpp"
#include "core/gamut.hpp"
#include "core/hd.hpp"
#include "core/portable_math.hpp"
#include "tonekit/video.hpp"

namespace tonekit::core {

// ---------------------------------------------------------------------------------------------
// PQ: SMPTE ST 2084 = ITU-R BT.2100-2 Table 4. Constants are the exact rationals of the standard.
constexpr double kPqM1 = 2610.0 / 16384.0;        // 0.1593017578125
constexpr double kPqM2 = 2523.0 / 4096.0 * 128.0;  // 78.84375
constexpr double kPqC1 = 3424.0 / 4096.0;          // 0.8359375 = c3 - c2 + 1
constexpr double kPqC2 = 2413.0 / 4096.0 * 32.0;   // 18.8515625
constexpr double kPqC3 = 2392.0 / 4096.0 * 32.0;   // 18.6875
constexpr double kPqPeak = 10000.0;                // cd/m^2 at signal 1.0

// EOTF: non-linear signal E' in [0, 1] (clamped) -> display light F_D in cd/m^2 (BT.2100 Table 4,
// "EOTF": F_D = 10000 (max(E'^(1/m2) - c1, 0) / (c2 - c3 E'^(1/m2)))^(1/m1)).
template <class T>
TK_HD T pq_eotf(T signal) {
  const T e = video_pow(clamp01(signal), T(1.0 / kPqM2));
  const T num = e - T(kPqC1);
  const T ratio = (num > T(0) ? num : T(0)) / add_rn(T(kPqC2), -mul_rn(T(kPqC3), e));  // hd.hpp: unfused
  return T(kPqPeak) * video_pow(ratio, T(1.0 / kPqM1));
}

// The EOTF as the decoders evaluate it: a table of pq_eotf<double> at kPqTableIntervals + 1
// equally spaced signals, rounded to float, and linear interpolation between its entries in
// float (separate multiply and adds: both backends build without contraction, so they round
// alike). Against the exact curve: within 9e-6 relative above 0.01 cd/m^2 and 3e-7 cd/m^2 below
// (checked at 4e6 signals when it was chosen; test_video_colour.cpp checks it), against the
// portable float pows' ~1e-6, and far below one 10-bit code (~0.4 % of light near 100 cd/m^2).
// Two pows of ~40 instructions per channel became two loads: the device decode stage was 0.27 ms
// at 4K (docs/performance.md, Video path).
constexpr int kPqTableIntervals = 8192;
// A transfer table's value at position x in [0, intervals] (table: intervals + 1 entries),
// interpolated linearly in float as both backends round it (no contraction).
TK_HD float table_lerp(const float* table, float x, int intervals) {
  int i = static_cast<int>(x);
  i = i < intervals - 1 ? i : intervals - 1;
  const float f = x - static_cast<float>(i);
  const float lo = table[i], hi = table[i + 1];
  return lo + f * (hi - lo);
}
// The same tables as (value, step to the next value) pairs for the device: entry i holds T[i] and
// T[i + 1] - T[i] rounded to float, the difference table_lerp rounds, so a lookup gives
// table_lerp's value bit for bit with one 8-byte load instead of two (pq_pairs_host,
// oetf_pairs_host build them from the tables; the device keeps a copy).
struct alignas(8) LerpPair {
  float lo, step;
};
TK_HD float table_lerp(const LerpPair* pairs, float x, int intervals) {
  int i = static_cast<int>(x);
  i = i < intervals - 1 ? i : intervals - 1;
  const float f = x - static_cast<float>(i);
  const LerpPair p = pairs[i];
  return p.lo + f * p.step;
}

template <class Table>
TK_HD float pq_eotf_table(const Table* table, float signal) {
#if defined(__CUDA_ARCH__)
  // Two min/max instead of two compare-and-selects: the same value for every input (fmaxf
  // returns 0 for a NaN; a -0 gives the table's first entry either way).
  const float s = fminf(fmaxf(signal, 0.0f), 1.0f);
#else
  const float s = signal > 0.0f ? (signal < 1.0f ? signal : 1.0f) : 0.0f;
#endif
  return table_lerp(table, s * static_cast<float>(kPqTableIntervals), kPqTableIntervals);  // exact: a power of two
}
// The table (host memory, built once, thread-safe): kPqTableIntervals + 1 floats; as pairs,
// kPqTableIntervals of them.
const float* pq_eotf_table_host();
const LerpPair* pq_eotf_pairs_host();

// Inverse EOTF: display light in cd/m^2 (clamped to [0, 10000]) -> E' (BT.2100 Table 4,
// "inverse EOTF": E' = ((c1 + c2 Y^m1) / (1 + c3 Y^m1))^m2, Y = F_D / 10000).
template <class T>
TK_HD T pq_inverse_eotf(T cd_m2) {
  const T y = video_pow(clamp01(cd_m2 / T(kPqPeak)), T(kPqM1));
  return video_pow(add_rn(T(kPqC1), mul_rn(T(kPqC2), y)) / add_rn(T(1), mul_rn(T(kPqC3), y)), T(kPqM2));
}

// ---------------------------------------------------------------------------------------------
// HLG: ITU-R BT.2100-2 Table 5. a = 0.17883277, b = 1 - 4a, c = 0.5 - a ln(4a).
constexpr double kHlgA = 0.17883277;
constexpr double kHlgB = 0.28466892;
constexpr double kHlgC = 0.55991073;

// OETF: scene light E in [0, 1] (clamped) -> E' (Table 5: sqrt(3E) for E <= 1/12, else
// a ln(12E - b) + c).
template <class T>
TK_HD T hlg_oetf(T scene) {
  const T e = clamp01(scene);
  if (e <= T(1.0 / 12.0)) return tk_sqrt(T(3) * e);
  return T(kHlgA) * video_log(T(12) * e - T(kHlgB)) + T(kHlgC);
}

// Inverse OETF: E' in [0, 1] (clamped) -> E in [0, 1] (Table 5: E'^2 / 3 for E' <= 1/2, else
// (exp((E' - c) / a) + b) / 12).
template <class T>
TK_HD T hlg_inverse_oetf(T signal) {
  const T s = clamp01(signal);
  if (s <= T(0.5)) return s * s * T(1.0 / 3.0);
  return (video_exp((s - T(kHlgC)) * T(1.0 / kHlgA)) + T(kHlgB)) * T(1.0 / 12.0);
}

// System gamma of the HLG OOTF for nominal peak L_W cd/m^2 (BT.2100-2 Table 5, OOTF notes:
// gamma = 1.2 + 0.42 log10(L_W / 1000); stated for L_W in [400, 2000], used as is outside it).
template <class T>
TK_HD T hlg_system_gamma(T peak_cd_m2) {
  return T(1.2) + T(0.42) * tk_log10(peak_cd_m2 * T(1.0 / 1000.0));
}

// Luminance weights of the OOTF's Y_S: BT.2100 Table 5 uses the BT.2020 ones
// (0.2627, 0.6780, 0.0593); for BT.709 primaries (outside BT.2100) those of BT.709.
template <class T>
struct LumaWeights {
  T r, g, b;
};
template <class T>
TK_HD LumaWeights<T> luma_weights(bool bt2020) {
  return bt2020 ? LumaWeights<T>{T(0.2627), T(0.6780), T(0.0593)} : LumaWeights<T>{T(0.2126), T(0.7152), T(0.0722)};
}

// OOTF (BT.2100 Table 5, with L_B = 0 so beta = 0): F_D = alpha Y_S^(gamma - 1) E per channel,
// alpha = L_W, so Y_D = alpha Y_S^gamma. Scene light in [0, 1] -> display light in cd/m^2, in place.
// Black (Y_S <= 0) stays black (gamma < 1 for L_W < ~578 would otherwise give 0 * inf).
template <class T>
TK_HD void hlg_ootf(T& r, T& g, T& b, T peak_cd_m2, T gamma, LumaWeights<T> w) {
  const T ys = w.r * r + w.g * g + w.b * b;
  const T scale = ys > T(0) ? peak_cd_m2 * video_pow(ys, gamma - T(1)) : T(0);
  r *= scale;
  g *= scale;
  b *= scale;
}

// ---------------------------------------------------------------------------------------------
// BT.2020 -> BT.709 in linear light: M = RGB_to_XYZ(709)^-1 * RGB_to_XYZ(2020), both for D65
// (SMPTE RP 177 derivation from the primaries of BT.2020 Table 3 and BT.709 Part 1 item 1.3).
// The literals below are that product to 15 digits (exact rationals); tests/unit/test_video_colour
// derives it again with bt_rgb_to_xyz and checks it against ITU-R BT.2407 Eq 1 / BT.2087
// (1.6605 -0.5876 -0.0728 / -0.1246 1.1329 -0.0083 / -0.0182 -0.1006 1.1187).
template <class T>
TK_HD void bt2020_to_bt709(T& r, T& g, T& b) {
  const T r2 = T(1.660491002108434) * r + T(-0.587641138788550) * g + T(-0.072849863319885) * b;
  const T g2 = T(-0.124550474521591) * r + T(1.132899897125960) * g + T(-0.008349422604369) * b;
  const T b2 = T(-0.018150763354905) * r + T(-0.100578898008007) * g + T(1.118729661362913) * b;
  r = r2;
  g = g2;
  b = b2;
}

// RGB -> XYZ matrix (row-major) of primaries (xr, yr), (xg, yg), (xb, yb) and white (xw, yw)
// (SMPTE RP 177 section 3.3): columns are the primaries' XYZ scaled so that RGB = 1 gives the
// white with Y = 1. Host/device constexpr maths for the tests and any future primaries.
struct Mat3 {
  double m[3][3];
};
constexpr Mat3 bt_rgb_to_xyz(const double xy[4][2]) {
  double p[3][3] = {};
  for (int c = 0; c < 3; ++c) {
    p[0][c] = xy[c][0] / xy[c][1];
    p[1][c] = 1.0;
    p[2][c] = (1.0 - xy[c][0] - xy[c][1]) / xy[c][1];
  }
  const double w[3] = {xy[3][0] / xy[3][1], 1.0, (1.0 - xy[3][0] - xy[3][1]) / xy[3][1]};
  // S = P^-1 w by Cramer's rule.
  auto det3 = [](const double a[3][3]) {
    return a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1]) - a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0]) +
           a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0]);
  };
  const double d = det3(p);
  Mat3 out{};
  for (int c = 0; c < 3; ++c) {
    double q[3][3] = {};
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) q[i][j] = (j == c) ? w[i] : p[i][j];
    const double s = det3(q) / d;
    for (int i = 0; i < 3; ++i) out.m[i][c] = p[i][c] * s;
  }
  return out;
}

// Gamut policy of tonekit/video.hpp (InputColour): a pixel with a negative channel (outside
// BT.709 after the matrix) is desaturated toward its own luminance Y (core::luminance, the one
// the operators see) just enough that its smallest channel is 0:
//   c' = Y + t (c - Y), t = Y / (Y - min(r, g, b)),
// which keeps Y (the weights sum to 1) and the hue (the chroma direction c - Y), and is the
// identity for in-gamut pixels. Y <= 0 (only rounding can give it) becomes black.
template <class T>
TK_HD void gamut_clip_desaturate(T& r, T& g, T& b) {
  const T m = r < g ? (r < b ? r : b) : (g < b ? g : b);
  if (!(m < T(0))) return;
  const T y = luminance(r, g, b);
  if (!(y > T(0))) {
    r = g = b = T(0);
    return;
  }
  const T t = y / (y - m);
  r = y + t * (r - y);
  g = y + t * (g - y);
  b = y + t * (b - y);
  // Rounding can leave the smallest channel a few ulps below 0: the policy promises none.
  r = r < T(0) ? T(0) : r;
  g = g < T(0) ? T(0) : g;
  b = b < T(0) ? T(0) : b;
}

// ---------------------------------------------------------------------------------------------
// Y'CbCr. K_R, K_B of BT.2020 NCL (BT.2020 Table 4 / BT.2100 Table 6: 0.2627, 0.0593) and BT.709
// (BT.709 Part 1 item 3.2: 0.2126, 0.0722); K_G = 1 - K_R - K_B.
// The factors the inverse matrix multiplies by, rounded to T once (ycbcr_coeffs): 2 (1 - K_R),
// 2 (1 - K_B) and 1 / K_G. Divisions by constants are multiplications by their rounded reciprocals
// here and in the code conversions below, on both backends alike (an IEEE division is ~10
// instructions on the GPU, most of the device decode's issue; within an ulp of the quotient).
template <class T>
struct YcbcrCoeffs {
  T kr, kb;
  T cr_to_r, cb_to_b, inv_kg;
};
template <class T>
TK_HD YcbcrCoeffs<T> make_ycbcr_coeffs(T kr, T kb) {
  return YcbcrCoeffs<T>{kr, kb, T(2) * (T(1) - kr), T(2) * (T(1) - kb), T(1) / (T(1) - kr - kb)};
}
template <class T>
TK_HD YcbcrCoeffs<T> ycbcr_coeffs(bool bt2020) {
  return bt2020 ? make_ycbcr_coeffs(T(0.2627), T(0.0593)) : make_ycbcr_coeffs(T(0.2126), T(0.0722));
}

// Integer code -> normalised Y' in [0, 1] / C in [-0.5, 0.5] at `bits` bits (BT.2100 Table 9,
// BT.709 Part 1 item 4.6):
//   limited: Y' = (D - 16 * 2^(n-8)) / (219 * 2^(n-8)), C = (D - 2^(n-1)) / (224 * 2^(n-8))
//   full:    Y' = D / (2^n - 1),                        C = (D - 2^(n-1)) / (2^n - 1)
// each as a product with the divisor's reciprocal (a constant: folded, correctly rounded, by both
// compilers).
template <class T>
TK_HD T luma_from_code(T code, int bits, bool full_range) {
  const T unit = T(1 << (bits - 8));
  return full_range ? code * (T(1) / T((1 << bits) - 1)) : (code - T(16) * unit) * (T(1) / (T(219) * unit));
}
template <class T>
TK_HD T chroma_from_code(T code, int bits, bool full_range) {
  const T unit = T(1 << (bits - 8));
  const T centred = code - T(1 << (bits - 1));
  return full_range ? centred * (T(1) / T((1 << bits) - 1)) : centred * (T(1) / (T(224) * unit));
}

// Y'CbCr -> R'G'B' (inverting BT.2100 Table 6 / BT.709 item 3.2-3.3:
// Cb = (B' - Y') / (2 (1 - K_B)), Cr = (R' - Y') / (2 (1 - K_R))). No clamping: values outside
// [0, 1] are left for the caller (the transfer clamps its signal).
template <class T>
TK_HD void ycbcr_to_rgb(T y, T cb, T cr, YcbcrCoeffs<T> k, T& r, T& g, T& b) {
  r = y + k.cr_to_r * cr;
  b = y + k.cb_to_b * cb;
  g = (y - k.kr * r - k.kb * b) * k.inv_kg;
}

// 4:2:0 chroma upsampling, top-left co-sited (BT.2020 / BT.2100: chroma sample i sits on luma 2i):
// luma position x (one axis) reads chroma samples i0 and i1 with weight w1 on i1:
//   x even: i0 = i1 = x / 2, w1 = 0 (the co-sited sample itself);
//   x odd:  i0 = (x - 1) / 2, i1 = i0 + 1, w1 = 1/2 (bilinear halfway between two co-sited samples),
//           with i1 clamped to the last chroma sample (edge replicated: an even luma size's last
//           odd column has no right neighbour).
// Odd luma sizes need no special case: the last chroma sample covers the single last luma sample.
struct ChromaTaps {
  int i0, i1;
  bool half;  // w1 = 1/2 when true, 0 otherwise
};
TK_HD ChromaTaps chroma_taps_cosited(int x, int chroma_size) {
  const int i0 = x >> 1;
  const bool odd = (x & 1) != 0;
  const int next = i0 + 1 < chroma_size ? i0 + 1 : chroma_size - 1;
  return ChromaTaps{i0, odd ? next : i0, odd};
}
template <class T>
TK_HD T chroma_tap_weight(ChromaTaps t) {
  return t.half ? T(0.5) : T(0);
}

// Bilinear read of one chroma value from the four codes around luma (x, y):
// c00 = (i0, j0), c10 = (i1, j0), c01 = (i0, j1), c11 = (i1, j1).
template <class T>
TK_HD T chroma_bilinear(T c00, T c10, T c01, T c11, T wx, T wy) {
  const T top = c00 + wx * (c10 - c00);
  const T bottom = c01 + wx * (c11 - c01);
  return top + wy * (bottom - top);
}

// One pixel's R'G'B' from its 10-bit codes (chroma codes already upsampled, so fractional).
template <class T>
TK_HD void ycbcr10_codes_to_rgb(T y_code, T cb_code, T cr_code, bool full_range, YcbcrCoeffs<T> k, T& r, T& g, T& b) {
  ycbcr_to_rgb(luma_from_code(y_code, 10, full_range), chroma_from_code(cb_code, 10, full_range),
               chroma_from_code(cr_code, 10, full_range), k, r, g, b);
}

// Signal -> scene-linear BT.709 (1.0 = diffuse white) for one pixel, the second half of every
// decode: transfer, reference white, then BT.2020 -> BT.709 and the gamut mapping (core/gamut.hpp).
//   linear: as is (YUV layouts: negative excursions -> 0; float layouts were sanitised before);
//   pq:     EOTF of the clamped signal / reference_white;
//   hlg:    inverse OETF, OOTF for hlg_peak (luminance weights of the frame's primaries),
//           / reference_white (folded into alpha).
struct VideoLinearise {
  Transfer transfer;
  bool bt2020;
  bool clamp_negative;
  float inv_reference_white;
  float hlg_alpha;  // hlg_peak / reference_white
  float hlg_gamma;
  LumaWeights<float> weights;
  const float* pq_table;  // pq_eotf_table's table: host memory here, the device's copy on the GPU
  const LerpPair* pq_pairs = nullptr;  // the device's copy of pq_eotf_pairs_host (the device reads these)
  GamutMapping gamut = GamutMapping::clip;  // bt2020 only (core/gamut.hpp)
  float reference_white = 203.0f;           // cd/m^2 of scene 1.0 (the perceptual gamut mapping's ICtCp)
};
inline VideoLinearise make_video_linearise(const InputColour& c, InputFormat f) {
  const bool bt2020 = c.primaries == Primaries::bt2020;
  return VideoLinearise{c.transfer,
                        bt2020,
                        is_yuv(f),
                        static_cast<float>(1.0 / c.reference_white),
                        static_cast<float>(c.hlg_peak / c.reference_white),
                        static_cast<float>(hlg_system_gamma(c.hlg_peak)),
                        luma_weights<float>(bt2020),
                        pq_eotf_table_host(),
                        nullptr,
                        c.gamut,
                        static_cast<float>(c.reference_white)};
}
// In float: PQ through pq_eotf_table, HLG through core/portable_math.hpp's exp / pow, which round
// identically on the CPU and the GPU (its comment says why: PQ magnifies a pow's last bit ~30 times).
TK_HD void linearise_pixel(const VideoLinearise& s, float& r, float& g, float& b) {
  switch (s.transfer) {
    case Transfer::linear:
      if (s.clamp_negative) {
        r = r < 0.0f ? 0.0f : r;
        g = g < 0.0f ? 0.0f : g;
        b = b < 0.0f ? 0.0f : b;
      }
      break;
    case Transfer::pq:
#if defined(__CUDA_ARCH__)
      r = pq_eotf_table(s.pq_pairs, r) * s.inv_reference_white;
      g = pq_eotf_table(s.pq_pairs, g) * s.inv_reference_white;
      b = pq_eotf_table(s.pq_pairs, b) * s.inv_reference_white;
#else
      r = pq_eotf_table(s.pq_table, r) * s.inv_reference_white;
      g = pq_eotf_table(s.pq_table, g) * s.inv_reference_white;
      b = pq_eotf_table(s.pq_table, b) * s.inv_reference_white;
#endif
      break;
    case Transfer::hlg:
      r = hlg_inverse_oetf(r);
      g = hlg_inverse_oetf(g);
      b = hlg_inverse_oetf(b);
      hlg_ootf(r, g, b, s.hlg_alpha, s.hlg_gamma, s.weights);
      break;
  }
  if (s.bt2020) {
    switch (s.gamut) {
      case GamutMapping::clip:
        bt2020_to_bt709(r, g, b);
        gamut_clip_desaturate(r, g, b);
        break;
      case GamutMapping::desaturate:
        bt2020_to_bt709(r, g, b);
        gamut_soft_desaturate(r, g, b);
        break;
      case GamutMapping::perceptual:
        gamut_perceptual(r, g, b, s.reference_white);
        break;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Outputs: 8-bit Y'CbCr 4:2:0, BT.709 matrix, limited range.

// BT.709 OETF (BT.709-6 Part 1 item 1.2): V = 4.5 L for L < 0.018, 1.099 L^0.45 - 0.099 otherwise;
// L clamped to [0, 1].
template <class T>
TK_HD T bt709_oetf(T linear) {
  const T l = clamp01(linear);
  return l < T(0.018) ? T(4.5) * l : T(1.099) * video_pow(l, T(0.45)) - T(0.099);
}
// Its inverse (for tests and HDR-to-SDR checks): L = V / 4.5 below V = 0.081.
template <class T>
TK_HD T bt709_inverse_oetf(T v) {
  const T s = clamp01(v);
  return s < T(0.081) ? s * T(1.0 / 4.5) : video_pow((s + T(0.099)) * T(1.0 / 1.099), T(1.0 / 0.45));
}

// The OETF as the encoders evaluate it: 4.5 L below 0.018 (exact), above it a table of
// bt709_oetf<double> at kOetfTableIntervals + 1 equally spaced L in [0.018, 1], rounded to float,
// and linear interpolation in float (no contraction on either backend, so they round alike).
// Within 2e-6 of the exact curve (test_video_colour.cpp): 0.0004 of an 8-bit code. The device
// encode stage spent most of its 0.13 ms at 4K in 12 portable pows per 2x2 block (docs/performance.md).
constexpr int kOetfTableIntervals = 4096;
constexpr float kOetfTableScale = static_cast<float>(kOetfTableIntervals / (1.0 - 0.018));
template <class Table>
TK_HD float bt709_oetf_table(const Table* table, float linear) {
#if defined(__CUDA_ARCH__)
  const float l = fminf(fmaxf(linear, 0.0f), 1.0f);  // clamp01's value for every non-NaN input (no NaN reaches here)
#else
  const float l = clamp01(linear);
#endif
  if (l < 0.018f) return 4.5f * l;
  return table_lerp(table, (l - 0.018f) * kOetfTableScale, kOetfTableIntervals);
}
// The table (host memory, built once, thread-safe): kOetfTableIntervals + 1 floats; as pairs,
// kOetfTableIntervals of them.
const float* bt709_oetf_table_host();
const LerpPair* bt709_oetf_pairs_host();

// The output transfer of a video layout: gamma == 0 selects the BT.709 OETF (bt709_oetf_table),
// otherwise v^(1/gamma) (the `gamma` parameter, as for RGB outputs).
template <class Table>
TK_HD float encode_video_transfer(float linear, float gamma, const Table* oetf_table) {
  return gamma == 0.0f ? bt709_oetf_table(oetf_table, linear) : encode_gamma(linear, 1.0f / gamma);
}

// BT.709 Y'CbCr (BT.709 Part 1 items 3.2-3.3) and its 8-bit limited-range codes (item 4.6): the
// one text of these numbers, read by the encoders here and the CPU fast path's vector loops
// (src/cpu/video_fast.cpp, video_fast_transfers.cpp).
constexpr double kBt709Kr = 0.2126, kBt709Kg = 0.7152, kBt709Kb = 0.0722;
constexpr double kBt709CbScale = 1.0 / 1.8556, kBt709CrScale = 1.0 / 1.5748;  // 1 / (2 (1 - K))
constexpr double kLumaCode8Black = 16, kLumaCode8Range = 219, kLumaCode8White = 235;
constexpr double kChromaCode8Mid = 128, kChromaCode8Range = 224, kChromaCode8Min = 16, kChromaCode8Max = 240;

// R'G'B' -> Y'CbCr with the BT.709 matrix (BT.709-6 Part 1 items 3.2, 3.3):
// Y' = 0.2126 R' + 0.7152 G' + 0.0722 B', Cb = (B' - Y') / 1.8556, Cr = (R' - Y') / 1.5748.
template <class T>
TK_HD void rgb_to_ycbcr_bt709(T r, T g, T b, T& y, T& cb, T& cr) {
  y = T(kBt709Kr) * r + T(kBt709Kg) * g + T(kBt709Kb) * b;
  cb = (b - y) * T(kBt709CbScale);
  cr = (r - y) * T(kBt709CrScale);
}

// One output pixel: linear display RGB -> transfer -> Y', Cb, Cr (BT.709), before quantising.
template <class Table>
TK_HD void display_pixel_ycbcr(float r, float g, float b, float gamma, const Table* oetf_table, float& y, float& cb,
                               float& cr) {
  rgb_to_ycbcr_bt709(encode_video_transfer(r, gamma, oetf_table), encode_video_transfer(g, gamma, oetf_table),
                     encode_video_transfer(b, gamma, oetf_table), y, cb, cr);
}

// Mean of a 4:2:0 block's values in one fixed order (top-left, top-right, bottom-left,
// bottom-right; the right column missing when cols == 1, the bottom row when rows == 1), so that
// both backends round it identically.
template <class T>
TK_HD T block_mean(T v00, T v10, T v01, T v11, int cols, int rows) {
  T sum = v00;
  if (cols == 2) sum += v10;
  if (rows == 2) {
    sum += v01;
    if (cols == 2) sum += v11;
  }
  return sum * (cols * rows == 4 ? T(0.25) : (cols * rows == 2 ? T(0.5) : T(1)));
}

// Quantise a limited-range 8-bit code (BT.709-6 Part 1 item 4.6: D_Y' = round(219 Y' + 16),
// D_C = round(224 C + 128)) with the triangular dither noise of core/colour.hpp added strictly
// inside (lo, hi) (so black and white stay exact, as quantise_noise does), clamped to [lo, hi].
template <class T>
TK_HD unsigned quantise_code8(T code, T lo, T hi, bool dither, T noise) {
  const T margin = (hi - lo) * static_cast<T>(static_cast<float>(kDitherEndMargin));  // as quantise_noise's ends
  const bool interior = (code > lo + margin) & (code < hi - margin);
  T v = code + ((dither & interior) ? noise : T(0));
  v = tk_floor(v + T(0.5));
  v = v < lo ? lo : (v > hi ? hi : v);
  return static_cast<unsigned>(static_cast<int>(v));
}

// Y' code of a pixel whose dither hash is h (dither_pixel_hash(x, dither_row_seed(y))): the dither
// is its field 0 (the RGB path's red field). A block's encoder computes each row's seed once and
// shares the top-left pixel's hash with the block's chroma (chroma_codes8_hashed).
template <class T>
TK_HD unsigned luma_code8_hashed(T luma, bool dither, std::uint32_t h) {
  const T noise = dither ? T(dither_noise_from_hash(h, 0)) : T(0);
  return quantise_code8(T(kLumaCode8Black) + T(kLumaCode8Range) * clamp01(luma), T(kLumaCode8Black), T(kLumaCode8White),
                        dither, noise);
}
// Y' code of pixel (x, y).
template <class T>
TK_HD unsigned luma_code8(T luma, bool dither, int x, int y) {
  return luma_code8_hashed(luma, dither, dither ? dither_pixel_hash(x, dither_row_seed(y)) : 0U);
}

// Cb, Cr codes of 4:2:0 block (bx, by) from the means of its pixels' Cb and Cr (each pixel's
// R'G'B' -> Cb, Cr before any quantising; 4, 2 or 1 pixels at odd edges). The dither uses the hash
// of the block's top-left pixel (2bx, 2by), fields 1 and 2 (independent of its Y' field 0).
// chroma_codes8_hashed takes that hash (h, the Y' hash of pixel (2bx, 2by)).
template <class T>
TK_HD void chroma_codes8_hashed(T cb_mean, T cr_mean, bool dither, std::uint32_t h, unsigned& cb_code,
                                unsigned& cr_code) {
  const T ncb = dither ? T(dither_noise_from_hash(h, 1)) : T(0);
  const T ncr = dither ? T(dither_noise_from_hash(h, 2)) : T(0);
  const T cb = cb_mean < T(-0.5) ? T(-0.5) : (cb_mean > T(0.5) ? T(0.5) : cb_mean);
  const T cr = cr_mean < T(-0.5) ? T(-0.5) : (cr_mean > T(0.5) ? T(0.5) : cr_mean);
  cb_code = quantise_code8(T(kChromaCode8Mid) + T(kChromaCode8Range) * cb, T(kChromaCode8Min), T(kChromaCode8Max), dither, ncb);
  cr_code = quantise_code8(T(kChromaCode8Mid) + T(kChromaCode8Range) * cr, T(kChromaCode8Min), T(kChromaCode8Max), dither, ncr);
}
template <class T>
TK_HD void chroma_codes8(T cb_mean, T cr_mean, bool dither, int bx, int by, unsigned& cb_code, unsigned& cr_code) {
  chroma_codes8_hashed(cb_mean, cr_mean, dither, dither ? dither_pixel_hash(2 * bx, dither_row_seed(2 * by)) : 0U,
                       cb_code, cr_code);
}

}  // namespace tonekit::core
