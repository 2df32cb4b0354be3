// Image sequences out (PNG, JPEG, EXR by the pattern's extension): each frame through the io
// writers, which write a temporary and rename it, so every file on disk is whole.
#include <cstring>

#include "stream/frame_io.hpp"
#include "stream/sequence_pattern.hpp"

namespace tonekit::stream {
namespace {

class SequenceSink final : public FrameSink {
 public:
  SequenceSink(const SinkOptions& o, SequencePattern pattern) : o_(o), pattern_(std::move(pattern)) {}
  Status write(Frame& frame) override {
    const std::string path = pattern_.path(o_.first_number + frame.index);
    if (o_.image_kind == io::OutputKind::exr) {  // linear display values, as half
      if (linear_.width != o_.width || linear_.height != o_.height) linear_ = Image(o_.width, o_.height, 3);
      std::memcpy(linear_.pixels.data(), frame.bytes.data(), linear_.pixels.size() * sizeof(float));
      return io::write_exr(path, linear_, true);
    }
    OutputImage image;
    image.width = o_.width;
    image.height = o_.height;
    image.channels = 3;
    image.type = PixelType::u8;
    image.bytes.swap(frame.bytes);  // no copy: the buffer goes back to the frame below
    Status s = o_.image_kind == io::OutputKind::jpeg ? io::write_jpeg(path, image, o_.jpeg_quality) : io::write_png(path, image);
    image.bytes.swap(frame.bytes);
    return s;
  }
  Status finish() override { return {}; }

 private:
  SinkOptions o_;
  SequencePattern pattern_;
  Image linear_;
};

}  // namespace

std::unique_ptr<FrameSink> make_sequence_sink(const SinkOptions& options) {
  // The pattern was checked when the options were built (cmd_stream.cpp).
  return std::make_unique<SequenceSink>(options, *parse_sequence_pattern(options.path));
}

}  // namespace tonekit::stream
