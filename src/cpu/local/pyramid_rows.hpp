// The pyramids' decimation and collapse on the CPU, shared by local-laplacian and exposure-fusion: separable
// over whole rows (every input row's horizontal taps, then the vertical taps), which is
// core::llf_down_at's order of operations (the collapse: the kernels' order), so the result is the kernels' float for float when the
// including file is built without contraction.
#pragma once
#include <cstddef>
#include <vector>

#include "core/laplacian.hpp"
#include "cpu/parallel.hpp"

namespace tonekit::cpu::local {

// dst (w1 x h1) = the decimated src (w x h), the source values passed through remap(v) first.
template <class Remap>
void decimate_rows(const float* src, int w, int h, float* dst, float* tmp, Remap&& remap) {
  const int w1 = (w + 1) / 2, h1 = (h + 1) / 2;
  parallel_rows(h, [&](int, int y0, int y1) {
    std::vector<float> row(static_cast<std::size_t>(w));
    for (int y = y0; y < y1; ++y) {
      const float* s = src + static_cast<std::size_t>(y) * w;
      for (int x = 0; x < w; ++x) row[x] = remap(s[x]);
      float* t = tmp + static_cast<std::size_t>(y) * w1;
      for (int x = 0; x < w1; ++x)
        t[x] = core::llf_tap5(row[core::llf_clamp(2 * x - 2, w)], row[core::llf_clamp(2 * x - 1, w)], row[core::llf_clamp(2 * x, w)],
                              row[core::llf_clamp(2 * x + 1, w)], row[core::llf_clamp(2 * x + 2, w)]);
    }
  });
  parallel_rows(h1, [&](int, int y0, int y1) {
    for (int y = y0; y < y1; ++y) {
      const float* r[5];
      for (int k = 0; k < 5; ++k) r[k] = tmp + static_cast<std::size_t>(core::llf_clamp(2 * y - 2 + k, h)) * w1;
      float* d = dst + static_cast<std::size_t>(y) * w1;
      for (int x = 0; x < w1; ++x) d[x] = core::llf_tap5(r[0][x], r[1][x], r[2][x], r[3][x], r[4][x]);
    }
  });
}


// The collapse from level J - 1 to 0: O_j(x, y) = coef(j, x, y, i) + up(O_{j+1})(x, y), i the index
// in level j; O_J is in place (opyr at og.at(J, 0), or `out` when J = 0), O_0 goes to `out`.
template <class Coef>
void collapse_rows(const core::LlfGeometry& geo, const core::LlfGeometry& og, float* opyr, float* out, Coef&& coef) {
  for (int j = geo.depth - 1; j >= 0; --j) {
    const int wj = geo.w[j], hj = geo.h[j], wc = geo.w[j + 1], hc = geo.h[j + 1];
    const float* oc = opyr + og.at(j + 1, 0);
    float* oj = j == 0 ? out : opyr + og.at(j, 0);
    parallel_rows(hj, [&](int, int y0, int y1) {
      for (int y = y0; y < y1; ++y)
        for (int x = 0; x < wj; ++x) {
          const std::size_t i = static_cast<std::size_t>(y) * wj + x;
          const float c = coef(j, x, y, i);
          oj[i] = c + core::llf_up_at([&](int xx, int yy) { return oc[static_cast<std::size_t>(yy) * wc + xx]; }, wc, hc, x, y);
        }
    });
  }
}

}  // namespace tonekit::cpu::local
