#include "stream/pipeline.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <deque>
#include <thread>

#include "stream/bounded_queue.hpp"
#include "stream/progress.hpp"

namespace tonekit::stream {
namespace {

using Clock = std::chrono::steady_clock;

using FrameQueue = BoundedQueue<Frame>;

}  // namespace

StreamOutcome run_stream(FrameSource& source, FrameMapper& mapper, FrameSink& sink, Cancel& cancel, long long max_frames) {
  StreamOutcome outcome;
  const auto t0 = Clock::now();
  // A fixed pool of frames per side: kDepth for the reader (or writer) and its queue, plus what
  // the mapper holds in flight. While the mapper starts (CUDA's driver and context: ~0.4 s) the
  // reader may add up to kReadAheadBytes of frames, so that the start-up overlaps the input's
  // arrival instead of stalling it; those extra frames are freed as they come back.
  const int base_frames = (mapper.slow_start() ? kDepth : kCpuDepth) + mapper.frames_in_flight();
  const SourceInfo& info = source.info();
  const std::size_t frame_size = std::max<std::size_t>(1, frame_bytes(info.format, info.width, info.height));
  const int read_ahead =
      mapper.slow_start() ? static_cast<int>(std::min<std::size_t>(kMaxReadAheadFrames, kReadAheadBytes / frame_size)) : 0;
  const std::size_t in_capacity = static_cast<std::size_t>(base_frames + read_ahead);
  FrameQueue free_in(in_capacity), full_in(in_capacity), free_out(base_frames), full_out(base_frames);
  for (int i = 0; i < base_frames; ++i) {
    free_in.push(Frame{});
    free_out.push(Frame{});
  }
  std::atomic<bool> mapper_started{false};
  std::atomic<int> input_frames{base_frames};  // alive on the input side
  long long total = info.frame_count;
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
    int extra = 0;
    for (long long index = 0; max_frames < 0 || index < max_frames; ++index) {
      std::optional<Frame> frame = free_in.try_pop();
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
  });

  // The mapper (this thread): frames are submitted in order and completed in order; up to
  // frames_in_flight() are pending at once, and a pending frame is completed as soon as it is
  // ready or when no new input is waiting, so a slow source never holds finished frames back.
  std::deque<std::pair<Frame, Frame>> pending;
  auto fail = [&](const Status& s, long long index) {
    outcome.mapper_status = Status{s.code(), "frame " + std::to_string(index) + ": " + s.message()};
  };
  auto recycle_input = [&](Frame&& in) {
    if (input_frames.load() > base_frames) {
      --input_frames;  // a read-ahead frame: freed here
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
