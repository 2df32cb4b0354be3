// TMQI, FSITM and colour fidelity on the GPU (where the studio needs a score live at 4K): the
// same definitions, inputs, checks and bad-pixel policy as the CPU
// reference (tonekit/quality.hpp, src/cpu/quality/), the same TmqiScore, FsitmScore and
// ColourFidelity. TMQI's local statistics run in float64 as on the CPU; FSITM's log-Gabor
// responses through cuFFT in float64 (D2Z/Z2D), loaded at run time like the blur's (no link-time
// dependency on libcufft); colour fidelity from the CPU's own per-pixel text
// (src/cpu/quality/colour_maths.hpp) in float64, its 95th percentile by a radix sort (the CPU's
// element exactly). Differences from the CPU and their reasons: tests/gpu/test_gpu_quality.cpp;
// speed: docs/performance.md.
//
// GpuQuality owns its device scratch (sized for the largest frame seen; it grows, never shrinks),
// cuFFT plans and log-Gabor filters (rebuilt when the frame's shape changes). Scoring enqueues on
// the stream given (host entries: an internal one) and waits for it, because the scores come back
// to the host. Not thread-safe: one object per thread.
//
// Available when the build has CUDA (TONEKIT_HAS_CUDA); without it create() reports no_device,
// as it does when no GPU is present. Without cuFFT, TMQI still runs and FSITM reports unsupported.
#pragma once
#include <cstddef>
#include <memory>

#include "tonekit/image.hpp"
#include "tonekit/quality.hpp"
#include "tonekit/status.hpp"

struct CUstream_st;  // cudaStream_t without cuda_runtime.h

namespace tonekit::quality {

// Which metrics a call computes, a set of bits (FSITM is most of the time: docs/performance.md).
// `both` is TMQI and FSITM (the set before colour fidelity came to the GPU); `all` adds colour.
enum class GpuMetrics : unsigned { tmqi = 1, fsitm = 2, both = 3, colour = 4, all = 7 };
constexpr GpuMetrics operator|(GpuMetrics a, GpuMetrics b) {
  return static_cast<GpuMetrics>(static_cast<unsigned>(a) | static_cast<unsigned>(b));
}

struct GpuScores {
  TmqiScore tmqi;         // zero when not asked for
  FsitmScore fsitm;       // zero when not asked for
  ColourFidelity colour;  // zero when not asked for
};

class GpuQuality {
 public:
  // no_device without a usable GPU; `device` -1 keeps the current one.
  static Result<std::unique_ptr<GpuQuality>> create(int device = -1);
  ~GpuQuality();
  GpuQuality(const GpuQuality&) = delete;
  GpuQuality& operator=(const GpuQuality&) = delete;

  // Host images: check_pair's checks and messages, upload, score, wait.
  Result<GpuScores> score(const Image& hdr, const OutputImage& ldr, GpuMetrics which = GpuMetrics::both);

  // Device images: `hdr` float32 RGB or RGBA (linear), `ldr` u8 or u16 RGB or RGBA (display code
  // values), both with space == MemorySpace::device, any row stride (0: packed; rows aligned to
  // the channel type). The same checks as check_pair (invalid_argument); enqueued on `stream`
  // (nullptr: the legacy default stream), which is synchronised before returning. The inputs
  // are only read.
  Result<GpuScores> score(const ImageView& hdr, const ImageView& ldr, CUstream_st* stream,
                          GpuMetrics which = GpuMetrics::both);

  // The split form for many tone-mapped versions of one source (map --auto, the studio): the HDR
  // side (TMQI's stretched luminance pyramid, FSITM's three phase maps, colour fidelity's
  // sanitised RGB, kept so that the caller may release the HDR) is computed once, then
  // each score_against_reference() runs only the LDR side. `which` of a score must be within
  // the reference's; the LDR must have the reference's size.
  Status set_reference(const Image& hdr, GpuMetrics which = GpuMetrics::both);
  Status set_reference(const ImageView& hdr, CUstream_st* stream, GpuMetrics which = GpuMetrics::both);
  Result<GpuScores> score_against_reference(const OutputImage& ldr, GpuMetrics which = GpuMetrics::both);
  Result<GpuScores> score_against_reference(const ImageView& ldr, CUstream_st* stream,
                                            GpuMetrics which = GpuMetrics::both);

  std::size_t scratch_bytes() const;  // device memory held (buffers, filters; cuFFT's work areas not counted)

  struct Impl;

 private:
  explicit GpuQuality(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace tonekit::quality
