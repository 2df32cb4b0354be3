// Log-Gabor filter bank and locally weighted mean phase angle (see phase_congruency.hpp).
// Filter construction in the frequency domain (Kovesi 1999; Field 1987 for the log-Gabor):
//   radial  G_s(r) = exp(-(log(r / f_s))^2 / (2 log(sigma_on_f)^2)) * lowpass(r),
//           f_s = 1 / (min_wavelength * mult^s), lowpass = 1 / (1 + (r / 0.45)^30) (Butterworth,
//           cut-off 0.45, order 15) so no filter reaches the corners of the spectrum; G(0) = 0;
//   angular S_o(theta) = (cos(min(|theta - theta_o| * orientations / 2, pi)) + 1) / 2,
//           theta_o = o pi / orientations (a raised cosine), theta = atan2(-v, u);
// r, u, v are the DFT frequencies in cycles per pixel (-0.5..0.5).
// Each filter H = G S is real but one-sided, so the response ifft(F H) is complex: its real part
// (even, line-like) is ifft(F H_s) and its imaginary part (odd, edge-like) is ifft(F (-i) H_a),
// with H_s, H_a the halves of H symmetric and antisymmetric under k -> -k. Both products are
// Hermitian, so each is one complex-to-real transform of half the spectrum, and the even parts of
// all orientations sum before transforming: 1 + orientations c2r transforms and one r2c per plane.
#include "cpu/quality/phase_congruency.hpp"

#include <algorithm>
#include <cmath>
#include <complex>
#include <mutex>
#include <numbers>

#include "cpu/parallel.hpp"
#include "cpu/quality/colour_batch.hpp"
#include "cpu/quality/log_gabor.hpp"

#ifdef TONEKIT_HAS_FFTW_DOUBLE
#include <fftw3.h>
#endif

namespace tonekit::quality::detail {

#ifdef TONEKIT_HAS_FFTW_DOUBLE
namespace {

// FFTW's planner is not thread-safe; executing a plan is.
std::mutex& planner_mutex() {
  static std::mutex m;
  return m;
}

// Called with the planner mutex held: plans made from here on split each transform over the CPU
// workers (this 2-core machine under a load of ~6, 4K FSITM: 23.5-23.9 s with TONEKIT_THREADS=1,
// 17.9-20.0 s with both cores).
void plan_with_threads() {
#ifdef TONEKIT_HAS_FFTW_THREADS
  static const bool initialised = fftw_init_threads() != 0;
  if (initialised) fftw_plan_with_nthreads(cpu::worker_count());
#endif
}

// body(i) for every i in [0, n), over the CPU workers.
template <class Body>
void for_each_index(std::size_t n, int width, const Body& body) {
  const int rows = static_cast<int>((n + width - 1) / width);
  cpu::parallel_rows(rows, [&](int, int y0, int y1) {
    const std::size_t end = std::min(n, static_cast<std::size_t>(y1) * width);
    for (std::size_t i = static_cast<std::size_t>(y0) * width; i < end; ++i) body(i);
  });
}

struct FftwFree {
  void operator()(void* p) const { fftw_free(p); }
};
template <class T>
using FftwBuffer = std::unique_ptr<T[], FftwFree>;
template <class T>
FftwBuffer<T> fftw_buffer(std::size_t count) {
  return FftwBuffer<T>(static_cast<T*>(fftw_malloc(sizeof(T) * count)));
}

class FftwPhaseAnalyser final : public PhaseAnalyser {
 public:
  FftwPhaseAnalyser(int width, int height, const LogGaborBank& bank)
      : width_(width), height_(height), half_(width / 2 + 1), bank_(bank) {}
  ~FftwPhaseAnalyser() override {
    std::lock_guard<std::mutex> lock(planner_mutex());
    if (forward_) fftw_destroy_plan(forward_);
    if (inverse_) fftw_destroy_plan(inverse_);
  }

  Status init() {
    const std::size_t n = static_cast<std::size_t>(width_) * height_;
    const std::size_t m = static_cast<std::size_t>(half_) * height_;
    real_ = fftw_buffer<double>(n);
    spectrum_ = fftw_buffer<fftw_complex>(m);
    product_ = fftw_buffer<fftw_complex>(m);
    if (!real_ || !spectrum_ || !product_) return Status{StatusCode::out_of_memory, "FSITM: out of memory"};
    {
      std::lock_guard<std::mutex> lock(planner_mutex());
      plan_with_threads();
      forward_ = fftw_plan_dft_r2c_2d(height_, width_, real_.get(), spectrum_.get(), FFTW_ESTIMATE);
      inverse_ = fftw_plan_dft_c2r_2d(height_, width_, product_.get(), real_.get(), FFTW_ESTIMATE);
    }
    if (!forward_ || !inverse_) return Status{StatusCode::runtime_error, "FFTW could not plan a transform"};
    build_filters();
    return {};
  }

