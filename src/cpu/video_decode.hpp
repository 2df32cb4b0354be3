// CPU reference of the video input conversions (issue 14 item 2): any InputFormat x Transfer x
// Primaries -> scene-linear BT.709 float RGB, with the maths of core/video_colour.hpp that the
// CUDA kernels share.
#pragma once
#include "tonekit/image.hpp"
#include "tonekit/status.hpp"
#include "tonekit/tonemap.hpp"
#include "tonekit/video.hpp"

namespace tonekit::cpu {

// Checks a frame at the boundary: size in [1, kMaxImageSide] (odd sizes are fine), the format's
// planes non-null, each stride (0 = packed) at least the plane's packed row bytes, and
// validate(colour).
Status validate_frame(const FramePlanes& planes, InputFormat format, const InputColour& colour, int width,
                      int height);

// The frame's R'G'B' signal before the transfer, as float RGB (3 channels): YUV layouts upsampled
// (top-left co-sited, bilinear, edge clamped) and converted with colour.matrix / colour.range,
// unclamped; rgb48 as code / 65535; float layouts sanitised (README "Bad pixels"). For the tests
// and the GPU differential checks.
Status decode_signal(const FramePlanes& planes, InputFormat format, const InputColour& colour, int width,
                     int height, Image& out, FrameStats* sanitise_counts = nullptr);

// The frame as scene-linear BT.709 float RGB (3 channels, 1.0 = diffuse white):
//   signal (as decode_signal) -> transfer (linear: as is, negatives of YUV layouts -> 0;
//   pq / hlg: signal clamped to [0, 1], EOTF or inverse OETF + OOTF, divided by reference_white)
//   -> BT.2020 -> BT.709 and the gamut policy of video.hpp when colour.primaries is bt2020.
// Never writes NaN, Inf or a negative value. `sanitise_counts` (optional) receives pixel_count and
// the NaN / Inf / negative pixel counts of float layouts (other fields 0).
Status decode_frame(const FramePlanes& planes, InputFormat format, const InputColour& colour, int width, int height,
                    Image& out, FrameStats* sanitise_counts = nullptr);

}  // namespace tonekit::cpu
