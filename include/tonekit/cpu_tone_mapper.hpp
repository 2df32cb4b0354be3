// The CPU pipeline with the device ToneMapper's shape (tonekit/tone_mapper.hpp): create once for a
// frame size, input layout and output, then map frames on host pointers; the temporal state lives
// in the object across frames. Every InputFormat and OutputLayout of tonekit/video.hpp, every
// registered operator, glare, night vision and temporal adaptation; always built (no CUDA needed).
//
// A frame goes: decode (cpu::tone_map_frame's: transfers, matrix, gamut policy) -> glare -> night ->
// statistics -> (temporal step) -> curve and colour (cpu::tone_map) -> output (interleaved in
// `output`, or 8-bit 4:2:0 through the BT.709 encode). For the commonest video case, 10-bit
// Y'CbCr 4:2:0 (p010, yuv420p10) with PQ or linear transfer to yuv420p / nv12 with the BT.709
// OETF (`gamma` 0), a fused, vectorised path runs instead (docs/architecture.md, "On the CPU"):
// the statistics gathered while decoding, each mapped row encoded while in cache; global
// operators without glare or night vision fuse the whole frame. Its bytes stay within one 8-bit code of the
// reference's (tests/unit/test_stream_cli.cpp); `exact` takes the reference everywhere.
#pragma once
#include <cstddef>
#include <memory>

#include "tonekit/blur.hpp"
#include "tonekit/image.hpp"
#include "tonekit/night.hpp"
#include "tonekit/operators.hpp"
#include "tonekit/status.hpp"
#include "tonekit/temporal.hpp"
#include "tonekit/tonemap.hpp"
#include "tonekit/video.hpp"

namespace tonekit {

// ToneMapperConfig's frame and look, with the same names and meanings, and the CPU's one switch.
struct CpuToneMapperConfig {
  // The frame.
  int width = 0;
  int height = 0;
  InputFormat input = InputFormat::rgba_f16;  // every layout of tonekit/video.hpp
  InputColour colour{};
  // yuv420p / nv12: 8-bit BT.709 4:2:0 out (then `output` is not used); interleaved: `output`.
  OutputLayout output_layout = OutputLayout::interleaved;
  OutputFormat output{PixelType::u8, 4};
  // The look.
  Params params;          // from prepare_params(): any registered operator
  GlareParams glare{};    // strength 0 (the default): no glare
  NightParams night{};    // on false (the default): no night vision (tonekit/night.hpp)
  bool temporal = false;  // temporal adaptation of the key and the peak (tonekit/temporal.hpp)
  TemporalParams temporal_params{};
  // true: the CPU reference everywhere, also where the fused video path covers the frame.
  bool exact = false;
};

class CpuToneMapper {
 public:
  // Checks the frame, the colour, the output and the glare plan; allocates no frame buffer. The
  // decoded scene, the display frame before a 4:2:0 encode and the workers' row buffers are made
  // by the first frame that needs them and reused by every later one.
  static Result<std::unique_ptr<CpuToneMapper>> create(const CpuToneMapperConfig& config);
  ~CpuToneMapper();
  CpuToneMapper(const CpuToneMapper&) = delete;
  CpuToneMapper& operator=(const CpuToneMapper&) = delete;

  // One frame, synchronously on the calling thread and the CPU workers (TONEKIT_THREADS):
  // `in` (width x height pixels of the input format, rows in_stride_bytes apart, 0 = packed) ->
  // `out` (output format, rows out_stride_bytes apart, 0 = packed). dt_seconds: the time since
  // the previous frame, for temporal adaptation (ignored when it is off; the first frame after
  // create() or reset_temporal() seeds the state whatever dt). Planar and YUV inputs need the
  // FramePlanes overload (packed_planes() gives a packed frame's).
  Status process(const void* in, std::size_t in_stride_bytes, void* out, std::size_t out_stride_bytes,
                 double dt_seconds = 0.0);
  // The same for any layout: each plane and its stride (0 = packed). With a yuv420p / nv12
  // output layout, `out` is the packed frame (output_frame_bytes) and out_stride_bytes must be 0.
  Status process(const FramePlanes& in, void* out, std::size_t out_stride_bytes, double dt_seconds = 0.0);

  // Another operator or other parameters for the next frame (a `gamma` change may switch the
  // fused video path on or off).
  Status set_params(const Params& params);
  // Glare for the next frame (its plan is checked here).
  Status set_glare(const GlareParams& glare);
  // Night vision for the next frame (its plan is checked here; NightParams{}: off).
  Status set_night(const NightParams& night);
  // Temporal adaptation on or off and its parameters; the state is kept.
  Status set_temporal(bool on, const TemporalParams& params);

  // The temporal state: read, reset (the next frame seeds it), seed.
  Status read_temporal_state(TemporalState& state) const;
  Status reset_temporal();
  Status seed_temporal(const TemporalState& state);

  // The last frame's own statistics; `adapted` (optional) gets what the curves read (the
  // temporal state's key and peak when temporal adaptation is on, else the frame's own).
  Status read_stats(FrameStats& stats, FrameStats* adapted = nullptr) const;

  // True when the frames take the fused video path (10-bit 4:2:0 PQ/linear to yuv420p / nv12,
  // gamma 0, not `exact`).
  bool fast_path() const;
  // Bytes of one packed output frame.
  std::size_t output_bytes() const;
  const CpuToneMapperConfig& config() const;

 private:
  struct Impl;
  explicit CpuToneMapper(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// The x86-64 level the CPU backend's hot loops run at: "baseline", "v3" (AVX2, FMA) or "v4"
// (AVX-512): the best this CPU has unless the environment's TONEKIT_CPU_LEVEL asks for a lower
// one. Every level gives the same output bytes. cpu_isa_level_supported(): the CPU's best.
const char* cpu_isa_level();
const char* cpu_isa_level_supported();

}  // namespace tonekit
