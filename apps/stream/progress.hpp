// "frames, fps, elapsed, remaining" on one stderr line, redrawn at most 5 times a second, and
// only when stderr is a terminal (a log file or a pipe gets nothing). `tonekit stream` counts
// the time left in frames; `tonekit video` in media seconds against the container's duration,
// which holds when the frame count is only an estimate.
#pragma once
#include <unistd.h>

#include <chrono>
#include <cstdio>

namespace tonekit::stream {

class StreamProgress {
 public:
  using Clock = std::chrono::steady_clock;
  // total: frames expected (<= 0 unknown); duration: media seconds (<= 0 unknown); enabled
  // false: never draws (--quiet).
  explicit StreamProgress(long long total, double duration = 0.0, bool enabled = true)
      : total_(total), duration_(duration), enabled_(enabled && isatty(STDERR_FILENO) == 1), start_(Clock::now()) {}
  // `media_seconds`: how far into the duration the frame lies (< 0: not known).
  void frame_done(long long done, double media_seconds = -1.0) {
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
    if (duration_ > 0 && media_seconds > 0 && media_seconds < duration_ && elapsed > 0)
      std::snprintf(line + n, sizeof line - n, "  %.1f s left", (duration_ - media_seconds) * elapsed / media_seconds);
    else if (total_ > 0 && fps > 0 && done <= total_)
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
  double duration_;
  bool enabled_;
  bool drawn_ = false;
  Clock::time_point start_, last_;
};

}  // namespace tonekit::stream
