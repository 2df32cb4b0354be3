// Compiled once per instruction-set level (cpu/isa_level.hpp: video_kernels_v3.cpp, _v4.cpp) with
// the level options (no contraction, no fast-math), so every level gives the same bytes. The
// decode runs core::linearise_pixel per pixel (double inside, as on the GPU: see its comment);
// the encode transfer and matrix per pixel, through the same core functions as the device.
// Every call in the loops inlined (TK_ISA_INLINE_ALL).
#include "cpu/video_kernels.hpp"

#include "cpu/isa_level.hpp"


namespace tonekit::cpu {

#if TK_ISA_PRIMARY
TK_ISA_DECLARE(void linearise_row(const core::VideoLinearise& s, float* rgb, int width);
               void display_row_ycbcr(const float* rgb, int channels, int width, float gamma, float* y, float* cb,
                                      float* cr);)
#endif

TK_ISA_BEGIN

TK_ISA_INLINE_ALL void linearise_row(const core::VideoLinearise& s, float* rgb, int width) {
  if (s.transfer == Transfer::linear && !s.clamp_negative && !s.bt2020) return;
  for (int x = 0; x < width; ++x) core::linearise_pixel(s, rgb[3 * x], rgb[3 * x + 1], rgb[3 * x + 2]);
}

TK_ISA_INLINE_ALL void display_row_ycbcr(const float* rgb, int channels, int width, float gamma, float* y, float* cb,
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

TK_ISA_END

#if TK_ISA_PRIMARY
void linearise_row(const core::VideoLinearise& s, float* rgb, int width) { TK_ISA_DISPATCH(linearise_row(s, rgb, width)); }
void display_row_ycbcr(const float* rgb, int channels, int width, float gamma, float* y, float* cb, float* cr) {
  TK_ISA_DISPATCH(display_row_ycbcr(rgb, channels, width, gamma, y, cb, cr));
}
#endif

}  // namespace tonekit::cpu
