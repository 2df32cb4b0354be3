// Several GPUs of one host: one frame split into bands of rows over the GPUs, with one
// key for the whole frame. Each GPU reads its band plus the context rows its operator needs
// (operator_context_rows), reduces its own rows' statistics, and one NCCL all-reduce per frame
// (two for histeq: statistics, then the histogram) gives every GPU the whole frame's totals; each
// then maps its band. The bands' outputs are the single-GPU ToneMapper's bytes (tests/gpu/
// test_multi_gpu.cpp): the statistics are integers (fixed-point log-sum, counts, bit-pattern
// maxima), so their sums do not depend on the split; the dither follows frame coordinates; the
// bands start on multiples of 64 rows with 64-row multiples of context, so reinhard-sat's
// tile-local tables see the same pixels as on one GPU.
// Glare (pyramid methods): the glare's key from per-row log-sums gathered between the GPUs, the
// shared glare pyramid's analysis on each band's rows up to the exchange level (up to 6: 63 rows
// of context, glare_context_rows), that level gathered (~1 MB at 16K), the coarser levels and the
// octaves' Gaussians on every GPU, the synthesis below it on each band's rows: the single GPU's
// bytes too.
// Temporal adaptation: every GPU steps its own copy of the state with the same combined
// statistics and the same dt, so the copies stay identical (read_temporal_state checks it).
// Video-wall mode: process() takes each band's buffers on its own GPU and leaves each band there;
// process_host() splits and joins a host frame.
// NCCL is loaded at run time (libnccl.so.2): builds and machines without it report `unsupported`.
#pragma once
#include <cstddef>
#include <memory>
#include <vector>

#include "tonekit/operators.hpp"
#include "tonekit/status.hpp"
#include "tonekit/tone_mapper.hpp"

namespace tonekit {

// One band of a frame: own rows [first_row, first_row + rows), read with context_above rows above
// and context_below rows below (fewer at the frame's top and bottom edges).
struct FrameBand {
  int device = 0;
  int first_row = 0;
  int rows = 0;
  int context_above = 0;
  int context_below = 0;
  int input_rows() const { return context_above + rows + context_below; }
  int input_first_row() const { return first_row - context_above; }
};

// Rows beyond its own a pixel of `params`' operator reads: 0 for the global operators;
// reinhard-sat: half its largest box (19); reinhard-local: its largest Gaussian radius (27);
// drago-local: half its window. Host code: reads the registry.
int operator_context_rows(const Params& params);
// Rows beyond its own a part reads for the glare of a width x frame_height frame: the shared
// glare pyramid's analysis steps up to the level the parts exchange (2^level - 1 rows, at most
// 63); 0 when the glare is off. Errors: the glare's parameters (plan_glare), or a blur method
// other than pyramid-* (only a shared pyramid splits: docs/architecture.md, "Several GPUs").
Result<int> glare_context_rows(const GlareParams& glare, int width, int frame_height);

// Equal bands of `height` rows for `devices` (top to bottom), their boundaries on multiples of
// `align` rows, the context rows rounded up to a multiple of `align` and clipped at the frame's
// edges. Errors: no device, align < 1, context < 0, or fewer than `align` rows per device.
Result<std::vector<FrameBand>> plan_bands(int height, const std::vector<int>& devices, int context_rows, int align = 64);

struct MultiGpuConfig {
  // The whole frame (width, height, input, output, timings) and the look (params, temporal).
  // Its `device` and `part` are set per band. Glare splits when its blur method is a pyramid.
  ToneMapperConfig frame;
  std::vector<int> devices;  // one band per device, distinct (NCCL's rule), top to bottom
  // Context rows to plan for (>= the operator's own; more lets set_params switch to an operator
  // that reads further without a new object). -1: the configured operator's.
  int context_rows = -1;
};

// Per-frame times of the last frame (CUDA events on the first band's stream; timings on).
struct MultiGpuTimings {
  double total_ms = 0.0;     // the first band's stream, from its first stage to its last
  double exchange_ms = 0.0;  // its all-reduce(s), waiting for the other GPUs included
};

class MultiGpuToneMapper {
 public:
  static Result<std::unique_ptr<MultiGpuToneMapper>> create(const MultiGpuConfig& config);
  ~MultiGpuToneMapper();
  MultiGpuToneMapper(const MultiGpuToneMapper&) = delete;
  MultiGpuToneMapper& operator=(const MultiGpuToneMapper&) = delete;

  const std::vector<FrameBand>& bands() const;

  // Video-wall mode: band i's input (its input_rows() rows, from frame row input_first_row(), rows
  // in_stride bytes apart, 0 = packed) and output (its own rows) in the memory of bands()[i].device.
  // Enqueued on each band's own stream (one host thread per GPU); returns when every GPU has its
  // work queued. dt_seconds as ToneMapper::process.
  struct BandBuffers {
    const void* in = nullptr;
    std::size_t in_stride = 0;
    void* out = nullptr;
    std::size_t out_stride = 0;
  };
  Status process(const std::vector<BandBuffers>& buffers, double dt_seconds = 0.0);
  // A whole frame in host memory (pinned memory copies fastest): each band (with its context) is
  // uploaded to its GPU, mapped and its own rows downloaded into `out`; returns when `out` is
  // written.
  Status process_host(const void* in, std::size_t in_stride, void* out, std::size_t out_stride,
                      double dt_seconds = 0.0);
  // Waits for every GPU's last frame.
  Status synchronize();

  // Another operator or parameters for every band (its context must fit the planned one).
  Status set_params(const Params& params);
  // The whole frame's statistics (synchronises; the same on every GPU: the first band's).
  Status read_stats(FrameStats& stats, FrameStats* adapted = nullptr);
  // Band i's copy of the temporal state (synchronises).
  Status read_temporal_state(int band, TemporalState& state);
  Status read_timings(MultiGpuTimings& timings);

 private:
  struct Impl;
  explicit MultiGpuToneMapper(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace tonekit
