// LocalPass: the local operators' pass of the device pipeline (cuda/local/local_pass.hpp).
// process() enqueues on the caller's stream, with no allocation and no host synchronisation:
//   statistics (the global backend's fused pass, launch_stats) -> luminance plane ->
//   core::make_local_settings_hd on the device -> local adaptation (summed-area table, Gaussian
//   pyramid with the scale search, or window column sums) -> map (scale search of reinhard-sat
//   fused here, curve, colour, transfer, quantise, store).
// reinhard-sat's default (tile-local tables) has neither a luminance plane nor a frame-sized
// table: its map kernel builds a float64 table per tile from the input, as a programmatic
// dependent launch that overlaps the statistics (cuda/pdl.cuh; local-settings kernel likewise).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <string>

#include "core/local_settings.hpp"
#include "core/map_settings.hpp"
#include "core/robust_peak.hpp"
#include "cuda/check.hpp"
#include "cuda/frame_checks.hpp"
#include "cuda/stage_events.hpp"
#include "cuda/local/local_launch.hpp"
#include "cuda/local/sat_gpu.hpp"
#include "cuda/pipeline.hpp"
#include "cuda/local/local_pass.hpp"

namespace tonekit::cuda {

struct LocalPass::Impl {
  LocalPassConfig cfg;
  int sm_count = 0;
  FrameGeometry geo;
  core::LocalParams lp;
  DeviceFrame* frame = nullptr;
  StatsScratch stats;
  core::LocalSettings* settings = nullptr;
  // The search's level constants (cuda_local::LocalMapArgs), from the parameters alone.
  double level_offset[core::kMaxLocalScales] = {};    // core::activity_offset(s, i)
  double level_inv_area[core::kMaxLocalScales] = {};  // core::box_inv_area of level i's surround box
  float* plane = nullptr;
  // reinhard-sat
  double* table = nullptr;
  float* hi = nullptr;
  float* lo = nullptr;
  cuda_local::SatWork sat;
  // reinhard-local
  float* tmp = nullptr;
  float* centre = nullptr;
  unsigned char* active = nullptr;
  cuda_local::GaussWeights gauss{};
  // drago-local
  double* colsum = nullptr;
  // The robust peak (drago-local's peak_percentile < 100): core::kPeakBins counters.
  double peak_percentile = 100.0;
  unsigned long long* peak_hist = nullptr;
  float saturation = 1.0f, gamma = 0.0f;
  int dither = 1;
  StageEvents ev;
  bool timings = false, ran = false;
  // reinhard-sat with tile-local tables (its map kernel builds them): no luminance plane, and the
  // path that can write a 4:2:0 frame itself (fuses_encode).
  bool tile_local() const {
    return lp.kind == core::LocalKind::reinhard_box &&
           static_cast<sat::SatAlgorithm>(lp.sat) == sat::SatAlgorithm::automatic &&
           cfg.sat_auto == SatPrecision::tile_local_f64;
  }
  bool adapted_valid = false;  // the last frame ran the temporal step (frame->adapted written)
  cudaStream_t last_stream = nullptr;

  ~Impl() {
    for (void* p : {static_cast<void*>(frame), static_cast<void*>(stats.partials), static_cast<void*>(stats.partials2),
                    static_cast<void*>(stats.total), stats.cub_temp, static_cast<void*>(settings), static_cast<void*>(plane),
                    static_cast<void*>(table), static_cast<void*>(hi), static_cast<void*>(lo), static_cast<void*>(tmp),
                    static_cast<void*>(centre), static_cast<void*>(active), static_cast<void*>(colsum),
                    static_cast<void*>(peak_hist)})
      cudaFree(p);
    cuda_local::sat_work_destroy(sat);
  }

  // Host only (core::local_kind_for and local_params_from are host code in local_settings.hpp).
  Status apply_params(const Params& p) {
#if !defined(__CUDA_ARCH__)
    const core::LocalKind kind = core::local_kind_for(p.op());
    if (kind == core::LocalKind::none)
      return unsupported(std::string("operator '") + p.op().id + "' is not local");
    if (lp.kind != core::LocalKind::none && kind != lp.kind)
      return invalid_argument("LocalPass::set_params: another local operator needs another pass");
    lp = core::local_params_from(p);
    peak_percentile = core::peak_percentile_of(p);
    {  // the activity offsets depend on phi and the key only: the host's, as the CPU reference's
      const core::LocalSettings hs = core::make_local_settings_hd(lp, core::CurveStats{});
      for (int i = 0; i + 1 < core::kMaxLocalScales; ++i) {
        level_offset[i] = core::activity_offset(hs, i);
        level_inv_area[i] = core::box_inv_area(core::box_width(i + 1));
      }
    }
    const core::ColourSettings c = core::make_colour_settings(p);
    saturation = static_cast<float>(c.saturation);
    gamma = static_cast<float>(c.gamma);
    dither = c.dither ? 1 : 0;
#endif
    return {};
  }

