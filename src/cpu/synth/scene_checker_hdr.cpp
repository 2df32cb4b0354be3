// checker-hdr: a checkerboard of 1/7-frame-high squares. Bright squares step from 10 to 1e4
// cd/m^2 across the frame (left to right and top to bottom), each dark neighbour is 1000x
// darker (1e-2..10). A faint texture and tint inside each square show whether an operator
// keeps local detail at both ends, and the hard edges show its halos. Edges are point
// sampled (not box filtered): a blended edge pixel of a 1000:1 step would pull the
// log-average up by a share that halves with every doubling of the resolution.
#include <cmath>

#include "cpu/synth/synth_internal.hpp"

namespace tonekit::synth {

void shade_checker_hdr(const Frame& f, int y, float* rgb) {
  constexpr float kSquare = 1.0f / 7.0f;
  const float sy = f.sy(y), px = f.pixel;
  const float half_width = 0.5f * f.aspect;
  const int row = fast_floor(sy / kSquare);
  for (int xi = 0; xi < f.width; ++xi) {
    const float sx = f.sx(xi);
    const int col = fast_floor((sx + half_width) / kSquare);
    // Position across the board, from the square's centre so each square is flat.
    float cx = (static_cast<float>(col) + 0.5f) * kSquare / std::fmax(f.aspect, kSquare);
    float cy = (static_cast<float>(row) + 0.5f) * kSquare;
    float p = saturate(0.75f * saturate(cx) + 0.25f * saturate(cy));
    float bright = std::pow(10.0f, 1.0f + 3.0f * p);
    float on_bright = ((row + col) & 1) ? 0.0f : 1.0f;
    std::uint32_t h = hash2(col, row, 1501u);
    Rgb tint = mix(Rgb{1, 1, 1}, Rgb{unit(h), unit(hash32(h + 1u)), unit(hash32(h + 2u))}, 0.25f);
    float texture = 0.85f + 0.3f * fbm(sx * 40.0f, sy * 40.0f, 4, px * 40.0f, 1502u);
    float L = lerp(bright * 1e-3f, bright, on_bright) * texture;
    store(rgb, xi, with_luminance(tint, L));
  }
}

}  // namespace tonekit::synth
