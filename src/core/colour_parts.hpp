// Pieces of core/colour.hpp split for kernels that hoist work out of the per-pixel loop, with
// results identical to the whole functions (integrator: colour.hpp can define dither_noise and
// quantise through these so the two cannot drift).
//  - luminance_fma: core::luminance<float> as GCC contracts it under -ffast-math on FMA
//    machines (the CPU map/statistics clones for AVX2/AVX-512): fma(0.0722 b, fma(0.7152 g, 0.2126 r)).
//    The CUDA kernels use this form so min/max agree bit for bit with the CPU reference there;
//    a CPU without FMA computes (0.2126 r + 0.7152 g) + 0.0722 b, which can differ in the last bit.
//  - dither_row_seed / dither_noise_seeded: dither_noise(x, y, c) with the hash of (y, c) taken
//    once per row and channel.
//  - quantise_noise: quantise() given that noise.
#pragma once
#include <cmath>
#include <cstdint>

#include "core/colour.hpp"
#include "core/hd.hpp"

namespace tonekit::core {

TK_HD float luminance_fma(float r, float g, float b) {
  return fmaf(0.0722f, b, fmaf(0.7152f, g, 0.2126f * r));
}

TK_HD std::uint32_t dither_row_seed(int y, int c) {
  return hash32(static_cast<std::uint32_t>(y) * 3U + static_cast<std::uint32_t>(c));
}

TK_HD float dither_noise_seeded(int x, std::uint32_t row_seed) {
  std::uint32_t h = hash32(static_cast<std::uint32_t>(x) * 0x9E3779B1U ^ row_seed);
  float a = static_cast<float>(h & 0xFFFFu) * (1.0f / 65536.0f);
  float b = static_cast<float>(h >> 16) * (1.0f / 65536.0f);
  return a - b;
}

TK_HD unsigned quantise_noise(float v, unsigned max_code, bool dither, float noise) {
  float scaled = clamp01(v) * static_cast<float>(max_code);
  if (dither && scaled > 0.0f && scaled < static_cast<float>(max_code)) scaled += noise;
  scaled = floorf(scaled + 0.5f);
  if (scaled < 0.0f) scaled = 0.0f;
  if (scaled > static_cast<float>(max_code)) scaled = static_cast<float>(max_code);
  return static_cast<unsigned>(scaled);
}

}  // namespace tonekit::core
