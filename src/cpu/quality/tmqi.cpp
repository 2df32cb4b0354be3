// TMQI (Yeganeh & Wang, IEEE TIP 2013), from the paper's definitions, with the conventions the
// authors' reference implementation runs (issue 17 lists them; its validation vector is pinned in
// tests/unit/test_quality_tmqi.cpp):
//  - luminance Y = 0.2126 R + 0.7152 G + 0.0722 B of both images, the LDR as code values 0..255;
//  - the HDR luminance stretched to [0, 2^32 - 1] by round((2^32 - 1) / (max - min)) * (Y - min);
//  - structural fidelity at 5 scales (Sec. II-A), f = 16, 8, 4, 2, 1 cycles/degree, local statistics
//    under an 11x11 Gaussian window (sigma 1.5) over the 'valid' region only, computed in one pass
//    (E[x^2] - E[x]^2) in float64; scales joined by a 2x2 block mean (the last row/column of an odd
//    size is mirrored);
//  - statistical naturalness (Sec. II-B) from the LDR luminance mean m and the mean d of the
//    standard deviations of 11x11 blocks (partial blocks at the right/bottom edges zero-padded
//    to 11x11 and counted with the area they cover).
// The metric's passes are compiled once per instruction-set level (cpu/isa_level.hpp: tmqi_v3.cpp,
// tmqi_v4.cpp; the level options: no contraction, no reassociation, no libmvec), so every level
// gives the same bits; Phi is normal_cdf.hpp's plain-arithmetic form, which vectorises.
#include <algorithm>
#include <cmath>
#include <vector>

#include "cpu/isa_level.hpp"
#include "cpu/parallel.hpp"
#include "cpu/quality/normal_cdf.hpp"
#include "cpu/quality/planes.hpp"
#include "cpu/quality/tmqi_model.hpp"
#include "tonekit/quality.hpp"

