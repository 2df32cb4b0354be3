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

// The decimation's two steps on one row, for callers that run them at their own x86-64 level
// (exposure_fusion_cpu.cpp; inline, so they compile for the loop that calls them):
// Pads `row` (w samples at row[0, w), room for 2 before and 3 after) with repeated end samples,
// which stand for the clamped indices, so the taps below run without branches.
inline void pad_row_ends(float* row, int w) {
  row[-2] = row[-1] = row[0];
  row[w] = row[w + 1] = row[w + 2] = row[w - 1];
}
// The horizontal taps of a padded row: t[x] = core::llf_tap5 of row[2x - 2 .. 2x + 2], x < w1.
inline void decimate_row_taps(const float* row, int w1, float* t) {
  for (int x = 0; x < w1; ++x)
    t[x] = core::llf_tap5(row[2 * x - 2], row[2 * x - 1], row[2 * x], row[2 * x + 1], row[2 * x + 2]);
}
// The vertical taps of output row y from the rows of horizontal taps (tmp: h rows of w1).
inline void decimate_column_taps(const float* tmp, int w1, int h, int y, float* d) {
  const float* r[5];
  for (int k = 0; k < 5; ++k) r[k] = tmp + static_cast<std::size_t>(core::llf_clamp(2 * y - 2 + k, h)) * w1;
  const float *r0 = r[0], *r1 = r[1], *r2 = r[2], *r3 = r[3], *r4 = r[4];
  for (int x = 0; x < w1; ++x) d[x] = core::llf_tap5(r0[x], r1[x], r2[x], r3[x], r4[x]);
}

// dst (w1 x h1) = the decimated src (w x h), the source values passed through remap(v) first.
template <class Remap>
void decimate_rows(const float* src, int w, int h, float* dst, float* tmp, Remap&& remap) {
  const int w1 = (w + 1) / 2, h1 = (h + 1) / 2;
  parallel_rows(h, [&](int, int y0, int y1) {
    std::vector<float> padded(static_cast<std::size_t>(w) + 5);
    float* row = padded.data() + 2;
    for (int y = y0; y < y1; ++y) {
      const float* s = src + static_cast<std::size_t>(y) * w;
      for (int x = 0; x < w; ++x) row[x] = remap(s[x]);
      pad_row_ends(row, w);
      decimate_row_taps(row, w1, tmp + static_cast<std::size_t>(y) * w1);
    }
  });
  parallel_rows(h1, [&](int, int y0, int y1) {
    for (int y = y0; y < y1; ++y) decimate_column_taps(tmp, w1, h, y, dst + static_cast<std::size_t>(y) * w1);
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
