#include "video/hdr_metadata.hpp"

extern "C" {
#include <libavutil/hdr_dynamic_metadata.h>
#include <libavutil/mastering_display_metadata.h>
}

#include <algorithm>
#include <cstdio>

namespace tonekit::video {
namespace {

MasteringDisplay from_av(const AVMasteringDisplayMetadata& a) {
  MasteringDisplay m;
  m.has_primaries = a.has_primaries != 0;
  m.has_luminance = a.has_luminance != 0;
  for (int c = 0; c < 2; ++c) {
    m.red[c] = av_q2d(a.display_primaries[0][c]);
    m.green[c] = av_q2d(a.display_primaries[1][c]);
    m.blue[c] = av_q2d(a.display_primaries[2][c]);
    m.white[c] = av_q2d(a.white_point[c]);
  }
  m.min_luminance = av_q2d(a.min_luminance);
  m.max_luminance = av_q2d(a.max_luminance);
  return m;
}

}  // namespace

double Hdr10Metadata::static_peak() const {
  if (light && light->max_cll > 0) return light->max_cll;
  if (mastering && mastering->has_luminance && mastering->max_luminance > 0) return mastering->max_luminance;
  return 0.0;
}

std::string Hdr10Metadata::describe_mastering() const {
  if (!mastering) return "none";
  char text[256];
  int n = 0;
  if (mastering->has_primaries)
    n += std::snprintf(text, sizeof text, "R(%.4f,%.4f) G(%.4f,%.4f) B(%.4f,%.4f) W(%.4f,%.4f) ", mastering->red[0],
                       mastering->red[1], mastering->green[0], mastering->green[1], mastering->blue[0],
                       mastering->blue[1], mastering->white[0], mastering->white[1]);
  if (mastering->has_luminance)
    n += std::snprintf(text + n, sizeof text - n, "%.4f-%g cd/m^2 ", mastering->min_luminance, mastering->max_luminance);
  std::snprintf(text + n, sizeof text - n, "(%s)", mastering_origin.c_str());
  return text;
}

std::string Hdr10Metadata::describe_light() const {
  if (!light) return "none";
  char text[128];
  std::snprintf(text, sizeof text, "MaxCLL %u cd/m^2, MaxFALL %u cd/m^2 (%s)", light->max_cll, light->max_fall,
                light_origin.c_str());
  return text;
}

void read_stream_metadata(const AVStream& stream, Hdr10Metadata& m) {
  auto* st = const_cast<AVStream*>(&stream);  // FFmpeg 5.1's getter takes a non-const stream
  std::size_t size = 0;
  if (const std::uint8_t* p = av_stream_get_side_data(st, AV_PKT_DATA_MASTERING_DISPLAY_METADATA, &size);
      p && size >= sizeof(AVMasteringDisplayMetadata)) {
    m.mastering = from_av(*reinterpret_cast<const AVMasteringDisplayMetadata*>(p));
    m.mastering_origin = "stream";
  }
  if (const std::uint8_t* p = av_stream_get_side_data(st, AV_PKT_DATA_CONTENT_LIGHT_LEVEL, &size);
      p && size >= sizeof(AVContentLightMetadata)) {
    const auto* cll = reinterpret_cast<const AVContentLightMetadata*>(p);
    m.light = ContentLight{cll->MaxCLL, cll->MaxFALL};
    m.light_origin = "stream";
  }
}

void read_frame_metadata(const AVFrame& frame, Hdr10Metadata& m) {
  auto* f = const_cast<AVFrame*>(&frame);
  if (!m.mastering)
    if (const AVFrameSideData* sd = av_frame_get_side_data(f, AV_FRAME_DATA_MASTERING_DISPLAY_METADATA)) {
      m.mastering = from_av(*reinterpret_cast<const AVMasteringDisplayMetadata*>(sd->data));
      m.mastering_origin = "frame";
    }
  if (!m.light)
    if (const AVFrameSideData* sd = av_frame_get_side_data(f, AV_FRAME_DATA_CONTENT_LIGHT_LEVEL)) {
      const auto* cll = reinterpret_cast<const AVContentLightMetadata*>(sd->data);
      m.light = ContentLight{cll->MaxCLL, cll->MaxFALL};
      m.light_origin = "frame";
    }
}

std::optional<double> hdr10plus_scene_peak(const AVFrame& frame) {
  const AVFrameSideData* sd = av_frame_get_side_data(const_cast<AVFrame*>(&frame), AV_FRAME_DATA_DYNAMIC_HDR_PLUS);
  if (!sd) return std::nullopt;
  const auto* hdr = reinterpret_cast<const AVDynamicHDRPlus*>(sd->data);
  if (hdr->num_windows < 1) return std::nullopt;
  double peak = 0.0;
  for (const AVRational& c : hdr->params[0].maxscl)
    if (c.den != 0) peak = std::max(peak, av_q2d(c) * 10000.0);
  if (!(peak > 0.0)) return std::nullopt;
  return peak;
}

}  // namespace tonekit::video
