// Area-average downscaling of a float image: each output pixel is the mean of the source pixels
// its footprint covers (whole pixels), so bright highlights keep their energy in the preview and
// the histogram of the preview matches the full image's. Never upscales.
#pragma once
#include "tonekit/image.hpp"

namespace tonekit::studio {

// `width` is clamped to [1, source width]; the height keeps the aspect ratio (at least 1).
Image downscale_to_width(const Image& source, int width);

}  // namespace tonekit::studio
