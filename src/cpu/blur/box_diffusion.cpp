// Repeated box filtering (Kovesi 2009; seed 3.8) and simulated heat diffusion (seed 3.9), compiled
// once per instruction-set level (cpu/isa_level.hpp: box_diffusion_v3.cpp, _v4.cpp; the level
// options: no contraction, sums in the written order, so every level gives the same bytes).
#include <algorithm>
#include <cstring>

#include "cpu/blur/methods.hpp"
#include "cpu/isa_level.hpp"
#include "cpu/parallel.hpp"
#include "cpu/sat/box_query.hpp"
#include "cpu/sat/sat_table.hpp"

namespace tonekit::blur_impl {

#if TK_ISA_PRIMARY
TK_ISA_DECLARE(void repeated_box(const float* in, float* out, int w, int h, const std::vector<int>& widths, bool use_sat);
               void diffusion_blur(const float* in, float* out, int w, int h, int iterations, double c);)
#endif

TK_ISA_BEGIN
namespace {

// One box pass of odd width via the float64 summed-area table (src/cpu/sat: build_sat_f64 and the
// edge-replicated box sum the local operators use): 4 table reads per pixel, any width.
void box_sat(const float* in, float* out, int w, int h, int width) {
  std::vector<double> table(sat::table_entries(w, h));
  sat::build_sat_f64(in, w, h, static_cast<std::size_t>(w), table.data());
  const std::size_t pitch = sat::table_pitch(w);
  const double inv = 1.0 / (static_cast<double>(width) * width);
  cpu::parallel_rows(h, [&](int, int y0, int y1) {
    for (int y = y0; y < y1; ++y) {
      float* dst = out + static_cast<std::size_t>(y) * w;
      for (int x = 0; x < w; ++x)
        dst[x] = static_cast<float>(sat::box_sum_replicated(table.data(), pitch, x, y, width, w, h) * inv);
    }
  });
}

// One box pass as two running sums (rows, then columns), float64 accumulators so the running
// sum does not drift: O(1) per pixel in the width, no table.
void box_separable(const float* in, float* out, int w, int h, int width) {
  const int b = width / 2;
  const double inv = 1.0 / width;
  std::vector<float> tmp(static_cast<std::size_t>(w) * h);
  cpu::parallel_rows(h, [&](int, int y0, int y1) {
    for (int y = y0; y < y1; ++y) {
      const float* src = in + static_cast<std::size_t>(y) * w;
      float* dst = tmp.data() + static_cast<std::size_t>(y) * w;
      auto at = [&](int x) { return static_cast<double>(src[std::clamp(x, 0, w - 1)]); };
      double s = 0.0;
      for (int x = -b; x <= b; ++x) s += at(x);
      for (int x = 0; x < w; ++x) {
        dst[x] = static_cast<float>(s * inv);
        s += at(x + b + 1) - at(x - b);
      }
    }
  });
  cpu::parallel_rows(h, [&](int, int y0, int y1) {
    std::vector<double> s(w, 0.0);
    auto row = [&](int y) { return tmp.data() + static_cast<std::size_t>(std::clamp(y, 0, h - 1)) * w; };
    for (int y = y0 - b; y <= y0 + b; ++y) {
      const float* r = row(y);
      for (int x = 0; x < w; ++x) s[x] += r[x];
    }
    for (int y = y0; y < y1; ++y) {
      float* dst = out + static_cast<std::size_t>(y) * w;
      for (int x = 0; x < w; ++x) dst[x] = static_cast<float>(s[x] * inv);
      const float* add = row(y + b + 1);
      const float* sub = row(y - b);
      for (int x = 0; x < w; ++x) s[x] += static_cast<double>(add[x]) - static_cast<double>(sub[x]);
    }
  });
}

// One heat-equation step of row y (up, mid, dn: rows y - 1, y, y + 1, clamped). At x86-64-v4 in
// 256-bit vectors: the stencil's loads at x - 1 and x + 1 are unaligned, and at 512 bits each one
// splits a cache line (4K, sigma 16: 512-bit 10.9 CPU-s, 256-bit 7.4, baseline 9.2 on an EPYC);
// noinline keeps the width (the caller is compiled for 512 bits).
#if TK_ISA_LEVEL == 2
#define TK_STENCIL_WIDTH __attribute__((noinline, target("prefer-vector-width=256")))
#else
#define TK_STENCIL_WIDTH
#endif
TK_STENCIL_WIDTH void diffusion_row(const float* up, const float* mid, const float* dn, float* dst, int w, float centre,
                                    float cf) {
  if (w == 1) {
    dst[0] = centre * mid[0] + cf * (2.0f * mid[0] + up[0] + dn[0]);
    return;
  }
  dst[0] = centre * mid[0] + cf * (mid[0] + mid[1] + up[0] + dn[0]);
  for (int x = 1; x < w - 1; ++x) dst[x] = centre * mid[x] + cf * (mid[x - 1] + mid[x + 1] + up[x] + dn[x]);
  dst[w - 1] = centre * mid[w - 1] + cf * (mid[w - 2] + mid[w - 1] + up[w - 1] + dn[w - 1]);
}
#undef TK_STENCIL_WIDTH

}  // namespace

void repeated_box(const float* in, float* out, int w, int h, const std::vector<int>& widths, bool use_sat) {
  std::vector<float> a(in, in + static_cast<std::size_t>(w) * h), b(a.size());
  for (int width : widths) {
    if (width <= 1) continue;
    if (use_sat) box_sat(a.data(), b.data(), w, h, width);
    else box_separable(a.data(), b.data(), w, h, width);
    a.swap(b);
  }
  std::copy(a.begin(), a.end(), out);
}

// Explicit heat-equation steps I += c (I(x-1) + I(x+1) + I(y-1) + I(y+1) - 4 I) with clamped
// (zero-flux) borders, ping-pong between two planes (seed eq. 3.21). Stable for c <= 0.25. At
// the seed's c = 0.25 the centre weight 1 - 4c is 0, so after t steps an impulse reaches only
// pixels with x + y of t's parity (a checkerboard that averages out only on smooth content);
// the default c = 1/6 keeps a centre weight of 1/3 and is the most isotropic (measured: mean
// absolute error against the Gaussian 0.00036 vs 0.0048 at sigma 2, 96x80 edges/lines scene).
// The plan picks the c that hits sigma exactly (blur_math::diffusion_c).
void diffusion_blur(const float* in, float* out, int w, int h, int iterations, double c) {
  std::vector<float> a(in, in + static_cast<std::size_t>(w) * h), b(a.size());
  const float cf = static_cast<float>(c), centre = 1.0f - 4.0f * cf;
  for (int it = 0; it < iterations; ++it) {
    cpu::parallel_rows(h, [&](int, int y0, int y1) {
      for (int y = y0; y < y1; ++y) {
        const float* up = a.data() + static_cast<std::size_t>(std::max(y - 1, 0)) * w;
        const float* mid = a.data() + static_cast<std::size_t>(y) * w;
        const float* dn = a.data() + static_cast<std::size_t>(std::min(y + 1, h - 1)) * w;
        diffusion_row(up, mid, dn, b.data() + static_cast<std::size_t>(y) * w, w, centre, cf);
      }
    });
    a.swap(b);
  }
  std::copy(a.begin(), a.end(), out);
}

TK_ISA_END

#if TK_ISA_PRIMARY
void repeated_box(const float* in, float* out, int w, int h, const std::vector<int>& widths, bool use_sat) {
  TK_ISA_DISPATCH(repeated_box(in, out, w, h, widths, use_sat));
}
void diffusion_blur(const float* in, float* out, int w, int h, int iterations, double c) {
  TK_ISA_DISPATCH(diffusion_blur(in, out, w, h, iterations, c));
}
#endif  // TK_ISA_PRIMARY

}  // namespace tonekit::blur_impl
