// reinhard-sat on the CPU: Slomp & Oliveira 2008 (thesis 4.2.3, 5.1, Algorithm 7). One float64
// summed-area table of the sanitised luminance L_w (sat/sat_table.hpp; every `sat` id builds
// this reference table on the CPU), its row prefixes built in the statistics pass since the
// key is not known yet (box means are scaled by lum_scale on query, core::box_level_response);
// then per pixel the box-pyramid scale search of core::select_local_response, evaluated level
// by level over a chunk of pixels so that the interior boxes (contiguous table reads)
// vectorise; boxes overhanging the border replicate the edge pixels (scalar path,
// sat::box_sum_replicated, which for an interior box reads and computes exactly what the vector
// path does: both paths give identical bits, tested against the per-pixel TK_HD search).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>

#include "cpu/local/local_common.hpp"
#include "cpu/local/local_tone_map.hpp"
#include "cpu/sat/box_query.hpp"
#include "cpu/isa_level.hpp"
#include "cpu/sat/sat_table.hpp"

// The chunk search is compiled once per instruction-set level (cpu/isa_level.hpp:
// reinhard_sat_cpu_v3.cpp, _v4.cpp; the level options, so every level gives the same bytes),
// every call in it inlined (TK_ISA_INLINE_ALL).

namespace tonekit::cpu::local {
namespace detail {

#if TK_ISA_PRIMARY
TK_ISA_DECLARE(void sat_select_chunk(const float* lum, int x0, int n, int y, const double* table, int w, int h,
                                    const core::LocalSettings& s, double table_scale, float* response);)
#endif

TK_ISA_BEGIN

// V1(x, y, s_m) for pixels [x0, x0 + n) of row y; lum = their scaled luminance.
TK_ISA_INLINE_ALL void sat_select_chunk(const float* lum, int x0, int n, int y, const double* table, int w, int h,
                                      const core::LocalSettings& s, double table_scale, float* response) {
  alignas(64) double centre[kChunk];
  alignas(64) std::int64_t active[kChunk];  // lane-wide flags so the level loop vectorises
  for (int i = 0; i < n; ++i) {
    centre[i] = static_cast<double>(lum[i]);
    active[i] = 1;
  }
  const std::size_t pitch = sat::table_pitch(w);
  const double eps = s.epsilon;
  for (int level = 0; level + 1 < s.scales; ++level) {
    const int width = core::box_width(level + 1), r = width >> 1;
    const double k = core::activity_offset(s, level);
    const double inv_area = core::box_inv_area(width);
    // Interior pixels: the box lies inside the image (contiguous table reads, vectorised).
    const bool rows_inside = y - r >= 0 && y + r + 1 <= h;
    const int ia = rows_inside ? std::clamp(r - x0, 0, n) : n;
    const int ib = rows_inside ? std::clamp(w - r - x0, ia, n) : n;
    const double* top = table + static_cast<std::size_t>(rows_inside ? y - r : 0) * pitch;
    const double* bottom = table + static_cast<std::size_t>(rows_inside ? y + r + 1 : 0) * pitch;
    for (int i = ia; i < ib; ++i) {
      const int xa = x0 + i - r, xb = x0 + i + r + 1;
      const double sum = (bottom[xb] - bottom[xa]) - (top[xb] - top[xa]);  // sat::box_sum
      const double surround = sum * inv_area * table_scale;                 // core::box_level_response
      const double c = centre[i];
      const std::int64_t keep = active[i] & static_cast<std::int64_t>(core::activity_below(c, surround, k, eps));
      centre[i] = keep ? surround : c;
      active[i] = keep;
    }
    for (int i = 0; i < n; ++i) {  // near the borders: edge pixels replicated
      if (i == ia) i = ib;
      if (i >= n) break;
      const double sum = sat::box_sum_replicated(table, pitch, x0 + i, y, width, w, h);
      const double surround = sum * inv_area * table_scale;
      const double c = centre[i];
      const std::int64_t keep = active[i] & static_cast<std::int64_t>(core::activity_below(c, surround, k, eps));
      centre[i] = keep ? surround : c;
      active[i] = keep;
    }
    std::int64_t any = 0;
    for (int i = 0; i < n; ++i) any |= active[i];
    if (!any) break;
  }
  for (int i = 0; i < n; ++i) response[i] = static_cast<float>(centre[i]);
}

TK_ISA_END

#if TK_ISA_PRIMARY
void sat_select_chunk(const float* lum, int x0, int n, int y, const double* table, int w, int h,
                      const core::LocalSettings& s, double table_scale, float* response) {
  TK_ISA_DISPATCH(sat_select_chunk(lum, x0, n, y, table, w, h, s, table_scale, response));
}
#endif

}  // namespace detail

#if TK_ISA_PRIMARY

void reinhard_sat_response(const float* lum, const double* table, int w, int h, const core::LocalSettings& s,
                           float* response, double table_scale) {
  parallel_rows(h, [&](int, int y0, int y1) {
    for (int y = y0; y < y1; ++y)
      for (int x0 = 0; x0 < w; x0 += kChunk) {
        const std::size_t at = static_cast<std::size_t>(y) * w + x0;
        detail::sat_select_chunk(lum + at, x0, std::min(kChunk, w - x0), y, table, w, h, s, table_scale, response + at);
      }
  });
}

FrameStats reinhard_sat_map(const ImageView& in, const Params& params, const core::ColourSettings& c,
                            const ImageView& out, double* stats_ms, const CurveStatsHook* hook) {
  const int w = in.width, h = in.height;
  // Level 0 is the pixel: with one level (or epsilon = 0) the search never reads the table.
  const bool need_table = params.get("scales") > 1 && params.get("epsilon") > 0;
  const auto t0 = std::chrono::steady_clock::now();
  std::unique_ptr<double[]> table;
  FrameStats stats;
  if (need_table) {
    // The float64 table of L_w (every `sat` id on the CPU): row prefixes in the statistics pass,
    // then the column pass. The key is not known yet; box means are scaled on query.
    table = scratch<double>(sat::table_entries(w, h));
    const std::size_t pitch = sat::table_pitch(w);
    std::fill(table.get(), table.get() + pitch, 0.0);
    stats = stats_with_luminance(in, [&](int y, const float* lw, int n, int x0) {
      double* trow = table.get() + static_cast<std::size_t>(y + 1) * pitch;
      if (x0 == 0) trow[0] = 0.0;
      double running = trow[x0];
      for (int i = 0; i < n; ++i) {  // sat::sat_row_prefix
        running += static_cast<double>(lw[i]);
        trow[x0 + i + 1] = running;
      }
    });
    sat::sat_accumulate_columns(table.get(), w, h);
  } else {
    stats = stats_with_luminance(in, [](int, const float*, int, int) {});
  }
  if (stats_ms) *stats_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  const core::LocalSettings s = core::make_local_settings(params, hook && *hook ? (*hook)(stats) : stats);
  const float scale = static_cast<float>(s.lum_scale);
  map_rows(in, c, out, [&](int y, int x0, int n, Chunk& chunk) {
    alignas(64) float lum[kChunk];
    alignas(64) float v1[kChunk];
    for (int i = 0; i < n; ++i) lum[i] = chunk.lw[i] * scale;
    if (need_table) detail::sat_select_chunk(lum, x0, n, y, table.get(), w, h, s, scale, v1);
    else std::copy(lum, lum + n, v1);
    for (int i = 0; i < n; ++i) chunk.ld[i] = core::reinhard_local_ld(lum[i], v1[i]);
  });
  return stats;
}

#endif  // TK_ISA_PRIMARY

}  // namespace tonekit::cpu::local
