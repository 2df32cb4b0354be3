// The device API of the CUDA backend (architecture.md "The ToneMapper object"): one object per
// (size, input format, output format, operator); all scratch allocated in create(); process()
// runs one frame on a stream with no allocation and no host synchronisation. Statistics, the
// frame's curve constants and the histogram stay on the device; read_stats() copies them back
// on request. Available when the build has CUDA (TONEKIT_HAS_CUDA); create() reports
// no_device when no GPU is present.
#pragma once
#include <cstddef>
#include <memory>

#include "tonekit/image.hpp"
#include "tonekit/operators.hpp"
#include "tonekit/status.hpp"
#include "tonekit/tonemap.hpp"
#include "tonekit/video.hpp"

struct CUstream_st;  // cudaStream_t without cuda_runtime.h

namespace tonekit {

// InputFormat (what renderers, EXR readers and video decoders hand over) is in tonekit/video.hpp.

// Statistics pass variants (the seeds' comparison); `fused` (one launch, last block finishes)
// is the default: see bench/NOTES.md for the measurements.
// bulk: the fused reduction fed by TMA bulk copies through a shared-memory pipeline (sm_90;
// packed, 16-byte aligned frames, others fall back to fused). async: the fused reduction fed by
// a per-thread cp.async pipeline (slower; kept for the comparison).
enum class StatsAlgorithm { fused, harris, mjp, cub, bulk, async };
// Histogram CDF: Blelloch up-/down-sweep (CUDA/Thrust seed) or cub::DeviceScan.
enum class ScanAlgorithm { blelloch, cub };
const char* stats_algorithm_name(StatsAlgorithm a);
const char* scan_algorithm_name(ScanAlgorithm a);

struct ToneMapperConfig {
  int width = 0;
  int height = 0;
  InputFormat input = InputFormat::rgba_f16;
  OutputFormat output{PixelType::u8, 4};
  Params params;  // from prepare_params(); global operators only
  StatsAlgorithm stats = StatsAlgorithm::fused;
  ScanAlgorithm scan = ScanAlgorithm::blelloch;
  bool timings = false;  // record CUDA events around each stage
  int device = -1;       // -1: the current device
  // Tuning: the map pass walks the frame from its end, where the statistics pass finished, so
  // the part of the input still in L2 is read from there (bench/NOTES.md has the measurement).
  bool map_backwards = true;
  // Tuning: launch the map pass as a programmatic dependent launch (sm_90): its blocks load
  // their pixels while the statistics pass finishes, then wait for the curve constants.
  bool programmatic_launch = true;
  // Tuning: at most this many blocks per SM for the fused statistics pass and its flat form
  // (0: as many as fit; half RGBA: 5 of the row form, 2 of the flat form). Fewer blocks take
  // fewer atomics in the grid-wide finish, and each thread more rounds.
  int stats_blocks_per_sm = 0;
};

struct StageTimings {
  double stats_ms = 0.0;      // statistics (+ curve constants on the device)
  double histogram_ms = 0.0;  // histogram + scan (histeq only)
  double map_ms = 0.0;        // curve, colour, transfer, quantise
  double total_ms = 0.0;
};

class ToneMapper {
 public:
  static Result<std::unique_ptr<ToneMapper>> create(const ToneMapperConfig& config);
  ~ToneMapper();
  ToneMapper(const ToneMapper&) = delete;
  ToneMapper& operator=(const ToneMapper&) = delete;

  // One frame: device_in (width x height pixels of the input format, rows in_stride_bytes apart,
  // 0 = packed) -> device_out (output format, rows out_stride_bytes apart, 0 = packed).
  // Asynchronous on `stream` (nullptr = the legacy default stream).
  Status process(const void* device_in, std::size_t in_stride_bytes, void* device_out,
                 std::size_t out_stride_bytes, CUstream_st* stream = nullptr);

  // New parameters (same operator or another global one) for the next frame; no allocation.
  Status set_params(const Params& params);
  void set_stats_algorithm(StatsAlgorithm a);
  void set_scan_algorithm(ScanAlgorithm a);

  // Waits for the last frame and copies its statistics back (synchronises; on request only).
  Status read_stats(FrameStats& stats);
  // Device address of the last frame's statistics (a tonekit::FrameStats) for other kernels.
  const void* device_stats() const;

  void enable_timings(bool on);
  // Waits for the last frame; its per-stage times from CUDA events (timings must be on).
  Status read_timings(StageTimings& timings);

  const ToneMapperConfig& config() const;

 private:
  struct Impl;
  explicit ToneMapper(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace tonekit
