// drago-local on the CPU: Qian 2013 (Drago GPU seed, section 2.2). The adaptation luminance L_wa
// of each pixel is the mean of L_w over the n x n window centred on it, computed as the paper's
// three steps: (a) column sums over n rows (Eq 7), kept as running sums down the rows; (b) row
// sums of those over n columns (Eq 8), running along the row; both only for the interior, so
// the inner loops have no border tests; (c) border pixels copy the nearest interior mean
// ("shared region average"). Sums in float64. Then Drago's curve with L_wa
// (core::drago_local_ld) and the global colour/store stages.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <vector>

#include "core/map_settings.hpp"
#include "cpu/isa_level.hpp"
#include "cpu/local/local_common.hpp"
#include "cpu/stats.hpp"
#include "cpu/local/local_tone_map.hpp"

// pixel_centred_mean is compiled once per instruction-set level (cpu/isa_level.hpp:
// drago_local_cpu_v3.cpp, _v4.cpp; the level options, so every level gives the same bytes).
namespace tonekit::cpu::local {

#if TK_ISA_PRIMARY
TK_ISA_DECLARE(void pixel_centred_mean(const float* plane, int w, int h, int window, float* mean);)
#endif

TK_ISA_BEGIN
namespace {

// Largest odd window <= n that fits a side of `size` pixels.
int fitted_window(int n, int size) {
  const int largest = (size & 1) ? size : size - 1;
  return std::max(1, std::min(n | 1, largest));
}

}  // namespace

void pixel_centred_mean(const float* plane, int w, int h, int window, float* mean) {
  const int nx = fitted_window(window, w), ny = fitted_window(window, h);
  const int rx = nx / 2, ry = ny / 2;
  const double inv_area = 1.0 / (static_cast<double>(nx) * ny);
  // Interior rows are [ry, h - ry); row y uses the sums of interior row clamp(y, ry, h - 1 - ry).
  // The running column sums restart (direct sums) at every kRestartRows-th interior row, so each
  // row's sums depend on its index only, not on where a thread's band begins: the result does
  // not depend on the thread count.
  constexpr int kRestartRows = 64;
  parallel_rows(h, [&](int, int y0, int y1) {
    std::vector<double> col(w);
    int current = -1, current_block = -1;
    for (int y = y0; y < y1; ++y) {
      const int target = std::clamp(y, ry, h - 1 - ry);
      if (target / kRestartRows != current_block) {
        // (a) Eq 7: column sums of rows [start - ry, start + ry], directly.
        current_block = target / kRestartRows;
        current = std::max(current_block * kRestartRows, ry);
        std::fill(col.begin(), col.end(), 0.0);
        for (int k = current - ry; k <= current + ry; ++k) {
          const float* src = plane + static_cast<std::size_t>(k) * w;
          for (int x = 0; x < w; ++x) col[x] += src[x];
        }
      }
      for (; current < target; ++current) {  // slide the window one row down
        const float* add = plane + static_cast<std::size_t>(current + ry + 1) * w;
        const float* sub = plane + static_cast<std::size_t>(current - ry) * w;
        for (int x = 0; x < w; ++x) col[x] += static_cast<double>(add[x]) - static_cast<double>(sub[x]);
      }
      // (b) Eq 8: running row sums over the interior columns [rx, w - rx).
      float* dst = mean + static_cast<std::size_t>(y) * w;
      double run = 0.0;
      for (int x = 0; x < nx; ++x) run += col[x];
      dst[rx] = static_cast<float>(run * inv_area);
      for (int x = rx + 1; x < w - rx; ++x) {
        run += col[x + rx] - col[x - rx - 1];
        dst[x] = static_cast<float>(run * inv_area);
      }
      // (c) borders take the nearest interior mean.
      std::fill(dst, dst + rx, dst[rx]);
      std::fill(dst + w - rx, dst + w, dst[w - 1 - rx]);
    }
  });
}

TK_ISA_END

#if TK_ISA_PRIMARY
void pixel_centred_mean(const float* plane, int w, int h, int window, float* mean) {
  TK_ISA_DISPATCH(pixel_centred_mean(plane, w, h, window, mean));
}

FrameStats drago_local_map(const ImageView& in, const Params& params, const core::ColourSettings& c,
                           const ImageView& out, double* stats_ms, const CurveStatsHook* hook) {
  const int w = in.width, h = in.height;
  const std::size_t count = static_cast<std::size_t>(w) * h;
  auto lw = scratch<float>(count);
  auto lwa = scratch<float>(count);
  const auto t0 = std::chrono::steady_clock::now();
  FrameStats stats = stats_with_luminance_plane(in, lw.get());
  apply_robust_peak(in, stats, core::peak_percentile_of(params));
  if (stats_ms) *stats_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  const core::LocalSettings s = core::make_local_settings(params, hook && *hook ? (*hook)(stats) : stats);
  pixel_centred_mean(lw.get(), w, h, s.window, lwa.get());
  map_rows(in, c, out, [&](int y, int x0, int n, Chunk& chunk) {
    const float* a = lwa.get() + static_cast<std::size_t>(y) * w + x0;
    for (int i = 0; i < n; ++i) chunk.ld[i] = core::drago_local_ld(chunk.lw[i], a[i], s);
  });
  return stats;
}
#endif  // TK_ISA_PRIMARY

}  // namespace tonekit::cpu::local
