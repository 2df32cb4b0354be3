// OperatorPass (cuda/operator_pass.hpp): what the global and the local pass share. The statistics
// run is the same launches in the same order for both: statistics (a part's own rows, combined
// through its exchange and finished; or the totals a decode gathered, finished), the robust peak's
// histogram (combined likewise) and percentile, the temporal step.
#include "cuda/operator_pass.hpp"

#include <algorithm>

#include "core/robust_peak.hpp"
#include "cuda/check.hpp"

namespace tonekit::cuda {

OperatorPass::OperatorPass(const PassConfig& config, MiddleStage middle)
    : cfg_(config), middle_(middle), timings_(config.timings) {}

OperatorPass::~OperatorPass() {
  for (void* p : {static_cast<void*>(frame_), static_cast<void*>(stats_.partials), static_cast<void*>(stats_.partials2),
                  static_cast<void*>(stats_.total), stats_.cub_temp})
    cudaFree(p);
}

Status OperatorPass::init_statistics(int rows, int stats_blocks_per_sm, bool all_statistics) {
  if (cfg_.device >= 0) TK_CUDA_CHECK(cudaSetDevice(cfg_.device));
  int device = 0;
  TK_CUDA_CHECK(cudaGetDevice(&device));
  TK_CUDA_CHECK(cudaDeviceGetAttribute(&sm_count_, cudaDevAttrMultiProcessorCount, device));
  geo_.width = cfg_.width;
  geo_.height = rows;
  geo_.groups_per_row = (cfg_.width + kGroup - 1) / kGroup;
  geo_.total_groups = static_cast<long long>(geo_.groups_per_row) * rows;
  StatsScratchSizes z;
  if (Status s = stats_scratch_sizes(cfg_.input, geo_.total_groups, sm_count_, z, stats_blocks_per_sm); !s.ok()) return s;
  stats_.fused_grid = z.fused_grid;
  stats_.fused_head_groups = z.fused_head_groups;
  stats_.flat_grid = z.flat_grid;
  stats_.bulk_grid = z.bulk_grid;
  stats_.async_grid = z.async_grid;
  stats_.cub_temp_bytes = z.cub_temp_bytes;
  TK_CUDA_CHECK(cudaMalloc(&frame_, sizeof(DeviceFrame)));
  TK_CUDA_CHECK(cudaMemset(frame_, 0, sizeof(DeviceFrame)));
  TK_CUDA_CHECK(cudaMalloc(&stats_.partials, z.partials * sizeof(StatsPartial)));
  if (all_statistics) {  // the other algorithms' scratch (tuning.stats)
    TK_CUDA_CHECK(cudaMalloc(&stats_.partials2, z.partials2 * sizeof(StatsPartial)));
    TK_CUDA_CHECK(cudaMalloc(&stats_.total, sizeof(StatsPartial)));
    TK_CUDA_CHECK(cudaMalloc(&stats_.cub_temp, std::max<std::size_t>(z.cub_temp_bytes, 16)));
  }
  return events_.create();
}

Status OperatorPass::run_statistics(const FrameGeometry& own, const PassFrame& f, StatsAlgorithm algo,
                                    const core::CurvePlan& curve, const float* table, unsigned long long* peak_hist) {
  const FramePart& part = cfg_.part;
  const cudaStream_t s = f.stream;
  if (f.totals_in_exchange) {  // gathered by the kernel that wrote the frame (the video decode)
    if (part.exchange || part.context_above || part.context_below)
      return invalid_argument("ToneMapper: statistics gathered in the decode take whole frames");
    if (Status st = launch_finish_exchanged(frame_, curve, table, s); !st.ok()) return st;
  } else if (part.exchange) {  // one part of a frame: its own rows' totals, combined with the other parts', finish the frame
    FrameGeometry deferred = own;
    deferred.defer_finish = true;
    if (Status st = launch_stats(StatsAlgorithm::fused, cfg_.input, deferred, stats_, frame_, curve, table, s); !st.ok())
      return st;
    StatsExchangeWords* x = &frame_->exchange;
    if (Status st = part.exchange->combine(x->sums, StatsExchangeWords::kSums, x->maxima, StatsExchangeWords::kMaxima, s);
        !st.ok())
      return st;
    if (Status st = launch_finish_exchanged(frame_, curve, table, s); !st.ok()) return st;
  } else if (part.context_above || part.context_below) {
    return invalid_argument("ToneMapper: context rows belong to a frame part with an exchange");
  } else if (Status st = launch_stats(algo, cfg_.input, own, stats_, frame_, curve, table, s); !st.ok()) {
    return st;
  }
  if (curve.peak_percentile < 100.0) {  // the robust peak over the own rows (all parts' histograms), then the percentile
    if (Status st = launch_peak_histogram(cfg_.input, own, frame_, peak_hist, sm_count_, s); !st.ok()) return st;
    if (part.exchange)
      if (Status st = part.exchange->combine(peak_hist, static_cast<std::size_t>(core::kPeakBins), nullptr, 0, s); !st.ok())
        return st;
    if (Status st = launch_robust_peak(peak_hist, frame_, curve, table, s); !st.ok()) return st;
  }
  if (f.temporal.state)
    if (Status st = launch_temporal_step(frame_, curve, table, s); !st.ok()) return st;
  return {};
}

const void* OperatorPass::device_stats() const { return &frame_->stats; }

Status OperatorPass::read_stats(FrameStats& stats, FrameStats* adapted) {
  if (!ran_) return invalid_argument("ToneMapper::read_stats: no frame processed yet");
  TK_CUDA_CHECK(cudaStreamSynchronize(last_stream_));
  TK_CUDA_CHECK(cudaMemcpy(&stats, &frame_->stats, sizeof(FrameStats), cudaMemcpyDeviceToHost));
  if (adapted) {
    if (adapted_valid_)
      TK_CUDA_CHECK(cudaMemcpy(adapted, &frame_->adapted, sizeof(FrameStats), cudaMemcpyDeviceToHost));
    else
      *adapted = stats;
  }
  return {};
}

Status OperatorPass::read_timings(StageTimings& t) {
  if (!timings_ || !ran_) return invalid_argument("ToneMapper::read_timings: timings off or no frame processed");
  float ms[4];
  if (Status st = events_.elapsed(ms); !st.ok()) return st;
  t.stats_ms = ms[0];
  (middle_ == MiddleStage::histogram ? t.histogram_ms : t.local_ms) = ms[1];
  t.map_ms = ms[2];
  t.total_ms = ms[3];
  return {};
}

}  // namespace tonekit::cuda