  std::vector<double> mean_phase_angle(const std::vector<double>& plane) override {
    const std::size_t n = static_cast<std::size_t>(width_) * height_;
    std::copy(plane.begin(), plane.end(), real_.get());
    fftw_execute(forward_);
    const std::size_t m = static_cast<std::size_t>(half_) * height_;
    const auto* f = reinterpret_cast<const std::complex<double>*>(spectrum_.get());
    auto* p = reinterpret_cast<std::complex<double>*>(product_.get());

    for_each_index(m, half_, [&](std::size_t i) { p[i] = f[i] * static_cast<double>(even_[i]); });
    fftw_execute(inverse_);
    // The responses in scratch kept between calls (FSITM runs 12 planes through a bank at 4K: fresh
    // vectors here were ~2.4 GB of page faults and zeroing per `tonekit quality`).
    std::vector<double>& even = even_response_;
    std::vector<double>& odd_x = odd_x_response_;
    std::vector<double>& odd_y = odd_y_response_;
    even.assign(real_.get(), real_.get() + n);
    odd_x.assign(n, 0.0);
    odd_y.assign(n, 0.0);
    for (int o = 0; o < bank_.orientations; ++o) {
      const float* h = odd_[o].data();
      // (-i) H_a: the Hermitian form of the antisymmetric half.
      for_each_index(m, half_, [&](std::size_t i) { p[i] = f[i] * std::complex<double>(0.0, -h[i]); });
      fftw_execute(inverse_);
      const double angle = o * std::numbers::pi / bank_.orientations;
      const double ca = std::cos(angle), sa = std::sin(angle);
      for_each_index(n, width_, [&](std::size_t i) {
        odd_x[i] += ca * real_[i];
        odd_y[i] += sa * real_[i];
      });
    }
    // atan2(E, |O|) in vectorised runs (colour_batch.cpp: libmvec's atan2, within 4 ulp; the
    // scalar atan2 and hypot were 12 % of an --auto search), a band of rows per worker.
    std::vector<double> angle(n);
    const int rows = static_cast<int>((n + width_ - 1) / width_);
    cpu::parallel_rows(rows, [&](int, int y0, int y1) {
      const std::size_t begin = static_cast<std::size_t>(y0) * width_, end = std::min(n, static_cast<std::size_t>(y1) * width_);
      detail::phase_angle_batch(even.data() + begin, odd_x.data() + begin, odd_y.data() + begin, end - begin,
                                angle.data() + begin);
    });
    return angle;
  }

 private:
  // The filter of orientation o at DFT index (x, y) of the full spectrum.
  double filter(int x, int y, int o) const { return log_gabor_filter(x, y, o, width_, height_, bank_); }

  // Symmetric (summed over orientations) and antisymmetric halves over the r2c half spectrum;
  // the mirror of index (x, y) is ((W - x) % W, (H - y) % H).
  void build_filters() {
    const std::size_t m = static_cast<std::size_t>(half_) * height_;
    even_.assign(m, 0.0f);
    odd_.assign(bank_.orientations, std::vector<float>(m, 0.0f));
    cpu::parallel_rows(height_, [&](int, int y0, int y1) {
      for (int y = y0; y < y1; ++y) {
        const int my = (height_ - y) % height_;
        for (int x = 0; x < half_; ++x) {
          const int mx = (width_ - x) % width_;
          const std::size_t i = static_cast<std::size_t>(y) * half_ + x;
          double even = 0.0;
          for (int o = 0; o < bank_.orientations; ++o) {
            const double h = filter(x, y, o), h_mirror = filter(mx, my, o);
            even += 0.5 * (h + h_mirror);
            odd_[o][i] = static_cast<float>(0.5 * (h - h_mirror));
          }
          even_[i] = static_cast<float>(even);
        }
      }
    });
  }

  int width_, height_, half_;
  LogGaborBank bank_;
  // Filters are stored in float: relative error 6e-8, far below what moves a phase sign, at
  // half the memory (4K: 3 x 33 MB).
  std::vector<float> even_;
  std::vector<std::vector<float>> odd_;
  std::vector<double> even_response_, odd_x_response_, odd_y_response_;  // mean_phase_angle's scratch
  FftwBuffer<double> real_;
  FftwBuffer<fftw_complex> spectrum_, product_;
  fftw_plan forward_ = nullptr, inverse_ = nullptr;
};

}  // namespace

Result<std::unique_ptr<PhaseAnalyser>> PhaseAnalyser::create(int width, int height, const LogGaborBank& bank) {
  auto analyser = std::make_unique<FftwPhaseAnalyser>(width, height, bank);
  if (Status s = analyser->init(); !s.ok()) return s;
  return std::unique_ptr<PhaseAnalyser>(std::move(analyser));
}

#else

Result<std::unique_ptr<PhaseAnalyser>> PhaseAnalyser::create(int, int, const LogGaborBank&) {
  return unsupported("FSITM needs FFTW (double precision); this build has none (apt-get install libfftw3-dev)");
}

#endif

}  // namespace tonekit::quality::detail
