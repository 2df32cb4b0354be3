// Night vision's per-pixel maths, shared by the CPU reference (src/cpu/blur/night.cpp) and the
// device stage (src/cuda/blur/night_gpu.cu). The model and its sources: include/tonekit/night.hpp.
// Both sides compile this without contraction (night.cpp -ffp-contract=off, night_gpu.cu
// -fmad=false), so they differ only where libm and CUDA's log2f/log10 round differently.
#pragma once
#include <cstdint>

#include "core/colour.hpp"
#include "core/hd.hpp"

namespace tonekit::core {

// A frame's constants, resolved on the host in double from the parameters (plan_night) and
// passed by value to the kernels.
struct NightConstants {
  float blue[3] = {1.0f, 1.0f, 1.0f};  // scotopic colour, Rec. 709 linear, luminance 1
  float inv_v_white = 1.0f;            // 1 / scotopic_luminance(1, 1, 1)
  float cd_per_unit = 1.0f;            // scene_cd_per_unit
  // Per-pixel mesopic position t = log2(cd L) * t_scale + t_offset (log10 spelled as log2).
  float t_scale = 0.0f, t_offset = 0.0f;
  float noise = 0.0f;  // relative noise amplitude at rod fraction 1
  int blur = 0;        // 1: a blurred copy is blended in
  // For the rod fraction, in double.
  double strength = 0.0, log10_scotopic = -3.0, log10_photopic = 1.0;
};

template <class T>
TK_HD T night_smoothstep(T t) {
  t = t < T(0) ? T(0) : (t > T(1) ? T(1) : t);
  return t * t * (T(3) - T(2) * t);
}

// s = strength (1 - smoothstep(t)), t the adapting luminance's place in the mesopic range in
// log10 (Thompson et al. 2002). Exactly 0 at or above photopic (t >= 1); `strength` at or below
// scotopic. Black or unknown adaptation (<= 0) counts as fully scotopic.
TK_HD double night_rod_fraction(const NightConstants& k, double adapting) {
  if (k.strength <= 0.0) return 0.0;
  if (!(adapting > 0.0)) return k.strength;
  const double t = (::log10(adapting) - k.log10_scotopic) / (k.log10_photopic - k.log10_scotopic);
  if (t >= 1.0) return 0.0;
  return k.strength * (1.0 - night_smoothstep(t));
}

// CIE XYZ (D65) from linear Rec. 709 (IEC 61966-2-1's matrix); Y is core::luminance.
TK_HD float night_x(float r, float g, float b) { return 0.4124f * r + 0.3576f * g + 0.1805f * b; }
TK_HD float night_z(float r, float g, float b) { return 0.0193f * r + 0.1192f * g + 0.9505f * b; }

// Scotopic luminance (Larson, Rushmeier and Piatko 1997, eq. 3): V = Y (1.33 (1 + (Y + Z) / X) - 1.68),
// from sanitised (finite, >= 0) RGB. Positive for every non-black colour of the Rec. 709 gamut
// (pure red has the smallest factor, 0.40); black (X = 0) gives 0.
TK_HD float scotopic_luminance(float r, float g, float b) {
  const float x = night_x(r, g, b);
  if (!(x > 0.0f)) return 0.0f;
  const float y = luminance<float>(r, g, b), z = night_z(r, g, b);
  const float v = y * (1.33f * (1.0f + (y + z) / x) - 1.68f);
  return v > 0.0f ? v : 0.0f;
}

// Temporal noise in [-1, 1): one lowbias32 hash (core::hash32, the dither's) per pixel of the
// frame coordinates and the frame index.
TK_HD float night_noise(int x, int y, std::uint32_t frame) {
  const std::uint32_t seed = hash32(static_cast<std::uint32_t>(y) * 0x85EBCA77U + hash32(frame + 0x68E31DA4U));
  const std::uint32_t h = hash32(static_cast<std::uint32_t>(x) * 0x9E3779B1U ^ seed);
  return static_cast<float>(h >> 8) * (1.0f / 8388608.0f) - 1.0f;
}

// One pixel: rgb (sanitised) in, the night colour out. `blurred` (sanitised, the Gaussian copy)
// is read when k.blur; rod is the frame's rod fraction (> 0: callers skip the stage at 0).
TK_HD void night_pixel(float rgb[3], const float* blurred, const NightConstants& k, float rod, int x, int y,
                       std::uint32_t frame) {
  float r = rgb[0], g = rgb[1], b = rgb[2];
  if (k.blur) {
    // Acuity: the blurred copy weighs in by the rod fraction at the pixel's own luminance (the
    // blurred copy's would leave a dark gap and a bright ring around lamps: near one the blurred
    // luminance is photopic, further out mesopic).
    const float ls = luminance<float>(r, g, b) * k.cd_per_unit;
    const float t = log2f(ls > 1e-30f ? ls : 1e-30f) * k.t_scale + k.t_offset;
    const float w = rod * (1.0f - night_smoothstep(t));
    r = r + w * (blurred[0] - r);
    g = g + w * (blurred[1] - g);
    b = b + w * (blurred[2] - b);
  }
  // Rods see one luminance, V, in the scotopic colour; cones the scene's colour.
  const float v = scotopic_luminance(r, g, b) * k.inv_v_white * rod;
  const float cone = 1.0f - rod;
  r = cone * r + v * k.blue[0];
  g = cone * g + v * k.blue[1];
  b = cone * b + v * k.blue[2];
  if (k.noise > 0.0f) {
    const float f = 1.0f + k.noise * rod * night_noise(x, y, frame);
    r *= f;
    g *= f;
    b *= f;
  }
  rgb[0] = r;
  rgb[1] = g;
  rgb[2] = b;
}

// The acuity blur runs at half resolution (its cost at 4K: docs/performance.md): the sanitised
// frame's 2x2 box means (edges replicated) are blurred with sigma / 2 and read back bilinearly at
// each pixel's centre, (x + 0.5) / 2 - 0.5 in the half plane: for x = 2k the taps are k - 1 and
// k with weight 3/4 on k, for x = 2k + 1 they are k and k + 1 with 1/4 on k + 1, clamped.
TK_HD int night_half(int n) { return (n + 1) / 2; }

struct NightTap {
  int i0, i1;
  float f;  // the weight of i1
};
TK_HD NightTap night_tap(int x, int half_n) {
  const int k = x >> 1;
  NightTap t = (x & 1) ? NightTap{k, k + 1, 0.25f} : NightTap{k - 1, k, 0.75f};
  t.i0 = t.i0 < 0 ? 0 : t.i0;
  t.i1 = t.i1 > half_n - 1 ? half_n - 1 : t.i1;
  return t;
}

// One channel's 2x2 box mean, in this order on both backends.
TK_HD float night_box(float a, float b, float c, float d) { return 0.25f * ((a + b) + (c + d)); }

// One channel's bilinear read: rows y0 (weight 1 - fy) and y1 (fy), columns x0 and x1 (fx).
TK_HD float night_bilinear(float a00, float a01, float a10, float a11, float fx, float fy) {
  const float top = a00 + fx * (a01 - a00), bottom = a10 + fx * (a11 - a10);
  return top + fy * (bottom - top);
}

// A sanitised colour channel (core::sanitise_channel without the pixel's flags).
TK_HD float night_clean(float v) {
  unsigned flags = 0;
  return sanitise_channel<float>(v, flags);
}

// One pixel's term of the adapting luminance's log-sum, in double (the CPU's and the device's).
TK_HD double night_log_term(float r, float g, float b) {
  return ::log(kLogDelta + static_cast<double>(luminance<float>(r, g, b)));
}

}  // namespace tonekit::core
