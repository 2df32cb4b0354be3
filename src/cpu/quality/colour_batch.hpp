// Vectorised runs of the quality metrics' per-pixel maths (colour_batch.cpp; the colour maths is
// quality/colour_maths.hpp): L*a*b* of linear BT.709 RGB, CIEDE2000, the hue-angle shift, the
// whole colour-fidelity term of a pixel, and FSITM's phase angle, n pixels at a time in
// structure-of-arrays form. Inputs are finite (the callers pass sanitised values).
#pragma once
#include <cstddef>

namespace tonekit::quality::detail {

// L*a*b* (D65) of n linear RGB triples.
void lab_batch(const double* r, const double* g, const double* b, int n, double* l, double* a, double* bb);
// CIEDE2000 (kL = kC = kH = 1) of n pairs of L*a*b* colours.
void ciede2000_batch(const double* l1, const double* a1, const double* b1, const double* l2, const double* a2,
                     const double* b2, int n, double* out);
// The angle between the (a*, b*) vectors of n pairs in degrees ([0, 180]), where both have
// chroma >= min_chroma (shift 0 and counted 0 elsewhere, counted 1 there).
void hue_shift_batch(const double* a1, const double* b1, const double* a2, const double* b2, int n, double min_chroma,
                     double* shift, double* counted);
// colour_terms (colour_maths.hpp) of n pixels: the HDR source's linear RGB and the shown
// (display-linear) RGB in; the CIEDE2000, the hue shift, 1/0 for counted and for compared out.
void colour_terms_batch(const double* source_r, const double* source_g, const double* source_b, const double* shown_r,
                        const double* shown_g, const double* shown_b, int n, double* delta_e, double* shift,
                        double* counted, double* compared);

// The phase angle of FSITM's phase congruency (phase_congruency.cpp): atan2(even, sqrt(odd_x^2 +
// odd_y^2)) over n pixels.
void phase_angle_batch(const double* even, const double* odd_x, const double* odd_y, std::size_t n, double* angle);

}  // namespace tonekit::quality::detail
