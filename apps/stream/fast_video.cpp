#include "stream/fast_video.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>

#include "core/video_colour.hpp"
#include "cpu/parallel.hpp"

namespace tonekit::stream {
namespace {

inline unsigned sample(const std::uint8_t* p, std::size_t i) {
  std::uint16_t v;
  std::memcpy(&v, p + 2 * i, 2);
  return v;
}

// The per-row loops, written element-wise without branches (selects, both sides computed) so that
// GCC vectorises them under -ffast-math; compiled for AVX-512 and the baseline as
// src/cpu/map_kernels.cpp is (flatten: the core helpers are inlined into each clone). Measured
// on the 2-core machine: an "arch=haswell" clone called fmaf out of line (10x slower), and loops
// mixing 8-bit stores, stride-3 loads, the integer dither hash or a conditional pow with the
// curve stayed scalar; hence the small separate loops below.
#define TK_CLONES __attribute__((target_clones("avx512f", "default"), flatten))

// pow(a, b) for a >= 0 as exp2(b log2 a) in plain arithmetic, so that it vectorises (libmvec's
// vector powf, tried first, took 2.0 s of CPU for six 4K frames against 1.0 s with this): log2 of
// the mantissa by a polynomial (below; an atanh series needed a division and cost ~10 % more of
// the whole frame); exp2 of the fraction by its Taylor series to degree 7 (< 2e-7 relative;
// degree 6 was measured to flip 6x more Y' codes), the integer part put into the exponent bits.
// For the curves here |b log2 a| stays below ~130, so the result is within ~1e-4 relative of
// powf: inside half an 8-bit code.
inline float fast_log2(float a) {
  std::uint32_t bits;
  std::memcpy(&bits, &a, 4);
  const int e = static_cast<int>((bits >> 23) & 0xFFu) - 127;
  bits = (bits & 0x007FFFFFu) | 0x3F800000u;  // mantissa m in [1, 2)
  float m;
  std::memcpy(&m, &bits, 4);
  // log2(m) on [1, 2) as a polynomial in x = 2m - 3 in [-1, 1]: the degree-8 Chebyshev
  // interpolant (at the 9 Chebyshev nodes) in monomial form; max error 1.5e-7 evaluated in float
  // (5.6e-8 in double), checked on 2e5 points when it was fitted. No division.
  const float x = 2.0f * m - 3.0f;
  float p = -3.385038793e-05f;
  p = p * x + 1.153950872e-04f;
  p = p * x - 3.248442687e-04f;
  p = p * x + 1.170827821e-03f;
  p = p * x - 4.454175193e-03f;
  p = p * x + 1.781574105e-02f;
  p = p * x - 8.014961779e-02f;
  p = p * x + 4.808979927e-01f;
  p = p * x + 5.849625007e-01f;
  return static_cast<float>(e) + p;
}
inline float fast_exp2(float y) {
  y = std::min(126.0f, std::max(-126.0f, y));
  const float fl = std::floor(y);
  const float f = (y - fl) * 0.69314718f;  // e^(f ln 2)
  const float p =
      1.0f + f * (1.0f + f * (0.5f + f * (1.0f / 6.0f + f * (1.0f / 24.0f + f * (1.0f / 120.0f + f * (1.0f / 720.0f + f * (1.0f / 5040.0f)))))));
  const std::uint32_t scale = static_cast<std::uint32_t>(static_cast<int>(fl) + 127) << 23;
  float s;
  std::memcpy(&s, &scale, 4);
  return p * s;
}
// Both sides of each select are computed (no branch to keep the loops from vectorising).
inline float fast_pow(float a, float b) {
  const float p = fast_exp2(b * fast_log2(std::max(a, 1e-30f)));
  return a > 0.0f ? p : 0.0f;
}

// The transfers of core/video_colour.hpp (pq_eotf, bt709_oetf) with fast_pow.
inline float pq_eotf_fast(float signal) {
  const float e = fast_pow(std::min(1.0f, std::max(0.0f, signal)), static_cast<float>(1.0 / core::kPqM2));
  const float num = std::max(0.0f, e - static_cast<float>(core::kPqC1));
  return static_cast<float>(core::kPqPeak) *
         fast_pow(num / (static_cast<float>(core::kPqC2) - static_cast<float>(core::kPqC3) * e),
                  static_cast<float>(1.0 / core::kPqM1));
}
inline float bt709_oetf_fast(float linear) {
  const float l = std::min(1.0f, std::max(0.0f, linear));
  const float curve = 1.099f * fast_pow(l, 0.45f) - 0.099f;
  return l < 0.018f ? 4.5f * l : curve;
}

struct DecodeRow {
  float inv_white;
  core::YcbcrCoeffs<float> k;
  float y0, ys;
};

// core::gamut_clip_desaturate without its early returns (selects instead, so the loop
// vectorises): the same values, in-gamut pixels untouched.
inline void gamut_clip_select(float& r, float& g, float& b) {
  const float m = std::min(r, std::min(g, b));
  const float y = core::luminance(r, g, b);
  const bool outside = m < 0.0f;
  const float t = y > 0.0f ? y / (y - m) : 0.0f;
  const float r2 = std::max(0.0f, y + t * (r - y)), g2 = std::max(0.0f, y + t * (g - y)), b2 = std::max(0.0f, y + t * (b - y));
  r = outside ? r2 : r;
  g = outside ? g2 : g;
  b = outside ? b2 : b;
}

// One luma row: 10-bit luma codes (16-bit words, `shift` 6 for P010) and chroma already at full
// width -> scene-linear BT.709 RGB, interleaved. The transfer and primaries are template
// arguments so that the loop body has no branch.
template <bool kLinear, bool kBt2020>
TK_CLONES void decode_row(const DecodeRow& d, const std::uint16_t* luma, unsigned shift, const float* cb,
                          const float* cr, int n, float* out) {
  for (int x = 0; x < n; ++x) {
    unsigned yc = static_cast<unsigned>(luma[x]) >> shift;
    yc = yc > 1023u ? 1023u : yc;
    const float yv = (static_cast<float>(yc) - d.y0) * d.ys;
    float r, g, b;
    core::ycbcr_to_rgb(yv, cb[x], cr[x], d.k, r, g, b);
    if constexpr (kLinear) {
      r = std::max(r, 0.0f);
      g = std::max(g, 0.0f);
      b = std::max(b, 0.0f);
    } else {
      r = pq_eotf_fast(r) * d.inv_white;
      g = pq_eotf_fast(g) * d.inv_white;
      b = pq_eotf_fast(b) * d.inv_white;
    }
    if constexpr (kBt2020) {
      core::bt2020_to_bt709(r, g, b);
      gamut_clip_select(r, g, b);
    }
    out[3 * x] = r;
    out[3 * x + 1] = g;
    out[3 * x + 2] = b;
  }
}

// One display row -> Y' codes (as whole floats) and each pixel's Cb, Cr; the Y' quantisation and
// dither of core::luma_code8, spelled branch-free.
// `noise` holds core::dither_noise(x, y, 0) per pixel, or zeros without dither (a loop of its own,
// below: with the integer hash inside, GCC left this one scalar).
TK_CLONES void encode_row(const float* __restrict rgb, const float* __restrict noise, int n,
                          float* __restrict scratch, float* __restrict luma_code, float* __restrict cb,
                          float* __restrict cr) {
  // Planar copies first: the curve loop then reads unit-stride arrays.
  float* __restrict r = scratch;
  float* __restrict g = scratch + n;
  float* __restrict b = scratch + 2 * n;
  for (int x = 0; x < n; ++x) r[x] = rgb[3 * x], g[x] = rgb[3 * x + 1], b[x] = rgb[3 * x + 2];
  for (int x = 0; x < 3 * n; ++x) scratch[x] = bt709_oetf_fast(scratch[x]);
  for (int x = 0; x < n; ++x) {
    float luma;
    core::rgb_to_ycbcr_bt709(r[x], g[x], b[x], luma, cb[x], cr[x]);
    float v = 16.0f + 219.0f * std::min(1.0f, std::max(0.0f, luma));
    v += ((v > 16.0f) & (v < 235.0f)) ? noise[x] : 0.0f;
    luma_code[x] = std::min(235.0f, std::max(16.0f, std::floor(v + 0.5f)));
  }
}

// Cb, Cr codes (as whole floats) of the `full` 2-column blocks of a block row: core::block_mean's
// order ((v00 + v10) + v01) + v11, then core::chroma_codes8's quantisation, branch-free. `ncb`,
// `ncr` hold each block's dither noise (zeros without dither). The odd last column, if any, is
// left to the caller.
TK_CLONES void chroma_row(const float* __restrict cb_top, const float* __restrict cb_bottom,
                          const float* __restrict cr_top, const float* __restrict cr_bottom, int full, bool two_rows,
                          const float* __restrict ncb, const float* __restrict ncr, float* __restrict cb_code,
                          float* __restrict cr_code) {
  const float scale = two_rows ? 0.25f : 0.5f;
  for (int bx = 0; bx < full; ++bx) {
    const int x0 = 2 * bx;
    float cb = cb_top[x0] + cb_top[x0 + 1];
    float cr = cr_top[x0] + cr_top[x0 + 1];
    if (two_rows) {
      cb = (cb + cb_bottom[x0]) + cb_bottom[x0 + 1];
      cr = (cr + cr_bottom[x0]) + cr_bottom[x0 + 1];
    }
    float vb = 128.0f + 224.0f * std::min(0.5f, std::max(-0.5f, cb * scale));
    float vr = 128.0f + 224.0f * std::min(0.5f, std::max(-0.5f, cr * scale));
    vb += ((vb > 16.0f) & (vb < 240.0f)) ? ncb[bx] : 0.0f;
    vr += ((vr > 16.0f) & (vr < 240.0f)) ? ncr[bx] : 0.0f;
    cb_code[bx] = std::min(240.0f, std::max(16.0f, std::floor(vb + 0.5f)));
    cr_code[bx] = std::min(240.0f, std::max(16.0f, std::floor(vr + 0.5f)));
  }
}

// core::dither_noise_from_hash(h, field) through a signed conversion (the same value; GCC keeps
// the unsigned one scalar), so that the dither loops below vectorise.
inline float noise_field(std::uint32_t h, unsigned field) {
  const unsigned shift = 8U * field;
  return static_cast<float>(static_cast<int>(((h >> shift) & 15U) + ((h >> (shift + 4U)) & 15U)) - 15) * (1.0f / 16.0f);
}

// The chroma dither of block row `by`: fields 1 and 2 of the hash of each block's top-left pixel.
TK_CLONES void chroma_dither_row(int blocks, int by, float* __restrict ncb, float* __restrict ncr) {
  const std::uint32_t seed = core::dither_row_seed(2 * by);
  for (int bx = 0; bx < blocks; ++bx) {
    const std::uint32_t h = core::dither_pixel_hash(2 * bx, seed);
    ncb[bx] = noise_field(h, 1);
    ncr[bx] = noise_field(h, 2);
  }
}

TK_CLONES void dither_row(int n, int y, float* __restrict noise) {
  const std::uint32_t seed = core::dither_row_seed(y);
  for (int x = 0; x < n; ++x) noise[x] = noise_field(core::dither_pixel_hash(x, seed), 0);
}

// Whole codes held as floats -> bytes (a loop of its own: mixing 8-bit stores into the float
// loop above keeps GCC from vectorising it).
TK_CLONES void store_codes(const float* codes, int n, std::uint8_t* out) {
  for (int x = 0; x < n; ++x) out[x] = static_cast<std::uint8_t>(static_cast<int>(codes[x]));
}

using DecodeRowFn = void (*)(const DecodeRow&, const std::uint16_t*, unsigned, const float*, const float*, int, float*);
DecodeRowFn pick_decode_row(bool linear, bool bt2020) {
  if (linear) return bt2020 ? decode_row<true, true> : decode_row<true, false>;
  return bt2020 ? decode_row<false, true> : decode_row<false, false>;
}

// Rows [0, n) in chunks of `chunk` handed out from an atomic counter to every worker: on a shared
// machine a core taken by another process then slows the frame by its share only, where fixed
// bands (cpu::parallel_rows) wait for the slowest band.
template <class F>
void for_row_chunks(int n, int chunk, F&& body) {
  std::atomic<int> next{0};
  cpu::parallel_rows(cpu::worker_count(), [&](int, int, int) {
    for (;;) {
      const int r0 = next.fetch_add(chunk, std::memory_order_relaxed);
      if (r0 >= n) return;
      body(r0, std::min(n, r0 + chunk));
    }
  });
}

}  // namespace

bool FastVideo::covers(InputFormat format, const InputColour& colour, bool yuv_output, double gamma) {
  return is_yuv(format) && (colour.transfer == Transfer::pq || colour.transfer == Transfer::linear) && yuv_output &&
         gamma == 0.0;
}

FastVideo::FastVideo(InputFormat format, const InputColour& colour, int width, int height)
    : format_(format), colour_(colour), width_(width), height_(height) {}

void FastVideo::decode(const std::uint8_t* frame, Image& scene) const {
  const int w = width_, h = height_, cw = (w + 1) / 2, ch = (h + 1) / 2;
  if (scene.width != w || scene.height != h || scene.channels != 3) scene = Image(w, h, 3);
  const bool p010 = format_ == InputFormat::p010;
  const unsigned shift = p010 ? 6 : 0;
  const FramePlanes planes = packed_planes(format_, frame, w, h);
  const bool full = colour_.range == YuvRange::full;
  // Normalised Y' = (code - y0) * ys, C = (code - 512) * cs (BT.2100 Table 9).
  const DecodeRow d{static_cast<float>(1.0 / colour_.reference_white), core::ycbcr_coeffs<float>(colour_.matrix == YuvMatrix::bt2020_ncl),
                    full ? 0.0f : 64.0f, full ? 1.0f / 1023.0f : 1.0f / 876.0f};
  const DecodeRowFn row_fn = pick_decode_row(colour_.transfer == Transfer::linear, colour_.primaries == Primaries::bt2020);
  const float cs = full ? 1.0f / 1023.0f : 1.0f / 896.0f;
  for_row_chunks(h, 16, [&](int r0, int r1) {
    std::vector<float> cb_row(static_cast<std::size_t>(cw)), cr_row(cb_row.size());
    std::vector<float> cb_full(static_cast<std::size_t>(w)), cr_full(cb_full.size());
    std::vector<std::uint16_t> luma(static_cast<std::size_t>(w));
    const std::size_t step = p010 ? 2 : 1, off = p010 ? 1 : 0;
    for (int y = r0; y < r1; ++y) {
      // The chroma row at this luma row: co-sited taps j0, j1 with weight wy on j1 ...
      const core::ChromaTaps ty = core::chroma_taps_cosited(y, ch);
      const float wy = core::chroma_tap_weight<float>(ty);
      const auto* c0 = static_cast<const std::uint8_t*>(planes.data[1]) + planes.stride[1] * ty.i0;
      const auto* c1 = static_cast<const std::uint8_t*>(planes.data[1]) + planes.stride[1] * ty.i1;
      const auto* d0 = p010 ? c0 : static_cast<const std::uint8_t*>(planes.data[2]) + planes.stride[2] * ty.i0;
      const auto* d1 = p010 ? c1 : static_cast<const std::uint8_t*>(planes.data[2]) + planes.stride[2] * ty.i1;
      const auto code = [&](const std::uint8_t* row, std::size_t at) {
        const unsigned s = sample(row, at) >> shift;
        return static_cast<float>(s > 1023 ? 1023 : s);
      };
      for (int i = 0; i < cw; ++i) {
        const std::size_t a = step * static_cast<std::size_t>(i);
        cb_row[static_cast<std::size_t>(i)] = (code(c0, a) + wy * (code(c1, a) - code(c0, a)) - 512.0f) * cs;
        cr_row[static_cast<std::size_t>(i)] = (code(d0, a + off) + wy * (code(d1, a + off) - code(d0, a + off)) - 512.0f) * cs;
      }
      // ... then across: even x is co-sited with its sample, odd x halfway to the next one.
      for (int x = 0; x < w; ++x) {
        const std::size_t i0 = static_cast<std::size_t>(x >> 1), i1 = std::min<std::size_t>(i0 + (x & 1), cw - 1);
        cb_full[static_cast<std::size_t>(x)] = 0.5f * (cb_row[i0] + cb_row[i1]);
        cr_full[static_cast<std::size_t>(x)] = 0.5f * (cr_row[i0] + cr_row[i1]);
      }
      std::memcpy(luma.data(), static_cast<const std::uint8_t*>(planes.data[0]) + planes.stride[0] * y, 2 * luma.size());
      row_fn(d, luma.data(), shift, cb_full.data(), cr_full.data(), w, scene.row(y));
    }
  });
}

void FastVideo::encode(const Image& display, OutputLayout layout, bool dither, std::uint8_t* out) const {
  const int w = width_, h = height_, cw = (w + 1) / 2, ch = (h + 1) / 2;
  std::uint8_t* y_plane = out;
  std::uint8_t* c_plane = out + static_cast<std::size_t>(w) * h;
  const std::size_t c_size = static_cast<std::size_t>(cw) * ch;
  for_row_chunks(ch, 8, [&](int b0, int b1) {
    // Per block row: Y' codes of both luma rows with each pixel's Cb, Cr, then the block means
    // (core's fixed order) and their codes.
    std::vector<float> cbs(2 * static_cast<std::size_t>(w)), crs(cbs.size()), codes(static_cast<std::size_t>(w));
    std::vector<float> planar(3 * static_cast<std::size_t>(w)), noise(static_cast<std::size_t>(w), 0.0f);
    std::vector<float> ncb(static_cast<std::size_t>(cw), 0.0f), ncr(ncb.size()), cb_codes(ncb.size()), cr_codes(ncb.size());
    for (int by = b0; by < b1; ++by) {
      const int rows = 2 * by + 1 < h ? 2 : 1;
      for (int r = 0; r < rows; ++r) {
        const int y = 2 * by + r;
        if (dither) dither_row(w, y, noise.data());
        encode_row(display.row(y), noise.data(), w, planar.data(), codes.data(),
                                                        cbs.data() + static_cast<std::size_t>(r) * w,
                                                        crs.data() + static_cast<std::size_t>(r) * w);
        store_codes(codes.data(), w, y_plane + static_cast<std::size_t>(y) * w);
      }
      const float* cb_top = cbs.data();
      const float* cb_bottom = cbs.data() + static_cast<std::size_t>(rows - 1) * w;
      const float* cr_top = crs.data();
      const float* cr_bottom = crs.data() + static_cast<std::size_t>(rows - 1) * w;
      const int full = w / 2;  // blocks with two columns; an odd width adds one of one column
      if (dither) chroma_dither_row(full, by, ncb.data(), ncr.data());
      chroma_row(cb_top, cb_bottom, cr_top, cr_bottom, full, rows == 2, ncb.data(), ncr.data(), cb_codes.data(),
                 cr_codes.data());
      std::uint8_t* cb_out = c_plane + static_cast<std::size_t>(by) * cw * (layout == OutputLayout::nv12 ? 2 : 1);
      if (layout == OutputLayout::nv12) {
        for (int bx = 0; bx < full; ++bx) {
          cb_out[2 * bx] = static_cast<std::uint8_t>(static_cast<int>(cb_codes[static_cast<std::size_t>(bx)]));
          cb_out[2 * bx + 1] = static_cast<std::uint8_t>(static_cast<int>(cr_codes[static_cast<std::size_t>(bx)]));
        }
      } else {
        store_codes(cb_codes.data(), full, cb_out);
        store_codes(cr_codes.data(), full, cb_out + c_size);
      }
      if (full < cw) {  // the odd last column, through the reference's own functions
        const int x0 = 2 * full;
        unsigned cb, cr;
        core::chroma_codes8(core::block_mean(cb_top[x0], cb_top[x0], cb_bottom[x0], cb_bottom[x0], 1, rows),
                            core::block_mean(cr_top[x0], cr_top[x0], cr_bottom[x0], cr_bottom[x0], 1, rows), dither,
                            full, by, cb, cr);
        if (layout == OutputLayout::nv12) {
          cb_out[2 * full] = static_cast<std::uint8_t>(cb);
          cb_out[2 * full + 1] = static_cast<std::uint8_t>(cr);
        } else {
          cb_out[full] = static_cast<std::uint8_t>(cb);
          cb_out[c_size + full] = static_cast<std::uint8_t>(cr);
        }
      }
    }
  });
}

}  // namespace tonekit::stream
