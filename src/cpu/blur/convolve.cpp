// Convolution-based methods: the exact separable Gaussian reference (float64 accumulation),
// separable convolution (seed 3.3), direct 2D convolution (seed 3.2) and reshuffling (Porikli
// 2008, the single-output-access algorithm, seed 3.7 Algorithm 3.2).
//
// All three work on a padded plane (clamped borders) row by row: the inner loop runs along x over
// contiguous floats so GCC vectorises it; threads take bands of output rows (parallel_rows).
// The convolutions are compiled once per instruction-set level (cpu/isa_level.hpp: convolve_v3.cpp,
// _v4.cpp; the level options: no contraction, sums in the written order, so every level gives the
// same bytes).
#include <algorithm>
#include <cstring>
#include <map>
#include <utility>

#include "cpu/blur/methods.hpp"
#include "cpu/isa_level.hpp"
#include "cpu/parallel.hpp"

namespace tonekit::blur_impl {

#if TK_ISA_PRIMARY
TK_ISA_DECLARE(void separable_convolve(const float* in, float* out, int w, int h, const std::vector<double>& kernel);
               void separable_convolve_f64(const float* in, float* out, int w, int h, const std::vector<double>& kernel);
               void direct_convolve(const float* in, float* out, int w, int h, const BlurKernel2D& k);
               void reshuffle_convolve(const float* in, float* out, int w, int h, const BlurKernel2D& k);)

std::vector<float> pad_clamped(const float* in, int w, int h, int rx, int ry) {
  const int pw = w + 2 * rx, ph = h + 2 * ry;
  std::vector<float> p(static_cast<std::size_t>(pw) * ph);
  cpu::parallel_rows(ph, [&](int, int y0, int y1) {
    for (int py = y0; py < y1; ++py) {
      const float* src = in + static_cast<std::size_t>(std::clamp(py - ry, 0, h - 1)) * w;
      float* dst = p.data() + static_cast<std::size_t>(py) * pw;
      std::fill(dst, dst + rx, src[0]);
      std::memcpy(dst + rx, src, sizeof(float) * static_cast<std::size_t>(w));
      std::fill(dst + rx + w, dst + pw, src[w - 1]);
    }
  });
  return p;
}

std::vector<double> gaussian_kernel_1d(double sigma, int radius) {
  std::vector<double> k(2 * radius + 1);
  double s = 0.0;
  for (int i = -radius; i <= radius; ++i) s += k[i + radius] = blur_math::gaussian_weight(i, sigma);
  for (double& v : k) v /= s;
  return k;
}
#endif  // TK_ISA_PRIMARY

TK_ISA_BEGIN
namespace {

// Rows pass then columns pass, accumulating in Acc. The column pass walks output rows and adds
// whole input rows (clamped row index), so it too runs along contiguous x.
template <class Acc>
void separable_impl(const float* in, float* out, int w, int h, const std::vector<double>& kernel) {
  const int r = static_cast<int>(kernel.size()) / 2;
  std::vector<Acc> k(kernel.begin(), kernel.end());
  std::vector<float> tmp(static_cast<std::size_t>(w) * h);
  cpu::parallel_rows(h, [&](int, int y0, int y1) {
    std::vector<float> row(static_cast<std::size_t>(w) + 2 * r);
    std::vector<Acc> acc(w);
    for (int y = y0; y < y1; ++y) {
      const float* src = in + static_cast<std::size_t>(y) * w;
      std::fill(row.begin(), row.begin() + r, src[0]);
      std::memcpy(row.data() + r, src, sizeof(float) * static_cast<std::size_t>(w));
      std::fill(row.begin() + r + w, row.end(), src[w - 1]);
      std::fill(acc.begin(), acc.end(), Acc(0));
      for (int t = 0; t <= 2 * r; ++t) {
        const Acc kt = k[t];
        const float* p = row.data() + t;
        for (int x = 0; x < w; ++x) acc[x] += kt * static_cast<Acc>(p[x]);
      }
      float* dst = tmp.data() + static_cast<std::size_t>(y) * w;
      for (int x = 0; x < w; ++x) dst[x] = static_cast<float>(acc[x]);
    }
  });
  cpu::parallel_rows(h, [&](int, int y0, int y1) {
    std::vector<Acc> acc(w);
    for (int y = y0; y < y1; ++y) {
      std::fill(acc.begin(), acc.end(), Acc(0));
      for (int t = -r; t <= r; ++t) {
        const Acc kt = k[t + r];
        const float* p = tmp.data() + static_cast<std::size_t>(std::clamp(y + t, 0, h - 1)) * w;
        for (int x = 0; x < w; ++x) acc[x] += kt * static_cast<Acc>(p[x]);
      }
      float* dst = out + static_cast<std::size_t>(y) * w;
      for (int x = 0; x < w; ++x) dst[x] = static_cast<float>(acc[x]);
    }
  });
}

}  // namespace

void separable_convolve(const float* in, float* out, int w, int h, const std::vector<double>& kernel) {
  separable_impl<float>(in, out, w, h, kernel);
}
void separable_convolve_f64(const float* in, float* out, int w, int h, const std::vector<double>& kernel) {
  separable_impl<double>(in, out, w, h, kernel);
}

void direct_convolve(const float* in, float* out, int w, int h, const BlurKernel2D& k) {
  const int r = k.radius, side = 2 * r + 1, pw = w + 2 * r;
  const std::vector<float> p = pad_clamped(in, w, h, r, r);
  cpu::parallel_rows(h, [&](int, int y0, int y1) {
    std::vector<float> acc(w);
    for (int y = y0; y < y1; ++y) {
      std::fill(acc.begin(), acc.end(), 0.0f);
      for (int ky = 0; ky < side; ++ky) {
        const float* prow = p.data() + static_cast<std::size_t>(y + ky) * pw;
        const float* krow = k.weights.data() + static_cast<std::size_t>(ky) * side;
        for (int kx = 0; kx < side; ++kx) {
          const float wk = krow[kx];
          const float* src = prow + kx;
          for (int x = 0; x < w; ++x) acc[x] += wk * src[x];
        }
      }
      std::memcpy(out + static_cast<std::size_t>(y) * w, acc.data(), sizeof(float) * static_cast<std::size_t>(w));
    }
  });
}

// Porikli's reshuffling: the kernel's unique weights, each with its linkage set (the offsets that
// carry it); per output pixel, sum the input over each linkage set, multiply once per unique
// weight. A Gaussian of radius r has ~ (r + 1)(r + 2) / 2 unique weights instead of (2r + 1)^2:
// multiplications drop ~8x, additions stay. Zero weights are dropped.
void reshuffle_convolve(const float* in, float* out, int w, int h, const BlurKernel2D& k) {
  const int r = k.radius, pw = w + 2 * r;
  std::map<float, std::vector<int>> links;  // weight -> offsets into the padded plane (row-major)
  for (int dy = -r; dy <= r; ++dy)
    for (int dx = -r; dx <= r; ++dx) {
      const float wk = k.at(dx, dy);
      if (wk != 0.0f) links[wk].push_back((dy + r) * pw + (dx + r));
    }
  std::vector<std::pair<float, std::vector<int>>> sets(links.begin(), links.end());
  const std::vector<float> p = pad_clamped(in, w, h, r, r);
  cpu::parallel_rows(h, [&](int, int y0, int y1) {
    std::vector<float> acc(w), sum(w);
    for (int y = y0; y < y1; ++y) {
      std::fill(acc.begin(), acc.end(), 0.0f);
      const float* base = p.data() + static_cast<std::size_t>(y) * pw;
      for (const auto& [weight, offsets] : sets) {
        std::fill(sum.begin(), sum.end(), 0.0f);
        for (int off : offsets) {
          const float* src = base + off;
          for (int x = 0; x < w; ++x) sum[x] += src[x];
        }
        for (int x = 0; x < w; ++x) acc[x] += weight * sum[x];
      }
      std::memcpy(out + static_cast<std::size_t>(y) * w, acc.data(), sizeof(float) * static_cast<std::size_t>(w));
    }
  });
}

TK_ISA_END

#if TK_ISA_PRIMARY
void separable_convolve(const float* in, float* out, int w, int h, const std::vector<double>& kernel) {
  TK_ISA_DISPATCH(separable_convolve(in, out, w, h, kernel));
}
void separable_convolve_f64(const float* in, float* out, int w, int h, const std::vector<double>& kernel) {
  TK_ISA_DISPATCH(separable_convolve_f64(in, out, w, h, kernel));
}
void direct_convolve(const float* in, float* out, int w, int h, const BlurKernel2D& k) {
  TK_ISA_DISPATCH(direct_convolve(in, out, w, h, k));
}
void reshuffle_convolve(const float* in, float* out, int w, int h, const BlurKernel2D& k) {
  TK_ISA_DISPATCH(reshuffle_convolve(in, out, w, h, k));
}
#endif  // TK_ISA_PRIMARY

}  // namespace tonekit::blur_impl
