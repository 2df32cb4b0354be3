// The output file: libavcodec's encoder for the tone-mapped video, every audio and subtitle
// stream and the chapters copied from the input, muxed by libavformat into the container the
// output's name (or --format) picks. Written to PATH.tmp-XXXXXX beside the target and renamed by
// finish(), so a run that fails before finish() leaves nothing (a device such as /dev/null is
// written directly).
#pragma once
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "tonekit/status.hpp"
#include "tonekit/video.hpp"
#include "video/av_util.hpp"

namespace tonekit::video {

struct EncoderSettings {
  std::string codec = "libx264";
  int crf = -1;              // < 0: the encoder's default
  std::string preset;        // "": the encoder's default
  std::vector<std::pair<std::string, std::string>> options;  // --encoder-opt, into the AVDictionary
  YuvRange range = YuvRange::limited;
  AVColorTransferCharacteristic transfer = AVCOL_TRC_BT709;
  std::string container;     // --format: a muxer name; "": from the output's name
};

class VideoOutput {
 public:
  // Opens the encoder (falling back to libx264, with one stderr line, when the asked encoder is
  // absent or cannot open, e.g. NVENC without an NVIDIA encoder), maps the input's other streams
  // and chapters, creates the temporary file and writes the header. `frames_from` is the input's
  // video stream: its time base, frame rate and aspect are kept.
  static Result<std::unique_ptr<VideoOutput>> open(const std::string& path, const AVFormatContext& input,
                                                   const AVStream& frames_from, AVRational frame_rate, int width,
                                                   int height, const EncoderSettings& settings);
  ~VideoOutput();

  // The input stream `packet` belongs to is copied (its timestamps rescaled), or skipped when the
  // container cannot hold it (said once when opening).
  Status copy_packet(AVPacket& packet);
  // One 8-bit yuv420p frame (packed planes, as FrameMapper writes them) at `pts` in the input
  // video stream's time base.
  Status write_frame(const std::uint8_t* yuv420p, long long pts);
  // Flushes the encoder, writes the trailer, closes and renames the file into place.
  Status finish();
  const char* encoder_name() const;
  long long frames_written() const { return frames_; }

 private:
  VideoOutput() = default;
  Status drain_encoder(bool flush);
  void abandon();
  std::string path_, temp_path_;
  bool direct_ = false;  // writing to a device (no temporary file)
  AVFormatContext* out_ = nullptr;
  CodecPtr encoder_;
  FramePtr frame_;
  PacketPtr packet_;
  AVStream* video_out_ = nullptr;
  std::vector<int> stream_map_;  // input stream index -> output stream index, -1: not copied
  std::vector<AVRational> input_time_bases_;  // packets come in their input stream's time base
  long long frames_ = 0;
  long long last_pts_ = AV_NOPTS_VALUE;
  bool finished_ = false;
};

}  // namespace tonekit::video
