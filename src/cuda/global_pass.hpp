// The global operators' pass of the device pipeline (internal: tonekit::ToneMapper in
// include/tonekit/tone_mapper.hpp is the public entry): statistics -> (robust peak) -> (histogram -> scan) -> map,
// all scratch allocated in create(), process() with no allocation and no host synchronisation.
// The curve constants of each frame are derived on the device from that frame's statistics
// (and, with temporal adaptation, the adapted key and peak).
#pragma once
#include <cstddef>
#include <memory>

#include "core/temporal_model.hpp"
#include "cuda/tuning.hpp"
#include "tonekit/tone_mapper.hpp"

struct CUstream_st;

namespace tonekit::cuda {

struct Encode420;    // cuda/pipeline.hpp
struct DeviceFrame;  // cuda/pipeline.hpp

struct GlobalPassConfig {
  int width = 0;
  int height = 0;
  InputFormat input = InputFormat::rgba_f16;
  OutputFormat output{PixelType::u8, 4};
  Params params;  // from prepare_params(); global operators only
  StatsAlgorithm stats = StatsAlgorithm::fused;
  ScanAlgorithm scan = ScanAlgorithm::blelloch;
  bool timings = false;  // record CUDA events around each stage
  int device = -1;       // -1: the current device
  // Tuning: the map pass walks the frame from its end, where the statistics pass finished, so
  // the part of the input still in L2 is read from there (docs/performance.md has the measurement).
  bool map_backwards = true;
  // Tuning: launch the map pass as a programmatic dependent launch (sm_90): its blocks load
  // their pixels while the statistics pass finishes, then wait for the curve constants.
  bool programmatic_launch = true;
  // Tuning: at most this many blocks per SM for the fused statistics pass and its flat form
  // (0: as many as fit; half RGBA: 5 of the row form, 2 of the flat form). Fewer blocks take
  // fewer atomics in the grid-wide finish, and each thread more rounds.
  int stats_blocks_per_sm = 0;
};

struct GlobalStageTimings {
  double stats_ms = 0.0;      // statistics (+ curve constants on the device, + the robust peak when on)
  double histogram_ms = 0.0;  // histogram + scan (histeq only)
  double map_ms = 0.0;        // curve, colour, transfer, quantise
  double total_ms = 0.0;
};

class GlobalPass {
 public:
  static Result<std::unique_ptr<GlobalPass>> create(const GlobalPassConfig& config);
  ~GlobalPass();
  GlobalPass(const GlobalPass&) = delete;
  GlobalPass& operator=(const GlobalPass&) = delete;

  // One frame: device_in (width x height pixels of the input format, rows in_stride_bytes apart,
  // 0 = packed) -> device_out (output format, rows out_stride_bytes apart, 0 = packed).
  // Asynchronous on `stream` (nullptr = the legacy default stream).
  // `part`: a band of a frame spread over GPUs (tonekit::FramePart; no context rows here, the
  // global operators need none): statistics through part.exchange, the dither from part.first_row.
  // `encode`: the map writes device_out as that 8-bit 4:2:0 frame itself (launch_map_encode420;
  // the input is rgb_f32, the configured output f32 RGB, out_stride_bytes 0).
  // `totals_in_exchange`: a kernel before this call on `stream` gathered the frame's statistics
  // into stats_frame()'s exchange words (the video decode: launch_video_decode); they are finished
  // here instead of a statistics pass (a whole frame: no part).
  Status process(const void* device_in, std::size_t in_stride_bytes, void* device_out,
                 std::size_t out_stride_bytes, CUstream_st* stream = nullptr, const core::TemporalControl& temporal = {},
                 const FramePart& part = {}, const Encode420* encode = nullptr, bool totals_in_exchange = false);
  // The device frame whose accumulator and exchange words the statistics go through.
  DeviceFrame* stats_frame() const;

  // New parameters (same operator or another global one) for the next frame; no allocation.
  Status set_params(const Params& params);
  void set_stats_algorithm(StatsAlgorithm a);
  void set_scan_algorithm(ScanAlgorithm a);

  // Waits for the last frame and copies its statistics back (synchronises; on request only).
  Status read_stats(FrameStats& stats, FrameStats* adapted = nullptr);
  // Device address of the last frame's statistics (a tonekit::FrameStats) for other kernels.
  const void* device_stats() const;

  void enable_timings(bool on);
  // Waits for the last frame; its per-stage times from CUDA events (timings must be on).
  Status read_timings(GlobalStageTimings& timings);

  const GlobalPassConfig& config() const;

 private:
  struct Impl;
  explicit GlobalPass(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace tonekit::cuda
