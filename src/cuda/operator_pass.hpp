// The operator passes of the device pipeline (internal: tonekit::ToneMapper is the public entry)
// behind one interface: the global operators' pass (cuda/global_pass.cu: statistics -> (robust
// peak) -> (histogram -> scan) -> map) and the local operators' (cuda/local/local_pass.cu:
// statistics -> local settings -> table / pyramid / window sums -> map). One object per (size,
// input format, output format, operator kind); all scratch allocated at creation; process() runs
// one frame on a stream with no allocation and no host synchronisation. The frame's statistics,
// the curve constants and every plane stay on the device.
//
// The base holds what both passes share: the frame's statistics on the device (DeviceFrame and
// the statistics scratch), the statistics run (a frame part's exchange, the robust peak, the
// temporal step), the stage events and the read-backs.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <memory>

#include "cuda/pipeline.hpp"
#include "cuda/stage_events.hpp"
#include "cuda/tuning.hpp"
#include "tonekit/tone_mapper.hpp"

namespace tonekit::cuda {

struct PassConfig {
  int width = 0;
  int height = 0;  // rows of the input, a frame part's context rows included
  InputFormat input = InputFormat::rgba_f16;
  OutputFormat output{PixelType::u8, 4};
  Params params;  // from prepare_params(); an operator of the pass's kind
  // A band of a frame spread over GPUs (tonekit::FramePart): the statistics of its own rows go
  // through part.exchange, the dither follows part.first_row; the global pass reads and the local
  // pass stores the own rows only (the local adaptation reads the context rows too).
  FramePart part{};
  Tuning tuning{};
  bool timings = false;  // record CUDA events around each stage
  int device = -1;       // -1: the current device
};

// One frame's buffers (strides in bytes, 0 = packed; stream nullptr = the legacy default stream).
struct PassFrame {
  const void* in = nullptr;
  std::size_t in_stride = 0;
  void* out = nullptr;
  std::size_t out_stride = 0;
  cudaStream_t stream = nullptr;
  core::TemporalControl temporal{};
  // Non-null (passes that writes_surfaces(), u8 x 4 output): device memory holding a
  // cudaSurfaceObject_t of an RGBA8 array that the map writes through; `out` is not used.
  const unsigned long long* out_surface = nullptr;
  // A kernel before this call on `stream` gathered the frame's statistics into stats_frame()'s
  // exchange words (the video decode: launch_video_decode); they are finished instead of a
  // statistics pass (a whole frame).
  bool totals_in_exchange = false;
  // Non-null (whole frames, passes that fuses_encode()): the map writes `out` as that packed 8-bit
  // 4:2:0 frame itself (the configured output f32 RGB describes the values it encodes; out_stride 0).
  const Encode420* encode = nullptr;
};

class OperatorPass {
 public:
  virtual ~OperatorPass();
  OperatorPass(const OperatorPass&) = delete;
  OperatorPass& operator=(const OperatorPass&) = delete;

  // One frame (asynchronous on frame.stream).
  virtual Status process(const PassFrame& frame) = 0;
  // New parameters of an operator of the same kind for the next frame; no allocation.
  virtual Status set_params(const Params& params) = 0;
  // True when process() takes PassFrame::encode (a whole decoded float RGB frame).
  virtual bool fuses_encode() const = 0;
  // True when process() takes PassFrame::out_surface.
  virtual bool writes_surfaces() const = 0;

  // The device frame whose accumulator and exchange words the statistics go through.
  DeviceFrame* stats_frame() const { return frame_; }
  // Device address of the last frame's statistics (a tonekit::FrameStats) for other kernels.
  const void* device_stats() const;
  // Waits for the last frame and copies its statistics back (synchronises; on request only);
  // `adapted` (optional) gets what the curves read.
  Status read_stats(FrameStats& stats, FrameStats* adapted = nullptr);
  void enable_timings(bool on) { timings_ = on; }
  // Waits for the last frame; its stats_ms, histogram_ms or local_ms, map_ms and total_ms.
  Status read_timings(StageTimings& timings);
  const PassConfig& config() const { return cfg_; }

 protected:
  // `middle_stage`: where read_timings puts the time between the statistics and the map.
  enum class MiddleStage { histogram, local };
  OperatorPass(const PassConfig& config, MiddleStage middle);

  // The device, the geometry of `rows` rows and the statistics scratch (`all_statistics`: every
  // StatsAlgorithm's, else the fused pass's only), the frame and the stage events.
  Status init_statistics(int rows, int stats_blocks_per_sm, bool all_statistics);
  // The statistics of the part's own rows (`own`: their geometry, the whole frame's without a
  // part) through the exchange, or by `algo` for a whole frame, or finished from the totals a
  // decode gathered; then the robust peak (histogram into peak_hist) and the temporal step.
  Status run_statistics(const FrameGeometry& own, const PassFrame& frame, StatsAlgorithm algo,
                        const core::CurvePlan& curve, const float* table, unsigned long long* peak_hist);
  // Records stage boundary 0..3 when timings are on.
  Status mark(int boundary, cudaStream_t stream) { return timings_ ? events_.record(boundary, stream) : Status{}; }
  // After a frame's last launch.
  void finish_frame(const PassFrame& frame) {
    ran_ = true;
    adapted_valid_ = frame.temporal.state != nullptr;
    last_stream_ = frame.stream;
  }

  PassConfig cfg_;
  int sm_count_ = 0;
  FrameGeometry geo_;
  DeviceFrame* frame_ = nullptr;
  StatsScratch stats_;

 private:
  MiddleStage middle_;
  StageEvents events_;
  bool timings_ = false;
  bool ran_ = false;
  bool adapted_valid_ = false;  // the last frame ran the temporal step (frame_->adapted written)
  cudaStream_t last_stream_ = nullptr;
};

// The pass of a global operator (cuda/global_pass.cu) and of a local one (cuda/local/local_pass.cu).
Result<std::unique_ptr<OperatorPass>> create_global_pass(const PassConfig& config);
Result<std::unique_ptr<OperatorPass>> create_local_pass(const PassConfig& config);

}  // namespace tonekit::cuda
