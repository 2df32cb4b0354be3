// tonekit::CpuToneMapper (tonekit/cpu_tone_mapper.hpp): the CPU backend's stages behind the
// device ToneMapper's shape. Here, above cpu/ and blur/ (the layers of docs/architecture.md),
// because a frame runs both: decode and map (cpu/), glare (blur/), the fused video path
// (cpu/video_fast.hpp).
#include "tonekit/cpu_tone_mapper.hpp"

#include <cstring>
#include <string>

#include "core/half.hpp"
#include "core/map_settings.hpp"
#include "cpu/blur/night_plan.hpp"
#include "cpu/isa_level.hpp"
#include "cpu/video_decode.hpp"
#include "cpu/video_encode.hpp"
#include "cpu/video_fast.hpp"

namespace tonekit {
namespace {

bool is_float_rgb(InputFormat f) {
  return f == InputFormat::rgb_f32 || f == InputFormat::rgba_f32 || f == InputFormat::rgba_f16;
}

bool is_yuv_layout(OutputLayout l) { return l == OutputLayout::yuv420p || l == OutputLayout::nv12; }

// Any host float/half view into an owning float image with the same channels (glare takes one).
void copy_to_image(const ImageView& v, Image& image) {
  if (image.width != v.width || image.height != v.height || image.channels != v.channels)
    image = Image(v.width, v.height, v.channels);
  for (int y = 0; y < v.height; ++y) {
    float* dst = image.row(y);
    const std::size_t n = static_cast<std::size_t>(v.width) * static_cast<std::size_t>(v.channels);
    if (v.type == PixelType::f32) {
      std::memcpy(dst, v.row<const float>(y), n * sizeof(float));
    } else {
      const auto* src = v.row<const std::uint16_t>(y);
      for (std::size_t i = 0; i < n; ++i) dst[i] = core::half_to_float(src[i]);
    }
  }
}

Status check_glare(const GlareParams& glare, int width, int height) {
  if (glare.strength <= 0) return {};
  Result<std::vector<GlareOctave>> octaves = plan_glare(glare, width, height);
  return octaves.ok() ? Status{} : octaves.status();
}

Status check_night(const NightParams& night, int width, int height) {
  if (!night.on) return {};
  auto plan = blur_impl::plan_night(night, width, height, 4);
  return plan.ok() ? Status{} : plan.status();
}

}  // namespace

struct CpuToneMapper::Impl {
  CpuToneMapperConfig cfg;
  std::size_t output_bytes = 0;
  std::unique_ptr<cpu::FastVideo> fast;  // when the fused video path covers the frames
  Image scene;    // the decoded scene-linear frame (when the input is not one already)
  Image display;  // linear display RGB before the 4:2:0 encode
  FrameStats stats;
  FrameStats adapted;
  TemporalState state;
  std::uint32_t night_frames = 0;  // the night stage's noise frame index

  // The fused path follows the input, the output and the `gamma` parameter.
  void choose_path() {
    const core::ColourSettings cs = core::make_colour_settings(cfg.params);
    const bool covered = !cfg.exact && cpu::FastVideo::covers(cfg.input, cfg.colour, is_yuv_layout(cfg.output_layout), cs.gamma);
    if (!covered) fast.reset();
    else if (!fast) fast = std::make_unique<cpu::FastVideo>(cfg.input, cfg.colour, cfg.width, cfg.height);
  }

