// The device pipeline (docs/architecture.md, "On the GPU"): one object runs every registered
// operator, global or local, with optional glare, night vision and temporal adaptation, on CUDA
// pointers and a caller's stream. All scratch is allocated in create(); process() runs one frame
// with no allocation and no host synchronisation; statistics, the curve constants, the local
// settings and the temporal state stay on the device and are read back only on request.
// Available when the build has CUDA (TONEKIT_HAS_CUDA); create() reports no_device without a GPU.
//
// The config has two parts: the frame (size, layouts, device) and the look (Look: the operator
// and its parameters, glare, night vision, temporal adaptation), which every device entry shares.
// Video: rgb48, gbrpf32, P010 and yuv420p10 inputs, PQ / HLG / BT.2020 colour and yuv420p / NV12
// outputs run as a decode stage into scene-linear float RGB before the passes and an encode stage
// after them, with the CPU reference's maths (cpu::tone_map_frame).
#pragma once
#include <cstddef>
#include <memory>
#include <utility>

#include "tonekit/blur.hpp"
#include "tonekit/image.hpp"
#include "tonekit/night.hpp"
#include "tonekit/operators.hpp"
#include "tonekit/status.hpp"
#include "tonekit/temporal.hpp"
#include "tonekit/tonemap.hpp"
#include "tonekit/video.hpp"

struct CUstream_st;  // cudaStream_t without cuda_runtime.h

namespace tonekit {

// InputFormat (what renderers, EXR readers and video decoders hand over) is in tonekit/video.hpp.

namespace cuda {
struct ToneMapperAccess;  // internal: the benchmarks' and GPU tests' tuning (src/cuda/tuning.hpp)
}

// Several GPUs sharing one frame (tonekit/multi_gpu.hpp): each part's statistics are combined
// with the other parts' before anything reads them. combine() is called inside process(), on its
// stream, after the part's statistics (and again after its histogram, for histeq) and must
// enqueue, asynchronously on that stream, an in-place combination of the device words with the
// same words of every other part: `sums` added (unsigned 64-bit, wrapping), `maxima` by unsigned
// maximum. Every part calls it the same number of times in the same order (NCCL all-reduces;
// tonekit::MultiGpuToneMapper's implementation).
//
// Glare over a split frame also calls gather_rows() (twice per frame: the key's per-row log-sums,
// then one level of the glare pyramid): `rows` is a device array of `row_count` rows of
// `row_bytes`, row r standing for the frame rows from r * 2^shift - offset; each part has filled
// the rows owned_array_rows() gives it, and afterwards every part must hold every row (an
// all-gather of the parts' row ranges, in place, on `stream`). The default refuses, so an
// exchange without it serves frames without glare.
class StatsExchange {
 public:
  virtual ~StatsExchange() = default;
  virtual Status combine(unsigned long long* sums, std::size_t sum_count, unsigned* maxima, std::size_t max_count,
                         CUstream_st* stream) = 0;
  virtual Status gather_rows(void* rows, std::size_t row_bytes, int row_count, int shift, int offset,
                             CUstream_st* stream);
};

// The rows [first, second) of gather_rows' array that the part owning frame rows [own_begin,
// own_end) of a frame_height-row frame fills: those whose first frame row, r * 2^shift - offset,
// falls in its own rows; the first part (own_begin 0) also takes the rows before the frame and
// the last (own_end frame_height) those after it. The parts of a frame cover the array once.
std::pair<int, int> owned_array_rows(int own_begin, int own_end, int frame_height, int shift, int offset,
                                     int row_count);

// This ToneMapper's part of a larger frame (a band of rows): the input holds context_above rows,
// the part's own rows and context_below rows (ToneMapperConfig::height counts all of them); the
// statistics cover the own rows only and go through `exchange`; local operators read the context
// rows as the whole frame would give them; the output holds the own rows only. first_row is the
// part's first own row in the whole frame: the dither follows frame coordinates, so the parts of
// a frame give the whole frame's bytes. Parts take float / half RGB(A) scene-linear BT.709 input
// and an interleaved output (ToneMapper::create says so otherwise); glare with a pyramid blur
// method when frame_height is set and the exchange gathers rows.
struct FramePart {
  int context_above = 0;
  int context_below = 0;
  int first_row = 0;
  StatsExchange* exchange = nullptr;  // nullptr: a whole frame (then the rest must be 0)
  // Rows of the whole frame: needed with glare (its octaves and key are the whole frame's; the
  // context rows must cover glare_context_rows, tonekit/multi_gpu.hpp). 0: unknown (no glare).
  int frame_height = 0;
  bool active() const { return exchange || context_above || context_below || first_row; }
};

// The look of the frames: what the operator passes compute. ToneMapperConfig, GlPassConfig and
// VulkanPassConfig derive from it (MultiGpuConfig through its ToneMapperConfig), so a look moves
// between them as one value: `static_cast<Look&>(to) = from`.
struct Look {
  Params params;           // from prepare_params(): any registered operator
  GlareParams glare{};     // strength 0 (the default): no glare
  NightParams night{};     // on false (the default): no night vision (tonekit/night.hpp), after the glare
  bool temporal = false;   // temporal adaptation of the key and the peak (tonekit/temporal.hpp)
  TemporalParams temporal_params{};
};

// The frame, and the look (the base).
struct ToneMapperConfig : Look {
  int width = 0;
  int height = 0;
  InputFormat input = InputFormat::rgba_f16;  // every layout of tonekit/video.hpp
  InputColour colour{};  // transfer, primaries, YUV matrix and range, reference white (video.hpp)
  // yuv420p / nv12: 8-bit BT.709 4:2:0 out (then `output` is not used); interleaved: `output`.
  OutputLayout output_layout = OutputLayout::interleaved;
  OutputFormat output{PixelType::u8, 4};
  int device = -1;       // -1: the current device
  bool timings = false;  // record CUDA events around each stage
  FramePart part{};      // a band of a frame spread over several GPUs (default: the whole frame)
};

struct StageTimings {
  double decode_ms = 0.0;     // video decode stage (layouts other than float/half RGB(A), or PQ/HLG/BT.2020;
                              // with the statistics gathered in it for 4:2:0 input)
  double glare_ms = 0.0;      // glare (bright pass, blurs, accumulation), when on
  double night_ms = 0.0;      // night vision (adapting luminance, acuity blur, rod/cone colour), when on
  double stats_ms = 0.0;      // statistics (+ curve constants, temporal step, local settings)
  double histogram_ms = 0.0;  // histogram + scan (histeq only)
  double local_ms = 0.0;      // local adaptation: table, blur pyramid or window sums (local operators)
  double map_ms = 0.0;        // (scale search,) curve, colour, transfer, quantise
  double encode_ms = 0.0;     // yuv420p / NV12 encode stage (~0 on decoded video for global operators and
                              // reinhard-sat's tile-local path: fused into the map)
  double total_ms = 0.0;
};

class ToneMapper {
 public:
  static Result<std::unique_ptr<ToneMapper>> create(const ToneMapperConfig& config);
  ~ToneMapper();
  ToneMapper(const ToneMapper&) = delete;
  ToneMapper& operator=(const ToneMapper&) = delete;

