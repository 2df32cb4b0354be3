#include "cpu/stats.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/map_settings.hpp"
#include "core/robust_peak.hpp"
#include "cpu/map_kernels.hpp"
#include "cpu/parallel.hpp"
#include "cpu/pixel_access.hpp"

namespace tonekit::cpu {

FrameStats merge_stats(const std::vector<StatsPartial>& partials, std::uint64_t pixel_count) {
  FrameStats s;
  s.pixel_count = pixel_count;
  StatsPartial t;
  for (const StatsPartial& p : partials) {
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
  s.peak_luminance = t.lum.max;  // apply_robust_peak replaces it when an operator asks
  s.min_positive_luminance = t.lum.min_positive < std::numeric_limits<float>::infinity() ? t.lum.min_positive : 0.0;
  s.nan_count = t.bad.nan; s.inf_count = t.bad.inf; s.negative_count = t.bad.negative;
  return s;
}

FrameStats compute_stats(const ImageView& in) {
  return compute_stats_with(in, [](int, const float*, int, int) {});
}

std::vector<std::uint64_t> log_luminance_histogram(const ImageView& in, const FrameStats& stats, int bins) {
  const core::HistogramRange range = core::histogram_range(stats);
  return log_luminance_histogram(in, range.log_min, range.inv_log_range, bins);
}

std::vector<std::uint64_t> log_luminance_histogram(const ImageView& in, double log_min, double inv_log_range, int bins) {
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
        ++h[core::histeq_bin<double>(std::log(static_cast<double>(l)), log_min, inv_log_range, bins)];
      }
    }
  });
  std::vector<std::uint64_t> total(bins, 0);
  for (const auto& h : partial)
    for (int b = 0; b < bins; ++b) total[b] += h[b];
  return total;
}

std::vector<std::uint64_t> peak_histogram(const ImageView& in, const core::PeakRange& r) {
  const core::PeakBinning binning = core::peak_binning(r);
  std::vector<std::vector<std::uint64_t>> partial(band_count(in.height), std::vector<std::uint64_t>(core::kPeakBins, 0));
  parallel_rows(in.height, [&](int band, int y0, int y1) {
    auto& hist = partial[band];
    std::vector<float> lum(static_cast<std::size_t>(in.width)), t(lum.size());
    for (int y = y0; y < y1; ++y) {
      const void* row = in.row<const void>(y);
      for (int x = 0; x < in.width; ++x) {
        float cr, cg, cb;
        load_rgb(row, x, in.channels, in.type, cr, cg, cb);
        lum[x] = core::luminance(cr, cg, cb);
      }
      for (int x = 0; x < in.width; ++x)  // vectorised (libmvec log2f)
        t[x] = (std::log2(lum[x] > 0.0f ? lum[x] : 1.0f) - binning.log2_min) * binning.scale;
      for (int x = 0; x < in.width; ++x) {
        const float l = lum[x];
        if (!(l > 0.0f)) continue;
        int bin = core::peak_bin_fast(t[x], l, binning);
        if (bin < 0) bin = core::histeq_bin<double>(std::log(static_cast<double>(l)), r.log_min, r.inv_log_range, core::kPeakBins);
        ++hist[bin];
      }
    }
  });
  std::vector<std::uint64_t> h(core::kPeakBins, 0);
  for (const auto& p : partial)
    for (int b = 0; b < core::kPeakBins; ++b) h[b] += p[b];
  return h;
}

void apply_robust_peak(const ImageView& in, FrameStats& stats, double percentile) {
  stats.peak_luminance = stats.max_luminance;
  if (!(percentile < 100.0) || !(stats.max_luminance > 0.0) || !(stats.min_positive_luminance > 0.0)) return;
  const core::PeakRange r = core::peak_range(stats.min_positive_luminance, stats.max_luminance);
  if (!(r.inv_log_range > 0.0)) return;
  const std::vector<std::uint64_t> h = peak_histogram(in, r);
  stats.peak_luminance = core::robust_peak_from_histogram(h.data(), core::kPeakBins, percentile,
                                                          stats.min_positive_luminance, stats.max_luminance);
}

double robust_peak(const ImageView& in, const FrameStats& stats, double percentile) {
  FrameStats s = stats;
  apply_robust_peak(in, s, percentile);
  return s.peak_luminance;
}

}  // namespace tonekit::cpu
