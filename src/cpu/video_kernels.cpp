// Built with -O3 -ffast-math and cloned for AVX-512 / AVX2 / baseline like map_kernels.cpp, so GCC
// vectorises powf / expf through libmvec: the decode transfer runs as one loop over the row's
// 3 * width values, then the OOTF and primaries per pixel; the encode transfer and matrix per pixel. Each value goes through the same core functions
// as core::linearise_pixel, in the same order, so the CPU and GPU differ only by powf rounding.
#include "cpu/video_kernels.hpp"

#define TK_CLONES __attribute__((target_clones("avx512f", "avx2", "default"), flatten))

namespace tonekit::cpu {

TK_CLONES void linearise_row(const core::VideoLinearise& s, float* rgb, int width) {
  const int n = 3 * width;
  switch (s.transfer) {
    case Transfer::linear:
      if (s.clamp_negative)
        for (int i = 0; i < n; ++i) rgb[i] = rgb[i] < 0.0f ? 0.0f : rgb[i];
      break;
    case Transfer::pq:
      for (int i = 0; i < n; ++i) rgb[i] = core::pq_eotf(rgb[i]) * s.inv_reference_white;
      break;
    case Transfer::hlg:
      for (int i = 0; i < n; ++i) rgb[i] = core::hlg_inverse_oetf(rgb[i]);
      for (int x = 0; x < width; ++x) core::hlg_ootf(rgb[3 * x], rgb[3 * x + 1], rgb[3 * x + 2], s.hlg_alpha, s.hlg_gamma, s.weights);
      break;
  }
  if (!s.bt2020) return;
  for (int x = 0; x < width; ++x) {
    float& r = rgb[3 * x];
    float& g = rgb[3 * x + 1];
    float& b = rgb[3 * x + 2];
    core::bt2020_to_bt709(r, g, b);
    core::gamut_clip_desaturate(r, g, b);
  }
}

TK_CLONES void display_row_ycbcr(const float* rgb, int channels, int width, float gamma, float* y, float* cb,
                                 float* cr) {
  if (channels == 4) {
    for (int x = 0; x < width; ++x)
      core::display_pixel_ycbcr(rgb[4 * x], rgb[4 * x + 1], rgb[4 * x + 2], gamma, y[x], cb[x], cr[x]);
  } else {
    for (int x = 0; x < width; ++x)
      core::display_pixel_ycbcr(rgb[3 * x], rgb[3 * x + 1], rgb[3 * x + 2], gamma, y[x], cb[x], cr[x]);
  }
}

}  // namespace tonekit::cpu
