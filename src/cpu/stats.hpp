#pragma once
#include <cstdint>
#include <vector>

#include "tonekit/tonemap.hpp"

namespace tonekit::cpu {

// Histogram of log luminance over the positive pixels, bins spanning
// [log min_positive, log max] (core::histogram_range); a second pass once stats are known.
std::vector<std::uint64_t> log_luminance_histogram(const ImageView& input, const FrameStats& stats, int bins);

}  // namespace tonekit::cpu
