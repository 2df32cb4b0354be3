// One frame in, one display frame out: decode the input layout and transfer to scene-linear
// BT.709, add glare if asked, tone map on the chosen backend, and lay the result out as the
// sink wants it (8-bit RGB/RGBA, yuv420p/NV12, or linear float for EXR sequences). Buffers are
// allocated once per stream and reused, so a long stream does not allocate per frame.
#pragma once
#include <cstdio>
#include <memory>
#include <optional>
#include <vector>

#include "stream/fast_video.hpp"
#include "tonekit/device_frames.hpp"
#include "tonekit/multi_gpu.hpp"
#include "stream/frame_io.hpp"
#include "tonekit/blur.hpp"
#include "tonekit/operators.hpp"
#include "tonekit/temporal.hpp"
#include "tonekit/tonemap.hpp"
#include "tonekit/video.hpp"

namespace tonekit::stream {

struct MapperSetup {
  int width = 0, height = 0;
  InputFormat format = InputFormat::rgb_f32;
  InputColour colour;
  Params params;
  Backend backend = Backend::cpu;
  GlareParams glare;            // strength 0: off
  OutputKind out = OutputKind::yuv420p;
  io::OutputKind image_kind = io::OutputKind::png;  // sequences: which writer takes the frames
  // Temporal adaptation (tonekit/temporal.hpp): one state carried across the whole stream,
  // advanced by frame_seconds (1 / fps) per frame. Absent: every frame is mapped on its own.
  std::optional<TemporalParams> temporal;
  double frame_seconds = 1.0 / 30.0;
  std::string temporal_log;  // CSV of the per-frame and adapted statistics ("" = none)
  bool exact = false;        // the CPU reference's curves everywhere, even where FastVideo covers
  // --devices (backend cuda, two or more): each frame split into bands over these GPUs
  // (tonekit::MultiGpuToneMapper: one key per frame through NCCL; every GPU steps the same
  // temporal state from the combined statistics, so the copies stay identical).
  std::vector<int> devices;
};

class FrameMapper {
 public:
  // Checks that this input layout and colour can be decoded and that the output can be made.
  static Result<std::unique_ptr<FrameMapper>> create(const MapperSetup& setup);
  // Bytes of one output frame (what map() leaves in out.bytes).
  std::size_t output_bytes() const { return output_bytes_; }
  Status map(Frame& in, Frame& out);
  const FrameStats& last_stats() const { return stats_; }
  const TemporalState& temporal_state() const { return state_; }
  ~FrameMapper();

 private:
  explicit FrameMapper(const MapperSetup& s) : s_(s) {}
  Status decode(Frame& in, ImageView& view);
  void log_row(const FrameStats& adapted);
  MapperSetup s_;
  std::size_t output_bytes_ = 0;
  OutputFormat mapped_;          // what tone_map produces
  Image scene_;                  // decoded scene-linear frame (when the input is not one already)
  Image display_;                // linear display RGB before the YUV encode
  OutputImage device_out_;       // the CUDA host API's result
  FrameStats stats_;
  TemporalState state_;
  std::FILE* log_ = nullptr;
  std::unique_ptr<FastVideo> fast_;  // when it covers this stream (fast_video.hpp)
  // --backend cuda: the whole frame (decode, glare, temporal, map, 4:2:0 encode) on the device.
  std::unique_ptr<DeviceFrameMapper> device_;
  // --devices: the frame split over several GPUs.
  std::unique_ptr<MultiGpuToneMapper> multi_;
  long long frame_ = 0;
};

}  // namespace tonekit::stream
