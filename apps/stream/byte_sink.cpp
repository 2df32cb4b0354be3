// Raw frames and y4m to stdout or a file: each frame goes out in write(2) calls as soon as it
// is mapped, so whatever came before a failure has reached the next process or the file.
#include "stream/frame_io.hpp"

namespace tonekit::stream {
namespace {

class ByteSink final : public FrameSink {
 public:
  explicit ByteSink(const SinkOptions& o) : o_(o) { out_.set_target(o.path); }
  Status write(Frame& frame) override {
    if (o_.kind == OutputKind::y4m) {
      if (!header_written_)
        if (Status s = write_header(); !s.ok()) return s;
      static constexpr char kFrame[] = "FRAME\n";
      if (Status s = out_.write(kFrame, sizeof kFrame - 1); !s.ok()) return s;
    }
    return out_.write(frame.bytes.data(), frame.bytes.size());
  }
  Status finish() override {
    if (o_.kind == OutputKind::y4m && !header_written_)
      if (Status s = write_header(); !s.ok()) return s;
    return out_.close();
  }
  bool downstream_closed() const override { return out_.downstream_closed(); }

 private:
  Status write_header() {
    header_written_ = true;
    const std::string header = format_y4m_header(o_.width, o_.height, o_.fps, 8, YuvRange::limited);
    return out_.write(header.data(), header.size());
  }
  SinkOptions o_;
  OutputStream out_;
  bool header_written_ = false;
};

}  // namespace

Result<OutputKind> parse_output_kind(std::string_view name) {
  if (name == "yuv420p") return OutputKind::yuv420p;
  if (name == "nv12") return OutputKind::nv12;
  if (name == "rgb24") return OutputKind::rgb24;
  if (name == "rgba") return OutputKind::rgba;
  if (name == "y4m") return OutputKind::y4m;
  return invalid_argument("unknown --output-format '" + std::string(name) + "' (known: yuv420p, nv12, rgb24, rgba, y4m)");
}

const char* output_kind_label(OutputKind kind) {
  switch (kind) {
    case OutputKind::yuv420p: return "yuv420p";
    case OutputKind::nv12: return "nv12";
    case OutputKind::rgb24: return "rgb24";
    case OutputKind::rgba: return "rgba";
    case OutputKind::y4m: return "y4m";
    case OutputKind::sequence: return "sequence";
  }
  return "?";
}

std::unique_ptr<FrameSink> make_sink(const SinkOptions& options) {
  if (options.kind == OutputKind::sequence) return make_sequence_sink(options);
  return std::make_unique<ByteSink>(options);
}

}  // namespace tonekit::stream
