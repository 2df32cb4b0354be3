#include "cpu/video_fast.hpp"

#include "cpu/video_fast_transfers.hpp"

#include "cpu/isa_level.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <functional>
#if defined(__SSE2__)
#include <immintrin.h>
#endif

#include "core/video_colour.hpp"
#include "core/curves.hpp"
#include "core/map_settings.hpp"
#include "cpu/map_kernels.hpp"
#include "cpu/parallel.hpp"
#include "cpu/stats.hpp"

namespace tonekit::cpu {

// Each worker's row buffers, kept from frame to frame: made per chunk of rows they made the
// workers' malloc arenas grow and shrink again every chunk, each regrowth a fresh 2 MB huge page
// that the kernel zero-fills (10 % of a 4K frame's CPU in perf on the 2-core machine). Outside
// the per-level region: every level's code uses the same buffers.
struct FastVideoDecodeScratch {
  std::vector<float> cb_row, cr_row, cb_full, cr_full, planar;
  std::vector<float> scene;  // a decoded row (planar, 3 w) on its way into a planar frame
};
// A worker's encode buffers (one block row), kept across frames with the decode's.
struct FastVideoEncodeScratch {
  std::vector<float> cbs, crs, codes, planar, noise, ncb, ncr, cb_codes, cr_codes;
  // Sized for width w; the noise zeroed when there is no dither (with dither every row writes it).
  void fit(int w, bool dither) {
    const std::size_t n = static_cast<std::size_t>(w), cw = static_cast<std::size_t>((w + 1) / 2);
    cbs.resize(2 * n);
    crs.resize(2 * n);
    codes.resize(n);
    planar.resize(3 * n);
    noise.resize(n);
    for (auto* v : {&ncb, &ncr, &cb_codes, &cr_codes}) v->resize(cw);
    if (!dither) {
      std::fill(noise.begin(), noise.end(), 0.0f);
      std::fill(ncb.begin(), ncb.end(), 0.0f);
      std::fill(ncr.begin(), ncr.end(), 0.0f);
    }
  }
};
struct FastVideoWorkspace {
  std::vector<FastVideoDecodeScratch> decode;
  std::vector<FastVideoEncodeScratch> encode;
};
// A FastVideo's frame and buffers, as its per-level code sees them.
struct FastVideoJob {
  InputFormat format;
  const InputColour& colour;
  int width, height;
  FastVideoWorkspace& ws;
};

TK_ISA_DECLARE(
void fast_decode_into(const FastVideoJob& j, const FramePlanes& frame, Image& scene,
                      std::vector<cpu::StatsPartial>* partials, bool planar);
void fast_encode(const FastVideoJob& j, const Image& display, OutputLayout layout, bool dither, std::uint8_t* out);
Status fast_map(const FastVideoJob& j, const FramePlanes& frame, const Params& params, const cpu::CurveStatsHook* hook,
                OutputLayout layout, bool dither, Image& scene, FrameStats& stats, std::uint8_t* out);
)

TK_ISA_BEGIN
namespace {

// The per-row loops, written element-wise without branches (selects, both sides computed) so that
// GCC vectorises them; compiled once per instruction-set level (cpu/isa_level.hpp), every call in
// them inlined (TK_ISA_INLINE_ALL). Measured on the 2-core
// machine: loops mixing 8-bit stores, stride-3 loads, the integer dither hash or a conditional
// pow with the curve stayed scalar; hence the small separate loops below.

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

// Word x of a row of 16-bit words that need not be 2-byte aligned (a y4m frame's planes): a
// memcpy load, which GCC vectorises as plain unaligned loads. The decode reads the luma plane
// where it lies (a copy of each row first measured ~2 % of a 4K frame's CPU).
inline std::uint16_t word_at(const std::uint8_t* row, int x) {
  std::uint16_t w;
  std::memcpy(&w, row + 2 * static_cast<std::size_t>(x), 2);
  return w;
}

// Normalised Y' of a 16-bit luma word (`shift` 6 for P010), the code clamped to 10 bits.
inline float luma_signal(const DecodeRow& d, std::uint16_t word, unsigned shift) {
  unsigned yc = static_cast<unsigned>(word) >> shift;
  yc = yc > 1023u ? 1023u : yc;
  return (static_cast<float>(yc) - d.y0) * d.ys;
}

// Where a decoded row goes: interleaved RGB (the scene Image's rows), or three planes (the fused
// map's frame: no interleave here and no de-interleave when it is read back).
struct InterleavedRow {
  float* out;
  void put(int x, float r, float g, float b) const {
    out[3 * x] = r;
    out[3 * x + 1] = g;
    out[3 * x + 2] = b;
  }
};
struct PlanarRow {
  float* __restrict r;
  float* __restrict g;
  float* __restrict b;
  void put(int x, float rv, float gv, float bv) const {
    r[x] = rv;
    g[x] = gv;
    b[x] = bv;
  }
};

// Linear RGB in the input's primaries -> BT.709 (and the gamut policy) -> pixel x of the row.
template <bool kBt2020, class Row>
inline void store_scene(float r, float g, float b, const Row& row, int x) {
  if constexpr (kBt2020) {
    core::bt2020_to_bt709(r, g, b);
    gamut_clip_select(r, g, b);
  }
  row.put(x, r, g, b);
}

// One luma row of a linear-light input: 10-bit luma codes (16-bit words, `shift` 6 for P010) and
// chroma already at full width -> scene-linear BT.709 RGB into `row`. The primaries are a
// template argument so that the loop body has no branch.
template <bool kBt2020, class Row>
TK_ISA_INLINE_ALL void decode_row_linear(const DecodeRow& d, const std::uint8_t* luma, unsigned shift, const float* cb,
                                 const float* cr, int n, Row row) {
  for (int x = 0; x < n; ++x) {
    const float yv = luma_signal(d, word_at(luma, x), shift);
    float r, g, b;
    core::ycbcr_to_rgb(yv, cb[x], cr[x], d.k, r, g, b);
    store_scene<kBt2020>(std::max(r, 0.0f), std::max(g, 0.0f), std::max(b, 0.0f), row, x);
  }
}

// A PQ row in three steps: the signals R'G'B' into a planar scratch (3n floats), the EOTF over it
// in place (core::pq_eotf_table, the reference's own values: with AVX-512 16 at a time,
// cpu/video_fast_transfers.hpp, else one at a time), then the primaries, gamut and store.
TK_ISA_INLINE_ALL void signal_row(const DecodeRow& d, const std::uint8_t* luma, unsigned shift, const float* cb, const float* cr,
                          int n, float* __restrict planar) {
  for (int x = 0; x < n; ++x) {
    const float yv = luma_signal(d, word_at(luma, x), shift);
    core::ycbcr_to_rgb(yv, cb[x], cr[x], d.k, planar[x], planar[n + x], planar[2 * n + x]);
  }
}
template <bool kBt2020, class Row>
TK_ISA_INLINE_ALL void scene_row(const float* __restrict planar, int n, Row row) {
  for (int x = 0; x < n; ++x) store_scene<kBt2020>(planar[x], planar[n + x], planar[2 * n + x], row, x);
}
template <class Row>
void decode_row_pq(const DecodeRow& d, const std::uint8_t* luma, unsigned shift, const float* cb, const float* cr, int n,
                   bool bt2020, bool avx512, float* planar, Row out) {
  signal_row(d, luma, shift, cb, cr, n, planar);
  if (avx512) {
    pq_eotf_avx512(planar, 3 * n, d.inv_white);
  } else if (TK_ISA_LEVEL >= 1) {
    pq_eotf_avx2(planar, 3 * n, d.inv_white);
  } else {
    const float* table = core::pq_eotf_table_host();
    for (int i = 0; i < 3 * n; ++i) planar[i] = core::pq_eotf_table(table, planar[i]) * d.inv_white;
  }
  if (bt2020) scene_row<true>(planar, n, out);
  else scene_row<false>(planar, n, out);
}

// One display row, planar (r, g, b: n floats each, one buffer of 3n, linear [0, 1]; the OETF is
// applied in place) -> Y' codes (as whole floats) and each pixel's Cb, Cr; the Y' quantisation and
// dither of core::luma_code8, spelled branch-free.
// `noise` holds core::dither_noise(x, y, 0) per pixel, or zeros without dither (a loop of its own,
// below: with the integer hash inside, GCC left this one scalar).
TK_ISA_INLINE_ALL void encode_planar(float* __restrict rgb, const float* __restrict noise, int n, bool avx512,
                             float* __restrict luma_code, float* __restrict cb, float* __restrict cr) {
  const float* __restrict r = rgb;
  const float* __restrict g = rgb + n;
  const float* __restrict b = rgb + 2 * n;
  if (avx512) {
    bt709_oetf_avx512(rgb, 3 * n);
    luma_codes_avx512(r, g, b, noise, n, luma_code, cb, cr);
    return;
  }
  // The OETF's pieces as bt709_oetf_avx512 evaluates them: the same floats on every level.
  if (TK_ISA_LEVEL >= 1) {
    bt709_oetf_avx2(rgb, 3 * n);
  } else {
    const OetfPieces& pieces = bt709_oetf_pieces();
    for (int x = 0; x < 3 * n; ++x) rgb[x] = bt709_oetf_piecewise(rgb[x], pieces);
  }
  for (int x = 0; x < n; ++x) {
    float luma;
    core::rgb_to_ycbcr_bt709(r[x], g[x], b[x], luma, cb[x], cr[x]);
    // The noise is loaded whatever the condition: a conditional load is control flow to GCC's
    // vectoriser, which left this loop scalar (18 % of a 4K frame's CPU).
    const float nz = noise[x];
    constexpr float black = core::kLumaCode8Black, white = core::kLumaCode8White;
    float v = black + static_cast<float>(core::kLumaCode8Range) * std::min(1.0f, std::max(0.0f, luma));
    // The noise times 1 or 0, not a select (the same sum: v + -0 == v), and floor as truncation
    // (v + 0.5 > 0): with the select and floorf GCC left the loop scalar below AVX-512.
    constexpr float margin = (white - black) * static_cast<float>(core::kDitherEndMargin);  // core::quantise_code8's
    v += nz * static_cast<float>((v > black + margin) & (v < white - margin));
    luma_code[x] = std::min(white, std::max(black, static_cast<float>(static_cast<int>(v + 0.5f))));
  }
}

// cpu::colour_chunk at saturation 1 (the same expression, core::reconstruct_channel) storing
// straight into the planar display row encode_planar reads, instead of into the chunk and a copy
// from there (2-3 % of a 4K frame's CPU on 2 cores).
TK_ISA_INLINE_ALL void colour_into(const cpu::Chunk& c, int n, float* __restrict r, float* __restrict g, float* __restrict b) {
  for (int i = 0; i < n; ++i) {
    const float lw = c.lw[i], ld = c.ld[i];
    r[i] = core::reconstruct_channel(c.r[i], lw, ld, 1.0f);
    g[i] = core::reconstruct_channel(c.g[i], lw, ld, 1.0f);
    b[i] = core::reconstruct_channel(c.b[i], lw, ld, 1.0f);
  }
}

// The second pass over a planar frame for the curves of the statistics alone, one loop a row:
// cpu::load_planar_chunk's luminance, the curve (core/curves.hpp, as cpu::curve_chunk calls it)
// and colour_into, element by element, with no chunk arrays in between. The decoded values are
// finite and >= 0, on which load_planar_chunk's sanitising changes nothing.
template <class Curve>
TK_ISA_INLINE_ALL void map_planar_row(const float* __restrict r, const float* __restrict g, const float* __restrict b, int n,
                              Curve curve, float* __restrict out_r, float* __restrict out_g, float* __restrict out_b) {
  for (int i = 0; i < n; ++i) {
    const float rv = r[i], gv = g[i], bv = b[i];
    const float lw = core::luminance(rv, gv, bv);
    const float ld = curve(lw);
    out_r[i] = core::reconstruct_channel(rv, lw, ld, 1.0f);
    out_g[i] = core::reconstruct_channel(gv, lw, ld, 1.0f);
    out_b[i] = core::reconstruct_channel(bv, lw, ld, 1.0f);
  }
}

// map_planar_row with the frame's curve (false: no global curve).
bool map_planar_curve(const core::CurveSettings& s, const float* r, const float* g, const float* b, int n, float* out) {
  bool mapped = false;
  core::visit_curve(core::cast_curve<float>(s), [&](const auto& curve) {
    map_planar_row(r, g, b, n, curve, out, out + n, out + 2 * n);
    mapped = true;
  });
  return mapped;
}

// An interleaved RGB row -> the planar buffer encode_planar reads.
TK_ISA_INLINE_ALL void deinterleave(const float* __restrict rgb, int n, float* __restrict planar) {
  for (int x = 0; x < n; ++x)
    planar[x] = rgb[3 * x], planar[n + x] = rgb[3 * x + 1], planar[2 * n + x] = rgb[3 * x + 2];
}

// Cb, Cr codes (as whole floats) of the `full` 2-column blocks of a block row: core::block_mean's
// order ((v00 + v10) + v01) + v11, then core::chroma_codes8's quantisation, branch-free. `ncb`,
// `ncr` hold each block's dither noise (zeros without dither). The odd last column, if any, is
// left to the caller.
// The row count is a template argument: with the test inside, GCC left the loop scalar.
template <bool kTwoRows>
TK_ISA_INLINE_ALL void chroma_row_of(const float* __restrict cb_top, const float* __restrict cb_bottom,
                             const float* __restrict cr_top, const float* __restrict cr_bottom, int full,
                             const float* __restrict ncb, const float* __restrict ncr, float* __restrict cb_code,
                             float* __restrict cr_code) {
  const float scale = kTwoRows ? 0.25f : 0.5f;
  for (int bx = 0; bx < full; ++bx) {
    const int x0 = 2 * bx;
    float cb = cb_top[x0] + cb_top[x0 + 1];
    float cr = cr_top[x0] + cr_top[x0 + 1];
    if (kTwoRows) {
      cb = (cb + cb_bottom[x0]) + cb_bottom[x0 + 1];
      cr = (cr + cr_bottom[x0]) + cr_bottom[x0 + 1];
    }
    constexpr float mid = core::kChromaCode8Mid, range = core::kChromaCode8Range;
    constexpr float lo = core::kChromaCode8Min, hi = core::kChromaCode8Max;
    float vb = mid + range * std::min(0.5f, std::max(-0.5f, cb * scale));
    float vr = mid + range * std::min(0.5f, std::max(-0.5f, cr * scale));
    const float nb = ncb[bx], nr = ncr[bx];  // unconditional loads, as in encode_planar
    constexpr float margin = (hi - lo) * static_cast<float>(core::kDitherEndMargin);  // core::quantise_code8's
    vb += nb * static_cast<float>((vb > lo + margin) & (vb < hi - margin));  // as in encode_planar
    vr += nr * static_cast<float>((vr > lo + margin) & (vr < hi - margin));
    cb_code[bx] = std::min(hi, std::max(lo, static_cast<float>(static_cast<int>(vb + 0.5f))));
    cr_code[bx] = std::min(hi, std::max(lo, static_cast<float>(static_cast<int>(vr + 0.5f))));
  }
}
void chroma_row(const float* cb_top, const float* cb_bottom, const float* cr_top, const float* cr_bottom, int full,
                bool two_rows, const float* ncb, const float* ncr, float* cb_code, float* cr_code) {
  if (two_rows) chroma_row_of<true>(cb_top, cb_bottom, cr_top, cr_bottom, full, ncb, ncr, cb_code, cr_code);
  else chroma_row_of<false>(cb_top, cb_bottom, cr_top, cr_bottom, full, ncb, ncr, cb_code, cr_code);
}

// core::dither_noise_from_hash(h, field) through a signed conversion (the same value; GCC keeps
// the unsigned one scalar), so that the dither loops below vectorise.
inline float noise_field(std::uint32_t h, unsigned field) {
  const unsigned shift = 8U * field;
  return static_cast<float>(static_cast<int>(((h >> shift) & 15U) + ((h >> (shift + 4U)) & 15U)) - 15) * (1.0f / 16.0f);
}

// The chroma dither of block row `by`: fields 1 and 2 of the hash of each block's top-left pixel.
TK_ISA_INLINE_ALL void chroma_dither_row(int blocks, int by, float* __restrict ncb, float* __restrict ncr) {
  const std::uint32_t seed = core::dither_row_seed(2 * by);
  for (int bx = 0; bx < blocks; ++bx) {
    const std::uint32_t h = core::dither_pixel_hash(2 * bx, seed);
    ncb[bx] = noise_field(h, 1);
    ncr[bx] = noise_field(h, 2);
  }
}

TK_ISA_INLINE_ALL void dither_row(int n, int y, float* __restrict noise) {
  const std::uint32_t seed = core::dither_row_seed(y);
  for (int x = 0; x < n; ++x) noise[x] = noise_field(core::dither_pixel_hash(x, seed), 0);
}

// Whole codes held as floats -> bytes (a loop of its own: mixing 8-bit stores into the float
// loop above keeps GCC from vectorising it).
TK_ISA_INLINE_ALL void store_codes(const float* codes, int n, std::uint8_t* out) {
  for (int x = 0; x < n; ++x) out[x] = static_cast<std::uint8_t>(static_cast<int>(codes[x]));
}

// dst[0, n) = src[0, n) with non-temporal stores where the CPU has them (SSE2): the decoded frame
// (100 MB at 4K) is written once and read back only by the second pass, after the whole frame, so
// ordinary stores would first read every line they fill (a read for ownership: another 100 MB
// through the memory bus per 4K frame) and evict the cache the decode works in. The caller
// fences (stream_fence) before another thread reads dst.
void stream_copy(float* __restrict dst, const float* __restrict src, int n) {
#if defined(__SSE2__)
  int i = 0;
  for (; i < n && (reinterpret_cast<std::uintptr_t>(dst + i) & 15u) != 0; ++i) dst[i] = src[i];
  for (; i + 16 <= n; i += 16) {
    _mm_stream_ps(dst + i, _mm_loadu_ps(src + i));
    _mm_stream_ps(dst + i + 4, _mm_loadu_ps(src + i + 4));
    _mm_stream_ps(dst + i + 8, _mm_loadu_ps(src + i + 8));
    _mm_stream_ps(dst + i + 12, _mm_loadu_ps(src + i + 12));
  }
  for (; i + 4 <= n; i += 4) _mm_stream_ps(dst + i, _mm_loadu_ps(src + i));
  for (; i < n; ++i) dst[i] = src[i];
#else
  std::memcpy(dst, src, sizeof(float) * static_cast<std::size_t>(n));
#endif
}
// Orders this thread's non-temporal stores before its later stores (the worker pool's hand-back).
void stream_fence() {
#if defined(__SSE2__)
  _mm_sfence();
#endif
}

// Rows per decode chunk (handed out by for_row_chunks; the statistics keep one partial per chunk,
// merged in chunk order, so the sums do not depend on scheduling).
constexpr int kDecodeRows = 16;

// Rows [0, n) in chunks of `chunk` handed out from an atomic counter to every worker: on a shared
// machine a core taken by another process then slows the frame by its share only, where fixed
// bands (cpu::parallel_rows) wait for the slowest band. body(worker, r0, r1); workers are
// numbered from 0 to worker_slots() - 1, one at a time each (their scratch is theirs alone).
int worker_slots() { return cpu::worker_count(); }
template <class F>
void for_row_chunks(int n, int chunk, F&& body) {
  std::atomic<int> next{0};
  cpu::parallel_rows(worker_slots(), [&](int worker, int, int) {
    for (;;) {
      const int r0 = next.fetch_add(chunk, std::memory_order_relaxed);
      if (r0 >= n) return;
      body(worker, r0, std::min(n, r0 + chunk));
    }
  });
}

// One chroma row at a luma row: codes of rows j0 (`r0`) and j1 (`r1`) of 16-bit words (every
// `kStep`-th one, `shift` 6 for P010), (c0 + wy (c1 - c0) - 512) * cs per sample; memcpy loads
// (the planes need not be 2-byte aligned) in a loop GCC vectorises.
template <int kStep>
TK_ISA_INLINE_ALL void chroma_vertical(const std::uint8_t* __restrict r0, const std::uint8_t* __restrict r1, unsigned shift,
                               float wy, float cs, int n, float* __restrict out) {
  for (int i = 0; i < n; ++i) {
    std::uint16_t a, b;
    std::memcpy(&a, r0 + 2 * kStep * i, 2);
    std::memcpy(&b, r1 + 2 * kStep * i, 2);
    const unsigned ua = std::min(static_cast<unsigned>(a) >> shift, 1023u), ub = std::min(static_cast<unsigned>(b) >> shift, 1023u);
    const float fa = static_cast<float>(static_cast<int>(ua)), fb = static_cast<float>(static_cast<int>(ub));
    out[i] = (fa + wy * (fb - fa) - 512.0f) * cs;
  }
}

// Across a row: x = 2i takes sample i, x = 2i + 1 the mean of i and i + 1 (the last sample
// repeated past the edge), as 0.5 (a + b) like the reference (0.5 (a + a) == a exactly).
TK_ISA_INLINE_ALL void chroma_across(const float* __restrict c, int cw, int w, float* __restrict out) {
  const int pairs = std::min(cw - 1, w / 2);
  for (int i = 0; i < pairs; ++i) {
    out[2 * i] = c[i];
    out[2 * i + 1] = 0.5f * (c[i] + c[i + 1]);
  }
  for (int x = 2 * pairs; x < w; ++x) out[x] = c[std::min(x >> 1, cw - 1)];
}

// The frame's planes with each stride filled in (0: packed rows of that plane).
FramePlanes strided_planes(InputFormat format, const FramePlanes& in, int w) {
  FramePlanes p = in;
  for (int i = 0; i < plane_count(format); ++i)
    if (p.stride[i] == 0) p.stride[i] = plane_row_bytes(format, i, w);
  return p;
}

// The per-row decode of a 10-bit Y'CbCr 4:2:0 frame: the chroma rows at a luma row
// (co-sited taps), upsampled across, then the row kernels above.
class RowDecoder {
 public:
  using Scratch = FastVideoDecodeScratch;

