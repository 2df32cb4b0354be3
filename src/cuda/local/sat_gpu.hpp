// Summed-area tables on the device (issue 4 part 2; thesis ch. 5.2 and 5.4). Dispatch layer:
// every algorithm id of sat::SatAlgorithm builds the same exclusive float64 table as the CPU
// reference sat::build_sat_f64 ((w + 1) x (h + 1) doubles, pitch w + 1, row 0 and column 0
// zero), so one set of tests covers them all; the tiled float32 hi/lo strategy of
// sat/box_query.hpp (kSatTile tiles, one block each, single pass) is the fastest table (85% of
// copy bandwidth at 4K) but its queries cost 4x a float64 table's (docs/performance.md).
//   recursive_doubling  Hensley et al. 2005: ceil(log_k n) passes per axis, each entry adds k - 1
//                       entries k^p apart (radix k configurable), ping-pong between two tables.
//   blelloch            Sengupta / Blelloch work-efficient up-sweep / down-sweep in shared memory,
//                       one block per line (rows, then columns), 2048-element chunks with a carry.
//   scan_transpose_scan Harris et al. 2007 (CUDPP): CUB block scans of the rows, a shared-memory
//                       32 x 33 transpose (bank-conflict free), row scans, transpose back.
//   decoupled_lookback  row scans (CUB), then one column pass of 32 x 64 tiles whose column
//                       prefixes chain through Merrill & Garland 2016's decoupled look-back.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>

#include "cpu/sat/sat_table.hpp"
#include "tonekit/status.hpp"

namespace tonekit::cuda_local {

// Scratch of the table algorithms for one size, allocated once (sat_work_create).
struct SatWork {
  int width = 0, height = 0;
  double* scratch = nullptr;         // second table (recursive doubling, transpose): table_entries doubles
  unsigned* lookback_flags = nullptr;  // decoupled look-back: tiles_y x (w + 1) flags
  double* lookback_agg = nullptr;     // ... and their aggregate / inclusive values
  double* lookback_inc = nullptr;
  unsigned* ticket = nullptr;         // dynamic tile order
  unsigned epoch = 0;                 // flags of earlier builds are stale (no reset per frame)
  int radix = 2;                      // recursive doubling: k
};

Status sat_work_create(int w, int h, SatWork& work);
void sat_work_destroy(SatWork& work);

// The exclusive float64 table of the w x h float plane (rows plane_pitch floats apart).
// `automatic` means decoupled_lookback. No allocation, no host synchronisation.
Status build_sat_device(sat::SatAlgorithm algo, const float* plane, int w, int h, std::size_t plane_pitch,
                        double* table, SatWork& work, cudaStream_t s);

// The tile-relative compensated float32 pair tables (sat/box_query.hpp layout: hi and lo, each
// sat::tiled_entries(w, h) floats), one block per 64 x 64 tile, accumulated in float64.
Status build_sat_tiled_device(const float* plane, int w, int h, std::size_t plane_pitch, float* hi, float* lo,
                              cudaStream_t s);

}  // namespace tonekit::cuda_local
