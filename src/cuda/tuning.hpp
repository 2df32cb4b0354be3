// Internal: how the CUDA passes run, not what they compute. The library runs the defaults (the
// variants that won their benchmark); the benchmarks (through tonekit_internal_for_bench) and the
// GPU tests include this header to time and test the others. Every choice gives the same result
// within the tolerances of tests/gpu. The measurements behind each default are in
// docs/performance.md (its tables and History).
#pragma once
#include <memory>

#include "tonekit/status.hpp"

namespace tonekit {
class ToneMapper;
struct ToneMapperConfig;
class BlurEngine;
struct BlurEngineConfig;
}  // namespace tonekit

namespace tonekit::cuda {

// Statistics pass variants (the seeds' comparison); `fused` (one launch, last block finishes)
// is the default. bulk: the fused reduction fed by TMA bulk copies through a shared-memory
// pipeline (sm_90; packed, 16-byte aligned frames, others fall back to fused). async: the fused
// reduction fed by a per-thread cp.async pipeline (slower; kept for the comparison).
enum class StatsAlgorithm { fused, harris, mjp, cub, bulk, async };
// Histogram CDF: Blelloch up-/down-sweep (CUDA/Thrust seed) or cub::DeviceScan.
enum class ScanAlgorithm { blelloch, cub };
const char* stats_algorithm_name(StatsAlgorithm a);
const char* scan_algorithm_name(ScanAlgorithm a);

// How the dodge-and-burn kernel of reinhard-sat reads its table (thesis 6.1.5's variants).
enum class DodgeVariant {
  global_loads,   // plain loads (L1 + L2)
  readonly_cache, // loads through the read-only / texture path (ld.global.nc)
  shared_tiles,   // the block's table window staged in shared memory first (float64 tables)
};
const char* dodge_variant_name(DodgeVariant v);

// Which table reinhard-sat queries when its `sat` parameter is 0 (auto).
enum class SatPrecision {
  tiled_f32_pairs,  // sat/box_query.hpp tile-relative hi/lo float32 pairs: cheapest table, dearest queries
  global_f64,       // a whole-frame float64 table (the CPU reference's), built by `sat` (auto: look-back)
  tile_local_f64,   // no frame-sized table: each block builds a float64 table of its tile + 19 px halo
                    // in shared memory, straight from the input (no luminance plane either)
};

// The ToneMapper's tuning (defaults measured on the H100, docs/performance.md).
struct Tuning {
  StatsAlgorithm stats = StatsAlgorithm::fused;  // 4K half RGBA: fused 0.0276 ms with L2 clean
  ScanAlgorithm scan = ScanAlgorithm::blelloch;
  // The map pass walks the frame from its end, where the statistics pass finished, so the part
  // of the input still in L2 is read from there.
  bool map_backwards = true;
  // Launch the map pass as a programmatic dependent launch (sm_90): its blocks load their
  // pixels while the statistics pass finishes, then wait for the curve constants.
  bool programmatic_launch = true;
  // At most this many blocks per SM for the fused statistics pass and its flat form (0: as many
  // as fit; half RGBA: 5 of the row form, 2 of the flat form). Fewer blocks take fewer atomics in
  // the grid-wide finish, and each thread more rounds.
  int stats_blocks_per_sm = 0;
  // P010 / yuv420p10 input, no glare, a whole frame: the decode kernel gathers the statistics as
  // it decodes (the same totals bit for bit), so no statistics pass reads the 100 MB decoded 4K
  // frame again. H100, 4K P010 PQ BT.2020 -> NV12, reinhard: 0.188 ms against 0.206 ms with the
  // statistics pass.
  bool decode_statistics = true;
  // reinhard-sat's table when its `sat` parameter is 0 (auto). H100, 4K: the float64 table's
  // queries cost 0.26 ms against the pairs' 1.08 ms; the tile-local tables skip both the
  // frame-sized table and the luminance plane.
  SatPrecision sat_auto = SatPrecision::tile_local_f64;
  // tile_local_f64: 32 x 32, 64 x 32 or 64 x 64 pixels per block (H100, 4K: 0.200 / 0.187 /
  // 0.165 ms; 64 x 64 is the fastest at 1080p, 4K and 8K).
  int tile_width = 64;
  int tile_height = 64;  // 64 only with tile_width 64 (512 threads per block)
  DodgeVariant variant = DodgeVariant::readonly_cache;
};

// ToneMapper::create with another tuning than the default (the same checks; tile sizes and
// stats_blocks_per_sm are checked here too).
Result<std::unique_ptr<ToneMapper>> create_tone_mapper(const ToneMapperConfig& config, const Tuning& tuning);
// The tuning a mapper runs with.
const Tuning& tuning_of(const ToneMapper& mapper);

// The blur's tuning (BlurEngine, tonekit/blur_cuda.hpp).
struct BlurTuning {
  // `separable` in one fused pass (rows into a shared-memory ring, then columns) instead of two
  // passes through a device-memory intermediate. Off: lost to the strips (4K sigma 6: 0.300-0.337
  // against 0.182 ms).
  bool separable_fused = false;
  int separable_fused_strip = 128;  // rows per block of the fused kernel (a multiple of the chunk)
  int separable_fused_chunk = 32;   // output rows per ring refill: 16 or 32
  // `separable` on RGBA through the one-pass strip kernel (v3: 32-pixel strips, rows staged by
  // cp.async and filtered into a shared ring, columns from it): on by default up to 56 taps
  // (radius <= 27, sigma <= 9 at truncate 3), where it beats the two passes; other radii and grey
  // planes take the two passes, as do separable_fused / separable_banded when set (they are
  // study variants and win over this flag).
  bool separable_strips = true;
  // Frames whose intermediate exceeds ~L2 / 2 run both passes in one persistent launch over bands
  // of rows through a ring of rows that stays in L2. Off: slower on the H100 (4K sigma 6: 0.434
  // vs 0.249 ms; an earlier two-launches-per-band form 0.317): the tasks' dependency waits and
  // short row tasks cost more than the DRAM they save.
  bool separable_banded = false;
};

// BlurEngine::create with another tuning than the default (separable_fused's strip and chunk
// are checked: invalid_argument).
Result<std::unique_ptr<BlurEngine>> create_blur_engine(const BlurEngineConfig& config, const BlurTuning& tuning);

}  // namespace tonekit::cuda
