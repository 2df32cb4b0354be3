// GlobalPass: the global operators' pass of the device pipeline (cuda/operator_pass.hpp). Owns the
// scratch, allocated once at creation; process() enqueues statistics -> (temporal step) ->
// (robust peak: histogram -> percentile) -> (histogram -> scan) -> map on the caller's stream with no allocation and no host
// synchronisation. The curve constants of each frame are derived on the device from that frame's
// statistics (core::prepare_curve_hd in the last block of the statistics pass, again in the
// temporal step's kernel with the adapted key and peak), so the key never travels to the host.
// A frame part's pass reads its own rows only (the global operators need no context rows).
#include <cuda_runtime.h>

#include <algorithm>
#include <string>

#include "core/map_settings.hpp"
#include "cuda/check.hpp"
#include "cuda/frame_checks.hpp"
#include "cuda/operator_pass.hpp"

namespace tonekit::cuda {

namespace {

MapColour colour_from(const Params& p, const core::CurvePlan& plan) {
  const core::ColourSettings c = core::make_colour_settings(p);
  MapColour m;
  m.saturation = static_cast<float>(c.saturation);
  m.gamma = static_cast<float>(c.gamma);
  m.inv_gamma = m.gamma != 0.0f ? 1.0f / m.gamma : 0.0f;
  m.dither = c.dither ? 1 : 0;
  m.curve = plan.op;
  return m;
}

Status check_params(const Params& p) {
  if (p.op().locality != Locality::global)
    return unsupported(std::string("operator '") + p.op().id + "' is local; the CUDA backend maps global operators");
  return {};
}

class GlobalPass final : public OperatorPass {
 public:
  explicit GlobalPass(const PassConfig& config) : OperatorPass(config, MiddleStage::histogram) {}

  ~GlobalPass() override {
    cudaFree(hist_);
    cudaFree(cdf_);
    cudaFree(table_);
    cudaFree(scan_temp_);
  }

  Status init() {
    const FramePart& part = cfg_.part;
    if (Status s = init_statistics(cfg_.height - part.context_above - part.context_below, cfg_.tuning.stats_blocks_per_sm,
                                   true);
        !s.ok())
      return s;
    TK_CUDA_CHECK(cudaMalloc(&hist_, kMaxHistogramBins * sizeof(unsigned long long)));
    TK_CUDA_CHECK(cudaMalloc(&cdf_, kMaxHistogramBins * sizeof(unsigned long long)));
    TK_CUDA_CHECK(cudaMalloc(&table_, kMaxHistogramBins * sizeof(float)));
    if (Status s = cuda::scan_temp_bytes(scan_temp_bytes_); !s.ok()) return s;
    TK_CUDA_CHECK(cudaMalloc(&scan_temp_, std::max<std::size_t>(scan_temp_bytes_, 16)));
    curve_ = core::compile_curve_plan(cfg_.params);
    colour_ = colour_from(cfg_.params, curve_);
    return {};
  }

  Status process(const PassFrame& request) override {
    PassFrame f = request;
    const PassConfig& c = cfg_;
    if (f.out_surface) return invalid_argument("ToneMapper: the global pass writes no surface");
    if (Status st = check_frame_buffers("ToneMapper", c.input, c.output, c.width, f.in, f.in_stride, f.out, f.out_stride);
        !st.ok())
      return st;
    const cudaStream_t s = f.stream;
    FrameGeometry g = geo_;  // a part's own rows
    g.in = static_cast<const unsigned char*>(f.in) + static_cast<std::size_t>(c.part.context_above) * f.in_stride;
    g.in_stride = f.in_stride;
    if (Status st = mark(0, s); !st.ok()) return st;
    const float* table = curve_.histogram_bins > 0 ? table_ : nullptr;
    core::CurvePlan curve = curve_;
    curve.temporal = f.temporal;
    if (Status st = run_statistics(g, f, c.tuning.stats, curve, table, hist_); !st.ok()) return st;
    if (Status st = mark(1, s); !st.ok()) return st;
    if (curve_.histogram_bins > 0) {
      if (Status st = launch_histogram(c.input, g, frame_, hist_, curve_.histogram_bins, sm_count_, s); !st.ok()) return st;
      if (c.part.exchange)
        if (Status st = c.part.exchange->combine(hist_, static_cast<std::size_t>(curve_.histogram_bins), nullptr, 0, s);
            !st.ok())
          return st;
      if (Status st = launch_histeq_table(c.tuning.scan, hist_, cdf_, curve_.histogram_bins, table_, scan_temp_,
                                          scan_temp_bytes_, s);
          !st.ok())
        return st;
    }
    if (Status st = mark(2, s); !st.ok()) return st;
    MapColour colour = colour_;
    colour.dither_row0 = c.part.first_row;
    if (f.encode) {
      if (c.input != InputFormat::rgb_f32 || c.part.exchange)
        return invalid_argument("ToneMapper: the fused 4:2:0 encode reads a whole decoded float RGB frame");
      if (Status st = launch_map_encode420(g, static_cast<std::uint8_t*>(f.out), frame_, colour, *f.encode, s); !st.ok())
        return st;
    } else if (Status st = launch_map(c.input, c.output, g, f.out, f.out_stride, frame_, colour, c.tuning.map_backwards,
                                      c.tuning.programmatic_launch, s);
               !st.ok()) {
      return st;
    }
    if (Status st = mark(3, s); !st.ok()) return st;
    finish_frame(f);
    return {};
  }

  Status set_params(const Params& params) override {
    if (Status s = check_params(params); !s.ok()) return s;
    cfg_.params = params;
    curve_ = core::compile_curve_plan(params);
    colour_ = colour_from(params, curve_);
    return {};
  }

  bool fuses_encode() const override { return cfg_.input == InputFormat::rgb_f32; }
  bool writes_surfaces() const override { return false; }

 private:
  core::CurvePlan curve_{};
  MapColour colour_{};
  unsigned long long* hist_ = nullptr;  // the robust peak's and histeq's histogram
  unsigned long long* cdf_ = nullptr;
  float* table_ = nullptr;
  void* scan_temp_ = nullptr;
  std::size_t scan_temp_bytes_ = 0;
};

}  // namespace

Result<std::unique_ptr<OperatorPass>> create_global_pass(const PassConfig& config) {
  if (Status s = check_frame_config("ToneMapper", config.width, config.height, config.output); !s.ok()) return s;
  if (Status s = check_params(config.params); !s.ok()) return s;
  if (config.tuning.stats_blocks_per_sm < 0)
    return invalid_argument("ToneMapper: stats_blocks_per_sm must be >= 0 (0: as many as fit), got " +
                            std::to_string(config.tuning.stats_blocks_per_sm));
  if (Status s = check_device_present(); !s.ok()) return s;
  auto pass = std::make_unique<GlobalPass>(config);
  if (Status s = pass->init(); !s.ok()) return s;
  return std::unique_ptr<OperatorPass>(std::move(pass));
}

}  // namespace tonekit::cuda
