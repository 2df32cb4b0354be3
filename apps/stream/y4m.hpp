// YUV4MPEG2 (y4m) stream headers: parsing what ffmpeg, x264 and mjpegtools write, and writing
// our own. A stream is one header line "YUV4MPEG2 W.. H.. F.. I.. A.. C.. X..\n", then per frame
// "FRAME[ params]\n" and the raw planes (Y, Cb, Cr). Tags as ffmpeg's libavformat/yuv4mpegdec.c
// reads them: W and H (required), F frame rate n:d, I interlacing (p progressive, ? unknown,
// t/b/m interlaced), A pixel aspect n:d, C chroma layout (420, 420jpeg, 420mpeg2, 420paldv:
// 8-bit 4:2:0 with different chroma siting; 420p10: 10-bit little-endian 16-bit words), X
// extensions (XCOLORRANGE=FULL|LIMITED read; others ignored).
#pragma once
#include <string>
#include <string_view>

#include "tonekit/status.hpp"
#include "tonekit/video.hpp"

namespace tonekit::stream {

// A frame rate as the rational a container keeps (30000/1001, not 29.97).
struct Rational {
  int num = 30;
  int den = 1;
  double value() const { return static_cast<double>(num) / den; }
};
// "30", "29.97", "30000/1001" or "30000:1001" -> a positive rational.
Result<Rational> parse_rate(std::string_view text);

struct Y4mHeader {
  int width = 0;
  int height = 0;
  Rational fps{25, 1};   // F absent: 25, as ffmpeg assumes
  Rational aspect{1, 1};
  int bit_depth = 8;     // 8 (C420*) or 10 (C420p10)
  bool range_known = false;
  YuvRange range = YuvRange::limited;  // from XCOLORRANGE when range_known
  std::string chroma = "420jpeg";      // the C tag as given (without the C)
  // The frame's bytes: Y plane then Cb, Cr at ceil(w/2) x ceil(h/2); 1 or 2 bytes a sample.
  std::size_t frame_bytes() const;
};

// Parses the header line without its '\n'. Errors name the tag: not a y4m stream, a missing or
// absurd W/H, an unsupported C (only 4:2:0 at 8 or 10 bits), interlaced streams (I t/b/m:
// deinterlace first, e.g. ffmpeg -vf bwdif), malformed numbers.
Result<Y4mHeader> parse_y4m_header(std::string_view line);

// The header line (with '\n') for a progressive 4:2:0 stream: 8 bits as C420jpeg (centre-sited
// chroma, the mean of each 2x2 block, as our encoder computes it) or 10 bits as C420p10, with
// XCOLORRANGE so that ffmpeg reads the range right.
std::string format_y4m_header(int width, int height, Rational fps, int bit_depth, YuvRange range);

// Checks one frame header line (without '\n'): "FRAME" and optional parameters.
Status check_y4m_frame_line(std::string_view line, long long frame_index);

}  // namespace tonekit::stream
