// The CPU statistics pass (docs/architecture.md stage 1): sanitised BT.709 luminance, sum of
// log(delta + L) in float64, min, max, smallest positive, and the NaN / Inf / negative pixel
// counts, in one read of the input. Rows are split into one band per thread; the bands merge in
// order, so the result does not depend on scheduling.
#pragma once
#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "cpu/map_kernels.hpp"
#include "core/robust_peak.hpp"
#include "cpu/parallel.hpp"
#include "tonekit/tonemap.hpp"

namespace tonekit::cpu {

struct StatsPartial {
  LuminanceReduction lum{std::numeric_limits<float>::infinity(), 0.0f, std::numeric_limits<float>::infinity(), 0.0};
  BadPixelCounts bad;
};

// The bands' partial results, merged in band order.
FrameStats merge_stats(const std::vector<StatsPartial>& partials, std::uint64_t pixel_count);

// The statistics pass; row_sink(y, lw, n, x0) receives each chunk of sanitised L_w of row y, so
// a caller can build what it needs from the luminance (a summed-area table's row prefixes, a
// luminance plane) in the same read of the input. compute_stats is this with no sink.
template <class RowSink>
FrameStats compute_stats_with(const ImageView& in, RowSink&& row_sink) {
  std::vector<StatsPartial> partials(band_count(in.height));
  parallel_rows(in.height, [&](int band, int y0, int y1) {
    StatsPartial p;
    Chunk chunk;
    for (int y = y0; y < y1; ++y) {
      const void* row = in.row<const void>(y);
      for (int x0 = 0; x0 < in.width; x0 += kChunk) {
        const int n = std::min(kChunk, in.width - x0);
        load_luminance_chunk(row, x0, n, in.channels, in.type, chunk);
        reduce_luminance(chunk, n, p.lum);
        count_bad_pixels(row, x0, n, in.channels, in.type, p.bad);
        row_sink(y, static_cast<const float*>(chunk.lw), n, x0);
      }
    }
    partials[band] = p;
  });
  return merge_stats(partials, static_cast<std::uint64_t>(in.width) * in.height);
}

// Histogram of log luminance over the positive pixels, bins spanning
// [log min_positive, log max] (core::histogram_range); a second pass once stats are known.
std::vector<std::uint64_t> log_luminance_histogram(const ImageView& input, const FrameStats& stats, int bins);
// The same over an explicit range (bin = core::histeq_bin of ln L).
std::vector<std::uint64_t> log_luminance_histogram(const ImageView& input, double log_min, double inv_log_range, int bins);

// log_luminance_histogram over the robust peak's range with core::kPeakBins bins, the same
// counts, with the float log2 of core::peak_bin_fast in a vectorised loop per row and the double
// log only near bin edges (the double log per pixel made peak_percentile cost a CPU stream ~25 %).
std::vector<std::uint64_t> peak_histogram(const ImageView& input, const core::PeakRange& range);

// Sets stats.peak_luminance: max_luminance, or for percentile < 100 the robust peak
// (core/robust_peak.hpp) from a second read of the input.
void apply_robust_peak(const ImageView& input, FrameStats& stats, double percentile);

// A global operator's curve for the frame `in` whose statistics pass gave `stats`: the robust
// peak (second read, only for peak_percentile < 100) into stats, the equalisation table (second
// read, only when plan.histogram_bins > 0) into hist_table (the curve points into it), then the
// temporal hook, if any, on the statistics the curve reads. cpu::tone_map's order; streams that
// gather the statistics while decoding (cpu/video_fast.cpp) call it too.
core::CurveSettings global_curve(const ImageView& in, const core::CurvePlan& plan, FrameStats& stats,
                                 const CurveStatsHook* hook, std::vector<float>& hist_table);

}  // namespace tonekit::cpu
