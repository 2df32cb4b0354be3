// Shared pieces of the procedural scenes: screen coordinates, seeded value noise with
// footprint-aware octave fading (so a texture averages to the same value at every size
// instead of aliasing), pixel-integrated Gaussian light sources, colour helpers.
#pragma once
#include <cmath>
#include <cstdint>
#include <functional>
#include <string>

#include "tonekit/image.hpp"
#include "tonekit/status.hpp"

namespace tonekit::synth {

// Screen coordinates of a frame, independent of resolution: sy runs 0 (top) .. 1 (bottom),
// sx is centred on 0 and spans +-aspect/2; one pixel measures `pixel` = 1 / height.
struct Frame {
  int width = 0;
  int height = 0;
  float aspect = 1.0f;
  float pixel = 1.0f;
  float sx(int x) const { return (static_cast<float>(x) + 0.5f - 0.5f * static_cast<float>(width)) * pixel; }
  float sy(int y) const { return (static_cast<float>(y) + 0.5f) * pixel; }
};

// Shades row y of the frame into rgb (width * 3 floats).
using RowShader = void (*)(const Frame& frame, int y, float* rgb);

// The frame geometry of a width x height render, and the threaded renderer: rows handed out
// in small chunks from an atomic counter, so uneven rows (sky vs road) balance across cores.
Frame make_frame(int width, int height);
void render_rows(const Frame& frame, const std::function<void(int y, float* rgb)>& shade, Image& image, unsigned threads);
// A checked, allocated 3-channel float image for a render with its "synthetic" metadata and
// `note`; `what` names it in the out-of-memory message ("scene", "frame").
Result<Image> new_synthetic_image(int width, int height, const char* what, std::string note);

struct Rgb {
  float r = 0, g = 0, b = 0;
};
inline Rgb operator+(Rgb a, Rgb b) { return {a.r + b.r, a.g + b.g, a.b + b.b}; }
inline Rgb operator*(Rgb a, float k) { return {a.r * k, a.g * k, a.b * k}; }
inline Rgb operator*(Rgb a, Rgb b) { return {a.r * b.r, a.g * b.g, a.b * b.b}; }
inline float luminance(Rgb c) { return 0.2126f * c.r + 0.7152f * c.g + 0.0722f * c.b; }
// Colour of chromaticity (r, g, b) scaled to luminance L.
inline Rgb with_luminance(Rgb chroma, float L) { return chroma * (L / luminance(chroma)); }
inline Rgb mix(Rgb a, Rgb b, float t) { return a * (1.0f - t) + b * t; }
inline void store(float* rgb, int x, Rgb c) {
  rgb[3 * x + 0] = c.r;
  rgb[3 * x + 1] = c.g;
  rgb[3 * x + 2] = c.b;
}

inline float clampf(float v, float lo, float hi) { return v < lo ? lo : (v > hi ? hi : v); }
inline float saturate(float v) { return clampf(v, 0.0f, 1.0f); }
inline float lerp(float a, float b, float t) { return a + (b - a) * t; }
inline float smoothstep(float e0, float e1, float v) {
  float t = saturate((v - e0) / (e1 - e0));
  return t * t * (3.0f - 2.0f * t);
}
// Coverage of [lo, hi] by a pixel of width w centred on v: a box-filtered step, so edges are
// anti-aliased with the same width at every resolution.
inline float box_coverage(float v, float w, float lo, float hi) {
  float a = v - 0.5f * w, b = v + 0.5f * w;
  float overlap = (b < hi ? b : hi) - (a > lo ? a : lo);
  return overlap <= 0.0f ? 0.0f : (overlap >= w ? 1.0f : overlap / w);
}
// Fraction of [v - w/2, v + w/2] covered by a periodic pattern "on" during [0, duty) of every
// period: the box-filtered square wave (dashed lane markers, tiles, stripes).
inline float periodic_coverage(float v, float w, float period, float duty) {
  auto integral = [&](float t) {
    float n = std::floor(t / period);
    float in_period = t - n * period;
    return n * duty + (in_period < duty ? in_period : duty);
  };
  return saturate((integral(v + 0.5f * w) - integral(v - 0.5f * w)) / w);
}

inline int fast_floor(float v) {
  int i = static_cast<int>(v);
  return v < static_cast<float>(i) ? i - 1 : i;
}

// lowbias32 (Wellons): a well-mixed 32-bit hash.
inline std::uint32_t hash32(std::uint32_t x) {
  x ^= x >> 16; x *= 0x7feb352dU; x ^= x >> 15; x *= 0x846ca68bU; x ^= x >> 16;
  return x;
}
// Lattice hash: the coordinates are spread by odd multipliers (Teschner et al.) and mixed once.
inline std::uint32_t hash2(int x, int y, std::uint32_t seed) {
  return hash32(static_cast<std::uint32_t>(x) * 0x8da6b343U + static_cast<std::uint32_t>(y) * 0xd8163841U +
                seed * 0xcb1ab31fU);
}
// Uniform in [0, 1).
inline float unit(std::uint32_t h) { return static_cast<float>(h >> 8) * (1.0f / 16777216.0f); }

// Lattice values for value noise: a permutation of 0..1023 (stored twice so that
// perm[perm[X] + Y] never wraps) and 1024 uniform values, built once from hash32. Table
// look-ups instead of four hashes per sample: 3x faster, which keeps 8K scenes under 2 s.
// The lattice repeats every 1024 cells, far beyond any octave's extent on screen.
struct NoiseTables {
  std::uint16_t perm[2048];
  float value[1024];
};
inline NoiseTables make_noise_tables() {
  NoiseTables t{};
  for (int i = 0; i < 1024; ++i) t.perm[i] = static_cast<std::uint16_t>(i);
  for (int i = 1023; i > 0; --i) {  // Fisher-Yates with a fixed hash: the same on every machine
    int j = static_cast<int>(hash32(0x5EEDu + static_cast<std::uint32_t>(i)) % static_cast<std::uint32_t>(i + 1));
    std::uint16_t tmp = t.perm[i];
    t.perm[i] = t.perm[j];
    t.perm[j] = tmp;
  }
  for (int i = 0; i < 1024; ++i) {
    t.perm[1024 + i] = t.perm[i];
    t.value[i] = unit(hash32(0xA11CEu + static_cast<std::uint32_t>(i)));
  }
  return t;
}
inline const NoiseTables kNoiseTables = make_noise_tables();

// Value noise in [0, 1] with C1 smooth interpolation, lattice spacing 1.
inline float value_noise(float x, float y, std::uint32_t seed) {
  int ix = fast_floor(x), iy = fast_floor(y);
  float fx = x - static_cast<float>(ix), fy = y - static_cast<float>(iy);
  float u = fx * fx * (3.0f - 2.0f * fx), v = fy * fy * (3.0f - 2.0f * fy);
  const std::uint32_t sh = hash32(seed);
  const int X = (ix + static_cast<int>(sh & 1023u)) & 1023, Y = (iy + static_cast<int>((sh >> 10) & 1023u)) & 1023;
  const NoiseTables& t = kNoiseTables;
  const int p0 = t.perm[X], p1 = t.perm[X + 1];
  float a = t.value[t.perm[p0 + Y]], b = t.value[t.perm[p1 + Y]];
  float c = t.value[t.perm[p0 + Y + 1]], d = t.value[t.perm[p1 + Y + 1]];
  return lerp(lerp(a, b, u), lerp(c, d, u), v);
}

// Fractal sum of `octaves` value-noise octaves (lacunarity 2, gain 0.5), in [0, 1], mean 0.5.
// `footprint` is one pixel's size in noise units: octaves whose lattice is finer than two
// pixels fade to their mean, so the texture looks (and averages) the same at every size.
inline float fbm(float x, float y, int octaves, float footprint, std::uint32_t seed) {
  float sum = 0.0f, norm = 0.0f, amp = 1.0f, scale = 1.0f;
  const float inv_footprint = 1.0f / footprint;
  for (int i = 0; i < octaves; ++i) {
    // Lattice spacing of this octave is 1/scale noise units: keep it whole at >= 2 pixels per
    // cell, fade it out between 2 and 1, drop it (and every finer octave) below.
    float keep = inv_footprint / scale - 1.0f;
    if (keep <= 0.0f) {
      float rest = amp * 2.0f * (1.0f - std::ldexp(1.0f, i - octaves));  // amp + amp/2 + ... for the rest
      sum += 0.5f * rest;
      norm += rest;
      break;
    }
    float n = value_noise(x * scale + 17.0f * static_cast<float>(i), y * scale - 31.0f * static_cast<float>(i),
                          seed + 0x9E37U * static_cast<std::uint32_t>(i));
    sum += amp * (keep >= 1.0f ? n : lerp(0.5f, n, keep));
    norm += amp;
    amp *= 0.5f;
    scale *= 2.0f;
  }
  return sum / norm;
}

// Standard normal CDF.
inline float normal_cdf(float t) { return 0.5f * std::erfc(-t * 0.70710678f); }

// Average over the pixel square of side `pixel` centred on (x, y) of an elliptical Gaussian
// peak * exp(-dx^2/2sx^2 - dy^2/2sy^2) centred on (cx, cy): exact for sub-pixel sources, so a
// star or a headlight keeps its energy (and a 1x1 image its mean) at every resolution.
// Zero beyond 6 sigma + one pixel.
inline float gaussian_pixel(float x, float y, float cx, float cy, float sigma_x, float sigma_y, float peak,
                            float pixel) {
  float dx = x - cx, dy = y - cy;
  if (std::fabs(dx) > 6.0f * sigma_x + pixel || std::fabs(dy) > 6.0f * sigma_y + pixel) return 0.0f;
  float h = 0.5f * pixel, ix = 1.0f / sigma_x, iy = 1.0f / sigma_y;
  float fx = normal_cdf((dx + h) * ix) - normal_cdf((dx - h) * ix);
  float fy = normal_cdf((dy + h) * iy) - normal_cdf((dy - h) * iy);
  return peak * 6.2831853f * sigma_x * sigma_y / (pixel * pixel) * fx * fy;
}
inline float gaussian_pixel(float x, float y, float cx, float cy, float sigma, float peak, float pixel) {
  return gaussian_pixel(x, y, cx, cy, sigma, sigma, peak, pixel);
}

// A soft glow (veiling glare around a bright source): peak / (1 + (r/r0)^2)^1.5, faded to 0 at
// `reach` so it stays local and cheap.
inline float glow(float dx, float dy, float r0, float peak, float reach) {
  float r2 = dx * dx + dy * dy;
  if (r2 >= reach * reach) return 0.0f;
  float q = 1.0f + r2 / (r0 * r0);
  float fade = 1.0f - std::sqrt(r2) / reach;
  return peak / (q * std::sqrt(q)) * fade * fade;
}

// The scenes (one file each).
void shade_night_drive(const Frame& frame, int y, float* rgb);
// The night drive's camera (the sequence's tunnel uses the same one).
constexpr float kNightDriveHorizon = 0.43f;  // screen y of the horizon
constexpr float kNightDriveFocal = 1.1f;     // focal length in image heights
constexpr float kNightDriveEye = 1.25f;      // camera height, m
// The night drive's moving parts, for the sequence (sequence_night_drive.cpp); the default
// state is the still scene.
struct NightDriveState {
  float travel = 0.0f;    // metres driven: lamps, sign and road texture slide toward the camera
  float car_z = 65.0f;    // distance of the oncoming car, m (<= 1: it has passed)
  float daylight = 0.0f;  // 0 night .. 1 day: sky and ambient light rise, the lamps go out
};
void shade_night_drive_state(const Frame& frame, int y, float* rgb, const NightDriveState& state);
void shade_window_interior(const Frame& frame, int y, float* rgb);
void shade_gradient_ramp(const Frame& frame, int y, float* rgb);
void shade_sunset(const Frame& frame, int y, float* rgb);
void shade_checker_hdr(const Frame& frame, int y, float* rgb);

}  // namespace tonekit::synth
