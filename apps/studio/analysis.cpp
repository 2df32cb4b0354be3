#include "analysis.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace tonekit::studio {

LuminanceAnalysis analyse(const Image& scene, const OutputImage& rendered, int bins) {
  LuminanceAnalysis a;
  bins = std::max(1, bins);
  const std::size_t n = static_cast<std::size_t>(scene.width) * scene.height;
  std::vector<float> logs(n, std::numeric_limits<float>::quiet_NaN());
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (std::size_t i = 0; i < n; ++i) {
    const double l = luminance(scene.pixels.data() + i * scene.channels);
    if (!(l > 0) || !std::isfinite(l)) continue;
    logs[i] = static_cast<float>(std::log10(l));
    lo = std::min(lo, static_cast<double>(logs[i]));
    hi = std::max(hi, static_cast<double>(logs[i]));
  }
  if (!(lo <= hi)) lo = hi = 0.0;
  if (hi - lo < 1e-6) hi = lo + 1e-6;
  a.log10_min = lo;
  a.log10_max = hi;
  a.counts.assign(static_cast<std::size_t>(bins), 0.0);
  std::vector<double> sums(static_cast<std::size_t>(bins), 0.0);
  const bool sixteen = rendered.type == PixelType::u16;
  const double scale = sixteen ? 65535.0 : 255.0;
  for (std::size_t i = 0; i < n; ++i) {
    if (std::isnan(logs[i])) {
      a.zero_pixels += 1;
      continue;
    }
    const int b = std::min(bins - 1, static_cast<int>((logs[i] - lo) / (hi - lo) * bins));
    double rgb[3];
    for (int k = 0; k < 3; ++k) {
      const std::size_t at = i * rendered.channels + k;
      rgb[k] = sixteen ? reinterpret_cast<const std::uint16_t*>(rendered.bytes.data())[at] : rendered.bytes[at];
    }
    a.counts[static_cast<std::size_t>(b)] += 1;
    sums[static_cast<std::size_t>(b)] += (0.2126 * rgb[0] + 0.7152 * rgb[1] + 0.0722 * rgb[2]) / scale;
  }
  a.curve.resize(static_cast<std::size_t>(bins));
  for (std::size_t b = 0; b < a.curve.size(); ++b) a.curve[b] = a.counts[b] > 0 ? sums[b] / a.counts[b] : -1.0;
  return a;
}

}  // namespace tonekit::studio
