#include "downscale.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace tonekit::studio {

Image downscale_to_width(const Image& source, int width) {
  width = std::clamp(width, 1, std::max(1, source.width));
  if (width == source.width) return source;
  const int height = std::max(1, static_cast<int>(std::lround(static_cast<double>(source.height) * width / source.width)));
  const int c = source.channels;
  Image out(width, height, c);
  out.meta = source.meta;
  // Footprint bounds per output column, computed once.
  std::vector<int> x0(width + 1);
  for (int x = 0; x <= width; ++x) x0[x] = static_cast<int>(static_cast<long long>(x) * source.width / width);
  std::vector<double> acc(static_cast<std::size_t>(width) * c);
  for (int y = 0; y < height; ++y) {
    const int ya = static_cast<int>(static_cast<long long>(y) * source.height / height);
    const int yb = std::max(ya + 1, static_cast<int>(static_cast<long long>(y + 1) * source.height / height));
    std::fill(acc.begin(), acc.end(), 0.0);
    for (int sy = ya; sy < yb; ++sy) {
      const float* row = source.row(sy);
      for (int x = 0; x < width; ++x) {
        const int xb = std::max(x0[x] + 1, x0[x + 1]);
        for (int sx = x0[x]; sx < xb; ++sx)
          for (int k = 0; k < c; ++k) acc[static_cast<std::size_t>(x) * c + k] += row[static_cast<std::size_t>(sx) * c + k];
      }
    }
    float* dst = out.row(y);
    for (int x = 0; x < width; ++x) {
      const double n = static_cast<double>(std::max(x0[x] + 1, x0[x + 1]) - x0[x]) * (yb - ya);
      for (int k = 0; k < c; ++k) dst[static_cast<std::size_t>(x) * c + k] = static_cast<float>(acc[static_cast<std::size_t>(x) * c + k] / n);
    }
  }
  return out;
}

}  // namespace tonekit::studio
