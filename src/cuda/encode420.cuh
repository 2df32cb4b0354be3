// The 8-bit 4:2:0 encode of one 2 x 2 block, shared by the encode stage (video_stages.cu:
// encode_kernel, after the local operators' map) and the global operators' map fused with the
// encode (map_kernel.cu: map_encode420_kernel): the block's pixels, read from float RGB rows,
// each turned into Y', Cb, Cr by the caller's `pixel` (display light -> transfer -> BT.709
// Y'CbCr, core::display_pixel_ycbcr, with or without the map before it), the Y' codes with the
// dither of core::luma_code8 and the block's Cb, Cr codes from core::block_mean and
// core::chroma_codes8, as the CPU reference (cpu/video_encode.cpp) computes them.
// The loops over the block are unrolled with the edges as guards, so that the block's Cb, Cr stay
// in registers (run-time loop bounds put them in a 32-byte stack frame); each row's dither seed is
// hashed once and the block's top-left pixel hash is its chroma's too (the same values as the
// per-pixel functions); a block row's two pixels are read as three float2 and its two Y' codes
// (and NV12's Cb, Cr pair) written as one 16-bit word where the alignment allows.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "core/video_colour.hpp"
#include "tonekit/video.hpp"

namespace tonekit::cuda {

// Block (bx, by) of a width x height frame into `out` (the packed yuv420p / NV12 frame).
// row_at(y): the float RGB row y from pixel 2 bx on; load_pairs: those rows may be read as float2
// (both pixels present, 8-byte aligned). pixel(rgb, luma, cb, cr): one pixel's Y', Cb, Cr.
template <class RowAt, class Pixel>
__device__ __forceinline__ void encode420_block(int bx, int by, int width, int height, OutputLayout layout,
                                                bool dither, bool load_pairs, RowAt row_at, Pixel pixel,
                                                std::uint8_t* out) {
  const int cw = (width + 1) / 2, ch = (height + 1) / 2;
  const int cols = 2 * bx + 1 < width ? 2 : 1, rows = 2 * by + 1 < height ? 2 : 1;
  // The Y' pair's offset y width + 2 bx, and NV12's pair's, are even when the width is.
  const bool out_even = (reinterpret_cast<std::uintptr_t>(out) & 1u) == 0;
  const bool store_pairs = out_even && (width & 1) == 0;
  float cb[2][2] = {}, cr[2][2] = {};
  std::uint32_t corner_hash = 0;  // the hash of pixel (2 bx, 2 by): its Y' field 0, the block's Cb, Cr fields 1, 2
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    if (r < rows) {
      const int y = 2 * by + r;
      const std::uint32_t seed = dither ? core::dither_row_seed(y) : 0u;
      const float* row = row_at(y);
      float px[2][3];
      if (load_pairs) {
        const float2 a = reinterpret_cast<const float2*>(row)[0], b = reinterpret_cast<const float2*>(row)[1],
                     c = reinterpret_cast<const float2*>(row)[2];
        px[0][0] = a.x, px[0][1] = a.y, px[0][2] = b.x, px[1][0] = b.y, px[1][1] = c.x, px[1][2] = c.y;
      } else {
#pragma unroll
        for (int c = 0; c < 2; ++c)
#pragma unroll
          for (int i = 0; i < 3; ++i) px[c][i] = c < cols ? row[3 * c + i] : 0.0f;
      }
      unsigned code[2] = {0, 0};
#pragma unroll
      for (int c = 0; c < 2; ++c) {
        if (c < cols) {
          float luma;
          pixel(px[c], luma, cb[r][c], cr[r][c]);
          const std::uint32_t h = dither ? core::dither_pixel_hash(2 * bx + c, seed) : 0u;
          if (r == 0 && c == 0) corner_hash = h;
          code[c] = core::luma_code8_hashed(luma, dither, h);
        }
      }
      std::uint8_t* yrow = out + static_cast<std::size_t>(y) * width + 2 * bx;
      if (store_pairs && cols == 2) {
        *reinterpret_cast<std::uint16_t*>(yrow) = static_cast<std::uint16_t>(code[0] | (code[1] << 8));
      } else {
        yrow[0] = static_cast<std::uint8_t>(code[0]);
        if (cols == 2) yrow[1] = static_cast<std::uint8_t>(code[1]);
      }
    }
  }
  // block_mean reads v10 only when cols == 2, v01 when rows == 2 and v11 when both: the right
  // and bottom entries are those pixels' own values whenever they are read.
  const float cb_mean = core::block_mean(cb[0][0], cb[0][1], cb[1][0], cb[1][1], cols, rows);
  const float cr_mean = core::block_mean(cr[0][0], cr[0][1], cr[1][0], cr[1][1], cols, rows);
  unsigned cb_code, cr_code;
  core::chroma_codes8_hashed(cb_mean, cr_mean, dither, corner_hash, cb_code, cr_code);
  std::uint8_t* chroma = out + static_cast<std::size_t>(width) * height;
  const std::size_t i = static_cast<std::size_t>(by) * cw + bx;
  if (layout == OutputLayout::yuv420p) {
    chroma[i] = static_cast<std::uint8_t>(cb_code);
    chroma[static_cast<std::size_t>(cw) * ch + i] = static_cast<std::uint8_t>(cr_code);
  } else if (store_pairs) {  // the chroma plane's start (and each pair) 2-byte aligned
    reinterpret_cast<std::uint16_t*>(chroma)[i] = static_cast<std::uint16_t>(cb_code | (cr_code << 8));
  } else {
    chroma[2 * i] = static_cast<std::uint8_t>(cb_code);
    chroma[2 * i + 1] = static_cast<std::uint8_t>(cr_code);
  }
}

}  // namespace tonekit::cuda
