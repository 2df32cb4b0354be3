// Log-Gabor filter bank and locally weighted mean phase angle (see phase_congruency.hpp).
// Filter construction in the frequency domain (Kovesi 1999; Field 1987 for the log-Gabor):
//   radial  G_s(r) = exp(-(log(r / f_s))^2 / (2 log(sigma_on_f)^2)) * lowpass(r),
//           f_s = 1 / (min_wavelength * mult^s), lowpass = 1 / (1 + (r / 0.45)^30) (Butterworth,
//           cut-off 0.45, order 15) so no filter reaches the corners of the spectrum; G(0) = 0;
//   angular S_o(theta) = (cos(min(|theta - theta_o| * norient / 2, pi)) + 1) / 2,
//           theta_o = o pi / norient (a raised cosine, zero beyond 2 pi / norient from theta_o).
// r and theta are the DFT frequencies in cycles per pixel (-0.5..0.5).
#include "quality/phase_congruency.hpp"

#include <cmath>
#include <complex>
#include <mutex>
#include <numbers>

#ifdef TONEKIT_HAS_FFTW_DOUBLE
#include <fftw3.h>
#endif

namespace tonekit::quality::detail {

#ifdef TONEKIT_HAS_FFTW_DOUBLE
namespace {

// FFTW's planner is not thread-safe; execution with new-array functions is.
std::mutex& planner_mutex() {
  static std::mutex m;
  return m;
}

// DFT frequency of index i of n samples, cycles per sample.
double frequency(int i, int n) { return (i < (n + 1) / 2 ? i : i - n) / static_cast<double>(n); }

}  // namespace

Result<std::vector<double>> mean_phase_angle(const std::vector<double>& image, int width, int height,
                                            const LogGaborBank& bank) {
  const std::size_t n = static_cast<std::size_t>(width) * height;
  using cplx = std::complex<double>;
  std::vector<cplx> spectrum(n), response(n);
  fftw_plan forward, inverse;
  {
    std::lock_guard<std::mutex> lock(planner_mutex());
    forward = fftw_plan_dft_2d(height, width, reinterpret_cast<fftw_complex*>(spectrum.data()),
                               reinterpret_cast<fftw_complex*>(spectrum.data()), FFTW_FORWARD, FFTW_ESTIMATE);
    inverse = fftw_plan_dft_2d(height, width, reinterpret_cast<fftw_complex*>(response.data()),
                               reinterpret_cast<fftw_complex*>(response.data()), FFTW_BACKWARD, FFTW_ESTIMATE);
  }
  if (!forward || !inverse) return Status{StatusCode::runtime_error, "FFTW could not plan a transform"};
  for (std::size_t i = 0; i < n; ++i) spectrum[i] = image[i];
  fftw_execute(forward);

  // The radial part summed over scales: every scale shares the angular spread, and only sums
  // over scales enter the phase angle.
  std::vector<double> radial(n), theta(n);
  const double log_sigma = std::log(bank.sigma_on_f);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      const double u = frequency(x, width), v = frequency(y, height);
      const std::size_t i = static_cast<std::size_t>(y) * width + x;
      theta[i] = std::atan2(-v, u);
      const double r = std::sqrt(u * u + v * v);
      if (r == 0.0) continue;  // no filter passes the mean
      const double lowpass = 1.0 / (1.0 + std::pow(r / 0.45, 30));
      double g = 0.0;
      double wavelength = bank.min_wavelength;
      for (int s = 0; s < bank.scales; ++s, wavelength *= bank.mult) {
        const double l = std::log(r * wavelength);
        g += std::exp(-l * l / (2.0 * log_sigma * log_sigma));
      }
      radial[i] = g * lowpass;
    }

  std::vector<double> even(n, 0.0), odd_x(n, 0.0), odd_y(n, 0.0);
  for (int o = 0; o < bank.orientations; ++o) {
    const double angle = o * std::numbers::pi / bank.orientations;
    const double ca = std::cos(angle), sa = std::sin(angle);
    for (std::size_t i = 0; i < n; ++i) {
      const double ds = std::sin(theta[i]) * ca - std::cos(theta[i]) * sa;
      const double dc = std::cos(theta[i]) * ca + std::sin(theta[i]) * sa;
      const double d = std::min(std::abs(std::atan2(ds, dc)) * bank.orientations / 2.0, std::numbers::pi);
      response[i] = spectrum[i] * (radial[i] * (std::cos(d) + 1.0) / 2.0);
    }
    fftw_execute(inverse);
    for (std::size_t i = 0; i < n; ++i) {
      even[i] += response[i].real();
      odd_x[i] += ca * response[i].imag();
      odd_y[i] += sa * response[i].imag();
    }
  }
  {
    std::lock_guard<std::mutex> lock(planner_mutex());
    fftw_destroy_plan(forward);
    fftw_destroy_plan(inverse);
  }
  std::vector<double> angle(n);
  for (std::size_t i = 0; i < n; ++i) angle[i] = std::atan2(even[i], std::hypot(odd_x[i], odd_y[i]));
  return angle;
}

#else

Result<std::vector<double>> mean_phase_angle(const std::vector<double>&, int, int, const LogGaborBank&) {
  return unsupported("FSITM needs FFTW (double precision); this build has none (apt-get install libfftw3-dev)");
}

#endif

}  // namespace tonekit::quality::detail
