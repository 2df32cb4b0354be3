// Host frames through the one device pipeline, for streams and batches (`tonekit stream --backend
// cuda`): one ToneMapper (so one temporal state across the stream, frames mapped in order), and
// up to frames_in_flight() frames in flight, each with its own device buffers and page-locked
// staging, so that the upload of one frame, the kernels of another and the download of a third
// overlap (three CUDA streams joined by events). Everything is allocated once. Builds without CUDA: create() reports no_device.
#pragma once
#include <cstddef>
#include <memory>

#include "tonekit/status.hpp"
#include "tonekit/temporal.hpp"
#include "tonekit/tone_mapper.hpp"
#include "tonekit/tonemap.hpp"
#include "tonekit/video.hpp"

namespace tonekit {

class DeviceFrameMapper {
 public:
  // config describes every frame: packed planes in (frame_bytes), the packed output out.
  // frames_in_flight >= 1.
  static Result<std::unique_ptr<DeviceFrameMapper>> create(const ToneMapperConfig& config, int frames_in_flight = 3);
  ~DeviceFrameMapper();
  DeviceFrameMapper(const DeviceFrameMapper&) = delete;
  DeviceFrameMapper& operator=(const DeviceFrameMapper&) = delete;

  std::size_t input_bytes() const;   // frame_bytes(config.input, width, height)
  std::size_t output_bytes() const;  // output_frame_bytes(...) of the config's output
  int frames_in_flight() const;

  // Starts one frame: host_in (input_bytes()) is copied before submit returns (into the slot's
  // page-locked staging; page-locked memory of the caller's is read by the upload itself, and
  // must then stay untouched until the frame completes); host_out (output_bytes()) receives the
  // result by the time complete_oldest() returns for this frame. dt_seconds: time since the
  // previous frame (temporal adaptation). With frames_in_flight() frames pending, submit first
  // completes the oldest.
  Status submit(const void* host_in, void* host_out, double dt_seconds);
  // The same for a frame already on the device (a hardware decoder's output: NVDEC's P010
  // surfaces through FFmpeg), planes with their pitches; no upload. The planes must stay
  // untouched until complete_oldest() returns for this frame. Work on the legacy default stream
  // (where FFmpeg's decoder copies its surfaces out when its CUDA context has no stream of its
  // own) is ordered before the frame's kernels.
  Status submit_device(const FramePlanes& device_in, void* host_out, double dt_seconds);
  // Frames submitted and not yet completed.
  int pending() const;
  // Waits for the oldest pending frame and leaves its output in its host_out.
  Status complete_oldest();
  // True when the oldest pending frame has finished on the device (never blocks).
  bool oldest_ready() const;
  // Page-locks host memory that will be handed to submit() again and again (a stream's pool of
  // frame buffers; cudaHostRegister, once), so that its frames are copied to and
  // from it directly instead of through the staging buffers. False when the memory cannot be
  // locked (it then goes through staging, as before). Unlock it before freeing it; the mapper
  // unlocks what is left when it is destroyed.
  bool lock_host_buffer(void* p, std::size_t bytes);
  void unlock_host_buffer(void* p);
  // submit + complete every pending frame.
  Status map(const void* host_in, void* host_out, double dt_seconds);

  // The statistics of the last frame submitted and what its curves read (waits for its kernels).
  Status read_stats(FrameStats& stats, FrameStats* adapted = nullptr);
  Status read_temporal_state(TemporalState& state);
  // Another operator or other parameters for the frames submitted from now on (frames in flight
  // keep the ones they were submitted with). A new operator may reallocate the pass's scratch.
  Status set_params(const Params& params);

 private:
  struct Impl;
  explicit DeviceFrameMapper(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace tonekit
