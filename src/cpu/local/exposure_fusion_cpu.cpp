// exposure-fusion on the CPU: Mertens et al. 2007 on synthetic exposures of one HDR frame
// (core/fusion.hpp), the reference the CUDA pass matches. Planes: p = L_w^(1/2.2) and the N
// normalised weights at level 0 (the channels' q = c^(1/2.2) only a row at a time, inside the
// weights' pass). The output is linear in the exposures, so they are blended one at a time: the
// Gaussian pyramids of exposure e (v_e = min(1, a_e p)) and of its weight, with local-laplacian's
// filters (core/laplacian.hpp), then each level's coefficient gains W_e (v_e - up(v_e's next
// level)) (the top: W_e v_e), in the order of e, which is the kernels' per-pixel sum term for
// term; then the collapse. Two one-plane pyramids at a time instead of 2N, and no q planes: 4K
// fusion went from 2.2 to 0.9 CPU-s (docs/performance.md).
//
// The loops run over whole rows, compiled per x86-64 level (cpu/isa_level.hpp;
// exposure_fusion_cpu_v3.cpp, _v4.cpp), without contraction, so every float is the kernels' and
// each level's bytes are the same. The powers and the weights' exp/log are taken in double, as the
// kernels do, by cpu/portable_double.hpp's (basic operations only, so they vectorise); they are
// within ~1e-15 relative of libm's and CUDA's, so the float they round to is the same but for a
// value within 1e-15 of a float's rounding boundary (test_exposure_fusion.cpp).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <vector>

#include "core/fusion.hpp"
#include "core/laplacian.hpp"
#include "cpu/isa_level.hpp"
#include "cpu/portable_double.hpp"
#include "cpu/local/local_common.hpp"
#include "cpu/local/local_tone_map.hpp"
#include "cpu/local/pyramid_rows.hpp"

namespace tonekit::cpu::local {

TK_ISA_BEGIN
namespace {

// core::fusion_encode: x^(1 / 2.2) rounded once (0 for x <= 0).
inline float encode(float x) {
  const double y = portable::exp(portable::log(x > 0.0f ? static_cast<double>(x) : 1.0) * (1.0 / core::kFusionGamma));
  return x > 0.0f ? static_cast<float>(y) : 0.0f;
}

// core::fusion_display: clamp(o, 0, 1)^2.2 rounded once.
inline float display(float o) {
  const double c = o < 0.0f ? 0.0 : (o > 1.0f ? 1.0 : static_cast<double>(o));
  const double y = portable::exp(portable::log(c > 0.0 ? c : 1.0) * core::kFusionGamma);
  return c > 0.0 ? static_cast<float>(y) : 0.0f;
}

using core::fusion_value;

// Exposure a's value v, contrast c and saturation s along a row (core's definitions, inlined here): pc the padded row of p (pc[-1], pc[w] repeat its ends),
// pu and pd the rows above and below, qr qg qb the row's channels.
void exposure_terms(const float* __restrict pc, const float* __restrict pu, const float* __restrict pd,
                    const float* __restrict qr, const float* __restrict qg, const float* __restrict qb, float a, int w,
                    float* __restrict v, float* __restrict c, float* __restrict s) {
  for (int x = 0; x < w; ++x) {
    const float vx = fusion_value(pc[x], a);
    v[x] = vx;
    c[x] = core::fusion_contrast(vx, fusion_value(pc[x - 1], a), fusion_value(pc[x + 1], a), fusion_value(pu[x], a),
                                 fusion_value(pd[x], a));
    s[x] = core::fusion_saturation(qr[x], qg[x], qb[x], a);
  }
}

// core::fusion_weight of each x from v, c and s, added to sum (in the order of the exposures).
// MC, MS: the contrast's and the saturation's exponent is 0 (left out), 1 (a factor) or 2: any,
// tested per pixel as there.
template <int MC, int MS>
void weight_terms(const core::FusionFrame& f, int w, const float* __restrict v, const float* __restrict c,
                  const float* __restrict s, double* __restrict wt, double* __restrict sum) {
  const double wc = f.wc, ws = f.ws, we = f.we, inv = f.inv_two_sigma2;
  for (int x = 0; x < w; ++x) {
    const double d = static_cast<double>(v[x]) - 0.5;
    double l = -we * d * d * inv, k = 1.0;
    const double cf = static_cast<double>(c[x]) + core::kFusionFloor, sf = static_cast<double>(s[x]) + core::kFusionFloor;
    if constexpr (MC == 1) k *= cf;
    if constexpr (MS == 1) k *= sf;
    if constexpr (MC == 2) {
      if (wc == 1.0) k *= cf;
      else if (wc != 0.0) l += wc * portable::log(cf);
      if (ws == 1.0) k *= sf;
      else if (ws != 0.0) l += ws * portable::log(sf);
    }
    const double t = k * portable::exp(l);
    wt[x] = t;
    sum[x] += t;
  }
}

// The normalised weights of row y (core::fusion_pixel_weights for each x): p the whole plane, q
// the row's three channels (qr, qg, qb), out the N weight planes.
class WeightsRow {
 public:
  explicit WeightsRow(int w) : w_(w), pad_(4 * (static_cast<std::size_t>(w) + 2)), v_(w), c_(w), s_(w), wt_(kMax * static_cast<std::size_t>(w)), sum_(w) {}

