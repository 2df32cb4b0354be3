// FSITM split at the HDR/LDR boundary: the HDR side (its phase maps, one per channel) is computed
// once and scored against any number of tone-mapped images of the same size, which is what the
// automatic parameter search does.
#pragma once
#include <array>
#include <memory>
#include <vector>

#include "quality/phase_congruency.hpp"
#include "tonekit/quality.hpp"

namespace tonekit::quality::detail {

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
