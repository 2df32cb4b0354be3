// CPU reference of the 8-bit Y'CbCr 4:2:0 outputs (issue 14 item 2): linear display RGB in [0, 1]
// -> BT.709 OETF (or v^(1/gamma)) -> BT.709 matrix, limited range, 2x2-mean chroma -> yuv420p or
// NV12, with the per-pixel and per-block maths of core/video_colour.hpp that the CUDA kernel shares.
#pragma once
#include <cstddef>
#include <cstdint>

#include "tonekit/image.hpp"
#include "tonekit/status.hpp"
#include "tonekit/video.hpp"

namespace tonekit::cpu {

// `display`: host f32 RGB or RGBA (alpha ignored), any stride, values clamped to [0, 1]; no NaN
// (cpu::tone_map never writes one).
// `layout`: yuv420p (planes Y, Cb, Cr) or nv12 (Y, then interleaved Cb,Cr), packed one after
// another in `out` (out_bytes >= output_frame_bytes(layout, w, h, 3, 1)). gamma == 0 selects the
// BT.709 OETF. dither: triangular, Y' with the pixel's hash (as RGB outputs), Cb and Cr with the
// hash of the block's top-left pixel. Odd sizes: the last chroma column / row averages the
// pixels it has.
Status encode_yuv420(const ImageView& display, OutputLayout layout, double gamma, bool dither, std::uint8_t* out,
                     std::size_t out_bytes);

}  // namespace tonekit::cpu
