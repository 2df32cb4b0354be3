// FSITM split at the HDR/LDR boundary: the HDR side (its phase maps, one per channel) is computed
// once and scored against any number of tone-mapped images of the same size, which is what the
// automatic parameter search does.
#pragma once
#include <array>
#include <memory>
#include <vector>

#include "core/hd.hpp"
#include "cpu/quality/phase_congruency.hpp"
#include "tonekit/quality.hpp"

namespace tonekit::quality::detail {

// FSITM's banks (fsitm.cpp's header comment): the fine one on the log-stretched HDR and the LDR
// code values; the coarse one, on the linear channels, blended in with weight fsitm_alpha.
constexpr LogGaborBank kFsitmFineBank{2, 2, 2.0, 2.0, 0.65};
constexpr LogGaborBank kFsitmCoarseBank{2, 2, 8.0, 8.0, 0.65};
// alpha = 1 - 1/r with r = floor(pixels / 2^18), 0 up to 2 * 2^18 pixels (no coarse bank).
double fsitm_alpha(int width, int height);
// The HDR side's fine-bank input: the log of a channel value stretched to 0..255 and rounded,
// low and range those of the channel's logs.
TK_HD double log_stretch_code(double log_value, double low, double range) {
  return range > 0.0 ? ::round((log_value - low) * 255.0 / range) : 0.0;
}

// The two banks for one image size (the coarse one only when alpha > 0).
struct PhaseBanks {
  std::unique_ptr<PhaseAnalyser> fine, coarse;
  double alpha = 0.0;
};

class FsitmReference {
 public:
  // invalid_argument for fewer than 3 channels; unsupported without FFTW.
  static Result<FsitmReference> create(const Image& hdr);
  // `ldr` must have the HDR's size and at least 3 channels (check_pair).
  FsitmScore score(const OutputImage& ldr);

 private:
  PhaseBanks banks_;
  std::array<std::vector<double>, 3> hdr_phase_;
};

}  // namespace tonekit::quality::detail
