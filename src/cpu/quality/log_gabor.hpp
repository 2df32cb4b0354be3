// One log-Gabor filter of FSITM's bank at one DFT index (Kovesi 1999; Field 1987), as
// __host__ __device__ maths: the CPU's FFTW analyser (phase_congruency.cpp) and the CUDA path
// (src/cuda/quality/fsitm_gpu.cu) build their filters from this one definition. The formulas are
// in phase_congruency.cpp's header comment.
#pragma once
#include <math.h>

#include "core/hd.hpp"
#include "cpu/quality/phase_congruency.hpp"

namespace tonekit::quality::detail {

constexpr double kLogGaborPi = 3.14159265358979323846;

// DFT frequency of index i of n samples, cycles per sample.
TK_HD double dft_frequency(int i, int n) { return (i < (n + 1) / 2 ? i : i - n) / static_cast<double>(n); }

// The filter of orientation o at DFT index (x, y) of the full width x height spectrum.
TK_HD double log_gabor_filter(int x, int y, int o, int width, int height, const LogGaborBank& bank) {
  const double u = dft_frequency(x, width), v = dft_frequency(y, height);
  const double r = ::sqrt(u * u + v * v);
  if (r == 0.0) return 0.0;  // no filter passes the mean
  const double log_r = ::log(r), log_sigma = ::log(bank.sigma_on_f);
  double g = 0.0, wavelength = bank.min_wavelength;
  for (int s = 0; s < bank.scales; ++s, wavelength *= bank.mult) {
    const double l = log_r + ::log(wavelength);  // log(r / f_s)
    g += ::exp(-l * l / (2.0 * log_sigma * log_sigma));
  }
  const double lowpass = 1.0 / (1.0 + ::exp(30.0 * (log_r - ::log(0.45))));
  const double theta = ::atan2(-v, u), theta_o = o * kLogGaborPi / bank.orientations;
  const double d = ::fmin(::fabs(::remainder(theta - theta_o, 2.0 * kLogGaborPi)) * bank.orientations / 2.0, kLogGaborPi);
  return g * lowpass * (::cos(d) + 1.0) / 2.0;
}

}  // namespace tonekit::quality::detail
