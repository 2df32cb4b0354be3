// What the video pieces share about FFmpeg's libraries: owning pointers for their objects (each
// freed by its own av*_free), their error codes as tonekit Statuses, and the log hook that turns
// the decoder's error messages into tonekit's one-line warnings.
#pragma once
extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/frame.h>
#include <libswscale/swscale.h>
}

#include <memory>
#include <string>

#include "tonekit/status.hpp"

namespace tonekit::video {

struct FormatInputCloser {
  void operator()(AVFormatContext* c) const { avformat_close_input(&c); }
};
struct CodecContextFreer {
  void operator()(AVCodecContext* c) const { avcodec_free_context(&c); }
};
struct FrameFreer {
  void operator()(AVFrame* f) const { av_frame_free(&f); }
};
struct PacketFreer {
  void operator()(AVPacket* p) const { av_packet_free(&p); }
};
struct SwsFreer {
  void operator()(SwsContext* s) const { sws_freeContext(s); }
};
using InputPtr = std::unique_ptr<AVFormatContext, FormatInputCloser>;
using CodecPtr = std::unique_ptr<AVCodecContext, CodecContextFreer>;
using FramePtr = std::unique_ptr<AVFrame, FrameFreer>;
using PacketPtr = std::unique_ptr<AVPacket, PacketFreer>;
using SwsPtr = std::unique_ptr<SwsContext, SwsFreer>;

// av_strerror's text for an AVERROR code.
std::string av_error_text(int code);
// "WHAT: FFmpeg's text" with the given code.
Status av_status(StatusCode code, const std::string& what, int av_code);

// FFmpeg's own log goes quiet except for errors, which are kept (the last one) so that the
// caller can report a corrupt packet on one line of its own; take_decoder_error() returns and
// clears it. Call install_log_hook() once before opening anything.
void install_log_hook();
std::string take_decoder_error();
// A demuxer's warning that the file ends inside a packet (a truncated file), or "".
std::string take_demuxer_end_note();

}  // namespace tonekit::video