  RowDecoder(InputFormat format, const InputColour& colour, int w, int h, const FramePlanes& frame)
      : w_(w), cw_((w + 1) / 2), ch_((h + 1) / 2), p010_(format == InputFormat::p010), shift_(p010_ ? 6 : 0),
        planes_(strided_planes(format, frame, w)),
        // Normalised Y' = (code - y0) * ys, C = (code - 512) * cs (BT.2100 Table 9).
        d_{static_cast<float>(1.0 / colour.reference_white), core::ycbcr_coeffs<float>(colour.matrix == YuvMatrix::bt2020_ncl),
           colour.range == YuvRange::full ? 0.0f : 64.0f, colour.range == YuvRange::full ? 1.0f / 1023.0f : 1.0f / 876.0f},
        cs_(colour.range == YuvRange::full ? 1.0f / 1023.0f : 1.0f / 896.0f),
        bt2020_(colour.primaries == Primaries::bt2020),
        linear_(colour.transfer == Transfer::linear),
        avx512_(fast_transfers_avx512()) {}

  // Sizes a worker's buffers for this frame (no allocation when they already fit).
  void fit(Scratch& s) const {
    const std::size_t w = static_cast<std::size_t>(w_), cw = static_cast<std::size_t>(cw_);
    s.cb_row.resize(cw);
    s.cr_row.resize(cw);
    s.cb_full.resize(w);
    s.cr_full.resize(w);
    s.planar.resize(linear_ ? 0 : 3 * w);
    s.scene.resize(3 * w);
  }

