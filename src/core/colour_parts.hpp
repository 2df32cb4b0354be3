// Names the CUDA kernels use for pieces of core/colour.hpp: the dither (dither_row_seed,
// dither_pixel_hash, dither_noise_from_hash) and quantise_noise live in colour.hpp itself
// (dither_noise and quantise are defined through them, so the hoisted and the whole forms cannot
// drift), and luminance<float> is spelled with fused multiply-adds there. This header keeps the
// kernels' name for the latter.
#pragma once
#include "core/colour.hpp"
#include "core/hd.hpp"

namespace tonekit::core {

TK_HD float luminance_fma(float r, float g, float b) { return luminance<float>(r, g, b); }

}  // namespace tonekit::core
