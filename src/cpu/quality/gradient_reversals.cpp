// quality::gradient_reversals (tonekit/quality.hpp): halos as contrast that flips sign near edges.
#include <algorithm>
#include <cmath>
#include <vector>

#include "tonekit/quality.hpp"

namespace tonekit::quality {

double gradient_reversals(const Image& hdr, const OutputImage& ldr) {
  if (ldr.type != PixelType::u8 || ldr.width != hdr.width || ldr.height != hdr.height || hdr.channels < 3) return -1.0;
  const int w = hdr.width, h = hdr.height, radius = 8;
  const std::size_t n = static_cast<std::size_t>(w) * h;
  std::vector<double> l(n), y(n);
  double peak = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    const float* p = hdr.pixels.data() + i * hdr.channels;
    const double v = 0.2126 * p[0] + 0.7152 * p[1] + 0.0722 * p[2];
    l[i] = std::isfinite(v) && v > 0 ? v : 0.0;
    peak = std::max(peak, l[i]);
    const unsigned char* q = ldr.bytes.data() + i * ldr.channels;
    y[i] = (q[0] + q[1] + q[2]) / 3.0;
  }
  for (double& v : l) v = std::log(v + 1e-6 * peak + 1e-30);
  // Strong edges, then the pixels within `radius` of one (a square neighbourhood, by rows then columns).
  std::vector<unsigned char> edge(n, 0), near(n, 0), tmp(n, 0);
  const double strong = std::log(4.0);
  for (int yy = 0; yy < h; ++yy)
    for (int x = 0; x < w; ++x) {
      const std::size_t i = static_cast<std::size_t>(yy) * w + x;
      if (x + 1 < w && std::fabs(l[i + 1] - l[i]) > strong) edge[i] = edge[i + 1] = 1;
      if (yy + 1 < h && std::fabs(l[i + w] - l[i]) > strong) edge[i] = edge[i + w] = 1;
    }
  for (int yy = 0; yy < h; ++yy)
    for (int x = 0; x < w; ++x)
      for (int d = -radius; d <= radius && !tmp[static_cast<std::size_t>(yy) * w + x]; ++d)
        if (x + d >= 0 && x + d < w && edge[static_cast<std::size_t>(yy) * w + x + d]) tmp[static_cast<std::size_t>(yy) * w + x] = 1;
  for (int yy = 0; yy < h; ++yy)
    for (int x = 0; x < w; ++x)
      for (int d = -radius; d <= radius && !near[static_cast<std::size_t>(yy) * w + x]; ++d)
        if (yy + d >= 0 && yy + d < h && tmp[static_cast<std::size_t>(yy + d) * w + x]) near[static_cast<std::size_t>(yy) * w + x] = 1;
  std::size_t pairs = 0, reversed = 0;
  auto pair = [&](std::size_t a, std::size_t b) {
    if (!near[a] || !near[b]) return;
    ++pairs;
    const double dh = l[b] - l[a], dy = y[b] - y[a];
    if (std::fabs(dh) >= std::log(1.05) && std::fabs(dy) >= 2.0 && (dh > 0) != (dy > 0)) ++reversed;
  };
  for (int yy = 0; yy < h; ++yy)
    for (int x = 0; x < w; ++x) {
      const std::size_t i = static_cast<std::size_t>(yy) * w + x;
      if (x + 1 < w) pair(i, i + 1);
      if (yy + 1 < h) pair(i, i + w);
    }
  return pairs ? 100.0 * static_cast<double>(reversed) / static_cast<double>(pairs) : 0.0;
}

}  // namespace tonekit::quality