  void run(const float* p, const float* qr, const float* qg, const float* qb, int h, int y, const core::FusionFrame& f,
           float* weights) {
    const int w = w_;
    const std::size_t count = static_cast<std::size_t>(w) * h, row = static_cast<std::size_t>(y) * w;
    // The row and its neighbours, borders repeated: pc[x - 1], pc[x + 1] are the clamped neighbours.
    float* pc = pad_.data() + 1;
    std::memcpy(pc, p + row, w * sizeof(float));
    pc[-1] = pc[0];
    pc[w] = pc[w - 1];
    const float* pu = p + static_cast<std::size_t>(core::llf_clamp(y - 1, h)) * w;
    const float* pd = p + static_cast<std::size_t>(core::llf_clamp(y + 1, h)) * w;
    double* sum = sum_.data();
    for (int x = 0; x < w; ++x) sum[x] = 0.0;
    const int mc = exponent_mode(f.wc), ms = exponent_mode(f.ws);
    for (int e = 0; e < f.n; ++e) {
      const float a = f.a[e];
      exposure_terms(pc, pu, pd, qr, qg, qb, a, w, v_.data(), c_.data(), s_.data());
      double* wt = wt_.data() + static_cast<std::size_t>(e) * w;
      // One loop per pair of exponent modes, so that none branches.
      if (mc == 1 && ms == 1) weight_terms<1, 1>(f, w, v_.data(), c_.data(), s_.data(), wt, sum);
      else if (mc == 0 && ms == 0) weight_terms<0, 0>(f, w, v_.data(), c_.data(), s_.data(), wt, sum);
      else if (mc == 0 && ms == 1) weight_terms<0, 1>(f, w, v_.data(), c_.data(), s_.data(), wt, sum);
      else if (mc == 1 && ms == 0) weight_terms<1, 0>(f, w, v_.data(), c_.data(), s_.data(), wt, sum);
      else weight_terms<2, 2>(f, w, v_.data(), c_.data(), s_.data(), wt, sum);
    }
    for (int e = 0; e < f.n; ++e) {
      const double* wt = wt_.data() + static_cast<std::size_t>(e) * w;
      float* out = weights + e * count + row;
      for (int x = 0; x < w; ++x) out[x] = static_cast<float>(wt[x] / sum[x]);
    }
  }

  // The row's q from the sanitised channels (encode), into the row buffers this returns.
  float* q_row(int channel) { return pad_.data() + (static_cast<std::size_t>(w_) + 2) * (1 + channel); }

 private:
  // An exponent of 0 (the term is left out), 1 (a factor) or another (2).
  static int exponent_mode(double k) { return k == 0.0 ? 0 : (k == 1.0 ? 1 : 2); }

  static constexpr int kMax = core::kFusionMaxExposures;
  int w_;
  std::vector<float> pad_;  // the padded p row, then q's r, g, b rows
  std::vector<float> v_, c_, s_;
  std::vector<double> wt_, sum_;
};

// Rows of up(C) for a coarse plane C (cw x ch) at the fine width w: core::llf_up_at for every x of
// a row, as the rows' horizontal expansions (even and odd fine columns apart, cached for the next
// fine rows: each coarse row serves up to four) and the vertical one, then interleaved.
class UpRows {
 public:
  UpRows(const float* c, int cw, int ch, int w) : c_(c), cw_(cw), ch_(ch), w_(w), pad_(cw + 2), ev_(cw), od_(cw) {
    for (auto& s : slot_) s.assign(2 * static_cast<std::size_t>(cw), 0.0f);
  }

