// The CPU's fused path for the commonest video case: 10-bit Y'CbCr 4:2:0 (p010, yuv420p10) with
// PQ or linear transfer in, 8-bit yuv420p / NV12 out with the BT.709 OETF. The maths is the CPU
// reference's (cpu::decode_frame, cpu::encode_yuv420; core/video_colour.hpp: matrices, co-sited
// chroma taps, transfers, gamut policy, quantisation and dither), scheduled for the vector units:
// per row, element-wise loops without branches, compiled per x86-64 level (cpu/isa_level.hpp:
// the same bytes on every level), with AVX-512 and AVX2 kernels where GCC left a loop scalar or a
// curve needs lookups (cpu/video_fast_transfers.hpp). The PQ EOTF is the reference's own table,
// the OETF one piecewise polynomial, on every level. For global operators map() fuses
// the statistics into the decode and the encode into the map. Results stay within one 8-bit code
// of the reference (StreamCli.FastPathWithinOneCodeOfTheReference); every other case goes through
// the reference. docs/performance.md (CPU stream) has the measurements behind each choice.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "tonekit/image.hpp"
#include "tonekit/operators.hpp"
#include "tonekit/tonemap.hpp"
#include "tonekit/video.hpp"

namespace tonekit::cpu {

struct StatsPartial;

// The frame is given as FramePlanes (stride 0: packed rows of that plane); tonekit::CpuToneMapper
// (src/api/cpu_tone_mapper.cpp) runs it where covers() says so.

class FastVideo {
 public:
  // True when the fast path covers this input and output (gamma == 0: the BT.709 OETF).
  static bool covers(InputFormat format, const InputColour& colour, bool yuv_output, double gamma);
  FastVideo(InputFormat format, const InputColour& colour, int width, int height);
  ~FastVideo();
  FastVideo(const FastVideo&) = delete;
  FastVideo& operator=(const FastVideo&) = delete;
  // The packed frame as scene-linear BT.709 RGB (3 channels), as cpu::decode_frame.
  void decode(const FramePlanes& frame, Image& scene) const;
  // Linear display RGB (3 channels, [0, 1]) -> 8-bit 4:2:0, as cpu::encode_yuv420 with gamma 0.
  void encode(const Image& display, OutputLayout layout, bool dither, std::uint8_t* out) const;

  // True when map() covers the operator: a global one (the curve reads only frame statistics).
  static bool fuses(const Params& params);
  // decode + cpu::tone_map + encode in two passes over row chunks, the statistics gathered while
  // decoding and each mapped row encoded while it is in cache: no display image, no separate
  // statistics read. `scene` keeps the decoded frame between the passes (planar unless the
  // robust peak or histeq reads it a second time: its contents are the pass's own afterwards).
  // *stats receives the frame's own statistics, as cpu::tone_map's.
  Status map(const FramePlanes& frame, const Params& params, const cpu::CurveStatsHook* hook, OutputLayout layout,
             bool dither, Image& scene, FrameStats& stats, std::uint8_t* out) const;

 private:
  // Decodes the frame into `scene`, interleaved or (`planar`) as three w x h planes in its
  // pixels; with `partials` (one per 16-row chunk), each chunk's luminance reduction too.
  void decode_into(const FramePlanes& frame, Image& scene, std::vector<cpu::StatsPartial>* partials, bool planar) const;

  InputFormat format_;
  InputColour colour_;
  int width_, height_;
  // Per-worker row buffers reused by every call (one call at a time: the stream's mapper thread).
  struct Workspace;
  std::unique_ptr<Workspace> workspace_;
};

}  // namespace tonekit::cpu
