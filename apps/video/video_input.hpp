// The input file: libavformat's demuxer and libavcodec's decoder for its best video stream.
// Frames come out in presentation order; every packet of another stream is handed to the
// caller (stream copy). Corrupt data costs one warning line and decoding goes on; a read error
// before the end (a truncated file) ends the frames and is remembered for the caller's exit code.
#pragma once
#include <functional>
#include <memory>
#include <string>

#include "tonekit/status.hpp"
#include "video/av_util.hpp"

namespace tonekit::video {

class VideoInput {
 public:
  // Opens and probes the file: one clear input error (exit 1) for a file FFmpeg cannot read, one
  // without a video stream, or a codec it cannot decode. `nvdec`: decode through FFmpeg's CUDA
  // hwaccel where the codec has one and a CUDA device opens (frames then come as AV_PIX_FMT_CUDA);
  // otherwise software decoding, with the reason in `nvdec_note`.
  static Result<std::unique_ptr<VideoInput>> open(const std::string& path, bool nvdec = false,
                                                  std::string* nvdec_note = nullptr);
  // True when frames come from NVDEC (on the device).
  bool hardware() const { return hardware_; }

  AVFormatContext& format() const { return *format_; }
  AVStream& stream() const { return *format_->streams[video_index_]; }
  int video_index() const { return video_index_; }
  const AVCodecContext& decoder() const { return *decoder_; }
  // The frame rate FFmpeg guesses for the stream (0/1 when unknown).
  AVRational frame_rate() const;
  // Frames the container announces (0 when it does not).
  long long frame_count_hint() const;
  // Seconds the container lasts (0 when unknown).
  double duration_seconds() const;

  // The next decoded frame (owned by the input, valid until the next call), or nullptr at the
  // end. `other` receives every packet of another stream (it may keep a reference).
  Result<AVFrame*> next_frame(const std::function<Status(AVPacket&)>& other);

  // Why reading stopped before the end of the file ("" after a clean end).
  const std::string& read_error() const { return read_error_; }
  long long corrupt_packets() const { return corrupt_; }

 private:
  void note_corruption(const AVPacket* packet, const std::string& cause);
  std::string path_;
  InputPtr format_;
  CodecPtr decoder_;
  int video_index_ = -1;
  PacketPtr packet_;
  FramePtr frame_;
  bool draining_ = false;
  bool hardware_ = false;
  std::string read_error_;
  std::string probe_note_;  // a truncation probing already ran into
  long long corrupt_ = 0;  // errors seen
  long long warned_ = 0;   // lines printed
  long long packets_since_warning_ = 1 << 30;
  long long last_pts_ = AV_NOPTS_VALUE;
};

}  // namespace tonekit::video
