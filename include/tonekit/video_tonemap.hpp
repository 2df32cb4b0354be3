// One video frame through the CPU reference: decode (tonekit/video.hpp layouts and colour) ->
// tone map -> encode, for `tonekit stream` and the tests.
#pragma once
#include <cstdint>
#include <vector>

#include "tonekit/operators.hpp"
#include "tonekit/status.hpp"
#include "tonekit/tonemap.hpp"
#include "tonekit/video.hpp"

namespace tonekit::cpu {

// Maps one frame of `width` x `height` in `in_format` / `colour` with the operator in `params`.
//   layout interleaved: `out` holds the image in `format` (as cpu::tone_map writes it: u8/u16 get
//                       the sRGB or gamma transfer, f16/f32 stay linear display light);
//   layout yuv420p/nv12: `out` holds 8-bit Y'CbCr 4:2:0 (BT.709 matrix, limited range, BT.709
//                       OETF or v^(1/gamma) per the `gamma` parameter, `dither` parameter);
//                       `format` is ignored.
// `out` is resized to output_frame_bytes(...) (no reallocation when it already has the capacity).
// `stats` receives the frame statistics of the decoded scene-linear frame, with the NaN / Inf /
// negative counts of the input samples (float layouts) that decoding sanitised.
Status tone_map_frame(const FramePlanes& planes, InputFormat in_format, const InputColour& colour, int width,
                      int height, const Params& params, OutputLayout layout, OutputFormat format,
                      std::vector<std::uint8_t>& out, FrameStats* stats = nullptr);

}  // namespace tonekit::cpu
