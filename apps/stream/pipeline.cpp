#include "stream/pipeline.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <mutex>
#include <thread>

#include "page_backing.hpp"
#include "stream/bounded_queue.hpp"
#include "stream/progress.hpp"

namespace tonekit::stream {
namespace {

using Clock = std::chrono::steady_clock;

using FrameQueue = BoundedQueue<Frame>;

// Every page of `bytes` backed by memory now, so that later writes into it do not fault (a
// write to each page where the kernel cannot back them at once). The CLI's operator new
// (apps/huge_pages.cpp) already backs blocks of 16 MiB and more, so this is for smaller frames
// (1080p P010 is 6 MB) and for programs without that allocator.
void fault_in(ByteBuffer& bytes) {
  if (bytes.empty()) return;
  volatile std::uint8_t* p = bytes.data();
  if (!cli::back_whole_pages(bytes.data(), bytes.size()))
    for (std::size_t i = 0; i < bytes.size(); i += static_cast<std::size_t>(::sysconf(_SC_PAGESIZE))) p[i] = 0;
  p[0] = 0;  // the partial pages at either end
  p[bytes.size() - 1] = 0;
}

// Makes the input side's frames on a thread of its own while the mapper starts, each with its
// pages already backed, a few ahead of the reader: the kernel's clearing of fresh pages then
// runs beside the reader instead of inside its read(). Measured on the H200 host, 4K P010
// through a pipe: 14 ms a frame into fresh pages, 11.5 ms into used ones, and 11.5 ms into
// pages backed by another thread.
class FrameMaker {
 public:
  // `ahead`: how many frames it keeps ready beyond those the reader took.
  FrameMaker(std::size_t bytes, int ahead) : bytes_(bytes), ahead_(ahead) {}
  ~FrameMaker() {
    stop();
    if (thread_.joinable()) thread_.join();
  }
  // Makes frames into `free_in` until `limit()` frames exist (limit is read again before each).
  template <class Limit>
  void start(FrameQueue& free_in, Limit limit, std::atomic<int>& extra_frames, int base_frames) {
    thread_ = std::thread([this, &free_in, limit, &extra_frames, base_frames] {
      for (int made = 0;; ++made) {
        {
          std::unique_lock lock(mutex_);
          wake_.wait(lock, [&] { return stopped_ || made < taken_ + ahead_; });
          if (stopped_) return;
        }
        if (made >= limit()) return;
        Frame frame;
        frame.bytes.resize(bytes_);
        fault_in(frame.bytes);
        if (made >= base_frames) ++extra_frames;
        if (!free_in.push(std::move(frame))) return;
      }
    });
  }
  // The reader took a frame from the queue: one more may be made.
  void took_one() {
    std::lock_guard lock(mutex_);
    ++taken_;
    wake_.notify_one();
  }
  // No more frames (from any thread; the thread ends before the maker is destroyed).
  void stop() {
    std::lock_guard lock(mutex_);
    stopped_ = true;
    wake_.notify_one();
  }

