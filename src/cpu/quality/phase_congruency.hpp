// Kovesi's locally weighted mean phase angle ("Image features from phase congruency", Videre
// 1(3), 1999; the feature-type output of his phasecong3): a bank of log-Gabor filters
// (scales x orientations) applied in the frequency domain with FFTW, float64 throughout.
#pragma once
#include <memory>
#include <vector>

#include "tonekit/status.hpp"

namespace tonekit::quality::detail {

struct LogGaborBank {
  int scales = 2;
  int orientations = 2;
  double min_wavelength = 2.0;  // pixels, of the finest scale
  double mult = 2.0;            // wavelength ratio between successive scales
  double sigma_on_f = 0.65;     // bandwidth: sigma of the log-Gaussian over the centre frequency
};

// Filters and FFTW plans for one image size and bank, built once and reused for every plane
// of that size (FSITM runs six planes through each bank). Not thread-safe: one per thread.
class PhaseAnalyser {
 public:
  // unsupported when the build has no double-precision FFTW.
  static Result<std::unique_ptr<PhaseAnalyser>> create(int width, int height, const LogGaborBank& bank);
  virtual ~PhaseAnalyser() = default;
  // Per pixel, atan2(E, |O|) in [-pi/2, pi/2]: E the summed even (real) responses over every
  // scale and orientation, O the vector of odd (imaginary) responses summed per orientation and
  // projected on that orientation. pi/2 is a bright line, 0 a step, -pi/2 a dark line.
  // `plane` is row-major, width x height.
  virtual std::vector<double> mean_phase_angle(const std::vector<double>& plane) = 0;
};

}  // namespace tonekit::quality::detail
