// Decoded FFmpeg frames into the packed layouts FrameMapper takes. P010 and yuv420p10 (what
// FFmpeg's HEVC, AV1 and VP9 decoders give for 10-bit 4:2:0) are copied as they are; any other
// pixel format goes through libswscale to 16-bit RGB (rgb48, the matrix and range undone there,
// the PQ/HLG signal kept). SDR frames are linearised here, because tonekit's video decode knows
// PQ, HLG and linear only: 16-bit RGB through the SDR EOTF (a table) to linear float RGB, nominal
// white (100 cd/m^2) landing at 100 / reference_white as PQ light would.
#pragma once
extern "C" {
#include <libavutil/frame.h>
#include <libavutil/pixfmt.h>
}

#include <string_view>
#include <vector>

#include "stream/frame_io.hpp"
#include "tonekit/status.hpp"
#include "tonekit/video.hpp"
#include "video/av_util.hpp"

namespace tonekit::video {

// The input's transfer as the video command knows it: the three tonekit decodes, and the SDR
// curves it linearises itself.
enum class SourceTransfer { pq, hlg, linear, bt1886, srgb, gamma22, gamma28 };
const char* source_transfer_name(SourceTransfer t);
// pq, hlg, linear, bt709 (= bt1886, the display EOTF of BT.709 video), bt1886, srgb, gamma22, gamma28.
Result<SourceTransfer> parse_source_transfer(std::string_view name);
// From the stream's color_trc; unspecified: PQ for 10 bits and more, else BT.1886.
SourceTransfer source_transfer_from(AVColorTransferCharacteristic trc, int bit_depth);
bool is_hdr(SourceTransfer t);  // pq or hlg

class FrameConverter {
 public:
  // `colour`: the range and reference white the frames are read with; `space`: the stream's
  // matrix for swscale (which knows BT.601 too; unspecified: colour.matrix).
  FrameConverter(AVPixelFormat pix_fmt, int width, int height, SourceTransfer transfer, const InputColour& colour,
                 AVColorSpace space);
  // The layout FrameMapper receives.
  InputFormat format() const { return format_; }
  // True when frames are copied as decoded (no swscale).
  bool direct() const { return direct_; }
  // One frame into `out.bytes` (packed, frame_bytes(format(), w, h)).
  Status convert(const AVFrame& frame, stream::Frame& out);

 private:
  AVPixelFormat pix_fmt_;
  int width_, height_;
  InputFormat format_ = InputFormat::p010;
  bool direct_ = false;
  bool linearise_ = false;
  SwsPtr sws_;
  std::vector<std::uint8_t> rgb48_;
  std::vector<float> eotf_;  // 65536 entries: 16-bit code -> linear light over reference white
};

}  // namespace tonekit::video
