// Image sequences (shot.%04d.exr; EXR, Radiance HDR, PFM through the io readers). The frame
// range is fixed when the stream opens (scan_sequence: a gap is an error before anything is
// written); the first image sets the size and channels every later one must have. Frames are
// decoded ahead on worker threads (one decode uses OpenEXR's pool only partly: a 4K EXR sequence
// streamed at 18-22 fps with one decoder on the H100 host, decode-bound on either backend), at
// most kAhead frames beyond the one the stream asks for, and handed over strictly in order; a
// frame that fails to read is reported in its place, after every earlier frame. Callers that
// seek (the studio) get the frame they ask for; decoding ahead restarts there.
#include <algorithm>
#include <condition_variable>
#include <map>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

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
    next_decode_ = 1;  // frame 0 is `first`
    const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    const int workers = std::clamp(cores / 4, 1, kAhead);
    for (int i = 0; i < workers; ++i) workers_.emplace_back([this] { decode_loop(); });
  }
  ~SequenceSource() override {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    changed_.notify_all();
    for (std::thread& t : workers_) t.join();
  }

  Result<bool> next(Frame& frame) override {
    if (frame.index >= range_.count) return false;
    if (frame.index == 0 && first_.width > 0) {
      std::swap(frame.image, first_);
      first_ = Image();
      return true;
    }
    const long long index = frame.index;
    std::unique_lock lock(mutex_);
    wanted_ = index;
    // Callers may seek (the studio's frame scrubber): decoded frames outside the new window go,
    // and decoding restarts at the frame asked for unless it is done, being decoded or next.
    std::erase_if(done_, [&](const auto& entry) { return entry.first < index || entry.first > index + kAhead; });
    while (!done_.count(index)) {
      if (!decoding_.count(index) && (index < next_decode_ || index > next_decode_ + kAhead)) {
        wanted_ = index;
        next_decode_ = index;
      }
      changed_.notify_all();
      changed_.wait(lock);
    }
    Result<Image> image = std::move(done_.at(index));
    done_.erase(index);
    changed_.notify_all();  // a worker may decode one more ahead
    lock.unlock();
    if (!image.ok()) return image.status();
    frame.image = std::move(*image);
    return true;
  }

 private:
  static constexpr int kAhead = 4;

  void decode_loop() {
    for (;;) {
      long long index;
      {
        std::unique_lock lock(mutex_);
        changed_.wait(lock, [&] { return stopping_ || next_decode_ >= range_.count || next_decode_ <= wanted_ + kAhead; });
        if (stopping_) return;
        if (next_decode_ >= range_.count) {
          // Nothing left ahead; a seek may set next_decode_ back, so wait rather than end.
          changed_.wait(lock, [&] { return stopping_ || next_decode_ < range_.count; });
          continue;
        }
        index = next_decode_++;
        decoding_.insert(index);
      }
      Result<Image> image = read(index);
      {
        std::lock_guard lock(mutex_);
        decoding_.erase(index);
        if (index >= wanted_ && index <= wanted_ + kAhead) done_.insert_or_assign(index, std::move(image));
      }
      changed_.notify_all();
    }
  }

  Result<Image> read(long long index) const {
    const std::string path = pattern_.path(range_.first + index);
    auto image = io::read_image(path);
    if (!image.ok()) return image.status();
    if (image->width != info_.width || image->height != info_.height || image->channels != first_channels())
      return bad_input(path + ": " + std::to_string(image->width) + "x" + std::to_string(image->height) + " with " +
                       std::to_string(image->channels) + " channels, but the sequence's first frame is " +
                       std::to_string(info_.width) + "x" + std::to_string(info_.height) + " with " +
                       std::to_string(first_channels()) + " (every frame must match)");
    return image;
  }

  int first_channels() const { return info_.format == InputFormat::rgba_f32 ? 4 : 3; }
  SequencePattern pattern_;
  SequenceRange range_;
  Image first_;
  std::mutex mutex_;
  std::condition_variable changed_;
  long long next_decode_ = 1;   // the next frame a worker takes
  long long wanted_ = 0;        // the frame the stream waits for (workers stay within kAhead of it)
  std::map<long long, Result<Image>> done_;
  std::set<long long> decoding_;  // claimed by a worker, not yet in done_
  bool stopping_ = false;
  std::vector<std::thread> workers_;
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