  // up(C) on fine row y into dst[0, w).
  void row(int y, float* dst) {
    const int j = y >> 1;
    const bool odd_row = (y & 1) != 0;
    const float* h0 = odd_row ? nullptr : expanded(core::llf_clamp(j - 1, ch_));
    const float* h1 = expanded(core::llf_clamp(j, ch_));
    const float* h2 = expanded(core::llf_clamp(j + 1, ch_));
    const int cw = cw_;
    float* ev = ev_.data();
    float* od = od_.data();
    // The vertical step on the even and the odd columns' expansions (core::llf_up1).
    if (odd_row) {
      for (int i = 0; i < cw; ++i) ev[i] = (h1[i] + h2[i]) * 0.5f;
      for (int i = 0; i < cw; ++i) od[i] = (h1[cw + i] + h2[cw + i]) * 0.5f;
    } else {
      for (int i = 0; i < cw; ++i) ev[i] = ((h0[i] + 6.0f * h1[i]) + h2[i]) * 0.125f;
      for (int i = 0; i < cw; ++i) od[i] = ((h0[cw + i] + 6.0f * h1[cw + i]) + h2[cw + i]) * 0.125f;
    }
    const int pairs = w_ / 2;
    for (int i = 0; i < pairs; ++i) {
      dst[2 * i] = ev[i];
      dst[2 * i + 1] = od[i];
    }
    if (w_ & 1) dst[w_ - 1] = ev[pairs];
  }

 private:
  // Coarse row r expanded horizontally: even fine columns 2i at [0, cw), odd ones 2i + 1 at [cw, 2 cw).
  const float* expanded(int r) {
    Slot& s = slot_[r & 3];
    if (s_key_[r & 3] == r) return s.data();
    s_key_[r & 3] = r;
    const int cw = cw_;
    float* pad = pad_.data();
    std::memcpy(pad + 1, c_ + static_cast<std::size_t>(r) * cw, cw * sizeof(float));
    pad[0] = pad[1];
    pad[cw + 1] = pad[cw];
    float* ev = s.data();
    float* od = s.data() + cw;
    for (int i = 0; i < cw; ++i) ev[i] = ((pad[i] + 6.0f * pad[i + 1]) + pad[i + 2]) * 0.125f;
    for (int i = 0; i < cw; ++i) od[i] = (pad[i + 1] + pad[i + 2]) * 0.5f;
    return s.data();
  }

