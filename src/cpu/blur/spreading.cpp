// Polynomial spreading (Kosloff 2011, seed 3.6.2): the 2D tent (tensor product of the 1D tent
// of radius r) has the sparse second derivative [1 -2 1] x [1 -2 1] at offsets {-r, 0, r}^2
// (seed eq. 3.17). Spread those nine weighted copies of every pixel, integrate twice with
// summed-area tables, divide by r^4. O(1) per pixel in r.
//
// Spreading is written as a gather (each buffer entry reads its nine sources) so threads never
// write the same entry. Clamped borders instead of the seed's skipped border band: the input is
// padded by r replicated pixels and every padded pixel spreads, so the result is exact up to
// the image edge. The buffer and both integrations are float64: the second-derivative buffer
// integrates to bounded box-like sums, but in float32 the rounding of the first table is summed
// over the whole image by the second (the GPU version needs float64 or tile-relative tables,
// src/cpu/sat/sat_table.hpp). Compiled once per instruction-set level (cpu/isa_level.hpp:
// spreading_v3.cpp, _v4.cpp; the level options, so every level gives the same bytes).
#include <algorithm>

#include "cpu/blur/methods.hpp"
#include "cpu/isa_level.hpp"
#include "cpu/parallel.hpp"
#include "cpu/sat/sat_table.hpp"

namespace tonekit::blur_impl {

#if TK_ISA_PRIMARY
TK_ISA_DECLARE(void spreading_blur(const float* in, float* out, int w, int h, int r);)
#endif

TK_ISA_BEGIN

void spreading_blur(const float* in, float* out, int w, int h, int r) {
  if (r <= 1) {  // the tent of radius 1 is the identity
    std::copy(in, in + static_cast<std::size_t>(w) * h, out);
    return;
  }
  const int pw = w + 2 * r, ph = h + 2 * r;  // padded input
  const std::vector<float> p = pad_clamped(in, w, h, r, r);
  // 1D: with s[m] = P[m - 1] - 2 P[m - r - 1] + P[m - 2r - 1] (P = 0 outside the padded plane),
  // the double prefix sum S[m] = sum_i P[i] (r - |m - r - 1 - i ... |) peaks at i = m - r, so
  // output x (padded index x + r) is S[x + 2r] / r^2. The buffer holds m in [0, w + 2r), i.e.
  // exactly the padded size, stored as an exclusive SAT layout (row/column 0 zero, pitch pw + 1).
  const int bw = pw, bh = ph;
  const std::size_t pitch = sat::table_pitch(bw);
  std::vector<double> t(sat::table_entries(bw, bh), 0.0);
  const int off[3] = {1, r + 1, 2 * r + 1};
  const double wt[3] = {1.0, -2.0, 1.0};
  auto src = [&](int x, int y) -> double {
    return (x < 0 || y < 0) ? 0.0 : static_cast<double>(p[static_cast<std::size_t>(y) * pw + x]);
  };
  cpu::parallel_rows(bh, [&](int, int y0, int y1) {
    for (int m = y0; m < y1; ++m) {
      double* row = t.data() + static_cast<std::size_t>(m + 1) * pitch + 1;
      for (int a = 0; a < 3; ++a) {
        const int sy = m - off[a];
        if (sy < 0) continue;
        for (int b = 0; b < 3; ++b) {
          const double wab = wt[a] * wt[b];
          const int o = off[b];
          for (int n = o; n < bw; ++n) row[n] += wab * src(n - o, sy);
        }
      }
    }
  });
  // Two summed-area tables in place: row prefix sums, then sat::sat_accumulate_columns.
  for (int pass = 0; pass < 2; ++pass) {
    cpu::parallel_rows(bh, [&](int, int y0, int y1) {
      for (int y = y0; y < y1; ++y) {
        double* row = t.data() + static_cast<std::size_t>(y + 1) * pitch;
        for (int x = 1; x <= bw; ++x) row[x] += row[x - 1];
      }
    });
    sat::sat_accumulate_columns(t.data(), bw, bh);
  }
  const double norm = 1.0 / (static_cast<double>(r) * r * r * r);
  cpu::parallel_rows(h, [&](int, int y0, int y1) {
    for (int y = y0; y < y1; ++y) {
      const double* row = t.data() + static_cast<std::size_t>(y + 2 * r + 1) * pitch + 2 * r + 1;
      float* dst = out + static_cast<std::size_t>(y) * w;
      for (int x = 0; x < w; ++x) dst[x] = static_cast<float>(row[x] * norm);
    }
  });
}

TK_ISA_END

#if TK_ISA_PRIMARY
void spreading_blur(const float* in, float* out, int w, int h, int r) { TK_ISA_DISPATCH(spreading_blur(in, out, w, h, r)); }
#endif

}  // namespace tonekit::blur_impl
