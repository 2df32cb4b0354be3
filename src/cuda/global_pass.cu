// GlobalPass: the global operators' pass of the device pipeline (cuda/global_pass.hpp). Owns the
// scratch, allocated once in create(); process() enqueues statistics -> (temporal step) ->
// (robust peak: histogram -> percentile) -> (histogram -> scan) -> map on the caller's stream with no allocation and no host
// synchronisation. The curve constants of each frame are derived on the device from that frame's
// statistics (core::prepare_curve_hd in the last block of the statistics pass, again in the
// temporal step's kernel with the adapted key and peak), so the key never travels to the host.
#include <cuda_runtime.h>

#include <string>

#include "core/map_settings.hpp"
#include "core/robust_peak.hpp"
#include "cuda/check.hpp"
#include "cuda/frame_checks.hpp"
#include "cuda/stage_events.hpp"
#include "cuda/pipeline.hpp"
#include "cuda/global_pass.hpp"

namespace tonekit::cuda {

namespace {

MapColour colour_from(const Params& p) {
  const core::ColourSettings c = core::make_colour_settings(p);
  MapColour m;
  m.saturation = static_cast<float>(c.saturation);
  m.gamma = static_cast<float>(c.gamma);
  m.inv_gamma = m.gamma != 0.0f ? 1.0f / m.gamma : 0.0f;
  m.dither = c.dither ? 1 : 0;
  return m;
}

Status check_params(const Params& p) {
  if (p.op().locality != Locality::global)
    return unsupported(std::string("operator '") + p.op().id + "' is local; the CUDA backend maps global operators");
  return {};
}

}  // namespace

struct GlobalPass::Impl {
  GlobalPassConfig cfg;
  int device = 0;
  int sm_count = 0;
  FrameGeometry geo;
  core::CurvePlan curve{};
  MapColour colour{};
  DeviceFrame* frame = nullptr;
  StatsScratch stats;
  unsigned long long* hist = nullptr;
  unsigned long long* cdf = nullptr;
  float* table = nullptr;
  void* scan_temp = nullptr;
  std::size_t scan_temp_bytes = 0;
  StageEvents ev;
  bool timings = false;
  bool ran = false;
  bool adapted_valid = false;  // the last frame ran the temporal step (frame->adapted written)
  cudaStream_t last_stream = nullptr;

  ~Impl() {
    cudaFree(frame);
    cudaFree(stats.partials);
    cudaFree(stats.partials2);
    cudaFree(stats.total);
    cudaFree(stats.cub_temp);
    cudaFree(hist);
    cudaFree(cdf);
    cudaFree(table);
    cudaFree(scan_temp);
  }

  Status init() {
    if (cfg.device >= 0) TK_CUDA_CHECK(cudaSetDevice(cfg.device));
    TK_CUDA_CHECK(cudaGetDevice(&device));
    TK_CUDA_CHECK(cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, device));
    geo.width = cfg.width;
    geo.height = cfg.height;
    geo.groups_per_row = (cfg.width + kGroup - 1) / kGroup;
    geo.total_groups = static_cast<long long>(geo.groups_per_row) * cfg.height;
    StatsScratchSizes z;
    if (Status s = stats_scratch_sizes(cfg.input, geo.total_groups, sm_count, z, cfg.stats_blocks_per_sm); !s.ok())
      return s;
    stats.fused_grid = z.fused_grid;
    stats.fused_head_groups = z.fused_head_groups;
    stats.flat_grid = z.flat_grid;
    stats.bulk_grid = z.bulk_grid;
    stats.async_grid = z.async_grid;
    stats.cub_temp_bytes = z.cub_temp_bytes;
    TK_CUDA_CHECK(cudaMalloc(&frame, sizeof(DeviceFrame)));
    TK_CUDA_CHECK(cudaMemset(frame, 0, sizeof(DeviceFrame)));
    TK_CUDA_CHECK(cudaMalloc(&stats.partials, z.partials * sizeof(StatsPartial)));
    TK_CUDA_CHECK(cudaMalloc(&stats.partials2, z.partials2 * sizeof(StatsPartial)));
    TK_CUDA_CHECK(cudaMalloc(&stats.total, sizeof(StatsPartial)));
    TK_CUDA_CHECK(cudaMalloc(&stats.cub_temp, std::max<std::size_t>(z.cub_temp_bytes, 16)));
    TK_CUDA_CHECK(cudaMalloc(&hist, kMaxHistogramBins * sizeof(unsigned long long)));
    TK_CUDA_CHECK(cudaMalloc(&cdf, kMaxHistogramBins * sizeof(unsigned long long)));
    TK_CUDA_CHECK(cudaMalloc(&table, kMaxHistogramBins * sizeof(float)));
    if (Status s = cuda::scan_temp_bytes(scan_temp_bytes); !s.ok()) return s;
    TK_CUDA_CHECK(cudaMalloc(&scan_temp, std::max<std::size_t>(scan_temp_bytes, 16)));
    if (Status st = ev.create(); !st.ok()) return st;
    timings = cfg.timings;
    curve = core::compile_curve_plan(cfg.params);
    colour = colour_from(cfg.params);
    return {};
  }
};

