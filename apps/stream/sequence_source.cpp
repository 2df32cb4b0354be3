// Image sequences (shot.%04d.exr; EXR, Radiance HDR, PFM through the io readers). The frame
// range is fixed when the stream opens (scan_sequence: a gap is an error before anything is
// written); the first image sets the size and channels every later one must have.
#include "stream/frame_io.hpp"
#include "stream/sequence_pattern.hpp"

namespace tonekit::stream {
namespace {

class SequenceSource final : public FrameSource {
 public:
  SequenceSource(SequencePattern pattern, SequenceRange range, Image first) : pattern_(std::move(pattern)), range_(range) {
    info_.kind = "sequence";
    info_.width = first.width;
    info_.height = first.height;
    info_.format = first.channels == 4 ? InputFormat::rgba_f32 : InputFormat::rgb_f32;
    info_.frame_count = range.count;
    info_.first_number = range.first;
    first_ = std::move(first);
  }
  Result<bool> next(Frame& frame) override {
    if (frame.index >= range_.count) return false;
    if (frame.index == 0 && first_.width > 0) {
      std::swap(frame.image, first_);
      first_ = Image();
      return true;
    }
    const std::string path = pattern_.path(range_.first + frame.index);
    auto image = io::read_image(path);
    if (!image.ok()) return image.status();
    if (image->width != info_.width || image->height != info_.height || image->channels != first_channels())
      return bad_input(path + ": " + std::to_string(image->width) + "x" + std::to_string(image->height) + " with " +
                       std::to_string(image->channels) + " channels, but the sequence's first frame is " +
                       std::to_string(info_.width) + "x" + std::to_string(info_.height) + " with " +
                       std::to_string(first_channels()) + " (every frame must match)");
    frame.image = std::move(*image);
    return true;
  }

 private:
  int first_channels() const { return info_.format == InputFormat::rgba_f32 ? 4 : 3; }
  SequencePattern pattern_;
  SequenceRange range_;
  Image first_;
};

}  // namespace

Result<std::unique_ptr<FrameSource>> open_sequence_source(const std::string& text, std::optional<long long> start) {
  auto pattern = parse_sequence_pattern(text);
  if (!pattern.ok()) return pattern.status();
  auto range = scan_sequence(*pattern, start);
  if (!range.ok()) return range.status();
  auto first = io::read_image(pattern->path(range->first));
  if (!first.ok()) return first.status();
  return std::unique_ptr<FrameSource>(std::make_unique<SequenceSource>(*pattern, *range, std::move(*first)));
}

}  // namespace tonekit::stream
