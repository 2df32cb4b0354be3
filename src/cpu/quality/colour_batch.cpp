// The quality metrics' per-pixel maths over runs of pixels (colour fidelity, FSITM's phase angle),
// built with -O3 -ffast-math (like src/cpu/map_kernels.cpp) so that GCC vectorises the loops:
// glibc's libmvec then supplies the vector atan2, sin, cos, exp, cbrt. The colour maths is
// quality/colour_maths.hpp, the one text the scalar reference (ciede2000.cpp) and the GPU
// (src/cuda/quality/colour_gpu.cu) compile too; the loops here only inline it. The vectorised
// and the scalar compilations agree to ~1e-12 (libmvec is within 4 ulp; test_quality_colour.cpp
// checks it on the Sharma pairs and on random colours). An --auto search on the CPU spends ~40 %
// of its time here.
#include "cpu/quality/colour_batch.hpp"

#include <cmath>

#include "cpu/quality/colour_maths.hpp"

#define TK_CLONES __attribute__((target_clones("avx512f", "arch=x86-64-v3", "default")))

namespace tonekit::quality::detail {

TK_CLONES void lab_batch(const double* __restrict r, const double* __restrict g, const double* __restrict b, int n,
                         double* __restrict l, double* __restrict a, double* __restrict bb) {
  for (int k = 0; k < n; ++k) lab_of_linear(r[k], g[k], b[k], l[k], a[k], bb[k]);
}

TK_CLONES void ciede2000_batch(const double* __restrict l1, const double* __restrict a1, const double* __restrict b1,
                               const double* __restrict l2, const double* __restrict a2, const double* __restrict b2, int n,
                               double* __restrict out) {
  for (int k = 0; k < n; ++k) out[k] = ciede2000_of(l1[k], a1[k], b1[k], l2[k], a2[k], b2[k]);
}

TK_CLONES void hue_shift_batch(const double* __restrict a1, const double* __restrict b1, const double* __restrict a2,
                               const double* __restrict b2, int n, double min_chroma, double* __restrict shift,
                               double* __restrict counted) {
  for (int k = 0; k < n; ++k) shift[k] = hue_shift_of(a1[k], b1[k], a2[k], b2[k], min_chroma, counted[k]);
}

TK_CLONES void colour_terms_batch(const double* __restrict source_r, const double* __restrict source_g,
                                  const double* __restrict source_b, const double* __restrict shown_r,
                                  const double* __restrict shown_g, const double* __restrict shown_b, int n,
                                  double* __restrict delta_e, double* __restrict shift, double* __restrict counted,
                                  double* __restrict compared) {
  for (int k = 0; k < n; ++k) {
    const ColourTerms t = colour_terms(source_r[k], source_g[k], source_b[k], shown_r[k], shown_g[k], shown_b[k]);
    delta_e[k] = t.delta_e;
    shift[k] = t.hue_shift;
    counted[k] = t.counted;
    compared[k] = t.compared ? 1.0 : 0.0;
  }
}

TK_CLONES void phase_angle_batch(const double* __restrict even, const double* __restrict odd_x,
                                 const double* __restrict odd_y, std::size_t n, double* __restrict angle) {
  for (std::size_t i = 0; i < n; ++i)
    angle[i] = std::atan2(even[i], std::sqrt(odd_x[i] * odd_x[i] + odd_y[i] * odd_y[i]));
}

}  // namespace tonekit::quality::detail