GlobalPass::GlobalPass(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
GlobalPass::~GlobalPass() = default;

Result<std::unique_ptr<GlobalPass>> GlobalPass::create(const GlobalPassConfig& config) {
  if (Status s = check_frame_config("ToneMapper", config.width, config.height, config.output); !s.ok()) return s;
  if (Status s = check_params(config.params); !s.ok()) return s;
  if (config.stats_blocks_per_sm < 0)
    return invalid_argument("ToneMapper: stats_blocks_per_sm must be >= 0 (0: as many as fit), got " +
                            std::to_string(config.stats_blocks_per_sm));
  if (Status s = check_device_present(); !s.ok()) return s;
  auto impl = std::make_unique<Impl>();
  impl->cfg = config;
  if (Status s = impl->init(); !s.ok()) return s;
  return std::unique_ptr<GlobalPass>(new GlobalPass(std::move(impl)));
}

Status GlobalPass::process(const void* device_in, std::size_t in_stride, void* device_out, std::size_t out_stride,
                           CUstream_st* stream, const core::TemporalControl& temporal, const FramePart& part,
                           const Encode420* encode, bool totals_in_exchange) {
  Impl& m = *impl_;
  const GlobalPassConfig& c = m.cfg;
  if (part.context_above || part.context_below)
    return invalid_argument("ToneMapper: the global pass reads no context rows");
  if (Status st = check_frame_buffers("ToneMapper", c.input, c.output, c.width, device_in, in_stride, device_out,
                                            out_stride);
      !st.ok())
    return st;
  cudaStream_t s = stream;
  FrameGeometry g = m.geo;
  g.in = static_cast<const unsigned char*>(device_in);
  g.in_stride = in_stride;
  if (Status st = m.timings ? m.ev.record(0, s) : Status{}; !st.ok()) return st;
  const float* table = m.curve.histogram_bins > 0 ? m.table : nullptr;
  core::CurvePlan curve = m.curve;
  curve.temporal = temporal;
  if (totals_in_exchange) {  // gathered by the kernel that wrote the frame (the video decode)
    if (part.exchange) return invalid_argument("ToneMapper: statistics gathered in the decode take whole frames");
    if (Status st = launch_finish_exchanged(m.frame, curve, table, s); !st.ok()) return st;
  } else if (part.exchange) {  // one part of a frame: its totals, combined with the other parts', finish the frame
    g.defer_finish = true;
    if (Status st = launch_stats(StatsAlgorithm::fused, c.input, g, m.stats, m.frame, curve, table, s); !st.ok()) return st;
    StatsExchangeWords* x = &m.frame->exchange;
    if (Status st = part.exchange->combine(x->sums, StatsExchangeWords::kSums, x->maxima, StatsExchangeWords::kMaxima, s);
        !st.ok())
      return st;
    if (Status st = launch_finish_exchanged(m.frame, curve, table, s); !st.ok()) return st;
  } else if (Status st = launch_stats(c.stats, c.input, g, m.stats, m.frame, curve, table, s); !st.ok()) {
    return st;
  }
  if (curve.peak_percentile < 100.0) {  // the robust peak: histogram (all parts'), then the percentile
    if (Status st = launch_peak_histogram(c.input, g, m.frame, m.hist, m.sm_count, s); !st.ok()) return st;
    if (part.exchange)
      if (Status st = part.exchange->combine(m.hist, static_cast<std::size_t>(core::kPeakBins), nullptr, 0, s); !st.ok())
        return st;
    if (Status st = launch_robust_peak(m.hist, m.frame, curve, table, s); !st.ok()) return st;
  }
  if (temporal.state)
    if (Status st = launch_temporal_step(m.frame, curve, table, s); !st.ok()) return st;
  if (Status st = m.timings ? m.ev.record(1, s) : Status{}; !st.ok()) return st;
  if (m.curve.histogram_bins > 0) {
    if (Status st = launch_histogram(c.input, g, m.frame, m.hist, m.curve.histogram_bins, m.sm_count, s); !st.ok()) return st;
    if (part.exchange)
      if (Status st = part.exchange->combine(m.hist, static_cast<std::size_t>(m.curve.histogram_bins), nullptr, 0, s); !st.ok())
        return st;
    if (Status st = launch_histeq_table(c.scan, m.hist, m.cdf, m.curve.histogram_bins, m.table, m.scan_temp, m.scan_temp_bytes, s);
        !st.ok())
      return st;
  }
  if (Status st = m.timings ? m.ev.record(2, s) : Status{}; !st.ok()) return st;
  MapColour colour = m.colour;
  colour.dither_row0 = part.first_row;
  if (encode) {
    if (c.input != InputFormat::rgb_f32 || part.exchange)
      return invalid_argument("ToneMapper: the fused 4:2:0 encode reads a whole decoded float RGB frame");
    if (Status st = launch_map_encode420(g, static_cast<std::uint8_t*>(device_out), m.frame, colour, *encode, s); !st.ok())
      return st;
  } else if (Status st = launch_map(c.input, c.output, g, device_out, out_stride, m.frame, colour, c.map_backwards,
                                    c.programmatic_launch, s);
             !st.ok()) {
    return st;
  }
  if (Status st = m.timings ? m.ev.record(3, s) : Status{}; !st.ok()) return st;
  m.ran = true;
  m.adapted_valid = temporal.state != nullptr;
  m.last_stream = s;
  return {};
}

DeviceFrame* GlobalPass::stats_frame() const { return impl_->frame; }

Status GlobalPass::set_params(const Params& params) {
  if (Status s = check_params(params); !s.ok()) return s;
  impl_->cfg.params = params;
  impl_->curve = core::compile_curve_plan(params);
  impl_->colour = colour_from(params);
  return {};
}

void GlobalPass::set_stats_algorithm(StatsAlgorithm a) { impl_->cfg.stats = a; }
void GlobalPass::set_scan_algorithm(ScanAlgorithm a) { impl_->cfg.scan = a; }

Status GlobalPass::read_stats(FrameStats& stats, FrameStats* adapted) {
  if (!impl_->ran) return invalid_argument("GlobalPass::read_stats: no frame processed yet");
  TK_CUDA_CHECK(cudaStreamSynchronize(impl_->last_stream));
  TK_CUDA_CHECK(cudaMemcpy(&stats, &impl_->frame->stats, sizeof(FrameStats), cudaMemcpyDeviceToHost));
  if (adapted) {
    if (impl_->adapted_valid)
      TK_CUDA_CHECK(cudaMemcpy(adapted, &impl_->frame->adapted, sizeof(FrameStats), cudaMemcpyDeviceToHost));
    else
      *adapted = stats;
  }
  return {};
}

const void* GlobalPass::device_stats() const { return &impl_->frame->stats; }

void GlobalPass::enable_timings(bool on) { impl_->timings = on; }

Status GlobalPass::read_timings(GlobalStageTimings& t) {
  Impl& m = *impl_;
  if (!m.timings || !m.ran) return invalid_argument("GlobalPass::read_timings: timings off or no frame processed");
  float ms[4];
  if (Status st = m.ev.elapsed(ms); !st.ok()) return st;
  t.stats_ms = ms[0];
  t.histogram_ms = ms[1];
  t.map_ms = ms[2];
  t.total_ms = ms[3];
  return {};
}

const GlobalPassConfig& GlobalPass::config() const { return impl_->cfg; }

}  // namespace tonekit::cuda
