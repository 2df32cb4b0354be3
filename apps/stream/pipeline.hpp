// The stream's three stages on three threads: the reader (source -> frames), the mapper (this
// thread: the CPU backend spreads each frame over every core itself; the CUDA backend keeps
// several frames in flight on the device) and the writer (frames -> sink), joined by bounded
// queues. A fixed pool of frame buffers circulates (kDepth per side plus the frames in flight,
// and a bounded read-ahead while CUDA starts), so memory stays bounded whatever the input's
// length, and with one thread per stage frames stay in order by construction.
#pragma once
#include <cstddef>

#include "stream/frame_io.hpp"
#include "stream/frame_mapper.hpp"

namespace tonekit::stream {

// Frames in flight on each side of the mapper: one being read (or written), one queued, one
// spare, so that a slow frame on one stage does not stall the other two.
constexpr int kDepth = 3;
// The same for the CPU backend, whose mapper is the slowest stage by far (a 4K frame in ~40 ms on
// 2 cores, read in place or from a pipe in ~5 ms, written in ~3 ms): one frame on each side is
// enough, and fewer fresh buffers is less page zeroing under the first touch
// (~2 ms a MB on the 2-core machine; docs/performance.md, CPU stream).
constexpr int kCpuDepth = 1;
// Input read ahead while the mapper starts (FrameMapper::slow_start: CUDA), at most this much
// and this many frames: at a pipe's ~1.8 GB/s the H100 host's ~0.4 s CUDA start-up is ~0.7 GB
// (the H200 host's ~0.25 s, ~0.45 GB).
constexpr std::size_t kReadAheadBytes = std::size_t{1} << 30;
constexpr std::size_t kMaxReadAheadFrames = 64;

struct StreamOutcome {
  long long frames_read = 0;
  long long frames_written = 0;
  Status reader_status;     // a truncated or malformed input
  Status mapper_status;
  Status writer_status;     // an output failure (not counting a closed downstream pipe)
  bool downstream_closed = false;
  double seconds = 0.0;
  double start_seconds = 0.0;   // FrameMapper::start (CUDA: waiting for the driver and context)
  int read_ahead_frames = 0;    // input frames made meanwhile beyond the fixed pool (read ahead, or about to be)
};

// Runs until the input ends, `max_frames` (< 0: no limit) have been read, or a stage fails;
// every frame read before a failure of the reader is mapped and written.
StreamOutcome run_stream(FrameSource& source, FrameMapper& mapper, FrameSink& sink, Cancel& cancel,
                         long long max_frames);

}  // namespace tonekit::stream