  Status init() {
    if (cfg.device >= 0) TK_CUDA_CHECK(cudaSetDevice(cfg.device));
    int device = 0;
    TK_CUDA_CHECK(cudaGetDevice(&device));
    TK_CUDA_CHECK(cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, device));
    if (Status s = apply_params(cfg.params); !s.ok()) return s;
    const int w = cfg.width, h = cfg.height;
    const std::size_t n = static_cast<std::size_t>(w) * h;
    geo.width = w;
    geo.height = h;
    geo.groups_per_row = (w + kGroup - 1) / kGroup;
    geo.total_groups = static_cast<long long>(geo.groups_per_row) * h;
    StatsScratchSizes z;
    if (Status s = stats_scratch_sizes(cfg.input, geo.total_groups, sm_count, z); !s.ok()) return s;
    stats.fused_grid = z.fused_grid;
    stats.fused_head_groups = z.fused_head_groups;
    stats.flat_grid = z.flat_grid;
    stats.bulk_grid = z.bulk_grid;
    stats.cub_temp_bytes = z.cub_temp_bytes;
    TK_CUDA_CHECK(cudaMalloc(&frame, sizeof(DeviceFrame)));
    TK_CUDA_CHECK(cudaMemset(frame, 0, sizeof(DeviceFrame)));
    TK_CUDA_CHECK(cudaMalloc(&stats.partials, z.partials * sizeof(StatsPartial)));
    TK_CUDA_CHECK(cudaMalloc(&settings, sizeof(core::LocalSettings)));
    TK_CUDA_CHECK(cudaMalloc(&peak_hist, core::kPeakBins * sizeof(unsigned long long)));
    TK_CUDA_CHECK(cudaMalloc(&plane, n * sizeof(float)));
    switch (lp.kind) {
      case core::LocalKind::reinhard_box:
        // Both tables: `sat` may change between frames without reallocation.
        TK_CUDA_CHECK(cudaMalloc(&table, sat::table_entries(w, h) * sizeof(double)));
        TK_CUDA_CHECK(cudaMalloc(&hi, sat::tiled_entries(w, h) * sizeof(float)));
        TK_CUDA_CHECK(cudaMalloc(&lo, sat::tiled_entries(w, h) * sizeof(float)));
        if (Status s = cuda_local::sat_work_create(w, h, sat); !s.ok()) return s;
        break;
      case core::LocalKind::reinhard_gauss:
        TK_CUDA_CHECK(cudaMalloc(&tmp, n * sizeof(float)));
        TK_CUDA_CHECK(cudaMalloc(&centre, n * sizeof(float)));
        TK_CUDA_CHECK(cudaMalloc(&active, n));
        gauss = cuda_local::make_gauss_weights();
        break;
      case core::LocalKind::drago_local: TK_CUDA_CHECK(cudaMalloc(&colsum, n * sizeof(double))); break;
      case core::LocalKind::none: break;
    }
    if (Status st = ev.create(); !st.ok()) return st;
    timings = cfg.timings;
    return {};
  }
};

