// Summed-area tables, CPU reference side (issue: summed-area tables, a module of its own).
//
// Layout (box_query.hpp): (w + 1) x (h + 1) entries, pitch w + 1, exclusive (row 0 and column 0
// are zero). Every algorithm id must produce this table; on the CPU all ids build the float64
// reference below (one sequential-scan algorithm, rows then columns, threaded), the GPU side
// implements recursive doubling, Blelloch, scan-transpose-scan and decoupled look-back.
//
// Precision strategy (docs/architecture.md, "Precision"). A float32 table of an 8K frame holds sums of
// ~3.3e7 values: with a scaled-luminance mean of ~30 its entries reach ~1e9, whose float32
// spacing (64) is larger than a dark 3x3 box's whole sum. Measured at 7680x4320 on the scene of
// tests/unit/test_sat.cpp (mean 33: sky, sun, windows over a foreground down to 5e-4), maximum
// relative error of box means (widths 3..39) against float64 brute-force sums:
//   plain float32 table ..................... 2.7e+02   (useless)
//   float32 table of L - mean ............... 1.1e+03   (structured frames: the deviations'
//                                                         partial sums are as large as the sums)
//   (a global float-float pair of L - mean, tried during design: 6.9e-04; 48 bits of 1e9 is
//    still ~4e-6 absolute)
//   float64 table (double accumulation
//     and storage) .......................... 4.1e-06   (the CPU reference)
//   tile-relative float32 pairs ............. 1.7e-07   (the float32 strategy; float32 division)
// Hence:
//   * the reference: float64 accumulation and storage (`build_sat_f64`), the table the CPU
//     operator uses and the one GPU tables are compared against. Its error is absolute, ~2^-53
//     of the largest entry, so relative accuracy degrades for boxes far darker than the frame's
//     mean (4e-6 above; still far below what a display shows);
//   * the float32 strategy: tile-relative compensated tables (`build_sat_tiled`, queried with
//     sat::tiled_rect_sum / tiled_box_mean_replicated): 64 x 64 tiles, each with its own
//     exclusive table accumulated in float64 and stored as two float32 planes hi + lo, so an
//     entry never sums more than one tile and keeps ~48 bits of it; a box (<= 65 wide) is the sum
//     of <= 4 pieces. 8 bytes per entry like a float64 table, but float32 arithmetic (TwoSum)
//     and no carry between tiles: the tiles scan independently (one block per tile), so on GPUs
//     with slow FP64 it is both faster and more accurate than the float64 table. On H100 (FP64 at
//     half rate, scans memory bound) a float64 table is an equally good choice; both must match
//     the reference within 1e-5 relative.
#pragma once
#include <cstddef>
#include <vector>

namespace tonekit::sat {

// The `sat` parameter of reinhard-sat: which algorithm builds the table.
enum class SatAlgorithm : int {
  automatic = 0,            // the backend's fastest
  recursive_doubling = 1,   // Hensley et al. 2005 (thesis 5.2.3, Algorithm 2-4)
  blelloch = 2,             // Sengupta / Blelloch work-efficient scan (thesis 5.2.4)
  scan_transpose_scan = 3,  // Harris et al. 2007: row scans, transpose, row scans (thesis 5.4.4)
  decoupled_lookback = 4,   // Merrill & Garland 2016 single-pass tiled scan
};
constexpr int kSatAlgorithmCount = 5;
const char* sat_algorithm_name(SatAlgorithm a);

inline std::size_t table_pitch(int w) { return static_cast<std::size_t>(w) + 1; }
inline std::size_t table_entries(int w, int h) { return table_pitch(w) * (static_cast<std::size_t>(h) + 1); }

// The float64 reference table of (plane - offset): `plane` holds h rows of w floats,
// `plane_pitch` floats apart; `table` holds table_entries(w, h) doubles. Threaded over rows,
// then over column bands; the result does not depend on the thread count.
void build_sat_f64(const float* plane, int w, int h, std::size_t plane_pitch, double* table, double offset = 0.0);

// The two passes of build_sat_f64, for callers that fuse the row pass with their own work:
// table_row[0] = 0, table_row[x + 1] = sum of row[0..x] - offset, in float64 (one table row);
void sat_row_prefix(const float* row, int w, double* table_row, double offset = 0.0);
// then, once every row prefix is in place (rows 1..h), accumulate down the columns.
void sat_accumulate_columns(double* table, int w, int h);

// Arithmetic mean of the plane in float64 (the offset of a mean-offset table).
double plane_mean(const float* plane, int w, int h, std::size_t plane_pitch);

// The float32 precision strategy: tile-relative compensated tables (box_query.hpp, kSatTile).
// hi and lo each hold tiles_x * tiles_y * kSatTileEntries floats (sat::tiled_layout(w, h)).
std::size_t tiled_entries(int w, int h);
void build_sat_tiled(const float* plane, int w, int h, std::size_t plane_pitch, float* hi, float* lo);

// Plain float32 table (float accumulation and storage) of (plane - offset): for the precision
// tests and for documenting the loss; do not tone map with it at 4K-8K.
void build_sat_f32(const float* plane, int w, int h, std::size_t plane_pitch, float offset, float* table);

}  // namespace tonekit::sat
