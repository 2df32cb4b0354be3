// FSITM (Nafchi et al., IEEE SPL 22(8) 2015, Eqs. 1-4): per colour channel, the share of pixels
// where the locally weighted mean phase angle (LWMPA) of the HDR channel and of the tone-mapped
// channel have the same sign. The HDR side is the log of the channel rescaled to 0..255 and
// rounded (Eq. 2); log-Gabor bank: 2 scales, 2 orientations, sigma_on_f 0.65, minimum wavelength
// 2 and mult 2. For images of more than 2 * 2^18 pixels the paper blends in a coarser bank
// (minimum wavelength 8, mult 8) run on the linear channels, weighting it alpha = 1 - 1/r with
// r = floor(pixels / 2^18) (Eq. 3).
#include <algorithm>
#include <cmath>

#include "quality/phase_congruency.hpp"
#include "quality/planes.hpp"
#include "tonekit/quality.hpp"

namespace tonekit::quality {
namespace {

constexpr detail::LogGaborBank kFineBank{2, 2, 2.0, 2.0, 0.65};
constexpr detail::LogGaborBank kCoarseBank{2, 2, 8.0, 8.0, 0.65};

// Eq. 2: log of the channel (zeros and negatives take the smallest positive value), stretched
// to 0..255 and rounded.
std::vector<double> log_stretched(const double* hdr, std::size_t n) {
  double min_positive = INFINITY;
  for (std::size_t i = 0; i < n; ++i)
    if (hdr[i] > 0.0) min_positive = std::min(min_positive, hdr[i]);
  std::vector<double> out(n, 0.0);
  if (!std::isfinite(min_positive)) return out;
  for (std::size_t i = 0; i < n; ++i) out[i] = std::log(std::max(hdr[i], min_positive));
  const auto [lo, hi] = std::minmax_element(out.begin(), out.end());
  const double low = *lo, range = *hi - *lo;
  for (double& v : out) v = range > 0.0 ? std::round((v - low) * 255.0 / range) : 0.0;
  return out;
}

// alpha * LWMPA(coarse bank, coarse) + (1 - alpha) * LWMPA(fine bank, fine).
Result<std::vector<double>> blended_phase(const std::vector<double>& fine, const std::vector<double>& coarse,
                                          int width, int height, double alpha) {
  auto phase = detail::mean_phase_angle(fine, width, height, kFineBank);
  if (!phase.ok() || alpha == 0.0) return phase;
  auto coarse_phase = detail::mean_phase_angle(coarse, width, height, kCoarseBank);
  if (!coarse_phase.ok()) return coarse_phase;
  for (std::size_t i = 0; i < phase->size(); ++i)
    (*phase)[i] = alpha * (*coarse_phase)[i] + (1.0 - alpha) * (*phase)[i];
  return phase;
}

}  // namespace

Result<double> fsitm_channel(const double* hdr, const double* ldr, int width, int height) {
  const std::size_t n = static_cast<std::size_t>(width) * height;
  const double r = std::floor(static_cast<double>(n) / 262144.0);
  const double alpha = r > 1.0 ? 1.0 - 1.0 / r : 0.0;
  const std::vector<double> linear_hdr(hdr, hdr + n), linear_ldr(ldr, ldr + n);
  auto phase_hdr = blended_phase(log_stretched(hdr, n), linear_hdr, width, height, alpha);
  if (!phase_hdr.ok()) return phase_hdr.status();
  auto phase_ldr = blended_phase(linear_ldr, linear_ldr, width, height, alpha);
  if (!phase_ldr.ok()) return phase_ldr.status();
  std::size_t same = 0;
  for (std::size_t i = 0; i < n; ++i) same += ((*phase_hdr)[i] > 0.0) == ((*phase_ldr)[i] > 0.0);
  return static_cast<double>(same) / static_cast<double>(n);
}

Result<FsitmScore> fsitm(const Image& hdr, const OutputImage& ldr) {
  if (Status s = check_pair(hdr, ldr); !s.ok()) return s;
  FsitmScore score;
  for (int c = 0; c < 3; ++c) {
    const std::vector<double> h = detail::hdr_channel(hdr, c), l = detail::ldr_channel(ldr, c);
    if (!std::all_of(h.begin(), h.end(), [](double v) { return std::isfinite(v); }))
      return invalid_argument("the HDR image holds NaN or Inf values");
    auto q = fsitm_channel(h.data(), l.data(), hdr.width, hdr.height);
    if (!q.ok()) return q.status();
    score.channel[c] = *q;
  }
  score.mean = (score.channel[0] + score.channel[1] + score.channel[2]) / 3.0;
  return score;
}

}  // namespace tonekit::quality
