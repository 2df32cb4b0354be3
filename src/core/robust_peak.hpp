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

// The bins without a double log per pixel (cuda/histogram.cu's peak_bin does the same on the
// device): t = (log2 L - log2 min) * scale in float is within `margin` of the exact t (lg2's error
// and the roundings: the bound is derived in histogram.cu), so where t is farther than that from
// an integer its floor is the exact bin; the rest (and L below FLT_MIN) take histeq_bin in double.
struct PeakBinning {
  float log2_min = 0.0f;
  float scale = 0.0f;   // bins per log2 unit
  float margin = 1.0f;  // >= 0.5: every pixel takes the double log
};
inline PeakBinning peak_binning(const PeakRange& r) {
  const double scale = 0.69314718055994530942 * r.inv_log_range * kPeakBins;
  return {static_cast<float>(r.log_min * 1.44269504088896340736), static_cast<float>(scale),
          static_cast<float>(scale * 4e-5 + 2e-3)};
}
// The bin from the float t and its luminance l > 0, or -1 where the double log must decide.
TK_HD int peak_bin_fast(float t, float l, const PeakBinning& b) {
  const float f = floorf(t);
  if (!(l >= 1.17549435e-38f && t - f > b.margin && f + 1.0f - t > b.margin)) return -1;
  return f <= 0.0f ? 0 : (f >= static_cast<float>(kPeakBins) ? kPeakBins - 1 : static_cast<int>(f));
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
