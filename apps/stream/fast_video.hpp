// The stream's fast CPU path for its commonest case: 10-bit Y'CbCr 4:2:0 (p010, yuv420p10) with
// PQ or linear transfer in, 8-bit yuv420p / NV12 out with the BT.709 OETF. The maths is the CPU
// reference's (cpu::decode_frame, cpu::encode_yuv420; core/video_colour.hpp: matrices, co-sited
// chroma taps, transfers, gamut policy, quantisation and dither), scheduled for the vector units:
// per row, element-wise loops without branches, built with -ffast-math so that powf vectorises
// through libmvec (perf on the reference: 40 % of a 4K frame in scalar powf, the rest in scalar
// per-pixel loops). Results stay within one 8-bit code of the reference
// (StreamCli.FastPathWithinOneCodeOfTheReference); every other case goes through the reference.
#pragma once
#include <cstdint>
#include <vector>

#include "tonekit/image.hpp"
#include "tonekit/video.hpp"

namespace tonekit::stream {

class FastVideo {
 public:
  // True when the fast path covers this input and output (gamma == 0: the BT.709 OETF).
  static bool covers(InputFormat format, const InputColour& colour, bool yuv_output, double gamma);
  FastVideo(InputFormat format, const InputColour& colour, int width, int height);
  // The packed frame as scene-linear BT.709 RGB (3 channels), as cpu::decode_frame.
  void decode(const std::uint8_t* frame, Image& scene) const;
  // Linear display RGB (3 channels, [0, 1]) -> 8-bit 4:2:0, as cpu::encode_yuv420 with gamma 0.
  void encode(const Image& display, OutputLayout layout, bool dither, std::uint8_t* out) const;

 private:
  InputFormat format_;
  InputColour colour_;
  int width_, height_;
};

}  // namespace tonekit::stream
