// What the page draws beside the image: the histogram of log10 luminance of the scene and the
// operator's effective curve measured on the rendered output (mean output value of the pixels
// in each histogram bin), which holds for local operators too, where no single curve exists.
#pragma once
#include <vector>

#include "tonekit/image.hpp"

namespace tonekit::studio {

struct LuminanceAnalysis {
  double log10_min = 0.0, log10_max = 0.0;  // bin range, over positive luminance
  std::vector<double> counts;               // pixels per bin
  std::vector<double> curve;                // mean output luma in [0, 1] (display-encoded); -1: empty bin
  double zero_pixels = 0;                   // L <= 0 (black, or sanitised)
};

// `scene` and `rendered` (u8, 3 or 4 channels) have the same size.
LuminanceAnalysis analyse(const Image& scene, const OutputImage& rendered, int bins);

// Rec. 709 luminance, as the statistics use it.
inline double luminance(const float* rgb) { return 0.2126 * rgb[0] + 0.7152 * rgb[1] + 0.0722 * rgb[2]; }

}  // namespace tonekit::studio
