// What flows through `tonekit stream`: frames, where they come from (raw frames, y4m, image
// sequences) and where they go (raw frames, y4m, image sequences). Sources and sinks run on
// their own threads (pipeline.hpp); each sees frames strictly in order.
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "stream/fd_io.hpp"
#include "stream/y4m.hpp"
#include "tonekit/image.hpp"
#include "tonekit/io.hpp"
#include "tonekit/status.hpp"
#include "tonekit/video.hpp"

namespace tonekit::stream {

struct Frame {
  long long index = 0;               // 0-based position in the stream
  ByteBuffer bytes;                  // raw layouts: a packed frame (input format or output layout)
  Image image;                       // image sequences: the decoded float image (rgb_f32/rgba_f32)
  // An input frame read without a copy (SourceOptions::zero_copy): its packed bytes in the
  // source's mapping of the file, valid while the source lives; `bytes` is then unused.
  const std::uint8_t* view = nullptr;
  const std::uint8_t* data() const { return view ? view : bytes.data(); }
};

struct SourceInfo {
  std::string kind;                  // "raw", "y4m" or "sequence"
  int width = 0, height = 0;
  InputFormat format = InputFormat::rgb_f32;
  std::optional<Rational> fps;       // from a y4m header
  std::optional<YuvRange> range;     // from a y4m XCOLORRANGE tag
  long long frame_count = -1;        // when known (regular files, sequences), else -1
  long long first_number = 0;        // sequences: the number of the first frame
};

class FrameSource {
 public:
  virtual ~FrameSource() = default;
  const SourceInfo& info() const { return info_; }
  // The next frame into `frame` (buffers reused). ok + false at the clean end of the input; a
  // partial frame or a corrupt frame header is an error.
  virtual Result<bool> next(Frame& frame) = 0;
  // Bytes next() writes into Frame::bytes: the stream prepares buffers of this size ahead of
  // the reader. 0 when frames come another way (decoded images, views into a mapped file).
  virtual std::size_t buffer_bytes() const { return 0; }

 protected:
  SourceInfo info_;
};

struct SourceOptions {
  std::string path;                               // "-", a file, or a sequence pattern
  std::optional<InputFormat> format;              // raw frames
  std::optional<std::pair<int, int>> size;        // raw frames
  std::optional<long long> start;                 // sequences
  // Raw frames and 10-bit y4m from a regular file: frames point into a mapping of the file
  // instead of being copied (Frame::view). For the CPU backend, which reads each frame once and
  // in place; measured on the 2-core machine: the read's copy was 19 % of a 4K stream's CPU.
  bool zero_copy = false;
};
// Opens the input and reads what describes it (a y4m header, the first image of a sequence):
// every error in the header comes back here, before any output exists.
Result<std::unique_ptr<FrameSource>> open_source(const SourceOptions& options, const Cancel* cancel);
// The image sequence reader (sequence_source.cpp), which open_source picks for a %d pattern.
Result<std::unique_ptr<FrameSource>> open_sequence_source(const std::string& pattern, std::optional<long long> start);

// Output kinds: raw planes (yuv420p, nv12), raw interleaved 8-bit (rgb24, rgba), y4m
// (yuv420p with a header), or an image sequence (PNG, JPEG, EXR by the pattern's extension).
enum class OutputKind { yuv420p, nv12, rgb24, rgba, y4m, sequence };
Result<OutputKind> parse_output_kind(std::string_view name);
const char* output_kind_label(OutputKind kind);

struct SinkOptions {
  std::string path;  // "-", a file, or a sequence pattern
  OutputKind kind = OutputKind::yuv420p;
  int width = 0, height = 0;
  Rational fps;
  long long first_number = 1;   // sequences: the number of the first frame written
  io::OutputKind image_kind = io::OutputKind::png;
  int jpeg_quality = 92;
};

class FrameSink {
 public:
  virtual ~FrameSink() = default;
  virtual Status write(Frame& frame) = 0;
  // After the last frame: flushes and closes (a y4m file of zero frames still gets its header).
  virtual Status finish() = 0;
  // True when the reader downstream closed the pipe (not an error of ours).
  virtual bool downstream_closed() const { return false; }
};
std::unique_ptr<FrameSink> make_sink(const SinkOptions& options);
// The image sequence writer (sequence_sink.cpp), which make_sink picks for OutputKind::sequence.
std::unique_ptr<FrameSink> make_sequence_sink(const SinkOptions& options);

}  // namespace tonekit::stream