LocalPass::LocalPass(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
LocalPass::~LocalPass() = default;

Result<std::unique_ptr<LocalPass>> LocalPass::create(const LocalPassConfig& config) {
  if (Status s = check_frame_config("ToneMapper", config.width, config.height, config.output); !s.ok()) return s;
  if (config.tile_width != 32 && config.tile_width != 64)
    return invalid_argument("ToneMapper: tile_width must be 32 or 64, got " + std::to_string(config.tile_width));
  if (config.tile_height != 32 && !(config.tile_height == 64 && config.tile_width == 64))
    return invalid_argument("ToneMapper: tile_height must be 32 (or 64 with tile_width 64), got " +
                            std::to_string(config.tile_height));
  if (Status s = check_device_present(); !s.ok()) return s;
  auto impl = std::make_unique<Impl>();
  impl->cfg = config;
  if (Status s = impl->init(); !s.ok()) return s;
  return std::unique_ptr<LocalPass>(new LocalPass(std::move(impl)));
}

Status LocalPass::process(const void* device_in, std::size_t in_stride, void* device_out, std::size_t out_stride,
                                CUstream_st* stream, const core::TemporalControl& temporal, const FramePart& part,
                                const unsigned long long* out_surface, bool totals_in_exchange,
                                const Encode420* encode) {
  Impl& m = *impl_;
  const LocalPassConfig& c = m.cfg;
  if (out_surface && !(c.output.type == PixelType::u8 && c.output.channels == 4))
    return invalid_argument("ToneMapper: a surface output must be u8 x 4 (RGBA8)");
  if (encode && (!fuses_encode() || out_surface || part.active() || out_stride != 0 || !encode->oetf_table))
    return invalid_argument("ToneMapper: the 4:2:0 encode in the local map takes reinhard-sat's tile-local path on a "
                            "whole decoded frame");
  // A surface has no row pointer: only the input is checked then (the input stands in for it).
  if (Status st = check_frame_buffers("ToneMapper", c.input, c.output, c.width, device_in, in_stride,
                                      out_surface ? device_in : device_out, out_stride);
      !st.ok())
    return st;
  cudaStream_t s = stream;
  const int w = c.width, h = c.height;
  FrameGeometry g = m.geo;
  g.in = static_cast<const unsigned char*>(device_in);
  g.in_stride = in_stride;
  if (Status st = m.timings ? m.ev.record(0, s) : Status{}; !st.ok()) return st;
  core::CurvePlan curve{};  // no global curve (op -1): the statistics pass derives none
  curve.temporal = temporal;
  curve.peak_percentile = m.peak_percentile;
  if (part.context_above < 0 || part.context_below < 0 || part.context_above + part.context_below >= h)
    return invalid_argument("ToneMapper: a frame part needs own rows between its context rows");
  if (totals_in_exchange) {  // gathered by the kernel that wrote the frame (the video decode)
    if (part.exchange || part.context_above || part.context_below)
      return invalid_argument("ToneMapper: statistics gathered in the decode take whole frames");
    if (Status st = launch_finish_exchanged(m.frame, curve, nullptr, s); !st.ok()) return st;
  } else if (part.exchange) {  // one part of a frame: the own rows' totals, combined with the other parts'
    FrameGeometry own = g;
    own.in = g.in + static_cast<std::size_t>(part.context_above) * in_stride;
    own.height = h - part.context_above - part.context_below;
    own.total_groups = static_cast<long long>(own.groups_per_row) * own.height;
    own.defer_finish = true;
    if (Status st = launch_stats(StatsAlgorithm::fused, c.input, own, m.stats, m.frame, curve, nullptr, s); !st.ok())
      return st;
    StatsExchangeWords* x = &m.frame->exchange;
    if (Status st = part.exchange->combine(x->sums, StatsExchangeWords::kSums, x->maxima, StatsExchangeWords::kMaxima, s);
        !st.ok())
      return st;
    if (Status st = launch_finish_exchanged(m.frame, curve, nullptr, s); !st.ok()) return st;
  } else if (part.context_above || part.context_below) {
    return invalid_argument("ToneMapper: context rows belong to a frame part with an exchange");
  } else if (Status st = launch_stats(StatsAlgorithm::fused, c.input, g, m.stats, m.frame, curve, nullptr, s); !st.ok()) {
    return st;
  }
  if (m.peak_percentile < 100.0) {  // the robust peak over the own rows (all parts' histograms)
    FrameGeometry own = g;
    own.in = g.in + static_cast<std::size_t>(part.context_above) * in_stride;
    own.height = h - part.context_above - part.context_below;
    own.total_groups = static_cast<long long>(own.groups_per_row) * own.height;
    if (Status st = launch_peak_histogram(c.input, own, m.frame, m.peak_hist, m.sm_count, s); !st.ok()) return st;
    if (part.exchange)
      if (Status st = part.exchange->combine(m.peak_hist, static_cast<std::size_t>(core::kPeakBins), nullptr, 0, s);
          !st.ok())
        return st;
    if (Status st = launch_robust_peak(m.peak_hist, m.frame, curve, nullptr, s); !st.ok()) return st;
  }
  if (temporal.state)
    if (Status st = launch_temporal_step(m.frame, curve, nullptr, s); !st.ok()) return st;
  const int scales = m.lp.scales < 1 ? 1 : (m.lp.scales > core::kMaxLocalScales ? core::kMaxLocalScales : m.lp.scales);
  const auto algo = static_cast<sat::SatAlgorithm>(m.lp.sat);
  // reinhard-sat with tile-local tables reads the input directly: no luminance plane.
  const bool tile_local = m.tile_local();
  if (!tile_local)
    if (Status st = cuda_local::launch_luminance_plane(c.input, g.in, in_stride, w, h, m.plane, s); !st.ok()) return st;
  if (Status st = cuda_local::launch_local_settings(m.lp, temporal.state ? &m.frame->adapted : &m.frame->stats, m.settings, s); !st.ok()) return st;
  if (Status st = m.timings ? m.ev.record(1, s) : Status{}; !st.ok()) return st;

  cuda_local::LocalMapArgs a;
  a.in = g.in;
  a.in_stride = in_stride;
  // A part's output holds its own rows: row y of the input is row y - context_above there.
  a.out = reinterpret_cast<unsigned char*>(reinterpret_cast<std::uintptr_t>(device_out) -
                                           static_cast<std::uintptr_t>(part.context_above) * out_stride);
  a.out_stride = out_stride;
  a.out_surface = out_surface;
  a.width = w;
  a.height = h;
  a.out_code = c.output.type == PixelType::u8 ? 0 : c.output.type == PixelType::u16 ? 1 : c.output.type == PixelType::f16 ? 2 : 3;
  a.out_channels = c.output.channels;
  a.saturation = m.saturation;
  a.gamma = m.gamma;
  a.dither = m.dither;
  a.settings = m.settings;
  a.tile_width = c.tile_width;
  a.tile_height = c.tile_height;
  a.out_row_begin = part.context_above;
  a.out_row_end = h - part.context_below;
  a.dither_row0 = part.first_row - part.context_above;
  if (encode) a.encode = *encode;
  std::copy(std::begin(m.level_offset), std::end(m.level_offset), a.level_offset);
  std::copy(std::begin(m.level_inv_area), std::end(m.level_inv_area), a.level_inv_area);
  cuda_local::LocalPath path = cuda_local::LocalPath::gauss;
  switch (m.lp.kind) {
    case core::LocalKind::reinhard_box: {
      const bool need_table = scales > 1 && m.lp.epsilon > 0;  // level 0 is the pixel itself
      if (tile_local) {
        path = cuda_local::LocalPath::sat_tile;  // the tables are built inside the map kernel
      } else if (algo == sat::SatAlgorithm::automatic && c.sat_auto == SatPrecision::tiled_f32_pairs) {
        path = cuda_local::LocalPath::sat_tiled;
        if (need_table)
          if (Status st = cuda_local::build_sat_tiled_device(m.plane, w, h, w, m.hi, m.lo, s); !st.ok()) return st;
        a.hi = m.hi;
        a.lo = m.lo;
        a.tiled = sat::tiled_layout(w, h);
      } else {
        path = cuda_local::LocalPath::sat_f64;
        if (need_table)
          if (Status st = cuda_local::build_sat_device(algo, m.plane, w, h, w, m.table, m.sat, s); !st.ok()) return st;
        a.table = m.table;
      }
      break;
    }
    case core::LocalKind::reinhard_gauss:
      path = cuda_local::LocalPath::gauss;
      if (Status st = cuda_local::launch_gauss_pyramid(m.plane, w, h, m.gauss, scales, m.settings, m.tmp, m.centre, m.active, s);
          !st.ok())
        return st;
      a.centre = m.centre;
      break;
    case core::LocalKind::drago_local:
      path = cuda_local::LocalPath::drago;
      if (Status st = cuda_local::launch_drago_columns(m.plane, w, h, m.settings, m.colsum, s); !st.ok()) return st;
      a.colsum = m.colsum;
      break;
    case core::LocalKind::none: return invalid_argument("ToneMapper: no local operator");
  }
  if (Status st = m.timings ? m.ev.record(2, s) : Status{}; !st.ok()) return st;
  if (Status st = cuda_local::launch_local_map(c.input, path, c.variant, a, s); !st.ok()) return st;
  if (Status st = m.timings ? m.ev.record(3, s) : Status{}; !st.ok()) return st;
  m.ran = true;
  m.adapted_valid = temporal.state != nullptr;
  m.last_stream = s;
  return {};
}

DeviceFrame* LocalPass::stats_frame() const { return impl_->frame; }

bool LocalPass::fuses_encode() const {
  return impl_->tile_local() && impl_->cfg.input == InputFormat::rgb_f32;
}

Status LocalPass::set_params(const Params& params) {
  if (Status s = impl_->apply_params(params); !s.ok()) return s;
  impl_->cfg.params = params;
  return {};
}

void LocalPass::set_variant(DodgeVariant v) { impl_->cfg.variant = v; }

Status LocalPass::read_stats(FrameStats& stats, FrameStats* adapted) {
  if (!impl_->ran) return invalid_argument("LocalPass::read_stats: no frame processed yet");
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

void LocalPass::enable_timings(bool on) { impl_->timings = on; }

Status LocalPass::read_timings(LocalStageTimings& t) {
  Impl& m = *impl_;
  if (!m.timings || !m.ran) return invalid_argument("LocalPass::read_timings: timings off or no frame processed");
  float ms[4];
  if (Status st = m.ev.elapsed(ms); !st.ok()) return st;
  t.stats_ms = ms[0];
  t.local_ms = ms[1];
  t.map_ms = ms[2];
  t.total_ms = ms[3];
  return {};
}

const void* LocalPass::device_stats() const { return &impl_->frame->stats; }

const LocalPassConfig& LocalPass::config() const { return impl_->cfg; }

}  // namespace tonekit::cuda
