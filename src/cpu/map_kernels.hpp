// The CPU map pass in vectorisable stages over chunks of a row (structure-of-arrays buffers):
// load + sanitise + luminance, curve, colour reconstruction, transfer + quantise + store.
// Compiled per instruction-set level (cpu/isa_level.hpp: baseline, x86-64-v3, x86-64-v4), each
// call running the chosen level's loops, with the same results on every level; the maths is
// core/*.hpp, the same functions the CUDA kernels call.
#pragma once
#include <cstdint>

#include "core/curves.hpp"
#include "cpu/isa_level.hpp"
#include "tonekit/image.hpp"

namespace tonekit::cpu {

constexpr int kChunk = 256;

struct Chunk {
  alignas(64) float r[kChunk];
  alignas(64) float g[kChunk];
  alignas(64) float b[kChunk];
  alignas(64) float a[kChunk];
  alignas(64) float lw[kChunk];
  alignas(64) float ld[kChunk];
};

// Pixels [x0, x0 + n) of a row of `in` into c.r/g/b (sanitised), c.a (clamped alpha or 1), c.lw.
void load_chunk(const void* row, int x0, int n, int channels, PixelType type, Chunk& c);
// Only c.lw (the statistics pass needs nothing else); c.r/g/b/a are left unspecified.
void load_luminance_chunk(const void* row, int x0, int n, int channels, PixelType type, Chunk& c);
// The same two from n pixels of three float planes (r, g, b each at the chunk's first pixel):
// the values, sanitised, and luminances load_chunk gives for the interleaved pixels; alpha 1.
void load_planar_chunk(const float* r, const float* g, const float* b, int n, Chunk& c);
void load_planar_luminance_chunk(const float* r, const float* g, const float* b, int n, Chunk& c);
// Per-pixel bad-value counts over pixels [x0, x0 + n): a pixel counts once, as NaN if any
// channel is NaN, else as Inf if any is +-Inf, else as negative if any is < 0.
struct BadPixelCounts {
  std::uint64_t nan = 0, inf = 0, negative = 0;
};
void count_bad_pixels(const void* row, int x0, int n, int channels, PixelType type, BadPixelCounts& counts);
// Reduction of c.lw[0, n): min, max, smallest positive, and sum of log(delta + L) in float64.
struct LuminanceReduction {
  float min, max, min_positive;
  double log_sum;
};
void reduce_luminance(const Chunk& c, int n, LuminanceReduction& r);
void curve_chunk(const core::CurveSettings& s, Chunk& c, int n);
void colour_chunk(Chunk& c, int n, float saturation);
// curve_chunk then colour_chunk for curves in luminance mode (all but the display curves' other
// modes); the other modes through core::map_colour_mode, per pixel: c.r/g/b become display RGB.
void map_colour_chunk(const core::CurveSettings& s, Chunk& c, int n, float saturation);
// Writes pixels [x0, x0 + n) of an output row with `channels` (3 or 4) of type `type`.
void store_chunk(const Chunk& c, int x0, int n, int y, int channels, PixelType type, float gamma, bool dither,
                 void* out_row);

// Each level's own versions of the calls above (the calls dispatch to them).
TK_ISA_DECLARE(
void load_chunk(const void* row, int x0, int n, int channels, PixelType type, Chunk& c);
void load_luminance_chunk(const void* row, int x0, int n, int channels, PixelType type, Chunk& c);
void load_planar_chunk(const float* r, const float* g, const float* b, int n, Chunk& c);
void load_planar_luminance_chunk(const float* r, const float* g, const float* b, int n, Chunk& c);
void count_bad_pixels(const void* row, int x0, int n, int channels, PixelType type, BadPixelCounts& counts);
void reduce_luminance(const Chunk& c, int n, LuminanceReduction& r);
void curve_chunk(const core::CurveSettings& s, Chunk& c, int n);
void colour_chunk(Chunk& c, int n, float saturation);
void map_colour_chunk(const core::CurveSettings& s, Chunk& c, int n, float saturation);
void store_chunk(const Chunk& c, int x0, int n, int y, int channels, PixelType type, float gamma, bool dither,
                 void* out_row);
)

}  // namespace tonekit::cpu
