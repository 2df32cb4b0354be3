// The local operators' pass of the device pipeline (internal: tonekit::ToneMapper is the public
// entry): reinhard-local, reinhard-sat, drago-local. One object per (size, input format, output
// format, operator); all scratch allocated in create(); process() runs one frame on a stream
// with no allocation and no host synchronisation. The frame statistics, the local settings
// derived from them (core::make_local_settings_hd, on the device) and every plane stay on the device.
#pragma once
#include <cstddef>
#include <memory>

#include "core/temporal_model.hpp"
#include "cuda/tuning.hpp"
#include "tonekit/tone_mapper.hpp"

struct CUstream_st;

namespace tonekit::cuda {

struct DeviceFrame;  // cuda/pipeline.hpp
struct Encode420;    // cuda/pipeline.hpp

struct LocalPassConfig {
  int width = 0;
  int height = 0;
  InputFormat input = InputFormat::rgba_f16;
  OutputFormat output{PixelType::u8, 4};
  Params params;  // from prepare_params(); reinhard-local, reinhard-sat or drago-local
  // H100, 4K: the float64 table's queries cost 0.26 ms against the pairs' 1.08 ms; the tile-local
  // tables skip both the frame-sized table and the luminance plane (docs/performance.md).
  SatPrecision sat_auto = SatPrecision::tile_local_f64;
  // tile_local_f64: 32 x 32, 64 x 32 or 64 x 64 pixels per block (tuning; H100, 4K: 0.200 / 0.187 /
  // 0.165 ms; 64 x 64 is the fastest at 1080p, 4K and 8K: docs/performance.md).
  int tile_width = 64;
  int tile_height = 64;  // 64 only with tile_width 64 (512 threads per block)
  DodgeVariant variant = DodgeVariant::readonly_cache;
  bool timings = false;  // CUDA events around each stage
  int device = -1;       // -1: the current device
};

struct LocalStageTimings {
  double stats_ms = 0.0;  // statistics + luminance plane + local settings
  double local_ms = 0.0;  // table / blur pyramid / window sums
  double map_ms = 0.0;    // scale search (reinhard-sat), curve, colour, transfer, quantise
  double total_ms = 0.0;
};

class LocalPass {
 public:
  static Result<std::unique_ptr<LocalPass>> create(const LocalPassConfig& config);
  ~LocalPass();
  LocalPass(const LocalPass&) = delete;
  LocalPass& operator=(const LocalPass&) = delete;

  // One frame, as ToneMapper::process (strides in bytes, 0 = packed; nullptr = default stream).
  // `part`: a band of a frame spread over GPUs (tonekit::FramePart): the statistics of the own rows
  // through part.exchange, the local adaptation over every row, the own rows stored.
  // out_surface non-null (device memory holding a cudaSurfaceObject_t of an RGBA8 array; u8 x 4
  // output only): the map kernel writes through it and device_out is not used (may be null).
  // totals_in_exchange: the frame's statistics were gathered into stats_frame()'s exchange words by
  // a kernel before this call on `stream` (the video decode); they are finished instead of a
  // statistics pass (a whole frame).
  // encode (whole frames, when fuses_encode()): the map writes device_out as that packed 8-bit
  // 4:2:0 frame itself (the configured output f32 RGB describes the values it encodes;
  // out_stride_bytes 0).
  Status process(const void* device_in, std::size_t in_stride_bytes, void* device_out, std::size_t out_stride_bytes,
                 CUstream_st* stream = nullptr, const core::TemporalControl& temporal = {}, const FramePart& part = {},
                 const unsigned long long* out_surface = nullptr, bool totals_in_exchange = false,
                 const Encode420* encode = nullptr);
  // True when process() takes `encode`: reinhard-sat with tile-local tables on a float RGB input.
  bool fuses_encode() const;
  // The device frame whose accumulator and exchange words the statistics go through.
  DeviceFrame* stats_frame() const;
  // Parameters of the same operator for the next frame (no allocation).
  Status set_params(const Params& params);
  void set_variant(DodgeVariant v);
  Status read_stats(FrameStats& stats, FrameStats* adapted = nullptr);
  void enable_timings(bool on);
  Status read_timings(LocalStageTimings& timings);
  const void* device_stats() const;  // the last frame's FrameStats on the device
  const LocalPassConfig& config() const;

 private:
  struct Impl;
  explicit LocalPass(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace tonekit::cuda
