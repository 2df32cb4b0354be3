// Blur maths shared by the CPU reference (src/cpu/blur) and the CUDA kernels to come (TK_HD):
// kernel weights, and the per-method choice of parameters for a target Gaussian sigma.
// Sources: Ernst 2013, "Comparison of fast image filter techniques" (the blur comparison seed,
// ch. 3 and appendix A); Kovesi 2009 (box widths); Kraus & Strengert 2007 (quasi-convolution
// analysis filter); Kosloff 2011 (polynomial spreading).
#pragma once
#include <initializer_list>

#include "core/colour.hpp"
#include "core/hd.hpp"

namespace tonekit::blur_math {

// ---- Gaussian weights ----
// Unnormalised sampled Gaussian at integer offset i (the seed's convolution reference samples
// the continuous Gaussian; normalisation is done over the truncated window by the caller).
TK_HD double gaussian_weight(int i, double sigma) {
  return ::exp(-0.5 * static_cast<double>(i) * static_cast<double>(i) / (sigma * sigma));
}
// 2D weight from i^2 + j^2 (not as the product of two 1D weights) so that offsets on the same
// circle get bit-identical weights: reshuffling (Porikli) groups equal weights exactly.
TK_HD double gaussian_weight_2d(int i, int j, double sigma) {
  return ::exp(-0.5 * static_cast<double>(i * i + j * j) / (sigma * sigma));
}
// Window radius: ceil(truncate * sigma), at least 1. The seed's convolution uses a window
// 6 sigma wide (truncate 3); the exact reference uses truncate 4 (mass outside: 6e-5 per axis).
TK_HD int kernel_radius(double sigma, double truncate) {
  const double r = ::ceil(truncate * sigma - 1e-9);
  return r < 1.0 ? 1 : static_cast<int>(r);
}
// A small blur whose discrete variance is exactly sigma^2 for sigma < kSmallSigma: 3 taps
// [s^2/2, 1 - s^2, s^2/2] (a sampled Gaussian's variance is far from sigma^2 below ~0.8).
// Used for the pyramid's coarse-level refinement, not by the exact reference.
constexpr double kSmallSigma = 0.8;
TK_HD double small_blur_side_weight(double sigma) { return 0.5 * sigma * sigma; }

// ---- Repeated box filtering (Kovesi 2009, "Arbitrary Gaussian filtering with 25 additions
// and 5 multiplications per pixel", eq. for the ideal width and the split m) ----
// n passes: m passes of the odd width `lower`, n - m of lower + 2; total variance
// (m (wl^2 - 1) + (n - m) (wu^2 - 1)) / 12 closest to sigma^2.
struct BoxWidths {
  int lower, upper, lower_passes;
};
TK_HD BoxWidths kovesi_box_widths(double sigma, int passes) {
  const double ideal = ::sqrt(12.0 * sigma * sigma / passes + 1.0);
  int wl = static_cast<int>(::floor(ideal));
  if (wl % 2 == 0) --wl;
  if (wl < 1) wl = 1;
  const int wu = wl + 2;
  const double m_ideal =
      (12.0 * sigma * sigma - passes * wl * wl - 4.0 * passes * wl - 3.0 * passes) / (-4.0 * wl - 4.0);
  int m = static_cast<int>(::floor(m_ideal + 0.5));
  if (m < 0) m = 0;
  if (m > passes) m = passes;
  return BoxWidths{wl, wu, m};
}
TK_HD double box_variance(int width) { return (static_cast<double>(width) * width - 1.0) / 12.0; }

// ---- Simulated heat diffusion (seed 3.9: explicit 4-neighbour Laplacian steps) ----
// One step I += c * Laplacian(I) adds variance 2c per axis, so t steps give sigma^2 = 2 c t.
// Given the largest allowed c (stability: c <= 0.25), take t = ceil(sigma^2 / (2 c_max)) and
// then the c that hits sigma exactly.
TK_HD int diffusion_iterations(double sigma, double c_max) {
  const double t = ::ceil(sigma * sigma / (2.0 * c_max) - 1e-9);
  return t < 1.0 ? 1 : static_cast<int>(t);
}
TK_HD double diffusion_c(double sigma, int iterations) { return sigma * sigma / (2.0 * iterations); }

// ---- Polynomial spreading (Kosloff 2011; seed 3.6.2) ----
// The 1D tent t(k) = (r - |k|) / r^2, |k| < r, has the sparse second difference
// [1, -2, 1] at -r, 0, +r: spread those, integrate twice (two summed-area tables), divide by
// r^2 per axis. Discrete variance (r^2 - 1) / 6; but the Gaussian closest to a tent in mean
// absolute difference (the seed's effective sigma) is wider than the variance-matched one by a
// steady 4.4 % (blur_fit, r = 6..40: ratio 1.042-1.046), so the radius for a target sigma is
// r = round(sqrt(6 (sigma / 1.044)^2 + 1)).
constexpr double kSpreadingFitRatio = 1.044;
TK_HD int spreading_radius(double sigma) {
  const double s = sigma / kSpreadingFitRatio;
  const int r = static_cast<int>(::floor(::sqrt(6.0 * s * s + 1.0) + 0.5));
  return r < 1 ? 1 : r;
}
TK_HD double spreading_variance(int r) { return (static_cast<double>(r) * r - 1.0) / 6.0; }

// ---- Pyramid blur (seed 3.5; Kraus & Strengert 2007) ----
enum class PyramidAnalysis : int { box2 = 0, box4 = 1, quasi = 2 };
// 1D analysis weights on the four fine pixels 2i-1, 2i, 2i+1, 2i+2 of coarse pixel i.
TK_HD double analysis_weight(PyramidAnalysis a, int tap) {
  switch (a) {
    case PyramidAnalysis::box2: return (tap == 1 || tap == 2) ? 0.5 : 0.0;
    case PyramidAnalysis::box4: return 0.25;
    default: return (tap == 0 || tap == 3) ? 13.0 / 64.0 : 19.0 / 64.0;  // Kraus: [13 19 19 13] / 64
  }
}
// Biquadratic B-spline synthesis (one bilinear lookup per fine pixel, Strengert et al.):
// fine pixel 2i + p takes 3/4 of coarse i and 1/4 of coarse i - 1 (p = 0) or i + 1 (p = 1).
constexpr double kSynthesisNear = 0.75;
constexpr double kSynthesisFar = 0.25;
// Effective sigma of n levels (down n times, up n times), as fitted by bench/cpu/blur_fit.cpp
// for our implementation (`blur_fit` prints them; the seed's tables A.1-A.3 are close); beyond
// 5 levels each level doubles sigma.
TK_HD double pyramid_sigma(PyramidAnalysis a, int levels) {
  if (levels <= 0) return 0.0;
  // levels 1..5
  // Medians over 18 images (blur_fit, refine=0); the seed's D medians:
  // quasi 1.5 3 6.25 12.75 25.5, box2 1.25 2.25 4.5 9.25 18.75, box4 1.5 3.25 6.5 13.5 27.
  const double quasi[5] = {1.388, 3.068, 6.281, 12.624, 25.285};
  const double box2[5] = {1.027, 2.280, 4.712, 9.434, 18.851};
  const double box4[5] = {1.470, 3.243, 6.632, 13.373, 26.671};
  const double* t = a == PyramidAnalysis::quasi ? quasi : (a == PyramidAnalysis::box2 ? box2 : box4);
  if (levels <= 5) return t[levels - 1];
  double s = t[4];
  for (int i = 5; i < levels; ++i) s *= 2.0;
  return s;
}
// Levels for a target sigma. With refinement (a Gaussian at the coarsest level fills the gap to
// sigma): the most levels that leave that Gaussian at least kMinCoarseSigma coarse pixels wide.
// The coarse blur also smooths the pyramid's phase-dependent (aliased) response: measured with
// blur_fit, quasi-convolution reaches 65-71 dB PSNR against the Gaussian with a coarse sigma of
// ~1.3, but ~50 dB with 0.3 or none (blur_fit; docs/performance.md). Without refinement: the nearest in log.
constexpr double kMinCoarseSigma = 1.0;
TK_HD int pyramid_levels(PyramidAnalysis a, double sigma, bool refine) {
  int best = 0;
  if (refine) {
    for (int n = 1; n <= 16; ++n) {
      const double s = pyramid_sigma(a, n), coarse = kMinCoarseSigma * ::ldexp(1.0, n);
      if (sigma * sigma - s * s >= coarse * coarse) best = n;
    }
    return best;
  }
  double best_err = 1e300;
  for (int n = 1; n <= 16; ++n) {
    const double e = ::fabs(::log(pyramid_sigma(a, n) / sigma));
    if (e < best_err) { best_err = e; best = n; }
  }
  return best;
}

// ---- Luminance and glare (src/cpu/blur/glare.cpp, src/cuda/blur/glare_gpu.cu) ----
// Rec. 709 luminance of an interleaved pixel with `channels` >= 3 (the first three are RGB), or
// its first channel for grey (1) and grey + alpha (2). core::luminance<float> spells it with
// fused multiply-adds, so the CPU and the GPU round it identically.
TK_HD float pixel_luminance(const float* p, int channels) {
  return channels >= 3 ? core::luminance<float>(p[0], p[1], p[2]) : p[0];
}
// Colour channels the glare adds light to: RGB, or the grey channel (alpha is left alone).
TK_HD int glare_colour_channels(int channels) { return channels >= 3 ? 3 : 1; }
// One pixel's term of the glare's log-average, log(delta + L) (thesis Eq 4.1, as the key): L is
// the raw luminance; non-finite or negative L counts as black. In double, as the CPU sums it.
// (isfinite: the translation units including this are not built with -ffast-math.)
TK_HD double glare_log_term(float l) {
  const float v = (isfinite(l) && l > 0.0f) ? l : 0.0f;
  return ::log(core::kLogDelta + static_cast<double>(v));
}
// The bright pass's factor (L - T) / L for L above the threshold T, else 0: a soft knee that keeps
// the colour (bright = factor * C). Non-finite L is not bright.
TK_HD float glare_bright_factor(float l, float threshold) {
  return (isfinite(l) && l > threshold && l > 0.0f) ? (l - threshold) / l : 0.0f;
}
// A bright-pass sample: exactly 0 where the pixel is not bright, so NaN or Inf channels there
// (0 * NaN) cannot reach the blur and spread over the frame.
TK_HD float glare_bright_sample(float factor, float channel) { return factor > 0.0f ? factor * channel : 0.0f; }
// image += weight * blurred, rounded twice (no fused multiply-add) on both backends.
TK_HD float glare_accumulate(float value, float weight, float blurred) {
#if defined(__CUDA_ARCH__)
  return __fadd_rn(value, __fmul_rn(weight, blurred));
#else
  return value + weight * blurred;
#endif
}

// FFT convolution's transform length for n samples: the smallest 2^a 3^b 5^c 7^d >= n (FFTW's
// and cuFFT's fast sizes), the same on both backends (host only).
inline int fft_friendly(int n) {
  for (int m = n > 1 ? n : 1;; ++m) {
    int k = m;
    for (int f : {2, 3, 5, 7})
      while (k % f == 0) k /= f;
    if (k == 1) return m;
  }
}

}  // namespace tonekit::blur_math