  Status map(const FramePlanes& in, std::uint8_t* out, std::size_t out_stride, double dt);
};

CpuToneMapper::CpuToneMapper(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
CpuToneMapper::~CpuToneMapper() = default;

Result<std::unique_ptr<CpuToneMapper>> CpuToneMapper::create(const CpuToneMapperConfig& config) {
  const CpuToneMapperConfig& c = config;
  if (c.width < 1 || c.height < 1)
    return invalid_argument("CpuToneMapper: frame size " + std::to_string(c.width) + "x" + std::to_string(c.height) +
                            " must be at least 1x1");
  if (Status s = validate(c.colour); !s.ok()) return s;
  if (c.output_layout == OutputLayout::interleaved && c.output.channels != 3 && c.output.channels != 4)
    return invalid_argument("CpuToneMapper: the output has 3 or 4 channels, not " + std::to_string(c.output.channels));
  if (Status s = check_glare(c.glare, c.width, c.height); !s.ok()) return s;
  if (Status s = check_night(c.night, c.width, c.height); !s.ok()) return s;
  auto impl = std::make_unique<Impl>();
  impl->cfg = c;
  impl->output_bytes = is_yuv_layout(c.output_layout)
                           ? output_frame_bytes(c.output_layout, c.width, c.height, 3, 1)
                           : output_frame_bytes(OutputLayout::interleaved, c.width, c.height, c.output.channels,
                                                bytes_per_channel(c.output.type));
  impl->choose_path();
  return std::unique_ptr<CpuToneMapper>(new CpuToneMapper(std::move(impl)));
}

Status CpuToneMapper::process(const void* in, std::size_t in_stride, void* out, std::size_t out_stride, double dt) {
  if (is_planar(impl_->cfg.input))
    return invalid_argument(std::string("CpuToneMapper::process: a ") + input_format_name(impl_->cfg.input) +
                            " frame has several planes: pass a FramePlanes");
  FramePlanes planes;
  planes.data[0] = in;
  planes.stride[0] = in_stride;
  return process(planes, out, out_stride, dt);
}

Status CpuToneMapper::process(const FramePlanes& in, void* out, std::size_t out_stride, double dt) {
  const CpuToneMapperConfig& c = impl_->cfg;
  if (c.temporal && !(dt >= 0.0 && dt < 1e6))
    return invalid_argument("CpuToneMapper::process: time step " + std::to_string(dt) + " s is not in [0, 1e6)");
  for (int p = 0; p < plane_count(c.input); ++p) {
    if (!in.data[p]) return invalid_argument("CpuToneMapper::process: plane " + std::to_string(p) + " is null");
    const std::size_t row = plane_row_bytes(c.input, p, c.width);
    if (in.stride[p] != 0 && in.stride[p] < row)
      return invalid_argument("CpuToneMapper::process: plane " + std::to_string(p) + "'s stride " +
                              std::to_string(in.stride[p]) + " bytes is below its row's " + std::to_string(row));
  }
  if (!out) return invalid_argument("CpuToneMapper::process: null output");
  if (is_yuv_layout(c.output_layout) && out_stride != 0)
    return invalid_argument("CpuToneMapper::process: a 4:2:0 output is packed (out_stride_bytes 0)");
  return impl_->map(in, static_cast<std::uint8_t*>(out), out_stride, dt);
}

Status CpuToneMapper::Impl::map(const FramePlanes& in, std::uint8_t* out, std::size_t out_stride, double dt) {
  // Temporal adaptation replaces the statistics the curve reads; the state lives on here,
  // across every frame.
  const bool temporal = cfg.temporal;
  cpu::CurveStatsHook hook;
  if (temporal)
    hook = [&](const FrameStats& own) { return adapted = temporal_update(state, own, cfg.temporal_params, dt); };
  const core::ColourSettings cs = core::make_colour_settings(cfg.params);
  const OutputLayout layout = cfg.output_layout;
  const bool glare = cfg.glare.strength > 0, night = cfg.night.on;
  // The commonest video case in one fused path: no display image between the map and the encode.
  if (fast && !glare && !night && cpu::FastVideo::fuses(cfg.params)) {
    if (Status s = fast->map(in, cfg.params, temporal ? &hook : nullptr, layout, cs.dither, scene, stats, out); !s.ok())
      return s;
    if (!temporal) adapted = stats;
    return {};
  }
  // The scene-linear BT.709 frame: the input's own memory when it is float RGB(A) in linear
  // BT.709 already (read only: the passes read their input, glare copies it first), else `scene`.
  const int w = cfg.width, h = cfg.height;
  ImageView view;
  const bool linear709 = cfg.colour.transfer == Transfer::linear && cfg.colour.primaries == Primaries::bt709;
  if (is_float_rgb(cfg.input) && linear709) {
    const int channels = cfg.input == InputFormat::rgb_f32 ? 3 : 4;
    // The const_cast lets a read-only frame through ImageView, which has one pointer type.
    view = ImageView{const_cast<void*>(in.data[0]), w, h, channels,
                     cfg.input == InputFormat::rgba_f16 ? PixelType::f16 : PixelType::f32, in.stride[0], MemorySpace::host};
  } else if (fast) {
    fast->decode(in, scene);
    view = scene.view();
  } else {
    if (Status s = cpu::decode_frame(in, cfg.input, cfg.colour, w, h, scene); !s.ok()) return s;
    view = scene.view();
  }
  if (glare || night) {  // glare and night vision take an owning float image
    if (view.data != scene.pixels.data()) {
      copy_to_image(view, scene);
      view = scene.view();
    }
    if (glare)
      if (Status s = apply_glare(scene, cfg.glare); !s.ok()) return s;
    if (night)
      if (Status s = apply_night(scene, cfg.night, night_frames++); !s.ok()) return s;
  }

  const bool yuv = is_yuv_layout(layout);
  ImageView target;
  if (yuv) {
    if (display.width != w || display.height != h) display = Image(w, h, 3);
    target = display.view();
  } else {
    target = ImageView{out, w, h, cfg.output.channels, cfg.output.type, out_stride, MemorySpace::host};
  }
  if (Status s = cpu::tone_map(view, cfg.params, target, &stats, nullptr, temporal ? &hook : nullptr); !s.ok()) return s;
  if (!temporal) adapted = stats;
  if (!yuv) return {};
  if (fast) {
    fast->encode(display, layout, cs.dither, out);
    return {};
  }
  return cpu::encode_yuv420(display.view(), layout, cs.gamma, cs.dither, out, output_bytes);
}

Status CpuToneMapper::set_params(const Params& params) {
  impl_->cfg.params = params;
  impl_->choose_path();
  return {};
}

Status CpuToneMapper::set_glare(const GlareParams& glare) {
  if (Status s = check_glare(glare, impl_->cfg.width, impl_->cfg.height); !s.ok()) return s;
  impl_->cfg.glare = glare;
  return {};
}

Status CpuToneMapper::set_night(const NightParams& night) {
  if (Status s = check_night(night, impl_->cfg.width, impl_->cfg.height); !s.ok()) return s;
  impl_->cfg.night = night;
  return {};
}

Status CpuToneMapper::set_temporal(bool on, const TemporalParams& params) {
  impl_->cfg.temporal = on;
  impl_->cfg.temporal_params = params;
  return {};
}

Status CpuToneMapper::read_temporal_state(TemporalState& state) const {
  state = impl_->state;
  return {};
}

Status CpuToneMapper::reset_temporal() {
  impl_->state = TemporalState{};
  return {};
}

Status CpuToneMapper::seed_temporal(const TemporalState& state) {
  impl_->state = state;
  return {};
}

Status CpuToneMapper::read_stats(FrameStats& stats, FrameStats* adapted) const {
  stats = impl_->stats;
  if (adapted) *adapted = impl_->adapted;
  return {};
}

bool CpuToneMapper::fast_path() const { return impl_->fast != nullptr; }
std::size_t CpuToneMapper::output_bytes() const { return impl_->output_bytes; }
const CpuToneMapperConfig& CpuToneMapper::config() const { return impl_->cfg; }

const char* cpu_isa_level() { return cpu::isa_level_name(cpu::isa_level()); }
const char* cpu_isa_level_supported() { return cpu::isa_level_name(cpu::isa_level_supported()); }

}  // namespace tonekit