  // Row y as scene-linear BT.709 RGB into `out` (an InterleavedRow or a PlanarRow).
  template <class Row>
  void row(int y, Scratch& s, Row out) const {
    // The chroma row at this luma row: co-sited taps j0, j1 with weight wy on j1 ...
    const core::ChromaTaps ty = core::chroma_taps_cosited(y, ch_);
    const float wy = core::chroma_tap_weight<float>(ty);
    const auto* c0 = static_cast<const std::uint8_t*>(planes_.data[1]) + planes_.stride[1] * ty.i0;
    const auto* c1 = static_cast<const std::uint8_t*>(planes_.data[1]) + planes_.stride[1] * ty.i1;
    const auto* d0 = p010_ ? c0 : static_cast<const std::uint8_t*>(planes_.data[2]) + planes_.stride[2] * ty.i0;
    const auto* d1 = p010_ ? c1 : static_cast<const std::uint8_t*>(planes_.data[2]) + planes_.stride[2] * ty.i1;
    if (p010_) {  // Cb, Cr interleaved
      chroma_vertical<2>(c0, c1, 6, wy, cs_, cw_, s.cb_row.data());
      chroma_vertical<2>(c0 + 2, c1 + 2, 6, wy, cs_, cw_, s.cr_row.data());
    } else {
      chroma_vertical<1>(c0, c1, 0, wy, cs_, cw_, s.cb_row.data());
      chroma_vertical<1>(d0, d1, 0, wy, cs_, cw_, s.cr_row.data());
    }
    // ... then across: even x is co-sited with its sample, odd x halfway to the next one.
    chroma_across(s.cb_row.data(), cw_, w_, s.cb_full.data());
    chroma_across(s.cr_row.data(), cw_, w_, s.cr_full.data());
    const std::uint8_t* luma = static_cast<const std::uint8_t*>(planes_.data[0]) + planes_.stride[0] * y;
    if (linear_ && bt2020_)
      decode_row_linear<true>(d_, luma, shift_, s.cb_full.data(), s.cr_full.data(), w_, out);
    else if (linear_)
      decode_row_linear<false>(d_, luma, shift_, s.cb_full.data(), s.cr_full.data(), w_, out);
    else
      decode_row_pq(d_, luma, shift_, s.cb_full.data(), s.cr_full.data(), w_, bt2020_, avx512_, s.planar.data(), out);
  }

