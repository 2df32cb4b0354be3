// The stream's three stages on three threads: the reader (source -> frames), the mapper (this
// thread: the CPU backend spreads each frame over every core itself) and the writer (frames ->
// sink), joined by bounded queues. A fixed pool of frame buffers circulates (kDepth per side),
// so memory stays bounded whatever the input's length, and with one thread per stage frames
// stay in order by construction.
#pragma once
#include "stream/frame_io.hpp"
#include "stream/frame_mapper.hpp"

namespace tonekit::stream {

// Frames in flight on each side of the mapper: one being read (or written), one queued, one
// spare, so that a slow frame on one stage does not stall the other two.
constexpr int kDepth = 3;

struct StreamOutcome {
  long long frames_read = 0;
  long long frames_written = 0;
  Status reader_status;     // a truncated or malformed input
  Status mapper_status;
  Status writer_status;     // an output failure (not counting a closed downstream pipe)
  bool downstream_closed = false;
  double seconds = 0.0;
};

// Runs until the input ends, `max_frames` (< 0: no limit) have been read, or a stage fails;
// every frame read before a failure of the reader is mapped and written.
StreamOutcome run_stream(FrameSource& source, FrameMapper& mapper, FrameSink& sink, Cancel& cancel,
                         long long max_frames);

}  // namespace tonekit::stream
