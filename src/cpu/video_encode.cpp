// CPU 8-bit 4:2:0 encoder: one task per band of chroma rows; each chroma row encodes its two luma
// rows and the block means in one sweep.
#include "cpu/video_encode.hpp"

#include <vector>

#include "core/video_colour.hpp"
#include "cpu/parallel.hpp"
#include "cpu/video_kernels.hpp"

namespace tonekit::cpu {

Status encode_yuv420(const ImageView& display, OutputLayout layout, double gamma, bool dither, std::uint8_t* out,
                     std::size_t out_bytes) {
  if (layout != OutputLayout::yuv420p && layout != OutputLayout::nv12)
    return invalid_argument(std::string("encode_yuv420 needs yuv420p or nv12, not ") + output_layout_name(layout));
  if (display.space != MemorySpace::host || display.type != PixelType::f32 ||
      (display.channels != 3 && display.channels != 4))
    return invalid_argument("encode_yuv420 needs a host float RGB or RGBA image");
  if (display.width <= 0 || display.height <= 0 || !display.data || !out)
    return invalid_argument("encode_yuv420: empty image or null buffer");
  if (!(gamma == 0.0 || gamma > 0.0)) return invalid_argument("encode_yuv420: gamma must be 0 (BT.709) or > 0");
  const int w = display.width, h = display.height, cw = (w + 1) / 2, ch = (h + 1) / 2;
  const std::size_t need = output_frame_bytes(layout, w, h, 3, 1);
  if (out_bytes < need)
    return invalid_argument("encode_yuv420: output buffer of " + std::to_string(out_bytes) + " bytes, need " +
                            std::to_string(need));
  std::uint8_t* y_plane = out;
  std::uint8_t* c_plane = out + static_cast<std::size_t>(w) * h;
  const std::size_t c_size = static_cast<std::size_t>(cw) * ch;
  const float g = static_cast<float>(gamma);
  parallel_rows(ch, [&](int, int by0, int by1) {
    // Cb, Cr of the block row's two luma rows, then one block_mean per block (core, fixed order).
    std::vector<float> luma(static_cast<std::size_t>(w)), cb_rows[2], cr_rows[2];
    for (int r = 0; r < 2; ++r) {
      cb_rows[r].resize(static_cast<std::size_t>(w));
      cr_rows[r].resize(static_cast<std::size_t>(w));
    }
    for (int by = by0; by < by1; ++by) {
      const int rows = 2 * by + 1 < h ? 2 : 1;
      for (int r = 0; r < rows; ++r) {
        const int y = 2 * by + r;
        display_row_ycbcr(display.row<const float>(y), display.channels, w, g, luma.data(), cb_rows[r].data(),
                          cr_rows[r].data());
        std::uint8_t* yo = y_plane + static_cast<std::size_t>(y) * w;
        for (int x = 0; x < w; ++x)
          yo[x] = static_cast<std::uint8_t>(core::luma_code8(luma[static_cast<std::size_t>(x)], dither, x, y));
      }
      for (int bx = 0; bx < cw; ++bx) {
        const int cols = 2 * bx + 1 < w ? 2 : 1;
        const std::size_t x0 = 2 * static_cast<std::size_t>(bx), x1 = x0 + (cols - 1);
        const int r1 = rows - 1;
        const float cb_mean = core::block_mean(cb_rows[0][x0], cb_rows[0][x1], cb_rows[r1][x0], cb_rows[r1][x1], cols, rows);
        const float cr_mean = core::block_mean(cr_rows[0][x0], cr_rows[0][x1], cr_rows[r1][x0], cr_rows[r1][x1], cols, rows);
        unsigned cb, cr;
        core::chroma_codes8(cb_mean, cr_mean, dither, bx, by, cb, cr);
        const std::size_t i = static_cast<std::size_t>(by) * cw + bx;
        if (layout == OutputLayout::yuv420p) {
          c_plane[i] = static_cast<std::uint8_t>(cb);
          c_plane[c_size + i] = static_cast<std::uint8_t>(cr);
        } else {
          c_plane[2 * i] = static_cast<std::uint8_t>(cb);
          c_plane[2 * i + 1] = static_cast<std::uint8_t>(cr);
        }
      }
    }
  });
  return {};
}

}  // namespace tonekit::cpu