 private:
  int w_, cw_, ch_;
  bool p010_;
  unsigned shift_;
  FramePlanes planes_;
  DecodeRow d_;
  float cs_;
  bool bt2020_;
  bool linear_;
  bool avx512_;
};

using EncodeScratch = FastVideoEncodeScratch;

// The 4:2:0 encode of a frame whose display rows (linear RGB in [0, 1], planar: r, g, b of w floats
// each) `rgb_row(y, planar)` writes; `scratch` holds one EncodeScratch per worker slot.
void encode_frame(int w, int h, OutputLayout layout, bool dither, std::uint8_t* out,
                  const std::function<void(int, float*)>& rgb_row, std::vector<EncodeScratch>& scratch) {
  const int cw = (w + 1) / 2, ch = (h + 1) / 2;
  const bool avx512 = fast_transfers_avx512();
  std::uint8_t* y_plane = out;
  std::uint8_t* c_plane = out + static_cast<std::size_t>(w) * h;
  const std::size_t c_size = static_cast<std::size_t>(cw) * ch;
  scratch.resize(static_cast<std::size_t>(worker_slots()));
  for (EncodeScratch& s : scratch) s.fit(w, dither);
  for_row_chunks(ch, 8, [&](int worker, int b0, int b1) {
    // Per block row: Y' codes of both luma rows with each pixel's Cb, Cr, then the block means
    // (core's fixed order) and their codes.
    EncodeScratch& s = scratch[static_cast<std::size_t>(worker)];
    std::vector<float>&cbs = s.cbs, &crs = s.crs, &codes = s.codes, &planar = s.planar, &noise = s.noise;
    std::vector<float>&ncb = s.ncb, &ncr = s.ncr, &cb_codes = s.cb_codes, &cr_codes = s.cr_codes;
    for (int by = b0; by < b1; ++by) {
      const int rows = 2 * by + 1 < h ? 2 : 1;
      for (int r = 0; r < rows; ++r) {
        const int y = 2 * by + r;
        if (dither) dither_row(w, y, noise.data());
        rgb_row(y, planar.data());
        encode_planar(planar.data(), noise.data(), w, avx512, codes.data(), cbs.data() + static_cast<std::size_t>(r) * w,
                      crs.data() + static_cast<std::size_t>(r) * w);
        store_codes(codes.data(), w, y_plane + static_cast<std::size_t>(y) * w);
      }
      const float* cb_top = cbs.data();
      const float* cb_bottom = cbs.data() + static_cast<std::size_t>(rows - 1) * w;
      const float* cr_top = crs.data();
      const float* cr_bottom = crs.data() + static_cast<std::size_t>(rows - 1) * w;
      const int full = w / 2;  // blocks with two columns; an odd width adds one of one column
      if (dither) chroma_dither_row(full, by, ncb.data(), ncr.data());
      const int done = avx512 ? chroma_codes_avx512(cb_top, cb_bottom, cr_top, cr_bottom, full, rows == 2, ncb.data(),
                                                    ncr.data(), cb_codes.data(), cr_codes.data())
                              : 0;
      chroma_row(cb_top + 2 * done, cb_bottom + 2 * done, cr_top + 2 * done, cr_bottom + 2 * done, full - done, rows == 2,
                 ncb.data() + done, ncr.data() + done, cb_codes.data() + done, cr_codes.data() + done);
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

}  // namespace

void fast_decode_into(const FastVideoJob& j, const FramePlanes& frame, Image& scene,
                      std::vector<cpu::StatsPartial>* partials, bool planar) {
  const int w = j.width, h = j.height;
  if (scene.width != w || scene.height != h || scene.channels != 3) scene = Image(w, h, 3);
  const RowDecoder decoder(j.format, j.colour, w, h, frame);
  const std::size_t plane = static_cast<std::size_t>(w) * h;
  if (partials) partials->assign(static_cast<std::size_t>((h + kDecodeRows - 1) / kDecodeRows), cpu::StatsPartial{});
  j.ws.decode.resize(static_cast<std::size_t>(worker_slots()));
  for (RowDecoder::Scratch& s : j.ws.decode) decoder.fit(s);
  for_row_chunks(h, kDecodeRows, [&](int worker, int r0, int r1) {
    cpu::Chunk chunk;
    RowDecoder::Scratch& scratch = j.ws.decode[static_cast<std::size_t>(worker)];
    for (int y = r0; y < r1; ++y) {
      float* r = scene.pixels.data() + static_cast<std::size_t>(y) * w;  // planar: row y of each plane
      // Planar: the row is decoded into the worker's scratch (in cache), its statistics read
      // there, and it goes into the frame by non-temporal stores (stream_copy).
      float* sr = scratch.scene.data();
      if (planar) decoder.row(y, scratch, PlanarRow{sr, sr + w, sr + 2 * w});
      else decoder.row(y, scratch, InterleavedRow{scene.row(y)});
      if (partials) {
        // The statistics pass of cpu::tone_map over the row just decoded (in cache): the decoded
        // values are finite and >= 0, so there are no bad pixels to count.
        cpu::StatsPartial& p = (*partials)[static_cast<std::size_t>(r0 / kDecodeRows)];
        for (int x0 = 0; x0 < w; x0 += cpu::kChunk) {
          const int n = std::min(cpu::kChunk, w - x0);
          if (planar) cpu::load_planar_luminance_chunk(sr + x0, sr + w + x0, sr + 2 * w + x0, n, chunk);
          else cpu::load_luminance_chunk(scene.row(y), x0, n, 3, PixelType::f32, chunk);
          cpu::reduce_luminance(chunk, n, p.lum);
        }
      }
      if (planar) {
        stream_copy(r, sr, w);
        stream_copy(r + plane, sr + w, w);
        stream_copy(r + 2 * plane, sr + 2 * w, w);
      }
    }
    if (planar) stream_fence();
  });
}

void fast_encode(const FastVideoJob& j, const Image& display, OutputLayout layout, bool dither, std::uint8_t* out) {
  encode_frame(j.width, j.height, layout, dither, out,
               [&](int y, float* planar) { deinterleave(display.row(y), j.width, planar); }, j.ws.encode);
}

Status fast_map(const FastVideoJob& j, const FramePlanes& frame, const Params& params, const cpu::CurveStatsHook* hook,
                OutputLayout layout, bool dither, Image& scene, FrameStats& stats, std::uint8_t* out) {
  if (!FastVideo::fuses(params)) return invalid_argument(std::string("FastVideo::map: ") + params.op().id + " is not a global operator");
  // The first pass keeps the decoded frame for the second: decoding every row again instead (and
  // no 100 MB float frame at 4K) measured 10 % slower on the 2-core machine (8 4K frames: 0.48
  // against 0.43 s, 0.73-0.78 against 0.68-0.71 s of user CPU).
  // The frame is kept planar unless the curve reads it again (the robust peak below 100 %,
  // histeq's histogram: cpu::global_curve reads an interleaved view): no interleave in the
  // decode, no de-interleave in the map.
  const core::CurvePlan plan = core::compile_curve_plan(params);
  const bool planar = !(plan.peak_percentile < 100.0) && plan.histogram_bins == 0;
  std::vector<cpu::StatsPartial> partials;
  fast_decode_into(j, frame, scene, &partials, planar);
  stats = cpu::merge_stats(partials, static_cast<std::uint64_t>(j.width) * j.height);
  std::vector<float> hist_table;
  const core::CurveSettings curve = cpu::global_curve(scene.view(), plan, stats, hook, hist_table);
  const float saturation = static_cast<float>(core::make_colour_settings(params).saturation);
  const bool by_luminance = core::curve_colour_mode(curve) == core::kModeLuminance;
  // cpu::tone_map's map pass per chunk (load, curve, colour), its clamp to [0, 1] left to the
  // OETF's own, straight into the planar row encode_planar reads.
  const int w = j.width;
  const std::size_t plane = static_cast<std::size_t>(w) * j.height;
  encode_frame(w, j.height, layout, dither, out, [&](int y, float* rgb) {
    cpu::Chunk c;
    const float* r = scene.pixels.data() + static_cast<std::size_t>(y) * w;
    if (planar && saturation == 1.0f && by_luminance && map_planar_curve(curve, r, r + plane, r + 2 * plane, w, rgb)) return;
    for (int x0 = 0; x0 < w; x0 += cpu::kChunk) {
      const int n = std::min(cpu::kChunk, w - x0);
      if (planar) cpu::load_planar_chunk(r + x0, r + plane + x0, r + 2 * plane + x0, n, c);
      else cpu::load_chunk(scene.row(y), x0, n, 3, PixelType::f32, c);
      if (!by_luminance) {  // the colour modes (core/colour_modes.hpp)
        cpu::map_colour_chunk(curve, c, n, saturation);
      } else {
        cpu::curve_chunk(curve, c, n);
      }
      if (by_luminance && saturation == 1.0f) {
        colour_into(c, n, rgb + x0, rgb + w + x0, rgb + 2 * w + x0);
        continue;
      }
      if (by_luminance) cpu::colour_chunk(c, n, saturation);
      std::memcpy(rgb + x0, c.r, sizeof(float) * static_cast<std::size_t>(n));
      std::memcpy(rgb + w + x0, c.g, sizeof(float) * static_cast<std::size_t>(n));
      std::memcpy(rgb + 2 * w + x0, c.b, sizeof(float) * static_cast<std::size_t>(n));
    }
  }, j.ws.encode);
  return {};
}

TK_ISA_END

#if TK_ISA_PRIMARY
bool FastVideo::covers(InputFormat format, const InputColour& colour, bool yuv_output, double gamma) {
  return is_yuv(format) && (colour.transfer == Transfer::pq || colour.transfer == Transfer::linear) && yuv_output &&
         gamma == 0.0 && (colour.primaries == Primaries::bt709 || colour.gamut == GamutMapping::clip);
}

struct FastVideo::Workspace : FastVideoWorkspace {};

FastVideo::FastVideo(InputFormat format, const InputColour& colour, int width, int height)
    : format_(format), colour_(colour), width_(width), height_(height), workspace_(std::make_unique<Workspace>()) {}
FastVideo::~FastVideo() = default;

void FastVideo::decode(const FramePlanes& frame, Image& scene) const { decode_into(frame, scene, nullptr, false); }

void FastVideo::decode_into(const FramePlanes& frame, Image& scene, std::vector<cpu::StatsPartial>* partials,
                            bool planar) const {
  const FastVideoJob j{format_, colour_, width_, height_, *workspace_};
  TK_ISA_DISPATCH(fast_decode_into(j, frame, scene, partials, planar));
}

void FastVideo::encode(const Image& display, OutputLayout layout, bool dither, std::uint8_t* out) const {
  const FastVideoJob j{format_, colour_, width_, height_, *workspace_};
  TK_ISA_DISPATCH(fast_encode(j, display, layout, dither, out));
}

bool FastVideo::fuses(const Params& params) { return params.op().locality == Locality::global; }

Status FastVideo::map(const FramePlanes& frame, const Params& params, const cpu::CurveStatsHook* hook,
                      OutputLayout layout, bool dither, Image& scene, FrameStats& stats, std::uint8_t* out) const {
  const FastVideoJob j{format_, colour_, width_, height_, *workspace_};
  TK_ISA_DISPATCH(fast_map(j, frame, params, hook, layout, dither, scene, stats, out));
}
#endif  // TK_ISA_PRIMARY

}  // namespace tonekit::cpu
