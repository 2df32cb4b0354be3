// Quality metrics and effective-sigma fitting (the seed's section 4.1.2): the sigma of the
// Gaussian closest to a method's output in absolute pixel difference ("the most distinctive
// metric, clearest minimum"), found by golden-section search instead of the seed's 0.25 grid;
// PSNR and SSIM in place of hdr-vdp2.
#include <algorithm>
#include <cmath>
#include <limits>

#include "cpu/blur/blur_math.hpp"  // pixel_luminance
#include "cpu/blur/methods.hpp"
#include "cpu/parallel.hpp"

namespace tonekit {

double mean_abs_diff(const float* a, const float* b, std::size_t n) {
  double s = 0.0;
  for (std::size_t i = 0; i < n; ++i) s += std::fabs(static_cast<double>(a[i]) - b[i]);
  return n ? s / static_cast<double>(n) : 0.0;
}

double psnr(const float* test, const float* ref, std::size_t n, double peak) {
  double se = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    const double d = static_cast<double>(test[i]) - ref[i];
    se += d * d;
  }
  if (se == 0.0 || n == 0) return std::numeric_limits<double>::infinity();
  return 10.0 * std::log10(peak * peak / (se / static_cast<double>(n)));
}

double ssim(const float* a, const float* b, int w, int h, double dynamic_range) {
  const std::size_t n = static_cast<std::size_t>(w) * h;
  const std::vector<double> win = blur_impl::gaussian_kernel_1d(1.5, 5);
  std::vector<float> aa(n), bb(n), ab(n);
  for (std::size_t i = 0; i < n; ++i) {
    aa[i] = a[i] * a[i];
    bb[i] = b[i] * b[i];
    ab[i] = a[i] * b[i];
  }
  std::vector<float> ma(n), mb(n), saa(n), sbb(n), sab(n);
  blur_impl::separable_convolve(a, ma.data(), w, h, win);
  blur_impl::separable_convolve(b, mb.data(), w, h, win);
  blur_impl::separable_convolve(aa.data(), saa.data(), w, h, win);
  blur_impl::separable_convolve(bb.data(), sbb.data(), w, h, win);
  blur_impl::separable_convolve(ab.data(), sab.data(), w, h, win);
  const double c1 = std::pow(0.01 * dynamic_range, 2), c2 = std::pow(0.03 * dynamic_range, 2);
  double sum = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    const double mx = ma[i], my = mb[i];
    const double vx = saa[i] - mx * mx, vy = sbb[i] - my * my, cxy = sab[i] - mx * my;
    sum += ((2 * mx * my + c1) * (2 * cxy + c2)) / ((mx * mx + my * my + c1) * (vx + vy + c2));
  }
  return n ? sum / static_cast<double>(n) : 1.0;
}

std::vector<float> luminance_plane(const Image& image) {
  const std::size_t n = static_cast<std::size_t>(image.width) * image.height;
  std::vector<float> l(n);
  const int c = image.channels;
  for (std::size_t i = 0; i < n; ++i) {
    l[i] = blur_math::pixel_luminance(image.pixels.data() + i * c, c);
  }
  return l;
}

Result<SigmaFit> fit_sigma(const float* original, const float* blurred, int w, int h, double lo, double hi,
                           double tolerance) {
  if (w <= 0 || h <= 0 || !original || !blurred) return invalid_argument("fit_sigma: empty plane");
  if (!(lo > 0.0) || !(hi > lo)) return invalid_argument("fit_sigma: need 0 < lo < hi");
  const std::size_t n = static_cast<std::size_t>(w) * h;
  std::vector<float> g(n);
  auto cost = [&](double s) {
    // The exact reference's kernel (truncate 4) with float accumulation: identical to ~1e-6.
    blur_impl::separable_convolve(original, g.data(), w, h,
                                  blur_impl::gaussian_kernel_1d(s, blur_math::kernel_radius(s, 4.0)));
    return mean_abs_diff(g.data(), blurred, n);
  };
  const double phi = (std::sqrt(5.0) - 1.0) / 2.0;
  double a = lo, b = hi;
  double x1 = b - phi * (b - a), x2 = a + phi * (b - a);
  double f1 = cost(x1), f2 = cost(x2);
  while (b - a > tolerance * 0.5 * (a + b)) {
    if (f1 <= f2) {
      b = x2;
      x2 = x1;
      f2 = f1;
      x1 = b - phi * (b - a);
      f1 = cost(x1);
    } else {
      a = x1;
      x1 = x2;
      f1 = f2;
      x2 = a + phi * (b - a);
      f2 = cost(x2);
    }
  }
  SigmaFit fit;
  fit.sigma = f1 <= f2 ? x1 : x2;
  fit.mean_abs_diff = std::min(f1, f2);
  return fit;
}

}  // namespace tonekit
