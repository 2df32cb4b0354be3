// The quality metrics' per-pixel maths over runs of pixels (colour fidelity, FSITM's phase angle),
// compiled per x86-64 level (cpu/isa_level.hpp; colour_batch_v3.cpp, _v4.cpp) so that GCC
// vectorises the loops with every level computing the same bits: the colour maths is
// quality/colour_maths.hpp, the one text the scalar reference (ciede2000.cpp) and the GPU
// (src/cuda/quality/colour_gpu.cu) compile too, here with cpu/portable_double.hpp's atan2, sin, cos,
// exp and cbrt (basic operations: they vectorise; libm's calls would not, and libmvec's vector
// forms round differently at each width). The runs and the scalar reference agree to ~1e-12
// (test_quality_colour.cpp checks it on the Sharma pairs and on random colours). An --auto search
// on the CPU spends ~40 % of its time here.
#include "cpu/quality/colour_batch.hpp"

#include <cmath>

#include "cpu/isa_level.hpp"
#include "cpu/portable_double.hpp"
#include "cpu/quality/colour_maths.hpp"

namespace tonekit::quality::detail {

TK_ISA_BEGIN
using PortableMaths = cpu::portable::Maths;

TK_ISA_INLINE_ALL void lab_batch(const double* __restrict r, const double* __restrict g, const double* __restrict b, int n,
               double* __restrict l, double* __restrict a, double* __restrict bb) {
  for (int k = 0; k < n; ++k) lab_of_linear<PortableMaths>(r[k], g[k], b[k], l[k], a[k], bb[k]);
}

TK_ISA_INLINE_ALL void ciede2000_batch(const double* __restrict l1, const double* __restrict a1, const double* __restrict b1,
                     const double* __restrict l2, const double* __restrict a2, const double* __restrict b2, int n,
                     double* __restrict out) {
  for (int k = 0; k < n; ++k) out[k] = ciede2000_of<PortableMaths>(l1[k], a1[k], b1[k], l2[k], a2[k], b2[k]);
}

TK_ISA_INLINE_ALL void hue_shift_batch(const double* __restrict a1, const double* __restrict b1, const double* __restrict a2,
                     const double* __restrict b2, int n, double min_chroma, double* __restrict shift,
                     double* __restrict counted) {
  for (int k = 0; k < n; ++k) {
    double c;  // not counted[k] by reference: that kept the loop scalar
    shift[k] = hue_shift_of<PortableMaths>(a1[k], b1[k], a2[k], b2[k], min_chroma, c);
    counted[k] = c;
  }
}

TK_ISA_INLINE_ALL void colour_terms_batch(const double* __restrict source_r, const double* __restrict source_g,
                        const double* __restrict source_b, const double* __restrict shown_r,
                        const double* __restrict shown_g, const double* __restrict shown_b, int n,
                        double* __restrict delta_e, double* __restrict shift, double* __restrict counted,
                        double* __restrict compared) {
  for (int k = 0; k < n; ++k) {
    const ColourTerms t =
        colour_terms<PortableMaths>(source_r[k], source_g[k], source_b[k], shown_r[k], shown_g[k], shown_b[k]);
    delta_e[k] = t.delta_e;
    shift[k] = t.hue_shift;
    counted[k] = t.counted;
    compared[k] = t.compared ? 1.0 : 0.0;
  }
}

TK_ISA_INLINE_ALL void phase_angle_batch(const double* __restrict even, const double* __restrict odd_x,
                       const double* __restrict odd_y, std::size_t n, double* __restrict angle) {
  for (std::size_t i = 0; i < n; ++i)
    angle[i] = cpu::portable::atan2(even[i], std::sqrt(odd_x[i] * odd_x[i] + odd_y[i] * odd_y[i]));
}
TK_ISA_END

#if TK_ISA_PRIMARY
TK_ISA_DECLARE(
    void lab_batch(const double* r, const double* g, const double* b, int n, double* l, double* a, double* bb);
    void ciede2000_batch(const double* l1, const double* a1, const double* b1, const double* l2, const double* a2,
                         const double* b2, int n, double* out);
    void hue_shift_batch(const double* a1, const double* b1, const double* a2, const double* b2, int n,
                         double min_chroma, double* shift, double* counted);
    void colour_terms_batch(const double* source_r, const double* source_g, const double* source_b,
                            const double* shown_r, const double* shown_g, const double* shown_b, int n,
                            double* delta_e, double* shift, double* counted, double* compared);
    void phase_angle_batch(const double* even, const double* odd_x, const double* odd_y, std::size_t n,
                           double* angle);)

void lab_batch(const double* r, const double* g, const double* b, int n, double* l, double* a, double* bb) {
  TK_ISA_DISPATCH(lab_batch(r, g, b, n, l, a, bb));
}
void ciede2000_batch(const double* l1, const double* a1, const double* b1, const double* l2, const double* a2,
                     const double* b2, int n, double* out) {
  TK_ISA_DISPATCH(ciede2000_batch(l1, a1, b1, l2, a2, b2, n, out));
}
void hue_shift_batch(const double* a1, const double* b1, const double* a2, const double* b2, int n, double min_chroma,
                     double* shift, double* counted) {
  TK_ISA_DISPATCH(hue_shift_batch(a1, b1, a2, b2, n, min_chroma, shift, counted));
}
void colour_terms_batch(const double* source_r, const double* source_g, const double* source_b, const double* shown_r,
                        const double* shown_g, const double* shown_b, int n, double* delta_e, double* shift,
                        double* counted, double* compared) {
  TK_ISA_DISPATCH(colour_terms_batch(source_r, source_g, source_b, shown_r, shown_g, shown_b, n, delta_e, shift,
                                     counted, compared));
}
void phase_angle_batch(const double* even, const double* odd_x, const double* odd_y, std::size_t n, double* angle) {
  TK_ISA_DISPATCH(phase_angle_batch(even, odd_x, odd_y, n, angle));
}
#endif  // TK_ISA_PRIMARY

}  // namespace tonekit::quality::detail