  using Slot = std::vector<float>;
  const float* c_;
  int cw_, ch_, w_;
  std::vector<float> pad_, ev_, od_;
  Slot slot_[4];
  int s_key_[4] = {-1, -1, -1, -1};
};

// pyramid_rows.hpp's decimate_rows with its row steps run at this file's level (the lambdas here
// are the level's; the template's would be baseline): dst (w1 x h1) = the decimated src (w x h),
// the source values passed through min(1, a v) first when a > 0 (the exposures), else as they are
// (the weights).
void decimate(const float* src, int w, int h, float* dst, float* tmp, float a) {
  const int w1 = (w + 1) / 2, h1 = (h + 1) / 2;
  parallel_rows(h, [&](int, int y0, int y1) {
    std::vector<float> padded(static_cast<std::size_t>(w) + 5);
    float* row = padded.data() + 2;
    for (int y = y0; y < y1; ++y) {
      const float* s = src + static_cast<std::size_t>(y) * w;
      if (a > 0.0f)
        for (int x = 0; x < w; ++x) row[x] = fusion_value(s[x], a);
      else
        for (int x = 0; x < w; ++x) row[x] = s[x];
      pad_row_ends(row, w);
      decimate_row_taps(row, w1, tmp + static_cast<std::size_t>(y) * w1);
    }
  });
  parallel_rows(h1, [&](int, int y0, int y1) {
    for (int y = y0; y < y1; ++y) decimate_column_taps(tmp, w1, h, y, dst + static_cast<std::size_t>(y) * w1);
  });
}

// The Gaussian pyramid (levels 1..J of geometry g) of a plane (exposure a > 0 of it, or as it is).
void gaussian_pyramid(const float* plane, const core::LlfGeometry& g, float* pyr, float* tmp, float a) {
  decimate(plane, g.w[0], g.h[0], pyr + g.at(1, 0), tmp, a);
  for (int j = 2; j <= g.depth; ++j) decimate(pyr + g.at(j - 1, 0), g.w[j - 1], g.h[j - 1], pyr + g.at(j, 0), tmp, 0.0f);
}

}  // namespace

void exposure_fusion_encode(const float* lw, std::size_t count, float* p) {
  const std::size_t block = 1 << 16;
  parallel_row_blocks(static_cast<int>((count + block - 1) / block), [&](int b0, int b1) {
    const std::size_t end = std::min(count, static_cast<std::size_t>(b1) * block);
    for (std::size_t i = static_cast<std::size_t>(b0) * block; i < end; ++i) p[i] = encode(lw[i]);
  });
}

void exposure_fusion_weights(const float* p, const float* q, int w, int h, const core::FusionFrame& f, float* weights) {
  const std::size_t count = static_cast<std::size_t>(w) * h;
  parallel_rows(h, [&](int, int y0, int y1) {
    WeightsRow rows(w);
    for (int y = y0; y < y1; ++y) {
      const std::size_t at = static_cast<std::size_t>(y) * w;
      rows.run(p, q + at, q + count + at, q + 2 * count + at, h, y, f, weights);
    }
  });
}

void exposure_fusion_weights_from_image(const ImageView& in, const float* p, const core::FusionFrame& f, float* weights) {
  const int w = in.width, h = in.height;
  parallel_rows(h, [&](int, int y0, int y1) {
    WeightsRow rows(w);
    Chunk chunk;
    float* qr = rows.q_row(0);
    float* qg = rows.q_row(1);
    float* qb = rows.q_row(2);
    for (int y = y0; y < y1; ++y) {
      for (int x0 = 0; x0 < w; x0 += kChunk) {
        const int n = std::min(kChunk, w - x0);
        load_chunk(in.row<const void>(y), x0, n, in.channels, in.type, chunk);
        for (int i = 0; i < n; ++i) {
          qr[x0 + i] = encode(chunk.r[i]);
          qg[x0 + i] = encode(chunk.g[i]);
          qb[x0 + i] = encode(chunk.b[i]);
        }
      }
      rows.run(p, qr, qg, qb, h, y, f, weights);
    }
  });
}

void exposure_fusion_output(const float* p, const float* weights, int w, int h, const core::FusionFrame& f, float* out) {
  const std::size_t count = static_cast<std::size_t>(w) * h;
  const core::LlfGeometry g = core::llf_geometry(w, h, 1);
  const int J = g.depth;
  if (J == 0) {  // one pixel: the blend of the exposures themselves
    float acc = 0.0f;
    for (int e = 0; e < f.n; ++e) acc = acc + weights[e * count] * fusion_value(p[0], f.a[e]);
    out[0] = acc;
    return;
  }
  // coef: the output's coefficients at levels 1..J (level 0's in out), then its collapse in place;
  // the first exposure's terms are added to 0 as they are written (the kernels' 0 + term).
  std::vector<float> vp(g.total()), wp(g.total()), coef(g.total());
  std::vector<float> tmp(static_cast<std::size_t>(g.w[1]) * h);
  for (int e = 0; e < f.n; ++e) {
    const float a = f.a[e];
    const float* we0 = weights + e * count;
    gaussian_pyramid(p, g, vp.data(), tmp.data(), a);
    gaussian_pyramid(we0, g, wp.data(), tmp.data(), 0.0f);
    for (int j = 0; j < J; ++j) {
      const int wj = g.w[j];
      const float* vc = vp.data() + g.at(j + 1, 0);
      float* cj = j == 0 ? out : coef.data() + g.at(j, 0);
      const float* vj = j == 0 ? nullptr : vp.data() + g.at(j, 0);
      const float* wj_plane = j == 0 ? we0 : wp.data() + g.at(j, 0);
      parallel_rows(g.h[j], [&](int, int y0, int y1) {
        UpRows up(vc, g.w[j + 1], g.h[j + 1], wj);
        std::vector<float> u(wj), v(wj);
        for (int y = y0; y < y1; ++y) {
          const std::size_t at = static_cast<std::size_t>(y) * wj;
          up.row(y, u.data());
          const float* vr = vj ? vj + at : v.data();
          if (!vj)
            for (int x = 0; x < wj; ++x) v[x] = fusion_value(p[at + x], a);
          const float* wr = wj_plane + at;
          float* cr = cj + at;
          if (e == 0)
            for (int x = 0; x < wj; ++x) cr[x] = 0.0f + wr[x] * (vr[x] - u[x]);
          else
            for (int x = 0; x < wj; ++x) cr[x] = cr[x] + wr[x] * (vr[x] - u[x]);
        }
      });
    }
    const float* vt = vp.data() + g.at(J, 0);
    const float* wt = wp.data() + g.at(J, 0);
    float* ct = coef.data() + g.at(J, 0);
    for (std::size_t i = 0; i < g.size(J); ++i) ct[i] = (e == 0 ? 0.0f : ct[i]) + wt[i] * vt[i];
  }
  // The collapse: O_j = coefficient + up(O_{j+1}), in place.
  for (int j = J - 1; j >= 0; --j) {
    const int wj = g.w[j];
    const float* oc = coef.data() + g.at(j + 1, 0);
    float* oj = j == 0 ? out : coef.data() + g.at(j, 0);
    parallel_rows(g.h[j], [&](int, int y0, int y1) {
      UpRows up(oc, g.w[j + 1], g.h[j + 1], wj);
      std::vector<float> u(wj);
      for (int y = y0; y < y1; ++y) {
        up.row(y, u.data());
        float* r = oj + static_cast<std::size_t>(y) * wj;
        for (int x = 0; x < wj; ++x) r[x] = r[x] + u[x];
      }
    });
  }
}

void exposure_fusion_display(const float* o, std::size_t n, float* ld) {
  for (std::size_t i = 0; i < n; ++i) ld[i] = display(o[i]);
}

TK_ISA_END

#if TK_ISA_PRIMARY
TK_ISA_DECLARE(void exposure_fusion_encode(const float* lw, std::size_t count, float* p);
               void exposure_fusion_weights(const float* p, const float* q, int w, int h, const core::FusionFrame& f,
                                            float* weights);
               void exposure_fusion_weights_from_image(const ImageView& in, const float* p, const core::FusionFrame& f,
                                                       float* weights);
               void exposure_fusion_output(const float* p, const float* weights, int w, int h, const core::FusionFrame& f,
                                           float* out);
               void exposure_fusion_display(const float* o, std::size_t n, float* ld);)

void exposure_fusion_weights(const float* p, const float* q, int w, int h, const core::FusionFrame& f, float* weights) {
  TK_ISA_DISPATCH(exposure_fusion_weights(p, q, w, h, f, weights));
}

void exposure_fusion_output(const float* p, const float* weights, int w, int h, const core::FusionFrame& f, float* out) {
  TK_ISA_DISPATCH(exposure_fusion_output(p, weights, w, h, f, out));
}

void exposure_fusion_encode(const float* lw, std::size_t count, float* p) { TK_ISA_DISPATCH(exposure_fusion_encode(lw, count, p)); }
void exposure_fusion_display(const float* o, std::size_t n, float* ld) { TK_ISA_DISPATCH(exposure_fusion_display(o, n, ld)); }

namespace {
void weights_from_image(const ImageView& in, const float* p, const core::FusionFrame& f, float* weights) {
  TK_ISA_DISPATCH(exposure_fusion_weights_from_image(in, p, f, weights));
}
}  // namespace

FrameStats exposure_fusion_map(const ImageView& in, const Params& params, const core::ColourSettings& c,
                               const ImageView& out, double* stats_ms, const CurveStatsHook* hook) {
  const int w = in.width, h = in.height;
  const std::size_t count = static_cast<std::size_t>(w) * h;
  auto p = scratch<float>(count);
  const auto t0 = std::chrono::steady_clock::now();
  const FrameStats stats = stats_with_luminance_plane(in, p.get());
  if (stats_ms) *stats_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  const FrameStats used = hook && *hook ? (*hook)(stats) : stats;
  const core::FusionFrame f =
      core::make_fusion_frame(core::local_params_from(params).fusion, used.max_luminance, used.log_average);
  exposure_fusion_encode(p.get(), count, p.get());  // p from L_w, in place
  auto weights = scratch<float>(static_cast<std::size_t>(f.n) * count);
  weights_from_image(in, p.get(), f, weights.get());  // q from a second read of the input
  auto o = scratch<float>(count);
  exposure_fusion_output(p.get(), weights.get(), w, h, f, o.get());
  map_rows(in, c, out, [&](int y, int x0, int n, Chunk& chunk) {
    exposure_fusion_display(o.get() + static_cast<std::size_t>(y) * w + x0, static_cast<std::size_t>(n), chunk.ld);
  });
  return stats;
}
#endif  // TK_ISA_PRIMARY

}  // namespace tonekit::cpu::local
