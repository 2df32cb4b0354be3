// gradient-ramp: a test chart. Eight horizontal bands, each a ramp whose brightest channel
// runs logarithmically from 1e-2 to 1e4 across the frame (6 decades): grey, red, green, blue,
// cyan, magenta, yellow, then grey in half-decade steps. Good for reading
// an operator's curve and its colour handling straight off the output.
#include <algorithm>
#include <cmath>

#include "cpu/synth/synth_internal.hpp"

namespace tonekit::synth {

void shade_gradient_ramp(const Frame& f, int y, float* rgb) {
  static const Rgb kBands[8] = {{1, 1, 1},          {1, 0.06f, 0.06f}, {0.06f, 1, 0.06f},
                                {0.06f, 0.06f, 1},  {0.06f, 1, 1},     {1, 0.06f, 1},
                                {1, 1, 0.06f},      {1, 1, 1}};
  const float sy = f.sy(y);
  const int band = std::min(7, fast_floor(sy * 8.0f));
  for (int xi = 0; xi < f.width; ++xi) {
    float t = (static_cast<float>(xi) + 0.5f) / static_cast<float>(f.width);
    if (band == 7) t = std::floor(t * 13.0f) / 12.0f;  // 13 steps: 1e-2, 10^-1.5, ..., 1e4
    float value = std::pow(10.0f, -2.0f + 6.0f * t);
    Rgb c = kBands[band] * value;
    store(rgb, xi, c);
  }
}

}  // namespace tonekit::synth
