// The robust peak (issue 14 item 3): L_max as a high percentile of luminance instead of the
// single brightest pixel. One glint, a hot pixel or the sun's disc otherwise sets L_max alone:
// the whole frame dims for a few pixels, and in video the frame's exposure jumps whenever such a
// highlight appears or leaves. With peak_percentile = 99.99 the brightest 0.01 % of the
// non-black pixels are ignored (libplacebo's peak detection, which FFmpeg's libplacebo filter
// exposes, takes a percentile of a frame histogram the same way; its default is 99.995).
//
// Definition, the same on both backends:
//  - a histogram of ln L over the non-black pixels (L > 0), kPeakBins bins spanning
//    [ln min_positive, ln max] (the histeq histogram's binning: core::histeq_bin in double);
//  - exceed = (1 - percentile / 100) * positive pixels: how many of them lie above the peak;
//  - walking down from the top bin, the bin b where the count above it is <= exceed and the
//    count including it is > exceed; inside b the peak is interpolated linearly in ln L by
//    count (the pixels of a bin taken as spread evenly over it):
//      ln peak = hi(b) - (exceed - above(b)) / h(b) * width
//  - clamped to [min_positive, max]. 100 (or no positive pixel) gives max itself.
// Resolution: a bin is (ln max - ln min_positive) / 4096 wide: 0.24 % of luminance for a 10-stop
// frame, 0.68 % for 40 stops, before the interpolation, which is exact for evenly spread bins.
// The counts are integers and the arithmetic is double in this one function, so the CPU and the
// device (cuda::launch_robust_peak) agree to the last bits of the double.
#pragma once
#include <cstdint>

#include "core/curve_setup.hpp"
#include "core/hd.hpp"

namespace tonekit::core {

constexpr int kPeakBins = 4096;

// The histogram's range: ln of the smallest positive and the largest luminance.
struct PeakRange {
  double log_min = 0.0;
  double inv_log_range = 0.0;  // 0: one luminance only (or none)
};

TK_HD PeakRange peak_range(double min_positive, double max) {
  CurveStats c;
  c.min_positive_luminance = min_positive;
  c.max_luminance = max;
  PeakRange r;
  histogram_range_hd(c, r.log_min, r.inv_log_range);
  return r;
}

// How many positive pixels lie above the peak.
TK_HD double peak_exceed(double percentile, double positive) { return (1.0 - percentile * 0.01) * positive; }

// The peak inside bin b, `above` pixels above it and h (> 0) in it.
TK_HD double peak_in_bin(int b, double above, double h, double exceed, const PeakRange& r, int bins, double min_positive,
                         double max) {
  const double width = 1.0 / (r.inv_log_range * bins);
  const double hi = r.log_min + (b + 1) * width;
  const double v = exp(hi - (exceed - above) / h * width);
  return v < min_positive ? min_positive : (v > max ? max : v);
}

// The whole search over a histogram, serially (the CPU reference; the device searches in
// parallel for the same bin and calls peak_in_bin).
template <class Count>
TK_HD double robust_peak_from_histogram(const Count* hist, int bins, double percentile, double min_positive, double max) {
  if (!(percentile < 100.0) || !(max > 0.0) || !(min_positive > 0.0)) return max;
  const PeakRange r = peak_range(min_positive, max);
  if (!(r.inv_log_range > 0.0)) return max;
  double positive = 0.0;
  for (int b = 0; b < bins; ++b) positive += static_cast<double>(hist[b]);
  if (!(positive > 0.0)) return max;
  const double exceed = peak_exceed(percentile, positive);
  double above = 0.0;
  for (int b = bins - 1; b >= 0; --b) {
    const double h = static_cast<double>(hist[b]);
    if (above + h > exceed) return peak_in_bin(b, above, h, exceed, r, bins, min_positive, max);
    above += h;
  }
  return min_positive;
}

}  // namespace tonekit::core
