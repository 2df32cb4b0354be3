// Direct (slow, double) Burt-Adelson pyramid filters for the tests of local-laplacian and
// exposure-fusion: 2-D sums over the 5 x 5 binomial kernel, clamped borders, written from the
// definitions rather than as the operators' separable float code.
#pragma once
#include <algorithm>
#include <vector>

#include "core/laplacian.hpp"

namespace tonekit::pyramid_direct {

using Plane = std::vector<double>;

// w(m) of the 5-tap binomial kernel.
inline double binom(int m) {
  static const double k[5] = {1 / 16.0, 4 / 16.0, 6 / 16.0, 4 / 16.0, 1 / 16.0};
  return k[m + 2];
}

inline int clampi(int v, int n) { return std::min(std::max(v, 0), n - 1); }

// Direct 2-D decimation: sum of w(m) w(n) src(2x + m, 2y + n), clamped.
inline Plane down(const Plane& s, int w, int h) {
  const int w1 = (w + 1) / 2, h1 = (h + 1) / 2;
  Plane d(static_cast<std::size_t>(w1) * h1, 0.0);
  for (int y = 0; y < h1; ++y)
    for (int x = 0; x < w1; ++x) {
      double acc = 0;
      for (int n = -2; n <= 2; ++n)
        for (int m = -2; m <= 2; ++m)
          acc += binom(m) * binom(n) * s[static_cast<std::size_t>(clampi(2 * y + n, h)) * w + clampi(2 * x + m, w)];
      d[static_cast<std::size_t>(y) * w1 + x] = acc;
    }
  return d;
}

// Direct expansion: 4 sum of w(x - 2i) w(y - 2j) c(i, j) over the coarse samples in reach, clamped.
inline double up_at(const Plane& c, int cw, int ch, int x, int y) {
  double acc = 0;
  for (int n = -2; n <= 2; ++n)
    for (int m = -2; m <= 2; ++m) {
      if (((x - m) & 1) || ((y - n) & 1)) continue;
      acc += 4.0 * binom(m) * binom(n) * c[static_cast<std::size_t>(clampi((y - n) / 2, ch)) * cw + clampi((x - m) / 2, cw)];
    }
  return acc;
}

inline std::vector<Plane> gaussian_pyramid(const Plane& l, const core::LlfGeometry& geo) {
  std::vector<Plane> g{l};
  for (int j = 1; j <= geo.depth; ++j) g.push_back(down(g[j - 1], geo.w[j - 1], geo.h[j - 1]));
  return g;
}

}  // namespace tonekit::pyramid_direct
