// One frame in, one display frame out: decode the input layout and transfer to scene-linear
// BT.709, add glare if asked, tone map on the chosen backend, and lay the result out as the
// sink wants it (8-bit RGB/RGBA, yuv420p/NV12, or linear float for EXR sequences). Buffers are
// allocated once per stream and reused, so a long stream does not allocate per frame.
#pragma once
#include <cstdio>
#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

#include "tonekit/cpu_tone_mapper.hpp"
#include "tonekit/device_frames.hpp"
#include "tonekit/multi_gpu.hpp"
#include "stream/frame_io.hpp"
#include "tonekit/blur.hpp"
#include "tonekit/operators.hpp"
#include "tonekit/temporal.hpp"
#include "tonekit/tonemap.hpp"
#include "tonekit/video.hpp"

namespace tonekit::stream {

// The input-colour flags `tonekit stream` and `tonekit video` share, applied over the defaults
// the input gave `c` (an empty flag keeps the default).
Status apply_primaries_flag(InputColour& c, const std::string& primaries);
// The gamut, reference-white and HLG-peak flags, then the validated colour.
Result<InputColour> finish_input_colour(InputColour c, const std::string& gamut, double reference_white, double hlg_peak);

struct MapperSetup {
  int width = 0, height = 0;
  InputFormat format = InputFormat::rgb_f32;
  InputColour colour;
  Params params;
  Backend backend = Backend::cpu;  // cpu, cuda or automatic (settled by FrameMapper::start)
  GlareParams glare;            // strength 0: off
  NightParams night;            // on false: off (stream --night; the noise advances per frame)
  OutputKind out = OutputKind::yuv420p;
  io::OutputKind image_kind = io::OutputKind::png;  // sequences: which writer takes the frames
  // Temporal adaptation (tonekit/temporal.hpp): one state carried across the whole stream,
  // advanced by frame_seconds (1 / fps) per frame. Absent: every frame is mapped on its own.
  std::optional<TemporalParams> temporal;
  double frame_seconds = 1.0 / 30.0;
  std::string temporal_log;  // CSV of the per-frame and adapted statistics ("" = none)
  bool exact = false;        // the CPU reference everywhere, even where the fused video path covers
  // --devices (backend cuda, two or more): each frame split into bands over these GPUs
  // (tonekit::MultiGpuToneMapper: one key per frame through NCCL; every GPU steps the same
  // temporal state from the combined statistics, so the copies stay identical).
  std::vector<int> devices;
};

// Frames in flight on the device (upload, kernels, download of three frames overlap).
constexpr int kDeviceFramesInFlight = 3;

class FrameMapper {
 public:
  // Checks that this input layout and colour can be decoded and that the output can be made.
  // No CUDA work: that is start()'s.
  static Result<std::unique_ptr<FrameMapper>> create(const MapperSetup& setup);
  // The backend's slow part: waits for CUDA's start-up (cli::begin_backend launched it), builds
  // the device pipeline, and settles `auto` (cuda when a device works, else the CPU). run_stream
  // calls it on the mapping thread while the reader reads ahead; submit() calls it if nobody did.
  Status start();
  // True when start() waits for CUDA: the stream reads ahead meanwhile.
  bool slow_start() const { return s_.backend != Backend::cpu; }
  // Frames submit() may leave pending: the device pipeline's slots, else 1. Known before
  // start(): the most the backend may take.
  int frames_in_flight() const { return slow_start() ? kDeviceFramesInFlight : 1; }
  // Begins mapping `in` into `out`; both stay untouched by the caller until complete_oldest()
  // returns for them. The CPU and several-GPU paths finish the frame here.
  Status submit(Frame& in, Frame& out);
  int pending() const;
  // Waits for the oldest pending frame (frames complete in submission order).
  Status complete_oldest();
  // True when complete_oldest() would not wait.
  bool oldest_ready() const;
  // A frame buffer is about to be freed (the stream drops a read-ahead frame): unlock it if the
  // device path locked it. release_buffers(): every buffer, at the end of a stream (after the
  // last complete_oldest, before the frames are freed).
  void release(Frame& frame);
  void release_buffers();
  // Other parameters for the frames submitted from now on (a video's per-scene source peak).
  Status set_params(const Params& params);
  // One frame already on the device (NVDEC's planes with their pitches) into `out`: the device
  // path only (one GPU). Pending like submit()'s frames: the planes and `out` stay untouched
  // until complete_oldest() returns for it.
  Status submit_device(const FramePlanes& device_in, Frame& out);
  // One host frame given by its planes and their strides (a decoder's frame, read in place): the
  // CPU backend only; true from uses_cpu() once started.
  Status map_host_planes(const FramePlanes& in, Frame& out);
  bool uses_cpu() const { return cpu_ != nullptr; }
  // submit + complete: one frame, synchronously.
  Status map(Frame& in, Frame& out);
  // "cpu", "cuda" or "cuda (several GPUs)" once started; "auto" before.
  const char* backend_label() const;
  // Bytes of one output frame (what map() leaves in out.bytes).
  std::size_t output_bytes() const { return output_bytes_; }
  const FrameStats& last_stats() const { return stats_; }
  const TemporalState& temporal_state() const { return state_; }
  ~FrameMapper();

 private:
  explicit FrameMapper(const MapperSetup& s) : s_(s) {}
  Status start_cpu();
  Status start_cuda();
  // The stream's frame and look into either backend's config (CpuToneMapperConfig and
  // ToneMapperConfig name these fields alike).
  template <class Config>
  void fill_config(Config& cfg) const;
  Status map_on_cpu(Frame& in, Frame& out);
  Status map_planes_on_cpu(const FramePlanes& planes, Frame& out);
  void log_row(const FrameStats& adapted);
  void note_buffer(void* p, std::size_t bytes);
  MapperSetup s_;
  bool started_ = false;
  std::size_t output_bytes_ = 0;
  OutputFormat mapped_;          // what tone_map produces
  FrameStats stats_;
  TemporalState state_;
  std::FILE* log_ = nullptr;
  // --backend cpu: decode, glare, temporal, map and encode (the fused video path where it covers
  // the stream), one frame at a time.
  std::unique_ptr<CpuToneMapper> cpu_;
  // --backend cuda: the whole frame (decode, glare, temporal, map, 4:2:0 encode) on the device,
  // several frames in flight.
  std::unique_ptr<DeviceFrameMapper> device_;
  // The device path's view of the stream's raw frame buffers (Frame::bytes, in and out), by
  // address: a buffer seen a second time belongs to the stream's pool and is page-locked, so
  // that its frames need no staging copy. It must stay allocated while locked: release() and
  // release_buffers() unlock before the stream frees it.
  std::unordered_map<const void*, int> buffer_uses_;
  // --devices: the frame split over several GPUs.
  std::unique_ptr<MultiGpuToneMapper> multi_;
  long long frame_ = 0;
};

}  // namespace tonekit::stream
