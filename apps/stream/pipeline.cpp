#include "stream/pipeline.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <thread>

#include "stream/bounded_queue.hpp"

namespace tonekit::stream {
namespace {

using Clock = std::chrono::steady_clock;

// "frames, fps, elapsed, remaining" on one stderr line, redrawn at most 5 times a second, and
// only when stderr is a terminal (a log file or a pipe gets nothing).
class StreamProgress {
 public:
  explicit StreamProgress(long long total) : total_(total), enabled_(isatty(STDERR_FILENO) == 1), start_(Clock::now()) {}
  void frame_done(long long done) {
    if (!enabled_) return;
    const auto now = Clock::now();
    if (drawn_ && now - last_ < std::chrono::milliseconds(200)) return;
    last_ = now;
    const double elapsed = std::chrono::duration<double>(now - start_).count();
    const double fps = elapsed > 0 ? static_cast<double>(done) / elapsed : 0.0;
    char line[160];
    int n = std::snprintf(line, sizeof line, "\r\033[Kframe %lld", done);
    if (total_ > 0) n += std::snprintf(line + n, sizeof line - n, "/%lld", total_);
    n += std::snprintf(line + n, sizeof line - n, "  %.1f fps  %.1f s", fps, elapsed);
    if (total_ > 0 && fps > 0 && done <= total_)
      std::snprintf(line + n, sizeof line - n, "  %.1f s left", static_cast<double>(total_ - done) / fps);
    std::fputs(line, stderr);
    std::fflush(stderr);
    drawn_ = true;
  }
  ~StreamProgress() {
    if (drawn_) std::fputs("\r\033[K", stderr);
  }

 private:
  long long total_;
  bool enabled_;
  bool drawn_ = false;
  Clock::time_point start_, last_;
};

using FrameQueue = BoundedQueue<Frame>;

}  // namespace

StreamOutcome run_stream(FrameSource& source, FrameMapper& mapper, FrameSink& sink, Cancel& cancel, long long max_frames) {
  StreamOutcome outcome;
  const auto t0 = Clock::now();
  // Free buffers circulate back to the stage that fills them; each queue can hold every buffer
  // of its side, so returning one never blocks.
  FrameQueue free_in(kDepth), full_in(kDepth), free_out(kDepth), full_out(kDepth);
  for (int i = 0; i < kDepth; ++i) {
    free_in.push(Frame{});
    free_out.push(Frame{});
  }
  long long total = source.info().frame_count;
  if (max_frames >= 0 && (total < 0 || total > max_frames)) total = max_frames;
  StreamProgress progress(total);

  auto stop_everything = [&] {
    cancel.cancel();
    free_in.abort();
    full_in.abort();
    free_out.abort();
    full_out.abort();
  };

  std::thread reader([&] {
    for (long long index = 0; max_frames < 0 || index < max_frames; ++index) {
      std::optional<Frame> frame = free_in.pop();
      if (!frame) return;  // aborted
      frame->index = index;
      Result<bool> more = source.next(*frame);
      if (!more.ok()) {
        outcome.reader_status = more.status();
        break;
      }
      if (!*more) break;
      if (!full_in.push(std::move(*frame))) return;
      outcome.frames_read = index + 1;
    }
    full_in.close();
  });

  std::thread writer([&] {
    long long expected = 0;
    while (std::optional<Frame> frame = full_out.pop()) {
      // One reader, one mapper, one writer: order is structural; this guards it anyway.
      if (frame->index != expected) {
        outcome.writer_status = Status{StatusCode::runtime_error, "internal error: frame " + std::to_string(frame->index) +
                                                                     " arrived where " + std::to_string(expected) + " was due"};
        stop_everything();
        return;
      }
      if (Status s = sink.write(*frame); !s.ok()) {
        if (sink.downstream_closed()) outcome.downstream_closed = true;
        else outcome.writer_status = s;
        stop_everything();
        return;
      }
      outcome.frames_written = ++expected;
      progress.frame_done(expected);
      free_out.push(std::move(*frame));
    }
    if (Status s = sink.finish(); !s.ok()) {
      if (sink.downstream_closed()) outcome.downstream_closed = true;
      else outcome.writer_status = s;
    }
  });

  while (std::optional<Frame> in = full_in.pop()) {
    std::optional<Frame> out = free_out.pop();
    if (!out) break;
    out->index = in->index;
    if (Status s = mapper.map(*in, *out); !s.ok()) {
      outcome.mapper_status = Status{s.code(), "frame " + std::to_string(in->index) + ": " + s.message()};
      free_out.push(std::move(*out));
      break;
    }
    if (!full_out.push(std::move(*out))) break;
    free_in.push(std::move(*in));
  }
  if (!outcome.mapper_status.ok()) {
    // Frames mapped before the failure still go out; then the reader is stopped.
    cancel.cancel();
    free_in.abort();
    full_in.abort();
  }
  full_out.close();
  writer.join();
  // A writer that stopped early leaves the reader to be released.
  if (outcome.downstream_closed || !outcome.writer_status.ok()) stop_everything();
  reader.join();
  outcome.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  return outcome;
}

}  // namespace tonekit::stream
