// Frame statistics in one pass over the input (architecture.md stage 1): sanitised BT.709
// luminance, sum of log(delta + L) in float64, min, max, smallest positive, and the NaN / Inf /
// negative pixel counts. Rows are split into one band per thread; bands merge in order, so the
// result does not depend on scheduling.
#include "cpu/stats.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/map_settings.hpp"
#include "cpu/map_kernels.hpp"
#include "cpu/parallel.hpp"
#include "cpu/pixel_access.hpp"

namespace tonekit::cpu {
namespace {

struct Partial {
  LuminanceReduction lum{std::numeric_limits<float>::infinity(), 0.0f, std::numeric_limits<float>::infinity(), 0.0};
  BadPixelCounts bad;
};

}  // namespace

FrameStats compute_stats(const ImageView& in) {
  std::vector<Partial> partials(band_count(in.height));
  parallel_rows(in.height, [&](int band, int y0, int y1) {
    Partial p;
    Chunk chunk;
    for (int y = y0; y < y1; ++y) {
      const void* row = in.row<const void>(y);
      for (int x0 = 0; x0 < in.width; x0 += kChunk) {
        const int n = std::min(kChunk, in.width - x0);
        load_luminance_chunk(row, x0, n, in.channels, in.type, chunk);
        reduce_luminance(chunk, n, p.lum);
        count_bad_pixels(row, x0, n, in.channels, in.type, p.bad);
      }
    }
    partials[band] = p;
  });
  FrameStats s;
  s.pixel_count = static_cast<std::uint64_t>(in.width) * in.height;
  Partial t;
  for (const Partial& p : partials) {
    t.lum.log_sum += p.lum.log_sum;
    t.lum.min = std::min(t.lum.min, p.lum.min);
    t.lum.max = std::max(t.lum.max, p.lum.max);
    t.lum.min_positive = std::min(t.lum.min_positive, p.lum.min_positive);
    t.bad.nan += p.bad.nan; t.bad.inf += p.bad.inf; t.bad.negative += p.bad.negative;
  }
  if (s.pixel_count == 0) return s;
  s.log_sum = t.lum.log_sum;
  s.log_average = std::exp(t.lum.log_sum / static_cast<double>(s.pixel_count));
  s.min_luminance = t.lum.min;
  s.max_luminance = t.lum.max;
  s.min_positive_luminance = t.lum.min_positive < std::numeric_limits<float>::infinity() ? t.lum.min_positive : 0.0;
  s.nan_count = t.bad.nan; s.inf_count = t.bad.inf; s.negative_count = t.bad.negative;
  return s;
}

std::vector<std::uint64_t> log_luminance_histogram(const ImageView& in, const FrameStats& stats, int bins) {
  const core::HistogramRange range = core::histogram_range(stats);
  std::vector<std::vector<std::uint64_t>> partial(band_count(in.height), std::vector<std::uint64_t>(bins, 0));
  parallel_rows(in.height, [&](int band, int y0, int y1) {
    auto& h = partial[band];
    for (int y = y0; y < y1; ++y) {
      const void* row = in.row<const void>(y);
      for (int x = 0; x < in.width; ++x) {
        float r, g, b;
        load_rgb(row, x, in.channels, in.type, r, g, b);
        float l = core::luminance(r, g, b);
        if (!(l > 0.0f)) continue;
        ++h[core::histeq_bin<double>(std::log(static_cast<double>(l)), range.log_min, range.inv_log_range, bins)];
      }
    }
  });
  std::vector<std::uint64_t> total(bins, 0);
  for (const auto& h : partial)
    for (int b = 0; b < bins; ++b) total[b] += h[b];
  return total;
}

}  // namespace tonekit::cpu
