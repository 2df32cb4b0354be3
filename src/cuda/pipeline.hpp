// Dispatch layer of the CUDA backend: the plain data the kernels share and the
// launch functions that pick a kernel for a format and size its grid. Kernels live in
// stats_kernels.cu, histogram.cu and map_kernel.cuh (map_kernel*.cu); the ToneMapper (tone_mapper.cu) owns the
// scratch and calls these in order on one stream.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "core/curve_setup.hpp"
#include "core/curves.hpp"
#include "core/video_colour.hpp"
#include "cuda/tuning.hpp"
#include "tonekit/tonemap.hpp"
#include "tonekit/video.hpp"

namespace tonekit::cuda {

// A partial of the statistics reduction: block and grid totals keep the log-sum in double, in log2
// units (each group of 4 pixels' float sum rounded to 2^-kLogSumFracBits, then added in double:
// exactly, see kLogSumFracBits).
struct StatsPartial {
  double log_sum;
  float min, max, min_positive;
  unsigned nan, inf, negative;
};

// Grid-wide totals of the one-launch statistics kernels (fused, bulk, async): one atomic per
// block and field, then the last block (ticket) reads them, finishes the frame and zeroes them.
// All zero is the empty state, so the fields are coded for that: the log-sum in fixed point
// (two's complement, units of 2^-kLogSumFracBits; integer adds in any order give the same total:
// deterministic), min and smallest positive as the complement of their bit patterns under an
// unsigned max (luminance is >= 0: its bits order as unsigned integers), max as its bits.
struct StatsAccumulator {
  unsigned long long log_sum_fixed;
  unsigned min_complement, max_bits, min_positive_complement;
  unsigned nan, inf, negative;
  unsigned log_sum_infinite;  // a block's log-sum was +Inf (a luminance rounded up to Inf): the total is +Inf
  unsigned ticket;
};
// The log-sum is kept in log2 units (natural log only in finalise_frame). |log-sum| <= 2^28
// pixels (kMaxImagePixels) x 128 (log2 FLT_MAX) = 2^35: 2^26 units keep it below 2^61. Each
// group of 4 pixels of a row is rounded to the unit (group_stats_values: <= 2^-27, 1.3e-9 in ln
// units at worst), after which all sums are exact: the total does not depend on the split.
constexpr int kLogSumFracBits = 26;
constexpr float kLogSumScale = 67108864.0f;  // 2^kLogSumFracBits
static_assert(kLogSumScale == static_cast<float>(1ull << kLogSumFracBits));

// A frame part's statistics as StatsExchange::combine words (FramePart): the accumulator's fields
// widened, with the part's pixel count, so that sums and maxima over the parts give the whole
// frame's accumulator.
struct StatsExchangeWords {
  static constexpr int kSums = 5, kMaxima = 4;
  unsigned long long sums[kSums];  // log_sum_fixed, nan, inf, negative, pixels
  unsigned maxima[kMaxima];        // min_complement, max_bits, min_positive_complement, log_sum_infinite
};

// Device-resident result of a frame: the statistics and the curve constants derived from them
// on the device (core::prepare_curve_hd), read by the map kernel.
struct DeviceFrame {
  FrameStats stats;
  FrameStats adapted;  // with temporal adaptation: `stats` with the adapted key and peak (launch_temporal_step)
  core::CurveSettings curve;
  StatsAccumulator acc;  // zero between frames
  StatsExchangeWords exchange;  // a frame part's totals before the exchange (FrameGeometry::defer_finish)
};

struct FrameGeometry {
  const unsigned char* in = nullptr;
  std::size_t in_stride = 0;
  int width = 0;
  int height = 0;
  unsigned groups_per_row = 0;  // ceil(width / 4)
  long long total_groups = 0;  // groups_per_row * height
  // A frame part (tonekit::FramePart): the one-launch statistics kernels leave their totals in
  // DeviceFrame::exchange for StatsExchange::combine; launch_finish_exchanged finishes the frame.
  bool defer_finish = false;
};

// Colour stage settings as floats, passed by value to the map kernel.
struct MapColour {
  float saturation = 1.0f;
  float gamma = 0.0f;  // 0 = sRGB
  float inv_gamma = 0.0f;  // 1 / gamma (float, as core::encode_transfer computes it)
  int dither = 1;
  int dither_row0 = 0;  // the frame row of row 0 (a frame part's first row): the dither's coordinates
  // The frame's global operator (its index in core::GlobalOperators, from the CurvePlan): the map
  // kernels are instantiated per operator, so each holds one curve's code and registers.
  int curve = -1;
};

// Scratch of the statistics variants, sized once by stats_scratch_sizes().
struct StatsScratch {
  StatsPartial* partials = nullptr;   // mjp: one per block; harris: first pass
  StatsPartial* partials2 = nullptr;  // harris: ping-pong
  StatsPartial* total = nullptr;      // cub: the reduced value
  void* cub_temp = nullptr;
  std::size_t cub_temp_bytes = 0;
  int fused_grid = 0;  // blocks of the fused and mjp kernels
  unsigned fused_head_groups = 0;  // fused: groups read with the L2 evict-first policy (stats_kernels.cu, v16)
  int flat_grid = 0;   // blocks of the fused kernel's flat form (packed frames)
  int bulk_grid = 0;   // blocks of the bulk (TMA pipeline) kernel
  int async_grid = 0;  // blocks of the async (per-thread cp.async pipeline) kernel
};

constexpr int kGroup = 4;  // pixels per thread per step: 16-byte loads (formats.hpp)
constexpr int kStatsThreads = 256;
constexpr int kMapThreads = 128;  // a 1920-wide row is 480 groups: 4 blocks, 6% idle
constexpr int kHarrisElems = 2 * kStatsThreads;  // groups per Harris block (first add during load)
constexpr int kMaxHistogramBins = 65536;
constexpr int kSharedHistogramBins = 16384;  // 64 KB of shared counters; more bins use global atomics

// Number of partials each variant needs, and CUB's temporary storage, for `total_groups`.
struct StatsScratchSizes {
  std::size_t partials = 0, partials2 = 0, cub_temp_bytes = 0;
  int fused_grid = 0;
  unsigned fused_head_groups = 0;
  int flat_grid = 0;
  int bulk_grid = 0;
  int async_grid = 0;
};
Status stats_scratch_sizes(InputFormat in, long long total_groups, int sm_count, StatsScratchSizes& sizes,
                          int blocks_per_sm = 0);

Status launch_stats(StatsAlgorithm algo, InputFormat in, const FrameGeometry& g, const StatsScratch& scratch,
                    DeviceFrame* frame, const core::CurvePlan& params, const float* hist_table, cudaStream_t s);
// Temporal adaptation of the frame (params.temporal.state set): one thread after the statistics
// pass folds frame->stats into the state (core::temporal_step), writes frame->adapted and
// recomputes frame->curve from it. A kernel of its own, so the statistics kernels carry no call
// (inlined or called, the double-precision step cost them registers: H100 4K half RGBA reinhard
// 0.0676 -> 0.0700 ms with it in the finisher).
// A frame part after StatsExchange::combine: the combined DeviceFrame::exchange -> stats and curve.
Status launch_finish_exchanged(DeviceFrame* frame, const core::CurvePlan& params, const float* hist_table,
                               cudaStream_t s);
Status launch_temporal_step(DeviceFrame* frame, const core::CurvePlan& params, const float* hist_table, cudaStream_t s);
Status launch_histogram(InputFormat in, const FrameGeometry& g, const DeviceFrame* frame,
                        unsigned long long* hist, int bins, int sm_count, cudaStream_t s);
// The robust peak (core/robust_peak.hpp; CurvePlan::peak_percentile < 100), after the
// statistics (and a frame part's exchange): the histogram of ln L over the frame's
// [ln min_positive, ln max] into `hist` (core::kPeakBins entries; a frame part combines it with
// the other parts' next), then one block sets frame->stats.peak_luminance and recomputes
// frame->curve. A temporal step runs after it.
Status launch_peak_histogram(InputFormat in, const FrameGeometry& g, const DeviceFrame* frame, unsigned long long* hist,
                             int sm_count, cudaStream_t s);
Status launch_robust_peak(const unsigned long long* hist, DeviceFrame* frame, const core::CurvePlan& params,
                          const float* hist_table, cudaStream_t s);
Status scan_temp_bytes(std::size_t& bytes);
Status launch_histeq_table(ScanAlgorithm algo, const unsigned long long* hist, unsigned long long* cdf, int bins,
                           float* table, void* cub_temp, std::size_t cub_temp_bytes, cudaStream_t s);
Status launch_map(InputFormat in, OutputFormat out, const FrameGeometry& g, void* device_out, std::size_t out_stride,
                  const DeviceFrame* frame, const MapColour& colour, bool reverse, bool programmatic,
                  cudaStream_t s);

// A video output written by the map itself (global operators, the decoded float RGB frame in):
// 8-bit Y'CbCr 4:2:0 (yuv420p or NV12, one packed frame), as the encode stage writes it.
struct Encode420 {
  OutputLayout layout = OutputLayout::yuv420p;
  float gamma = 0.0f;  // 0: the BT.709 OETF
  bool dither = true;
  const core::LerpPair* oetf_table = nullptr;  // the device's core::bt709_oetf_pairs_host
};
// The map fused with the 4:2:0 encode: one thread per 2x2 block maps its pixels as launch_map
// does for a float RGB output and encodes them; g.in is rgb_f32.
Status launch_map_encode420(const FrameGeometry& g, std::uint8_t* out, const DeviceFrame* frame, const MapColour& colour,
                            const Encode420& enc, cudaStream_t s);

}  // namespace tonekit::cuda
