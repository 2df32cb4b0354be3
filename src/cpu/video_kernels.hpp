// The vectorisable per-row stages of the CPU video paths (decode: signal -> scene-linear BT.709;
// encode: display RGB -> Y', Cb, Cr), compiled per instruction-set level (cpu/isa_level.hpp),
// calling the same core functions as the CUDA kernels.
#pragma once
#include "core/video_colour.hpp"

namespace tonekit::cpu {

// In place over `width` RGB pixels; the values must be finite (decode sanitises float layouts
// first).
void linearise_row(const core::VideoLinearise& s, float* rgb, int width);

// core::display_pixel_ycbcr over `width` pixels of `channels` (3 or 4) floats, no NaN among them.
void display_row_ycbcr(const float* rgb, int channels, int width, float gamma, float* y, float* cb, float* cr);

}  // namespace tonekit::cpu
