// HDR10 static metadata (SMPTE ST 2086 mastering display, CTA-861.3 MaxCLL/MaxFALL) and HDR10+
// dynamic metadata (SMPTE ST 2094-40) as FFmpeg hands them over: in the stream's side data (the
// container's, e.g. Matroska's Colour element) or on each decoded frame (the HEVC SEI messages).
#pragma once
extern "C" {
#include <libavformat/avformat.h>
#include <libavutil/frame.h>
}

#include <optional>
#include <string>

namespace tonekit::video {

struct MasteringDisplay {
  double red[2]{}, green[2]{}, blue[2]{}, white[2]{};  // CIE 1931 xy
  double min_luminance = 0.0, max_luminance = 0.0;     // cd/m^2
  bool has_primaries = false, has_luminance = false;
};

struct ContentLight {
  unsigned max_cll = 0;   // cd/m^2, brightest pixel of the whole stream
  unsigned max_fall = 0;  // cd/m^2, brightest frame average
};

struct Hdr10Metadata {
  std::optional<MasteringDisplay> mastering;
  std::optional<ContentLight> light;
  // Where they came from: "stream" (container side data) or "frame" (decoder side data).
  std::string mastering_origin, light_origin;
  // The static source peak the metadata gives: MaxCLL, else the mastering display's maximum;
  // 0 when neither is there (or they say 0: "unknown" in CTA-861.3).
  double static_peak() const;
  // "mastering display R(x,y) G(..) B(..) W(..) 0.0050-1000 cd/m^2 (frame)" or "none".
  std::string describe_mastering() const;
  std::string describe_light() const;
};

// Fills what the stream's side data holds (FFmpeg 5.1: av_stream_get_side_data).
void read_stream_metadata(const AVStream& stream, Hdr10Metadata& m);
// Adds what a decoded frame carries, where the stream had none of that kind.
void read_frame_metadata(const AVFrame& frame, Hdr10Metadata& m);

// HDR10+ on a frame: the scene's peak in cd/m^2, the largest of the first window's maxscl
// (ST 2094-40: linearised R, G, B maxima, FFmpeg's rationals in units of 10000 cd/m^2). Absent
// when the frame has no HDR10+ side data or it gives no maxscl.
std::optional<double> hdr10plus_scene_peak(const AVFrame& frame);

}  // namespace tonekit::video
