#include "cpu/sat/sat_table.hpp"

#include <algorithm>

#include "core/parallel.hpp"
#include "cpu/sat/box_query.hpp"

namespace tonekit::sat {

const char* sat_algorithm_name(SatAlgorithm a) {
  switch (a) {
    case SatAlgorithm::automatic: return "auto";
    case SatAlgorithm::recursive_doubling: return "recursive-doubling";
    case SatAlgorithm::blelloch: return "blelloch";
    case SatAlgorithm::scan_transpose_scan: return "scan-transpose-scan";
    case SatAlgorithm::decoupled_lookback: return "decoupled-lookback";
  }
  return "?";
}

void sat_row_prefix(const float* row, int w, double* table_row, double offset) {
  double s = 0.0;
  table_row[0] = 0.0;
  for (int x = 0; x < w; ++x) {
    s += static_cast<double>(row[x]) - offset;
    table_row[x + 1] = s;
  }
}

void sat_accumulate_columns(double* table, int w, int h) {
  const std::size_t pitch = table_pitch(w);
  // Column bands: each thread walks down its own columns; rows are read and written
  // contiguously within the band (vectorised).
  core::parallel_rows(w + 1, [&](int, int x0, int x1) {
    for (int y = 2; y <= h; ++y) {
      const double* above = table + static_cast<std::size_t>(y - 1) * pitch;
      double* here = table + static_cast<std::size_t>(y) * pitch;
      for (int x = x0; x < x1; ++x) here[x] += above[x];
    }
  });
}

void build_sat_f64(const float* plane, int w, int h, std::size_t plane_pitch, double* table, double offset) {
  const std::size_t pitch = table_pitch(w);
  for (std::size_t x = 0; x < pitch; ++x) table[x] = 0.0;
  core::parallel_rows(h, [&](int, int y0, int y1) {
    for (int y = y0; y < y1; ++y)
      sat_row_prefix(plane + static_cast<std::size_t>(y) * plane_pitch, w, table + static_cast<std::size_t>(y + 1) * pitch,
                     offset);
  });
  sat_accumulate_columns(table, w, h);
}

double plane_mean(const float* plane, int w, int h, std::size_t plane_pitch) {
  std::vector<double> partial(core::band_count(h), 0.0);
  core::parallel_rows(h, [&](int band, int y0, int y1) {
    double s = 0.0;
    for (int y = y0; y < y1; ++y) {
      const float* row = plane + static_cast<std::size_t>(y) * plane_pitch;
      for (int x = 0; x < w; ++x) s += row[x];
    }
    partial[band] = s;
  });
  double s = 0.0;
  for (double p : partial) s += p;
  return w > 0 && h > 0 ? s / (static_cast<double>(w) * h) : 0.0;
}

std::size_t tiled_entries(int w, int h) {
  const TiledLayout t = tiled_layout(w, h);
  return static_cast<std::size_t>(t.tiles_x) * t.tiles_y * kSatTileEntries;
}

void build_sat_tiled(const float* plane, int w, int h, std::size_t plane_pitch, float* hi, float* lo) {
  const TiledLayout t = tiled_layout(w, h);
  core::parallel_rows(t.tiles_y, [&](int, int ty0, int ty1) {
    std::vector<double> local(kSatTileEntries);
    for (int ty = ty0; ty < ty1; ++ty)
      for (int tx = 0; tx < t.tiles_x; ++tx) {
        const int x0 = tx * kSatTile, y0 = ty * kSatTile;
        const int tw = std::min(kSatTile, w - x0), th = std::min(kSatTile, h - y0);
        std::fill(local.begin(), local.end(), 0.0);
        for (int ly = 0; ly < th; ++ly) {
          const float* row = plane + static_cast<std::size_t>(y0 + ly) * plane_pitch + x0;
          const double* above = local.data() + static_cast<std::size_t>(ly) * kSatTilePitch;
          double* here = local.data() + static_cast<std::size_t>(ly + 1) * kSatTilePitch;
          double run = 0.0;
          for (int lx = 0; lx < tw; ++lx) {
            run += static_cast<double>(row[lx]);
            here[lx + 1] = above[lx + 1] + run;
          }
        }
        const std::size_t base = static_cast<std::size_t>(ty * t.tiles_x + tx) * kSatTileEntries;
        for (int i = 0; i < kSatTileEntries; ++i) {
          const float high = static_cast<float>(local[i]);
          hi[base + i] = high;
          lo[base + i] = static_cast<float>(local[i] - static_cast<double>(high));
        }
      }
  });
}

void build_sat_f32(const float* plane, int w, int h, std::size_t plane_pitch, float offset, float* table) {
  const std::size_t pitch = table_pitch(w);
  for (std::size_t x = 0; x < pitch; ++x) table[x] = 0.0f;
  for (int y = 0; y < h; ++y) {
    const float* row = plane + static_cast<std::size_t>(y) * plane_pitch;
    const float* above = table + static_cast<std::size_t>(y) * pitch;
    float* here = table + static_cast<std::size_t>(y + 1) * pitch;
    float s = 0.0f;
    here[0] = 0.0f;
    for (int x = 0; x < w; ++x) {
      s += row[x] - offset;
      here[x + 1] = above[x + 1] + s;
    }
  }
}

}  // namespace tonekit::sat
