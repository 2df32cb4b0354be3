// Built with -O3 -ffast-math and cloned for AVX-512 / AVX2 / baseline like map_kernels.cpp. The
// decode runs core::linearise_pixel per pixel (double inside, as on the GPU: see its comment);
// the encode transfer and matrix per pixel, through the same core functions as the device.
#include "cpu/video_kernels.hpp"

#define TK_CLONES __attribute__((target_clones("avx512f", "arch=x86-64-v3", "default"), flatten))

namespace tonekit::cpu {

TK_CLONES void linearise_row(const core::VideoLinearise& s, float* rgb, int width) {
  if (s.transfer == Transfer::linear && !s.clamp_negative && !s.bt2020) return;
  for (int x = 0; x < width; ++x) core::linearise_pixel(s, rgb[3 * x], rgb[3 * x + 1], rgb[3 * x + 2]);
}

TK_CLONES void display_row_ycbcr(const float* rgb, int channels, int width, float gamma, float* y, float* cb,
                                 float* cr) {
  const float* t = core::bt709_oetf_table_host();
  if (channels == 4) {
    for (int x = 0; x < width; ++x)
      core::display_pixel_ycbcr(rgb[4 * x], rgb[4 * x + 1], rgb[4 * x + 2], gamma, t, y[x], cb[x], cr[x]);
  } else {
    for (int x = 0; x < width; ++x)
      core::display_pixel_ycbcr(rgb[3 * x], rgb[3 * x + 1], rgb[3 * x + 2], gamma, t, y[x], cb[x], cr[x]);
  }
}

}  // namespace tonekit::cpu
