// Host frames through the one device pipeline, for streams and batches (`tonekit stream --backend
// cuda`): one ToneMapper (so one temporal state across the stream), device buffers and pinned
// staging allocated once; map() copies a packed host frame in, runs ToneMapper::process on it
// and copies the packed output back (synchronous; the caller's reader and writer threads overlap
// the I/O). Builds without CUDA: create() reports no_device.
#pragma once
#include <cstddef>
#include <memory>

#include "tonekit/status.hpp"
#include "tonekit/temporal.hpp"
#include "tonekit/tone_mapper.hpp"
#include "tonekit/tonemap.hpp"

namespace tonekit {

class DeviceFrameMapper {
 public:
  // config describes every frame: packed planes in (frame_bytes), the packed output out.
  static Result<std::unique_ptr<DeviceFrameMapper>> create(const ToneMapperConfig& config);
  ~DeviceFrameMapper();
  DeviceFrameMapper(const DeviceFrameMapper&) = delete;
  DeviceFrameMapper& operator=(const DeviceFrameMapper&) = delete;

  std::size_t input_bytes() const;   // frame_bytes(config.input, width, height)
  std::size_t output_bytes() const;  // output_frame_bytes(...) of the config's output
  // host_in: input_bytes() bytes; host_out: output_bytes() bytes. dt_seconds: time since the
  // previous frame (temporal adaptation).
  Status map(const void* host_in, void* host_out, double dt_seconds);
  // The last frame's own statistics and what the curves read (synchronous).
  Status read_stats(FrameStats& stats, FrameStats* adapted = nullptr);
  Status read_temporal_state(TemporalState& state);

 private:
  struct Impl;
  explicit DeviceFrameMapper(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace tonekit