namespace tonekit::quality {

#if TK_ISA_PRIMARY
TK_ISA_DECLARE(Result<TmqiScore> tmqi(const Image& hdr, const OutputImage& ldr);)

namespace {

// Contrast sensitivity (the Mannos & Sakrison 1974 function the paper uses, Sec. II-A):
// A(f) = 2.6 (0.0192 + 0.114 f) exp(-(0.114 f)^1.1).
double contrast_sensitivity(double f) { return 2.6 * (0.0192 + 0.114 * f) * std::exp(-std::pow(0.114 * f, 1.1)); }

}  // namespace

namespace detail {

std::array<double, 11> tmqi_gaussian_window() {
  std::array<double, 11> w{};
  double sum = 0.0;
  for (int i = 0; i < 11; ++i) sum += w[i] = std::exp(-(i - 5) * (i - 5) / (2.0 * 1.5 * 1.5));
  for (double& x : w) x /= sum;
  return w;
}

// Visibility threshold of a signal: tau = mean / (peak-to-mean contrast sensitivity) with
// mean 128 and the threshold contrast 1 / (1.4 * 100 A(f)).
double tmqi_visibility_threshold(double f) { return 128.0 / (1.4 * 100.0 * contrast_sensitivity(f)); }

// Statistical naturalness (Sec. II-B): brightness ~ Normal(115.94, 27.99) and contrast
// d / 64.29 ~ Beta(4.4, 10.1), each density divided by its maximum.
double statistical_naturalness(double m, double d) {
  constexpr double mu = 115.94, sd = 27.99;
  const double brightness = std::exp(-0.5 * ((m - mu) / sd) * ((m - mu) / sd));
  constexpr double a = 4.4, b = 10.1;
  const double mode = (a - 1.0) / (a + b - 2.0);
  const double x = d / 64.29;
  auto log_kernel = [](double t) { return (a - 1.0) * std::log(t) + (b - 1.0) * std::log1p(-t); };
  const double contrast = (x <= 0.0 || x >= 1.0) ? 0.0 : std::exp(log_kernel(x) - log_kernel(mode));
  return brightness * contrast;
}

void tmqi_combine(TmqiScore& score) {
  score.s = 1.0;
  for (int scale = 0; scale < 5; ++scale)
    // A negative scale value (structure anti-correlated on average) has no real weighted power
    // (the reference returns a complex Q there); it counts as no fidelity: S = 0.
    score.s *= std::pow(std::max(0.0, score.s_per_scale[scale]), kTmqiWeights[scale]);
  score.n = statistical_naturalness(score.mean_luminance, score.contrast);
  // Sec. II, with the paper's fitted a = 0.8012, alpha = 0.3046, beta = 0.7088.
  score.q = 0.8012 * std::pow(score.s, 0.3046) + 0.1988 * std::pow(score.n, 0.7088);
}

}  // namespace detail

#endif  // TK_ISA_PRIMARY

TK_ISA_BEGIN
namespace {

struct Plane {
  int width = 0, height = 0;
  std::vector<double> v;
  double at(int x, int y) const { return v[static_cast<std::size_t>(y) * width + x]; }
};

// The local structural fidelity map of one output row summed (Sec. II-A): the vertical pass of
// the 11-tap window over rows y .. y + 10 of the horizontal moments (row stride ow), then the
// visibility model and the map into `map`, then their sum in order. `scratch`: 3 ow doubles. Over
// x the loops vectorise (the scalar loop was 10 % of an --auto search); Phi's table reads are
// gathers, so a block of pixels whose |z| are all >= 9 (most HDR sides: the stretched HDR's sigma
// dwarfs tau) takes Phi's tail value directly, as normal_cdf_portable would return it.
TK_ISA_INLINE_ALL double fidelity_row_sum(const double* __restrict mx, const double* __restrict my,
                                                 const double* __restrict mxx, const double* __restrict myy,
                                                 const double* __restrict mxy, int ow, const double* __restrict w,
                                                 double tau, double spread, double* __restrict map,
                                                 double* __restrict scratch) {
  constexpr double c1 = 0.01, c2 = 10.0;
  double* __restrict zh = scratch;
  double* __restrict zl = scratch + ow;
  double* __restrict rest = scratch + 2 * static_cast<std::size_t>(ow);
  for (int x = 0; x < ow; ++x) {
    double sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0;
    for (int k = 0; k < 11; ++k) {
      const std::size_t i = static_cast<std::size_t>(k) * ow + x;
      sx += w[k] * mx[i];
      sy += w[k] * my[i];
      sxx += w[k] * mxx[i];
      syy += w[k] * myy[i];
      sxy += w[k] * mxy[i];
    }
    const double sigma_h = std::sqrt(std::max(0.0, sxx - sx * sx));
    const double sigma_l = std::sqrt(std::max(0.0, syy - sy * sy));
    const double cov = sxy - sx * sy;
    // Signal strength through the visibility model: sigma' = Phi((sigma - tau) / spread).
    zh[x] = (sigma_h - tau) / spread;
    zl[x] = (sigma_l - tau) / spread;
    rest[x] = (cov + c2) / (sigma_h * sigma_l + c2);
  }
  constexpr int kBlock = 16;
  for (int x0 = 0; x0 < ow; x0 += kBlock) {
    const int n = std::min(kBlock, ow - x0);
    const double* __restrict bh = zh + x0;
    const double* __restrict bl = zl + x0;
    const double* __restrict br = rest + x0;
    double* __restrict out = map + x0;
    int tails = 0;
    for (int i = 0; i < n; ++i) tails += (std::fabs(bh[i]) >= 9.0) & (std::fabs(bl[i]) >= 9.0);
    if (tails == n) {
      for (int i = 0; i < n; ++i) {
        const double ph = detail::normal_cdf_tail(bh[i]), pl = detail::normal_cdf_tail(bl[i]);
        out[i] = (2.0 * ph * pl + c1) / (ph * ph + pl * pl + c1) * br[i];
      }
    } else {
      for (int i = 0; i < n; ++i) {
        const double ph = detail::normal_cdf_portable(bh[i]), pl = detail::normal_cdf_portable(bl[i]);
        out[i] = (2.0 * ph * pl + c1) / (ph * ph + pl * pl + c1) * br[i];
      }
    }
  }
  double sum = 0.0;
  for (int x = 0; x < ow; ++x) sum += map[x];
  return sum;
}

// Mean of the local structural fidelity map (Sec. II-A) at one scale.
double structural_fidelity_at(const Plane& hdr, const Plane& ldr, double f) {
  static const std::array<double, 11> w = detail::tmqi_gaussian_window();
  const int ow = hdr.width - 10, oh = hdr.height - 10;
  const double tau = detail::tmqi_visibility_threshold(f);
  const double spread = tau / 3.0;
  // Horizontal pass: the five moments x, y, x^2, y^2, xy over 11 columns.
  const std::size_t hn = static_cast<std::size_t>(ow) * hdr.height;
  std::vector<double> mx(hn), my(hn), mxx(hn), myy(hn), mxy(hn);
  cpu::parallel_rows(hdr.height, [&](int, int y0, int y1) {
    for (int y = y0; y < y1; ++y)
      for (int x = 0; x < ow; ++x) {
        double sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0;
        for (int k = 0; k < 11; ++k) {
          const double a = hdr.at(x + k, y), b = ldr.at(x + k, y);
          sx += w[k] * a;
          sy += w[k] * b;
          sxx += w[k] * a * a;
          syy += w[k] * b * b;
          sxy += w[k] * a * b;
        }
        const std::size_t i = static_cast<std::size_t>(y) * ow + x;
        mx[i] = sx, my[i] = sy, mxx[i] = sxx, myy[i] = syy, mxy[i] = sxy;
      }
  });
  // Per-band partial sums, added in band order: the result does not depend on timing.
  std::vector<double> band_sums(cpu::band_count(oh), 0.0);
  cpu::parallel_rows(oh, [&](int band, int y0, int y1) {
    double sum = 0.0;
    std::vector<double> map(ow), scratch(3 * static_cast<std::size_t>(ow));
    for (int y = y0; y < y1; ++y) {
      const std::size_t row = static_cast<std::size_t>(y) * ow;
      sum += fidelity_row_sum(mx.data() + row, my.data() + row, mxx.data() + row, myy.data() + row, mxy.data() + row, ow,
                              w.data(), tau, spread, map.data(), scratch.data());
    }
    band_sums[band] = sum;
  });
  double sum = 0.0;
  for (double b : band_sums) sum += b;
  return sum / (static_cast<double>(ow) * oh);
}

// 2x2 block mean; an odd last row or column is paired with itself (symmetric extension).
Plane half_size(const Plane& p) {
  Plane out;
  out.width = (p.width + 1) / 2;
  out.height = (p.height + 1) / 2;
  out.v.resize(static_cast<std::size_t>(out.width) * out.height);
  for (int y = 0; y < out.height; ++y) {
    const int y0 = 2 * y, y1 = std::min(2 * y + 1, p.height - 1);
    for (int x = 0; x < out.width; ++x) {
      const int x0 = 2 * x, x1 = std::min(2 * x + 1, p.width - 1);
      out.v[static_cast<std::size_t>(y) * out.width + x] =
          0.25 * (p.at(x0, y0) + p.at(x1, y0) + p.at(x0, y1) + p.at(x1, y1));
    }
  }
  return out;
}

// Mean of the per-pixel block standard deviation map: the image is cut into 11x11 blocks; a
// partial block at the right or bottom edge is completed with zeros to 11x11 (as the reference
// does: the pinned d = 7.810500 needs it), and its sample standard deviation (121 values) is
// counted once per image pixel it covers.
double mean_block_deviation(const Plane& p) {
  constexpr int kBlock = 11;
  constexpr double kCount = kBlock * kBlock;
  double weighted = 0.0;
  for (int by = 0; by < p.height; by += kBlock)
    for (int bx = 0; bx < p.width; bx += kBlock) {
      const int ey = std::min(by + kBlock, p.height), ex = std::min(bx + kBlock, p.width);
      double mean = 0.0;
      for (int y = by; y < ey; ++y)
        for (int x = bx; x < ex; ++x) mean += p.at(x, y);
      mean /= kCount;
      const double inside = static_cast<double>(ey - by) * (ex - bx);
      double ss = (kCount - inside) * mean * mean;  // the padding zeros
      for (int y = by; y < ey; ++y)
        for (int x = bx; x < ex; ++x) ss += (p.at(x, y) - mean) * (p.at(x, y) - mean);
      weighted += std::sqrt(ss / (kCount - 1.0)) * inside;
    }
  return weighted / (static_cast<double>(p.width) * p.height);
}

}  // namespace

Result<TmqiScore> tmqi(const Image& hdr, const OutputImage& ldr) {
  if (Status s = check_pair(hdr, ldr); !s.ok()) return s;
  Plane h{hdr.width, hdr.height, detail::hdr_luminance(hdr)};
  Plane l{ldr.width, ldr.height, detail::ldr_luminance(ldr)};

  const auto [lo, hi] = std::minmax_element(h.v.begin(), h.v.end());
  const double min = *lo, range = *hi - *lo;
  const double stretch = detail::tmqi_stretch(range);
  for (double& v : h.v) v = stretch * (v - min);

  TmqiScore score;
  score.mean_luminance = 0.0;
  for (double v : l.v) score.mean_luminance += v;
  score.mean_luminance /= static_cast<double>(l.v.size());
  score.contrast = mean_block_deviation(l);

  double f = 16.0;
  for (int scale = 0; scale < 5; ++scale, f /= 2.0) {
    if (scale > 0) {
      h = half_size(h);
      l = half_size(l);
    }
    score.s_per_scale[scale] = structural_fidelity_at(h, l, f);
  }
  detail::tmqi_combine(score);
  return score;
}

TK_ISA_END

#if TK_ISA_PRIMARY
Result<TmqiScore> tmqi(const Image& hdr, const OutputImage& ldr) { TK_ISA_DISPATCH(tmqi(hdr, ldr)); }
#endif  // TK_ISA_PRIMARY

}  // namespace tonekit::quality