 private:
  std::size_t bytes_;
  int ahead_;
  std::mutex mutex_;
  std::condition_variable wake_;
  int taken_ = 0;
  bool stopped_ = false;
  std::thread thread_;
};

}  // namespace

StreamOutcome run_stream(FrameSource& source, FrameMapper& mapper, FrameSink& sink, Cancel& cancel, long long max_frames) {
  StreamOutcome outcome;
  const auto t0 = Clock::now();
  // A fixed pool of frames per side: kDepth for the reader (or writer) and its queue, plus what
  // the mapper holds in flight. While the mapper starts (CUDA's driver and context: ~0.4 s) the
  // reader may add up to kReadAheadBytes of frames, so that the start-up overlaps the input's
  // arrival instead of stalling it; those extra frames are freed as they come back (once the
  // reader has a frame waiting).
  const int base_frames = (mapper.slow_start() ? kDepth : kCpuDepth) + mapper.frames_in_flight();
  const SourceInfo& info = source.info();
  const std::size_t frame_size = std::max<std::size_t>(1, frame_bytes(info.format, info.width, info.height));
  const int read_ahead =
      mapper.slow_start() ? static_cast<int>(std::min<std::size_t>(kMaxReadAheadFrames, kReadAheadBytes / frame_size)) : 0;
  const std::size_t in_capacity = static_cast<std::size_t>(base_frames + read_ahead);
  FrameQueue free_in(in_capacity), full_in(in_capacity), free_out(base_frames), full_out(base_frames);
  std::atomic<bool> mapper_started{false};
  std::atomic<int> input_frames{base_frames};  // alive on the input side (at most, with the maker)
  // Sources that fill Frame::bytes get their input frames from the maker while CUDA starts (the
  // base pool, then the read-ahead); after the start it makes only what the base pool lacks.
  const std::size_t made_bytes = mapper.slow_start() && read_ahead > 0 ? source.buffer_bytes() : 0;
  FrameMaker maker(made_bytes, kDepth);
  if (made_bytes > 0)
    maker.start(free_in, [&] { return mapper_started.load() ? base_frames : base_frames + read_ahead; }, input_frames,
                base_frames);
  for (int i = 0; i < base_frames; ++i) {
    if (made_bytes == 0) free_in.push(Frame{});
    free_out.push(Frame{});
  }
  long long total = info.frame_count;
  if (max_frames >= 0 && (total < 0 || total > max_frames)) total = max_frames;
  StreamProgress progress(total);

  auto stop_everything = [&] {
    maker.stop();
    cancel.cancel();
    free_in.abort();
    full_in.abort();
    free_out.abort();
    full_out.abort();
  };

  std::thread reader([&] {
    int extra = 0;
    for (long long index = 0; max_frames < 0 || index < max_frames; ++index) {
      std::optional<Frame> frame;
      if (made_bytes > 0) {
        frame = free_in.pop();
        if (!frame) return;  // aborted
        maker.took_one();
      } else {
        frame = free_in.try_pop();
      }
      if (!frame) {
        if (!mapper_started.load() && extra < read_ahead) {
          frame.emplace();
          ++extra;
          ++input_frames;
        } else {
          frame = free_in.pop();
          if (!frame) return;  // aborted
        }
      }
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
    maker.stop();
  });

  // The mapper (this thread): frames are submitted in order and completed in order; up to
  // frames_in_flight() are pending at once, and a pending frame is completed as soon as it is
  // ready or when no new input is waiting, so a slow source never holds finished frames back.
  std::deque<std::pair<Frame, Frame>> pending;
  auto fail = [&](const Status& s, long long index) {
    outcome.mapper_status = Status{s.code(), "frame " + std::to_string(index) + ": " + s.message()};
  };
  // A read-ahead frame coming back is freed, unless the reader has no frame waiting: then it
  // goes round again, so that the reader keeps pace with the input while the mapper works
  // through what was read ahead (measured: 0.17 s of stalled pipe after the start otherwise).
  auto recycle_input = [&](Frame&& in) {
    if (input_frames.load() > base_frames && free_in.size() > 0) {
      --input_frames;
      mapper.release(in);
      return;
    }
    free_in.push(std::move(in));
  };
  auto complete_oldest = [&]() -> bool {
    Status s = mapper.complete_oldest();
    auto [in, out] = std::move(pending.front());
    pending.pop_front();
    if (!s.ok()) {
      fail(s, in.index);
      return false;
    }
    if (!full_out.push(std::move(out))) return false;
    recycle_input(std::move(in));
    return true;
  };
  // The backend starts while the reader reads ahead. A start that fails ends the run before
  // the writer exists: no output at all (not even a y4m header).
  const auto start_begin = Clock::now();
  Status started = mapper.start();
  outcome.start_seconds = std::chrono::duration<double>(Clock::now() - start_begin).count();
  if (Status s = started; !s.ok()) {
    outcome.mapper_status = s;
    stop_everything();
    reader.join();
    outcome.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    return outcome;
  }
  mapper_started.store(true);
  outcome.read_ahead_frames = input_frames.load() - base_frames;
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

  bool running = true;
  while (running) {
    std::optional<Frame> in;
    if (!pending.empty()) {
      in = full_in.try_pop();
      if (!in) {
        running = complete_oldest();
        continue;
      }
    } else {
      in = full_in.pop();
      if (!in) break;
    }
    std::optional<Frame> out = free_out.pop();
    if (!out) break;
    out->index = in->index;
    if (Status s = mapper.submit(*in, *out); !s.ok()) {
      fail(s, in->index);
      break;
    }
    pending.emplace_back(std::move(*in), std::move(*out));  // moving keeps the buffers in place
    while (running && !pending.empty() &&
           (static_cast<int>(pending.size()) >= mapper.frames_in_flight() || mapper.oldest_ready()))
      running = complete_oldest();
  }
  while (outcome.mapper_status.ok() && !pending.empty() && complete_oldest()) {
  }
  // After a failure, whatever is still on the device finishes before its buffers go.
  while (mapper.pending() > 0) static_cast<void>(mapper.complete_oldest());
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
  mapper.release_buffers();  // the frames are freed when this function returns
  outcome.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  return outcome;
}

}  // namespace tonekit::stream
