// Pyramid blur (seed 3.5; Burt 1981, Kraus & Strengert 2007): down-sample `levels` times with an
// analysis filter (2x2 box, 4x4 box, or Kraus' quasi-convolution filter [13 19 19 13] / 64),
// then up-sample back with the biquadratic B-spline synthesis filter (weights 3/4, 1/4 per
// axis: the single bilinear lookup of Strengert et al.). Both filters are separable; each level
// halves the size (odd sizes round up, the missing fine pixel is the clamped edge).
// The effective sigma roughly doubles per level (blur_math::pyramid_sigma); the optional
// coarse-level Gaussian fills the gap to the target sigma at 1 / 4^levels of the cost.
// Compiled once per instruction-set level (cpu/isa_level.hpp: pyramid_v3.cpp, _v4.cpp; the level
// options: no contraction, so every level gives the same bytes).
#include <algorithm>

#include "cpu/blur/methods.hpp"
#include "cpu/isa_level.hpp"
#include "cpu/parallel.hpp"

namespace tonekit::blur_impl {

#if TK_ISA_PRIMARY
TK_ISA_DECLARE(std::vector<float> pyramid_down(const float* fine, int fw, int fh, blur_math::PyramidAnalysis analysis);
               void pyramid_up(const float* coarse, int cw, int ch, float* fine, int fw, int fh);
               void pyramid_blur(const float* in, float* out, int w, int h, blur_math::PyramidAnalysis analysis,
                                 int levels, double coarse_sigma);)

void small_or_gaussian(const float* in, float* out, int w, int h, double sigma) {
  if (sigma <= 0.0) {
    std::copy(in, in + static_cast<std::size_t>(w) * h, out);
    return;
  }
  if (sigma < blur_math::kSmallSigma) {
    const double s = blur_math::small_blur_side_weight(sigma);
    separable_convolve(in, out, w, h, {s, 1.0 - 2.0 * s, s});
    return;
  }
  separable_convolve(in, out, w, h, gaussian_kernel_1d(sigma, blur_math::kernel_radius(sigma, 3.0)));
}
#endif  // TK_ISA_PRIMARY

TK_ISA_BEGIN
namespace {

struct Plane {
  int w = 0, h = 0;
  std::vector<float> v;
  float* row(int y) { return v.data() + static_cast<std::size_t>(y) * w; }
  const float* row(int y) const { return v.data() + static_cast<std::size_t>(y) * w; }
};

// Fine (fw x fh) -> coarse ((fw + 1) / 2 x (fh + 1) / 2): coarse i = sum_t a[t] fine(2i - 1 + t).
Plane downsample(const float* fine, int fw, int fh, blur_math::PyramidAnalysis a) {
  float wt[4];
  for (int t = 0; t < 4; ++t) wt[t] = static_cast<float>(blur_math::analysis_weight(a, t));
  Plane c;
  c.w = (fw + 1) / 2;
  c.h = (fh + 1) / 2;
  c.v.resize(static_cast<std::size_t>(c.w) * c.h);
  // Coarse columns whose four taps lie inside the row: 2i - 1 >= 0 and 2i + 2 <= fw - 1.
  const int i_begin = std::min(1, c.w), i_end = std::max(i_begin, std::min(c.w, (fw - 1) / 2));
  cpu::parallel_rows(c.h, [&](int, int y0, int y1) {
    std::vector<float> row(c.w);
    for (int j = y0; j < y1; ++j) {
      // Vertical first (whole rows, vectorised along x) into the fine-width row ...
      const float* r[4];
      for (int k = 0; k < 4; ++k) r[k] = fine + static_cast<std::size_t>(std::clamp(2 * j - 1 + k, 0, fh - 1)) * fw;
      std::vector<float> v(fw);
      for (int x = 0; x < fw; ++x) v[x] = wt[0] * r[0][x] + wt[1] * r[1][x] + wt[2] * r[2][x] + wt[3] * r[3][x];
      // ... then horizontal, clamping only at the two ends.
      float* dst = c.row(j);
      auto edge = [&](int i) {
        float s = 0.0f;
        for (int k = 0; k < 4; ++k) s += wt[k] * v[std::clamp(2 * i - 1 + k, 0, fw - 1)];
        dst[i] = s;
      };
      for (int i = 0; i < i_begin; ++i) edge(i);
      for (int i = i_begin; i < i_end; ++i) {
        const float* q = v.data() + 2 * i - 1;
        dst[i] = wt[0] * q[0] + wt[1] * q[1] + wt[2] * q[2] + wt[3] * q[3];
      }
      for (int i = i_end; i < c.w; ++i) edge(i);
    }
  });
  return c;
}

// Coarse -> fine (fw x fh): fine 2i + p = 3/4 coarse(i) + 1/4 coarse(i - 1 + 2p), clamped.
void upsample(const Plane& c, float* fine, int fw, int fh) {
  const float near = static_cast<float>(blur_math::kSynthesisNear), far = static_cast<float>(blur_math::kSynthesisFar);
  cpu::parallel_rows(fh, [&](int, int y0, int y1) {
    std::vector<float> v(c.w);
    for (int y = y0; y < y1; ++y) {
      // Vertical: the two coarse rows, vectorised along x ...
      const int i = y >> 1, j = std::clamp((y & 1) ? i + 1 : i - 1, 0, c.h - 1);
      const float* a = c.row(i);
      const float* b = c.row(j);
      for (int x = 0; x < c.w; ++x) v[x] = near * a[x] + far * b[x];
      // ... then horizontal: even fine pixels lean left, odd ones right.
      float* dst = fine + static_cast<std::size_t>(y) * fw;
      for (int x = 0; x < fw; ++x) {
        const int ci = x >> 1, cj = std::clamp((x & 1) ? ci + 1 : ci - 1, 0, c.w - 1);
        dst[x] = near * v[ci] + far * v[cj];
      }
    }
  });
}

}  // namespace

std::vector<float> pyramid_down(const float* fine, int fw, int fh, blur_math::PyramidAnalysis analysis) {
  return downsample(fine, fw, fh, analysis).v;
}

void pyramid_up(const float* coarse, int cw, int ch, float* fine, int fw, int fh) {
  Plane c;
  c.w = cw;
  c.h = ch;
  c.v.assign(coarse, coarse + static_cast<std::size_t>(cw) * ch);
  upsample(c, fine, fw, fh);
}

void pyramid_blur(const float* in, float* out, int w, int h, blur_math::PyramidAnalysis analysis, int levels,
                  double coarse_sigma) {
  std::vector<Plane> pyr;  // levels 1..n (level 0 is `in`)
  for (int l = 0; l < levels; ++l) {
    const int fw = pyr.empty() ? w : pyr.back().w, fh = pyr.empty() ? h : pyr.back().h;
    if (fw == 1 && fh == 1) break;  // seed eq. 3.14: no level below 1x1
    pyr.push_back(downsample(pyr.empty() ? in : pyr.back().v.data(), fw, fh, analysis));
  }
  if (pyr.empty()) {
    small_or_gaussian(in, out, w, h, coarse_sigma);
    return;
  }
  if (coarse_sigma > 0.0) {
    Plane& c = pyr.back();
    std::vector<float> b(c.v.size());
    small_or_gaussian(c.v.data(), b.data(), c.w, c.h, coarse_sigma);
    c.v.swap(b);
  }
  for (std::size_t l = pyr.size() - 1; l > 0; --l) upsample(pyr[l], pyr[l - 1].v.data(), pyr[l - 1].w, pyr[l - 1].h);
  upsample(pyr[0], out, w, h);
}

TK_ISA_END

#if TK_ISA_PRIMARY
std::vector<float> pyramid_down(const float* fine, int fw, int fh, blur_math::PyramidAnalysis analysis) {
  TK_ISA_DISPATCH(pyramid_down(fine, fw, fh, analysis));
}
void pyramid_up(const float* coarse, int cw, int ch, float* fine, int fw, int fh) {
  TK_ISA_DISPATCH(pyramid_up(coarse, cw, ch, fine, fw, fh));
}
void pyramid_blur(const float* in, float* out, int w, int h, blur_math::PyramidAnalysis analysis, int levels,
                  double coarse_sigma) {
  TK_ISA_DISPATCH(pyramid_blur(in, out, w, h, analysis, levels, coarse_sigma));
}
#endif  // TK_ISA_PRIMARY

}  // namespace tonekit::blur_impl