  // One frame: device_in (width x height pixels of the input format, rows in_stride_bytes apart,
  // 0 = packed) -> device_out (output format, rows out_stride_bytes apart, 0 = packed).
  // Asynchronous on `stream` (nullptr = the legacy default stream). dt_seconds: the time since
  // the previous frame, for temporal adaptation (ignored when it is off; the first frame after
  // create() or reset_temporal() seeds the state whatever dt).
  Status process(const void* device_in, std::size_t in_stride_bytes, void* device_out,
                 std::size_t out_stride_bytes, CUstream_st* stream = nullptr, double dt_seconds = 0.0);
  // The same for any layout: planar and YUV inputs give each plane and its stride (0 = packed).
  // With a yuv420p / nv12 output layout, device_out is the packed frame (output_frame_bytes) and
  // out_stride_bytes must be 0.
  Status process(const FramePlanes& device_in, void* device_out, std::size_t out_stride_bytes,
                 CUstream_st* stream = nullptr, double dt_seconds = 0.0);

  // Zero-copy frames for renderer interop (tonekit/gl.hpp). input_surface: a
  // cudaSurfaceObject_t of a width x height half or float RGBA CUDA array (the config's input:
  // rgba_f16 or rgba_f32, scene-linear BT.709); output_surface: one of an RGBA8 array (the
  // config's output u8 x 4, interleaved). The same bytes as process() on the same pixels.
  // With glare on, the glare stage's copy reads the surface (the pass it runs anyway); local
  // operators write the output surface from their map kernel. Measured fallbacks
  // (docs/performance.md), each a pass of its own, reported by surfaces_zero_copy(): glare off
  // reads the array into a linear frame first; global operators map into a linear RGBA8 frame
  // that a kernel stores through the surface. Their frames are allocated at first use.
  Status process_surfaces(unsigned long long input_surface, unsigned long long output_surface,
                          CUstream_st* stream = nullptr, double dt_seconds = 0.0);
  // True when process_surfaces() runs with no extra pass for the current settings (glare on and
  // a local operator).
  bool surfaces_zero_copy() const;

  // Another operator or other parameters for the next frame. Within the same pass (global to
  // global, or the same local operator) nothing is allocated. Switching global <-> local, or to
  // another local operator, allocates that pass's scratch the first time (kept afterwards, so
  // switching back is free); *reallocated tells which happened. Synchronises only when it allocates.
  Status set_params(const Params& params, bool* reallocated = nullptr);
  // Glare for the next frame; allocates when it is switched on or its blur plan changes.
  Status set_glare(const GlareParams& glare);
  // Night vision for the next frame (prepare_night's parameters, or NightParams{} for off);
  // allocates its stage (and an operator pass reading its float RGBA frame) when it is switched
  // on or its size-dependent plan changes. A frame part (several GPUs) refuses it (unsupported).
  Status set_night(const NightParams& night);
  // Temporal adaptation on or off and its parameters (no allocation; the state is kept).
  Status set_temporal(bool on, const TemporalParams& params);

  // The temporal state: read (synchronises), reset (the next frame seeds it), seed.
  Status read_temporal_state(TemporalState& state);
  Status reset_temporal();
  Status seed_temporal(const TemporalState& state);

  // Waits for the last frame and copies its statistics back (synchronises; on request only).
  // The frame's own statistics; `adapted` (optional) gets what the curves read.
  Status read_stats(FrameStats& stats, FrameStats* adapted = nullptr);
  // Device address of the last frame's statistics (a tonekit::FrameStats) for other kernels.
  const void* device_stats() const;

  void enable_timings(bool on);
  // Waits for the last frame; its per-stage times from CUDA events (timings must be on).
  Status read_timings(StageTimings& timings);

  // Device memory this object holds (every pass, glare and staging), in bytes.
  std::size_t scratch_bytes() const;
  const ToneMapperConfig& config() const;

 private:
  friend struct cuda::ToneMapperAccess;
  struct Impl;
  explicit ToneMapper(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace tonekit
