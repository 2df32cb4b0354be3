// LocalPass: the local operators' pass of the device pipeline (cuda/operator_pass.hpp):
// reinhard-local, reinhard-sat, drago-local, local-laplacian, exposure-fusion. process() enqueues on the caller's stream, with no
// allocation and no host synchronisation:
//   statistics (the base's run: the global backend's fused pass, launch_stats) -> luminance plane ->
//   core::make_local_settings_hd on the device -> local adaptation (summed-area table, Gaussian
//   pyramid with the scale search, or window column sums) -> map (scale search of reinhard-sat
//   fused here, curve, colour, transfer, quantise, store).
// reinhard-sat's default (tile-local tables) has neither a luminance plane nor a frame-sized
// table: its map kernel builds a float64 table per tile from the input, as a programmatic
// dependent launch that overlaps the statistics (cuda/pdl.cuh; local-settings kernel likewise).
// A frame part's pass reads its context rows too and stores its own rows.
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
#include "cuda/local/local_launch.hpp"
#include "cuda/local/sat_gpu.hpp"
#include "cuda/operator_pass.hpp"

namespace tonekit::cuda {

namespace {

class LocalPass final : public OperatorPass {
 public:
  explicit LocalPass(const PassConfig& config) : OperatorPass(config, MiddleStage::local) {}

  ~LocalPass() override {
    for (void* p : {static_cast<void*>(settings), static_cast<void*>(plane), static_cast<void*>(table),
                    static_cast<void*>(hi), static_cast<void*>(lo), static_cast<void*>(tmp), static_cast<void*>(centre),
                    static_cast<void*>(active), static_cast<void*>(colsum), static_cast<void*>(peak_hist),
                    static_cast<void*>(llf.pyramid), static_cast<void*>(llf.output), static_cast<void*>(llf.out0),
                    static_cast<void*>(llf.frame), static_cast<void*>(fusion.pyramid), static_cast<void*>(fusion.output),
                    static_cast<void*>(fusion.out0), static_cast<void*>(fusion.q), static_cast<void*>(fusion.weights),
                    static_cast<void*>(fusion.frame)})
      cudaFree(p);
    cuda_local::sat_work_destroy(sat);
  }

  Status init() {
    if (Status s = apply_params(cfg_.params); !s.ok()) return s;
    const int w = cfg_.width, h = cfg_.height;
    const std::size_t n = static_cast<std::size_t>(w) * h;
    if (Status s = init_statistics(h, 0, false); !s.ok()) return s;
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
      case core::LocalKind::local_laplacian: {
        // Sized for the largest K of the registry's range, so set_params never reallocates.
        llf.pyramid_floats = core::llf_geometry(w, h, core::kLlfMaxK + 1).total();
        llf.output_floats = core::llf_geometry(w, h, 1).total();
        TK_CUDA_CHECK(cudaMalloc(&llf.pyramid, std::max<std::size_t>(llf.pyramid_floats, 1) * sizeof(float)));
        TK_CUDA_CHECK(cudaMalloc(&llf.output, std::max<std::size_t>(llf.output_floats, 1) * sizeof(float)));
        TK_CUDA_CHECK(cudaMalloc(&llf.out0, n * sizeof(float)));
        TK_CUDA_CHECK(cudaMalloc(&llf.frame, sizeof(core::LlfFrame)));
        break;
      }
      case core::LocalKind::exposure_fusion: {
        // Sized for the most exposures of the registry's range, so set_params never reallocates.
        fusion.pyramid_floats = core::llf_geometry(w, h, 2 * core::kFusionMaxExposures).total();
        fusion.output_floats = core::llf_geometry(w, h, 1).total();
        TK_CUDA_CHECK(cudaMalloc(&fusion.pyramid, std::max<std::size_t>(fusion.pyramid_floats, 1) * sizeof(float)));
        TK_CUDA_CHECK(cudaMalloc(&fusion.output, std::max<std::size_t>(fusion.output_floats, 1) * sizeof(float)));
        TK_CUDA_CHECK(cudaMalloc(&fusion.out0, n * sizeof(float)));
        TK_CUDA_CHECK(cudaMalloc(&fusion.q, 3 * n * sizeof(float)));
        TK_CUDA_CHECK(cudaMalloc(&fusion.weights, core::kFusionMaxExposures * n * sizeof(float)));
        TK_CUDA_CHECK(cudaMalloc(&fusion.frame, sizeof(core::FusionFrame)));
        break;
      }
      case core::LocalKind::none: break;
    }
    return {};
  }

  Status process(const PassFrame& request) override;

  Status set_params(const Params& params) override {
    if (Status s = apply_params(params); !s.ok()) return s;
    cfg_.params = params;
    return {};
  }

