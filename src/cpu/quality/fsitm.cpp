// FSITM (Nafchi et al., IEEE SPL 22(8) 2015, Sec. II): per colour channel, the share of pixels
// where the locally weighted mean phase angle (LWMPA) of the HDR channel and of the tone-mapped
// channel have the same sign. The HDR side is the log of the channel rescaled to 0..255 and
// rounded; log-Gabor bank: 2 scales, 2 orientations, sigma_on_f 0.65, minimum wavelength
// 2 and mult 2. For images of more than 2 * 2^18 pixels the paper blends in a coarser bank
// (minimum wavelength 8, mult 8) run on the linear channels, weighting it alpha = 1 - 1/r with
// r = floor(pixels / 2^18).
#include <algorithm>
#include <cmath>

#include "cpu/quality/fsitm_reference.hpp"
#include "cpu/quality/planes.hpp"

namespace tonekit::quality {
namespace {

// The HDR side: log of the channel (zeros and negatives take the smallest positive value), stretched
// to 0..255 and rounded.
std::vector<double> log_stretched(const std::vector<double>& hdr) {
  double min_positive = INFINITY;
  for (double v : hdr)
    if (v > 0.0) min_positive = std::min(min_positive, v);
  std::vector<double> out(hdr.size(), 0.0);
  if (!std::isfinite(min_positive)) return out;
  for (std::size_t i = 0; i < hdr.size(); ++i) out[i] = std::log(std::max(hdr[i], min_positive));
  const auto [lo, hi] = std::minmax_element(out.begin(), out.end());
  const double low = *lo, range = *hi - *lo;
  for (double& v : out) v = detail::log_stretch_code(v, low, range);
  return out;
}

Result<detail::PhaseBanks> make_banks(int width, int height) {
  detail::PhaseBanks a;
  a.alpha = detail::fsitm_alpha(width, height);
  auto fine = detail::PhaseAnalyser::create(width, height, detail::kFsitmFineBank);
  if (!fine.ok()) return fine.status();
  a.fine = std::move(*fine);
  if (a.alpha > 0.0) {
    auto coarse = detail::PhaseAnalyser::create(width, height, detail::kFsitmCoarseBank);
    if (!coarse.ok()) return coarse.status();
    a.coarse = std::move(*coarse);
  }
  return a;
}

// alpha * LWMPA(coarse bank, coarse) + (1 - alpha) * LWMPA(fine bank, fine).
std::vector<double> blended_phase(detail::PhaseBanks& a, const std::vector<double>& fine,
                                  const std::vector<double>& coarse) {
  std::vector<double> phase = a.fine->mean_phase_angle(fine);
  if (a.alpha == 0.0) return phase;
  const std::vector<double> coarse_phase = a.coarse->mean_phase_angle(coarse);
  for (std::size_t i = 0; i < phase.size(); ++i) phase[i] = a.alpha * coarse_phase[i] + (1.0 - a.alpha) * phase[i];
  return phase;
}

std::vector<double> hdr_phase(detail::PhaseBanks& a, const std::vector<double>& hdr) {
  return blended_phase(a, log_stretched(hdr), hdr);
}

// The index: the share of pixels whose phase signs agree (a zero counts with the negatives).
double sign_agreement(const std::vector<double>& phase_hdr, detail::PhaseBanks& a, const std::vector<double>& ldr) {
  const std::vector<double> phase_ldr = blended_phase(a, ldr, ldr);
  std::size_t same = 0;
  for (std::size_t i = 0; i < phase_hdr.size(); ++i) same += (phase_hdr[i] > 0.0) == (phase_ldr[i] > 0.0);
  return static_cast<double>(same) / static_cast<double>(phase_hdr.size());
}

}  // namespace

namespace detail {

double fsitm_alpha(int width, int height) {
  const double r = std::floor(static_cast<double>(width) * height / 262144.0);
  return r > 1.0 ? 1.0 - 1.0 / r : 0.0;
}

Result<FsitmReference> FsitmReference::create(const Image& hdr) {
  if (hdr.channels < 3) return invalid_argument("FSITM needs an RGB image");
  FsitmReference ref;
  auto banks = make_banks(hdr.width, hdr.height);
  if (!banks.ok()) return banks.status();
  ref.banks_ = std::move(*banks);
  for (int c = 0; c < 3; ++c) ref.hdr_phase_[c] = hdr_phase(ref.banks_, hdr_channel(hdr, c));
  return ref;
}

FsitmScore FsitmReference::score(const OutputImage& ldr) {
  FsitmScore s;
  for (int c = 0; c < 3; ++c) s.channel[c] = sign_agreement(hdr_phase_[c], banks_, ldr_channel(ldr, c));
  s.mean = (s.channel[0] + s.channel[1] + s.channel[2]) / 3.0;
  return s;
}

}  // namespace detail

Result<double> fsitm_channel(const double* hdr, const double* ldr, int width, int height) {
  auto banks = make_banks(width, height);
  if (!banks.ok()) return banks.status();
  const std::size_t n = static_cast<std::size_t>(width) * height;
  const std::vector<double> phase = hdr_phase(*banks, std::vector<double>(hdr, hdr + n));
  return sign_agreement(phase, *banks, std::vector<double>(ldr, ldr + n));
}

Result<FsitmScore> fsitm(const Image& hdr, const OutputImage& ldr) {
  if (Status s = check_pair(hdr, ldr); !s.ok()) return s;
  auto ref = detail::FsitmReference::create(hdr);
  if (!ref.ok()) return ref.status();
  return ref->score(ldr);
}

}  // namespace tonekit::quality
