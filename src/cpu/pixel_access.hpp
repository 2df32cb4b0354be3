// Reading float RGB(A) out of a host ImageView of f32 or f16, with the sanitise policy of
// core/colour.hpp applied through bit tests (these files may be built with -ffast-math, under
// which `v != v` is not a reliable NaN test).
#pragma once
#include <cstdint>
#include <cstring>

#include "core/colour.hpp"
#include "core/half.hpp"
#include "tonekit/image.hpp"

namespace tonekit::cpu {

inline float sanitise_bits(float v, unsigned& flags) {
  std::uint32_t b;
  std::memcpy(&b, &v, 4);
  const std::uint32_t mag = b & 0x7FFFFFFFu;
  if (mag > 0x7F800000u) { flags |= core::kPixelNaN; return 0.0f; }
  if (b & 0x80000000u) {
    if (mag == 0x7F800000u) flags |= core::kPixelInf;
    else if (mag != 0) flags |= core::kPixelNegative;
    return 0.0f;
  }
  if (mag == 0x7F800000u) { flags |= core::kPixelInf; return core::kInfReplacement; }
  return v;
}

inline float load_channel(const void* row, int index, PixelType type) {
  if (type == PixelType::f16) return core::half_to_float(static_cast<const std::uint16_t*>(row)[index]);
  return static_cast<const float*>(row)[index];
}

// Loads pixel x of a row into sanitised r, g, b; returns the pixel's flags.
inline unsigned load_rgb(const void* row, int x, int channels, PixelType type, float& r, float& g, float& b) {
  unsigned flags = 0;
  const int base = x * channels;
  if (channels >= 3) {
    r = sanitise_bits(load_channel(row, base, type), flags);
    g = sanitise_bits(load_channel(row, base + 1, type), flags);
    b = sanitise_bits(load_channel(row, base + 2, type), flags);
  } else {
    r = g = b = sanitise_bits(load_channel(row, base, type), flags);
  }
  return flags;
}

}  // namespace tonekit::cpu