  // reinhard-sat with tile-local tables on a float RGB input.
  bool fuses_encode() const override { return tile_local() && cfg_.input == InputFormat::rgb_f32; }
  bool writes_surfaces() const override { return true; }

 private:
  // Host only (core::local_kind_for and local_params_from are host code in local_settings.hpp).
  Status apply_params(const Params& p) {
#if !defined(__CUDA_ARCH__)
    const core::LocalKind kind = core::local_kind_for(p.op());
    if (kind == core::LocalKind::none)
      return unsupported(std::string("operator '") + p.op().id + "' is not local");
    if (lp.kind != core::LocalKind::none && kind != lp.kind)
      return invalid_argument("LocalPass::set_params: another local operator needs another pass");
    lp = core::local_params_from(p);
    if (lp.kind == core::LocalKind::local_laplacian) llf_curve = core::llf_curve_from(lp);
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

  // reinhard-sat with tile-local tables (its map kernel builds them): no luminance plane, and the
  // path that can write a 4:2:0 frame itself (fuses_encode).
  bool tile_local() const {
    return lp.kind == core::LocalKind::reinhard_box &&
           static_cast<sat::SatAlgorithm>(lp.sat) == sat::SatAlgorithm::automatic &&
           cfg_.tuning.sat_auto == SatPrecision::tile_local_f64;
  }

  core::LocalParams lp;
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
  // local-laplacian
  cuda_local::LlfScratch llf;
  core::LlfCurve llf_curve{};
  // exposure-fusion
  cuda_local::FusionScratch fusion;
  // The robust peak (drago-local's peak_percentile < 100): core::kPeakBins counters.
  double peak_percentile = 100.0;
  unsigned long long* peak_hist = nullptr;
  float saturation = 1.0f, gamma = 0.0f;
  int dither = 1;
};

Status LocalPass::process(const PassFrame& request) {
  PassFrame f = request;
  const PassConfig& c = cfg_;
  const FramePart& part = c.part;
  if (f.out_surface && !(c.output.type == PixelType::u8 && c.output.channels == 4))
    return invalid_argument("ToneMapper: a surface output must be u8 x 4 (RGBA8)");
  if (f.encode && (!fuses_encode() || f.out_surface || part.active() || f.out_stride != 0 || !f.encode->oetf_table))
    return invalid_argument("ToneMapper: the 4:2:0 encode in the local map takes reinhard-sat's tile-local path on a "
                            "whole decoded frame");
  // A surface has no row pointer: only the input is checked then (the input stands in for it).
  if (Status st = check_frame_buffers("ToneMapper", c.input, c.output, c.width, f.in, f.in_stride,
                                      f.out_surface ? f.in : f.out, f.out_stride);
      !st.ok())
    return st;
  const cudaStream_t s = f.stream;
  const int w = c.width, h = c.height;
  FrameGeometry g = geo_;
  g.in = static_cast<const unsigned char*>(f.in);
  g.in_stride = f.in_stride;
  if (Status st = mark(0, s); !st.ok()) return st;
  core::CurvePlan curve{};  // no global curve (op -1): the statistics pass derives none
  curve.temporal = f.temporal;
  curve.peak_percentile = peak_percentile;
  if (part.context_above < 0 || part.context_below < 0 || part.context_above + part.context_below >= h)
    return invalid_argument("ToneMapper: a frame part needs own rows between its context rows");
  FrameGeometry own = g;  // the statistics and the robust peak read a part's own rows
  own.in = g.in + static_cast<std::size_t>(part.context_above) * f.in_stride;
  own.height = h - part.context_above - part.context_below;
  own.total_groups = static_cast<long long>(own.groups_per_row) * own.height;
  if (Status st = run_statistics(own, f, StatsAlgorithm::fused, curve, nullptr, peak_hist); !st.ok()) return st;
  const int scales = lp.scales < 1 ? 1 : (lp.scales > core::kMaxLocalScales ? core::kMaxLocalScales : lp.scales);
  const auto algo = static_cast<sat::SatAlgorithm>(lp.sat);
  // reinhard-sat with tile-local tables reads the input directly: no luminance plane.
  const bool tiles = tile_local();
  if (!tiles)
    if (Status st = cuda_local::launch_luminance_plane(c.input, g.in, f.in_stride, w, h, plane, s); !st.ok()) return st;
  if (Status st = cuda_local::launch_local_settings(lp, f.temporal.state ? &frame_->adapted : &frame_->stats, settings, s);
      !st.ok())
    return st;
  if (Status st = mark(1, s); !st.ok()) return st;

  cuda_local::LocalMapArgs a;
  a.in = g.in;
  a.in_stride = f.in_stride;
  // A part's output holds its own rows: row y of the input is row y - context_above there.
  a.out = reinterpret_cast<unsigned char*>(reinterpret_cast<std::uintptr_t>(f.out) -
                                           static_cast<std::uintptr_t>(part.context_above) * f.out_stride);
  a.out_stride = f.out_stride;
  a.out_surface = f.out_surface;
  a.width = w;
  a.height = h;
  a.out_code = c.output.type == PixelType::u8 ? 0 : c.output.type == PixelType::u16 ? 1 : c.output.type == PixelType::f16 ? 2 : 3;
  a.out_channels = c.output.channels;
  a.saturation = saturation;
  a.gamma = gamma;
  a.dither = dither;
  a.settings = settings;
  a.tile_width = c.tuning.tile_width;
  a.tile_height = c.tuning.tile_height;
  a.out_row_begin = part.context_above;
  a.out_row_end = h - part.context_below;
  a.dither_row0 = part.first_row - part.context_above;
  if (f.encode) a.encode = *f.encode;
  std::copy(std::begin(level_offset), std::end(level_offset), a.level_offset);
  std::copy(std::begin(level_inv_area), std::end(level_inv_area), a.level_inv_area);
  cuda_local::LocalPath path = cuda_local::LocalPath::gauss;
  switch (lp.kind) {
    case core::LocalKind::reinhard_box: {
      const bool need_table = scales > 1 && lp.epsilon > 0;  // level 0 is the pixel itself
      if (tiles) {
        path = cuda_local::LocalPath::sat_tile;  // the tables are built inside the map kernel
      } else if (algo == sat::SatAlgorithm::automatic && c.tuning.sat_auto == SatPrecision::tiled_f32_pairs) {
        path = cuda_local::LocalPath::sat_tiled;
        if (need_table)
          if (Status st = cuda_local::build_sat_tiled_device(plane, w, h, w, hi, lo, s); !st.ok()) return st;
        a.hi = hi;
        a.lo = lo;
        a.tiled = sat::tiled_layout(w, h);
      } else {
        path = cuda_local::LocalPath::sat_f64;
        if (need_table)
          if (Status st = cuda_local::build_sat_device(algo, plane, w, h, w, table, sat, s); !st.ok()) return st;
        a.table = table;
      }
      break;
    }
    case core::LocalKind::reinhard_gauss:
      path = cuda_local::LocalPath::gauss;
      if (Status st = cuda_local::launch_gauss_pyramid(plane, w, h, gauss, scales, settings, tmp, centre, active, s);
          !st.ok())
        return st;
      a.centre = centre;
      break;
    case core::LocalKind::drago_local:
      path = cuda_local::LocalPath::drago;
      if (Status st = cuda_local::launch_drago_columns(plane, w, h, settings, colsum, s); !st.ok()) return st;
      a.colsum = colsum;
      break;
    case core::LocalKind::local_laplacian:
      path = cuda_local::LocalPath::laplacian;
      if (Status st = cuda_local::launch_local_laplacian(plane, w, h, f.temporal.state ? &frame_->adapted : &frame_->stats,
                                                         llf_curve, llf, s);
          !st.ok())
        return st;
      a.llf_out = llf.out0;
      a.llf_frame = llf.frame;
      break;
    case core::LocalKind::exposure_fusion:
      path = cuda_local::LocalPath::fusion;
      if (Status st = cuda_local::launch_exposure_fusion(c.input, g.in, f.in_stride, plane, w, h,
                                                         f.temporal.state ? &frame_->adapted : &frame_->stats, lp.fusion,
                                                         fusion, s);
          !st.ok())
        return st;
      a.llf_out = fusion.out0;
      break;
    case core::LocalKind::none: return invalid_argument("ToneMapper: no local operator");
  }
  if (Status st = mark(2, s); !st.ok()) return st;
  if (Status st = cuda_local::launch_local_map(c.input, path, c.tuning.variant, a, s); !st.ok()) return st;
  if (Status st = mark(3, s); !st.ok()) return st;
  finish_frame(f);
  return {};
}

}  // namespace

Result<std::unique_ptr<OperatorPass>> create_local_pass(const PassConfig& config) {
  if (Status s = check_frame_config("ToneMapper", config.width, config.height, config.output); !s.ok()) return s;
  if (config.tuning.tile_width != 32 && config.tuning.tile_width != 64)
    return invalid_argument("ToneMapper: tile_width must be 32 or 64, got " + std::to_string(config.tuning.tile_width));
  if (config.tuning.tile_height != 32 && !(config.tuning.tile_height == 64 && config.tuning.tile_width == 64))
    return invalid_argument("ToneMapper: tile_height must be 32 (or 64 with tile_width 64), got " +
                            std::to_string(config.tuning.tile_height));
  if (Status s = check_device_present(); !s.ok()) return s;
  auto pass = std::make_unique<LocalPass>(config);
  if (Status s = pass->init(); !s.ok()) return s;
  return std::unique_ptr<OperatorPass>(std::move(pass));
}

}  // namespace tonekit::cuda
