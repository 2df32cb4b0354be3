// ToneMapper: the one device pipeline (include/tonekit/tone_mapper.hpp). It owns the operator
// passes (cuda/operator_pass.hpp) and picks one when the operator is set, from its locality:
//   [glare: input -> float scratch, GlareEngine adds the blurred bright pass in place]
//   [night vision: NightEngine reads the frame so far (input, glare frame or decoded frame) and
//    writes a float RGBA frame, which the pass then reads]
//   -> the pass: the global one (statistics -> (histogram -> scan) -> map) or a local one
//      (statistics -> local settings -> table / pyramid / window sums -> map)
// Temporal adaptation runs inside the statistics pass's finisher (core::temporal_step on the
// device, state in device memory owned here), so frame N is mapped with statistics that
// include frame N and nothing travels to the host.
// Passes are created on first use and kept: switching operator back and forth allocates once.
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <string>

#include "core/local_settings.hpp"
#include "core/map_settings.hpp"
#include "cuda/blur/glare_engine.hpp"
#include "cuda/blur/night_engine.hpp"
#include "cuda/check.hpp"
#include "cuda/frame_checks.hpp"
#include "cuda/interop/surface_frames.hpp"
#include "cuda/operator_pass.hpp"
#include "cuda/pipeline.hpp"
#include "cuda/tuning.hpp"
#include "cuda/video_stages.hpp"
#include "tonekit/tone_mapper.hpp"

namespace tonekit {
namespace cuda {

const char* stats_algorithm_name(StatsAlgorithm a) {
  switch (a) {
    case StatsAlgorithm::fused: return "fused";
    case StatsAlgorithm::harris: return "harris";
    case StatsAlgorithm::mjp: return "mjp";
    case StatsAlgorithm::cub: return "cub";
    case StatsAlgorithm::bulk: return "bulk";
    case StatsAlgorithm::async: return "async";
  }
  return "?";
}

const char* scan_algorithm_name(ScanAlgorithm a) { return a == ScanAlgorithm::blelloch ? "blelloch" : "cub"; }

const char* dodge_variant_name(DodgeVariant v) {
  switch (v) {
    case DodgeVariant::global_loads: return "global";
    case DodgeVariant::readonly_cache: return "readonly";
    case DodgeVariant::shared_tiles: return "shared";
  }
  return "?";
}

}  // namespace cuda

namespace {

bool float_rgb(InputFormat f) {
  return f == InputFormat::rgb_f32 || f == InputFormat::rgba_f32 || f == InputFormat::rgba_f16;
}

// The decode stage runs for the video layouts and for float RGB in another colour than scene-linear BT.709.
bool needs_decode(const ToneMapperConfig& c) {
  return !float_rgb(c.input) || c.colour.transfer != Transfer::linear || c.colour.primaries != Primaries::bt709;
}

bool uses_glare(const GlareParams& g, int width, int height) {
  return g.strength > 0 && g.radius * (width > height ? width : height) >= 0.5;
}

// The pass slot of an operator: the global pass, or 1 + core::LocalKind for a local one (host
// code: the registry lookup). The one place that looks at the operator's locality.
constexpr int kGlobalSlot = 0, kPassSlots = 7;  // 1 + the largest core::LocalKind (exposure_fusion = 5) + 1
int pass_slot(const Params& p) {
#if !defined(__CUDA_ARCH__)
  if (p.op().locality == Locality::global) return kGlobalSlot;
  return 1 + static_cast<int>(core::local_kind_for(p.op()));
#else
  return kGlobalSlot;
#endif
}

std::size_t free_bytes() {
  std::size_t free = 0, total = 0;
  if (cudaMemGetInfo(&free, &total) != cudaSuccess) cudaGetLastError();
  return free;
}

// A frame part (FramePart): own rows between its context rows, an exchange, and what parts take.
Status check_part(const ToneMapperConfig& c) {
  const FramePart& p = c.part;
  if (!p.active()) return {};
  if (!p.exchange) return invalid_argument("ToneMapper: a frame part needs a StatsExchange");
  if (p.context_above < 0 || p.context_below < 0 || p.first_row < 0 ||
      static_cast<long long>(p.context_above) + p.context_below >= c.height)
    return invalid_argument("ToneMapper: a frame part needs context rows >= 0, first_row >= 0 and own rows between them (height " +
                            std::to_string(c.height) + ", context " + std::to_string(p.context_above) + " + " +
                            std::to_string(p.context_below) + ")");
  if (needs_decode(c) || c.output_layout != OutputLayout::interleaved)
    return unsupported("ToneMapper: frame parts take float or half RGB(A) scene-linear BT.709 input and an interleaved output");
  if (c.night.on)
    return unsupported("ToneMapper: night vision over a frame part (several GPUs) is not supported: its adapting "
                       "luminance and acuity blur are the whole frame's");
  if (uses_glare(c.glare, c.width, p.frame_height > 0 ? p.frame_height : c.height)) {
    if (p.frame_height <= 0)
      return invalid_argument("ToneMapper: glare over a frame part needs FramePart::frame_height (its octaves and key are the whole frame's)");
    if (static_cast<long long>(p.first_row) + c.height - p.context_above - p.context_below > p.frame_height)
      return invalid_argument("ToneMapper: a frame part's own rows end below FramePart::frame_height (" +
                              std::to_string(p.frame_height) + ")");
  }
  return {};
}

std::size_t stage_bytes(int width, int height, InputFormat f) {
  return static_cast<std::size_t>(width) * height * input_pixel_bytes(f);
}

}  // namespace

struct ToneMapper::Impl {
  ToneMapperConfig cfg;
  cuda::Tuning tuning;
  std::array<std::unique_ptr<cuda::OperatorPass>, kPassSlots> passes;  // by pass_slot, created on first use
  cuda::OperatorPass* pass = nullptr;       // cfg.params' pass
  cuda::OperatorPass* last_pass = nullptr;  // the pass of the last frame
  std::unique_ptr<GlareEngine> glare;
  void* glare_frame = nullptr;  // the input plus its glare, packed, in the input's format (half stays half)
  InputFormat glare_format = InputFormat::rgba_f32;
  std::unique_ptr<NightEngine> night;
  float* night_frame = nullptr;  // the night stage's output, packed float RGBA: what the pass reads
  std::uint32_t night_frames = 0;  // the noise's frame index
  cudaEvent_t night_start = nullptr, night_end = nullptr;
  bool night_ran = false;
  TemporalState* state = nullptr;  // device
  // Video stages: the decoded scene-linear float RGB frame (+ its bad-pixel counts), the passes'
  // display float RGB for the 4:2:0 encode.
  bool decode = false, encode = false;
  float* decoded = nullptr;
  unsigned* bad = nullptr;
  float* display = nullptr;
  cudaEvent_t glare_start = nullptr, glare_end = nullptr;
  cudaEvent_t stage_ev[4] = {};  // decode start/end, encode start/end
  bool timings = false, ran = false, glare_ran = false;
  std::size_t held_bytes = 0;  // device memory taken by the passes and glare (cudaMemGetInfo deltas)
  cudaStream_t last_stream = nullptr;
  // process_surfaces() fallbacks (allocated at first use): the input read into linear memory
  // (glare off), the global operators' linear RGBA8 output.
  void* surface_in = nullptr;
  void* surface_out = nullptr;
  // The output surface's handle in device memory, as the local map kernels read it
  // (cuda_local::LocalMapArgs::out_surface says why), rewritten only when it changes.
  unsigned long long* surface_slot = nullptr;
  unsigned long long surface_in_slot = 0;

  ~Impl() {
    cudaFree(surface_in);
    cudaFree(surface_out);
    cudaFree(surface_slot);
    cudaFree(glare_frame);
    cudaFree(night_frame);
    cudaFree(state);
    cudaFree(decoded);
    cudaFree(bad);
    cudaFree(display);
    for (cudaEvent_t e : stage_ev)
      if (e) cudaEventDestroy(e);
    if (glare_start) cudaEventDestroy(glare_start);
    if (glare_end) cudaEventDestroy(glare_end);
    if (night_start) cudaEventDestroy(night_start);
    if (night_end) cudaEventDestroy(night_end);
  }

  bool glare_on() const { return glare && glare->active(); }
  bool night_on() const { return night && night->active(); }
  // What the operator passes read: the night frame, the input, its glared copy (in the input's
  // format) or the decoded frame.
  InputFormat operator_input() const {
    return night_on() ? InputFormat::rgba_f32 : decode ? InputFormat::rgb_f32 : cfg.input;
  }
  OutputFormat pass_output() const { return encode ? OutputFormat{PixelType::f32, 3} : cfg.output; }

  cuda::PassConfig pass_config() const {
    cuda::PassConfig p;
    p.width = cfg.width;
    p.height = cfg.height;
    p.input = operator_input();
    p.output = pass_output();
    p.params = cfg.params;
    p.part = cfg.part;
    p.tuning = tuning;
    p.timings = timings;
    p.device = cfg.device;
    return p;
  }

  // The pass for cfg.params, created when missing or when it reads another input format.
  Status ensure_pass(bool* reallocated) {
    if (reallocated) *reallocated = false;
    const int index = pass_slot(cfg.params);
    std::unique_ptr<cuda::OperatorPass>& slot = passes[index];
    if (slot && slot->config().input == operator_input()) {
      if (Status s = slot->set_params(cfg.params); !s.ok()) return s;
      pass = slot.get();
      return {};
    }
    if (ran) TK_CUDA_CHECK(cudaStreamSynchronize(last_stream));
    const std::size_t before = free_bytes();
    auto created = index == kGlobalSlot ? cuda::create_global_pass(pass_config()) : cuda::create_local_pass(pass_config());
    held_bytes += before - std::min(before, free_bytes());
    if (!created.ok()) return created.status();
    if (last_pass == slot.get()) last_pass = nullptr;
    slot = std::move(created.value());
    pass = slot.get();
    if (reallocated) *reallocated = true;
    return {};
  }

  Status configure_glare() {
    const bool part = cfg.part.active() && cfg.part.frame_height > 0;
    if (!uses_glare(cfg.glare, cfg.width, part ? cfg.part.frame_height : cfg.height)) {
      glare.reset();
      return {};
    }
    glare_format = decode ? InputFormat::rgb_f32 : cfg.input;
    GlareEngineConfig g;
    g.width = cfg.width;
    g.height = cfg.height;
    g.channels = glare_format == InputFormat::rgb_f32 ? 3 : 4;
    g.half_frames = glare_format == InputFormat::rgba_f16;
    g.params = cfg.glare;
    g.device = cfg.device;
    if (part) {  // the whole frame's glare on this band's rows (context rows included: the operator reads them)
      g.frame_height = cfg.part.frame_height;
      g.frame_row0 = cfg.part.first_row - cfg.part.context_above;
      g.own_begin = cfg.part.context_above;
      g.own_end = cfg.height - cfg.part.context_below;
      g.exchange = cfg.part.exchange;
    }
    if (ran) TK_CUDA_CHECK(cudaStreamSynchronize(last_stream));
    const std::size_t before = free_bytes();
    auto engine = GlareEngine::create(g);
    if (!engine.ok()) return engine.status();
    glare = std::move(engine.value());
    // With a decode stage the glare adds its light to the decoded frame in place.
    if (!decode && !glare_frame)
      TK_CUDA_CHECK(cudaMalloc(&glare_frame, stage_bytes(cfg.width, cfg.height, glare_format)));
    held_bytes += before - std::min(before, free_bytes());
    return {};
  }

  Status configure_night() {
    if (!cfg.night.on) {
      night.reset();
      return {};
    }
    NightEngineConfig n;
    n.width = cfg.width;
    n.height = cfg.height;
    n.params = cfg.night;
    n.device = cfg.device;
    if (ran) TK_CUDA_CHECK(cudaStreamSynchronize(last_stream));
    const std::size_t before = free_bytes();
    auto engine = NightEngine::create(n);
    if (!engine.ok()) return engine.status();
    night = std::move(engine.value());
    if (night->active() && !night_frame)
      TK_CUDA_CHECK(cudaMalloc(&night_frame, stage_bytes(cfg.width, cfg.height, InputFormat::rgba_f32)));
    held_bytes += before - std::min(before, free_bytes());
    return {};
  }

  // A stage's look field (glare, night) for the next frame: the stage reconfigured, then the
  // operator pass, which may now read another frame (glare's copy, night's float RGBA); on a
  // failure the previous setting is restored.
  template <class T>
  Status set_stage(T Look::*field, const T& value, Status (Impl::*configure)()) {
    const T previous = cfg.*field;
    cfg.*field = value;
    Status s = check_part(cfg);
    if (s.ok()) s = (this->*configure)();
    if (s.ok()) s = ensure_pass(nullptr);
    if (!s.ok()) {
      cfg.*field = previous;
      (void)(this->*configure)();
    }
    return s;
  }

  // The night stage on the frame so far (`format`: the input's, or rgb_f32 decoded) into
  // night_frame, which becomes what the pass reads.
  Status run_night(const void*& src, std::size_t& src_stride, InputFormat format, cudaStream_t s) {
    night_ran = night_on();
    if (!night_ran) return {};
    if (timings) TK_CUDA_CHECK(cudaEventRecord(night_start, s));
    const NightSource in{src, src_stride, format == InputFormat::rgb_f32 ? 3 : 4, format == InputFormat::rgba_f16};
    if (Status st = night->run(in, night_frame, s, night_frames++); !st.ok()) return st;
    if (timings) TK_CUDA_CHECK(cudaEventRecord(night_end, s));
    src = night_frame;
    src_stride = 0;
    return {};
  }

  // The glare frame = the input (widened to float) plus its glare: the glare stage reads the
  // input where it lies and writes the sum once (no copy pass, GlareEngine::run with a source).
  Status run_glare(const void* in, std::size_t in_stride, cudaStream_t s) {
    return glare->run(GlareSource{in, in_stride, cfg.input == InputFormat::rgba_f16}, glare_frame, s);
  }

  Status init() {
    if (cfg.device >= 0) TK_CUDA_CHECK(cudaSetDevice(cfg.device));
    timings = cfg.timings;
    TK_CUDA_CHECK(cudaMalloc(&state, sizeof(TemporalState)));
    TK_CUDA_CHECK(cudaMemset(state, 0, sizeof(TemporalState)));
    TK_CUDA_CHECK(cudaEventCreate(&glare_start));
    TK_CUDA_CHECK(cudaEventCreate(&glare_end));
    TK_CUDA_CHECK(cudaEventCreate(&night_start));
    TK_CUDA_CHECK(cudaEventCreate(&night_end));
    for (cudaEvent_t& e : stage_ev) TK_CUDA_CHECK(cudaEventCreate(&e));
    decode = needs_decode(cfg);
    encode = cfg.output_layout != OutputLayout::interleaved;
    const std::size_t rgb = stage_bytes(cfg.width, cfg.height, InputFormat::rgb_f32);
    if (decode) {
      TK_CUDA_CHECK(cudaMalloc(&decoded, rgb));
      TK_CUDA_CHECK(cudaMalloc(&bad, 3 * sizeof(unsigned)));
      TK_CUDA_CHECK(cudaMemset(bad, 0, 3 * sizeof(unsigned)));
    }
    if (encode) TK_CUDA_CHECK(cudaMalloc(&display, rgb));
    held_bytes += (decode ? rgb : 0) + (encode ? rgb : 0);
    if (Status s = configure_glare(); !s.ok()) return s;
    if (Status s = configure_night(); !s.ok()) return s;
    return ensure_pass(nullptr);
  }

  // What the passes' statistics step reads for temporal adaptation (nothing when it is off).
  core::TemporalControl temporal_control(double dt) const {
    core::TemporalControl t;
    if (cfg.temporal) {
      t.params = cfg.temporal_params;
      t.dt = dt;
      t.state = state;
    }
    return t;
  }

  Status sync() {
    if (ran) TK_CUDA_CHECK(cudaStreamSynchronize(last_stream));
    return {};
  }
};

ToneMapper::ToneMapper(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
ToneMapper::~ToneMapper() = default;

struct cuda::ToneMapperAccess {
  static Result<std::unique_ptr<ToneMapper>> create(const ToneMapperConfig& config, const Tuning& tuning) {
    if (Status s = cuda::check_frame_config("ToneMapper", config.width, config.height, config.output); !s.ok()) return s;
    if (Status s = validate(config.colour); !s.ok()) return s;
    if (config.output_layout != OutputLayout::interleaved && (config.width < 1 || config.height < 1))
      return invalid_argument("ToneMapper: empty frame");
    if (tuning.stats_blocks_per_sm < 0)  // the passes check the tile sizes when they are created
      return invalid_argument("ToneMapper: stats_blocks_per_sm must be >= 0 (0: as many as fit), got " +
                              std::to_string(tuning.stats_blocks_per_sm));
    if (config.temporal)
      if (Status s = prepare_temporal().status(); !s.ok()) return s;
    if (Status s = check_part(config); !s.ok()) return s;
    if (Status s = cuda::check_device_present(); !s.ok()) return s;
    auto impl = std::make_unique<ToneMapper::Impl>();
    impl->cfg = config;
    impl->tuning = tuning;
    if (Status s = impl->init(); !s.ok()) return s;
    return std::unique_ptr<ToneMapper>(new ToneMapper(std::move(impl)));
  }
  static const Tuning& tuning(const ToneMapper& m) { return m.impl_->tuning; }
};

Result<std::unique_ptr<ToneMapper>> ToneMapper::create(const ToneMapperConfig& config) {
  return cuda::ToneMapperAccess::create(config, cuda::Tuning{});
}

Result<std::unique_ptr<ToneMapper>> cuda::create_tone_mapper(const ToneMapperConfig& config, const Tuning& tuning) {
  return ToneMapperAccess::create(config, tuning);
}

const cuda::Tuning& cuda::tuning_of(const ToneMapper& mapper) { return ToneMapperAccess::tuning(mapper); }

Status ToneMapper::process(const void* device_in, std::size_t in_stride, void* device_out, std::size_t out_stride,
                           CUstream_st* stream, double dt) {
  if (is_planar(impl_->cfg.input))
    return invalid_argument(std::string("ToneMapper::process: a ") + input_format_name(impl_->cfg.input) +
                            " frame has several planes: pass a FramePlanes");
  FramePlanes planes;
  planes.data[0] = device_in;
  planes.stride[0] = in_stride;
  return process(planes, device_out, out_stride, stream, dt);
}

Status ToneMapper::process(const FramePlanes& in, void* device_out, std::size_t out_stride, CUstream_st* stream,
                           double dt) {
  Impl& m = *impl_;
  const ToneMapperConfig& c = m.cfg;
  if (c.temporal && !(dt >= 0.0 && dt < 1e6))
    return invalid_argument("ToneMapper::process: time step " + std::to_string(dt) + " s is not in [0, 1e6)");
  cudaStream_t s = stream;
  const void* src = in.data[0];
  std::size_t src_stride = in.stride[0];
  // The statistics gathered in the 4:2:0 decode (cuda::Tuning::decode_statistics): the whole
  // decoded frame, nothing (glare) changing it in between; the pass that runs finishes them.
  cuda::DeviceFrame* stats_frame = nullptr;
  if (m.decode && m.tuning.decode_statistics && is_yuv(c.input) && !m.glare_on() && !m.night_on() && !c.part.active())
    stats_frame = m.pass->stats_frame();
  const bool decode_stats = stats_frame != nullptr;
  if (m.decode) {
    cuda::VideoPlanes planes = in;
    for (int p = 0; p < plane_count(c.input); ++p) {
      const std::size_t row = plane_row_bytes(c.input, p, c.width);
      if (!planes.data[p]) return invalid_argument("ToneMapper::process: plane " + std::to_string(p) + " is null");
      if (planes.stride[p] == 0) planes.stride[p] = row;
      if (planes.stride[p] < row)
        return invalid_argument("ToneMapper::process: plane " + std::to_string(p) + "'s stride is smaller than a row");
      const std::size_t align = c.input == InputFormat::rgba_f16 || c.input == InputFormat::rgb48 || is_yuv(c.input) ? 2 : 4;
      if (reinterpret_cast<std::uintptr_t>(planes.data[p]) % align || planes.stride[p] % align)
        return invalid_argument("ToneMapper::process: planes and strides must be aligned to the sample size");
    }
    if (!device_out) return invalid_argument("ToneMapper::process: null output");
    if (m.timings) TK_CUDA_CHECK(cudaEventRecord(m.stage_ev[0], s));
    TK_CUDA_CHECK(cudaMemsetAsync(m.bad, 0, 3 * sizeof(unsigned), s));
    if (Status st = cuda::launch_video_decode(planes, c.input, c.colour, c.width, c.height, m.decoded, m.bad, s,
                                              cuda::VideoDecodeKernel::best,
                                              stats_frame);
        !st.ok())
      return st;
    if (m.timings) TK_CUDA_CHECK(cudaEventRecord(m.stage_ev[1], s));
    src = m.decoded;
    src_stride = 0;
  }
  void* pass_out = device_out;
  std::size_t pass_stride = out_stride;
  if (m.encode) {
    if (out_stride != 0)
      return invalid_argument("ToneMapper::process: a yuv420p / nv12 output is one packed frame (stride 0)");
    if (!device_out) return invalid_argument("ToneMapper::process: null output");
    pass_out = m.display;
    pass_stride = 0;
  }
  {  // what the passes read (the input, or the decoded frame) and write (the output, or the display frame)
    std::size_t checked_in = src_stride, checked_out = pass_stride;
    if (Status st = cuda::check_frame_buffers("ToneMapper", m.decode ? InputFormat::rgb_f32 : c.input, m.pass_output(),
                                              c.width, src, checked_in, pass_out, checked_out);
        !st.ok())
      return st;
  }
  m.glare_ran = m.glare_on();
  if (m.glare_ran) {
    if (m.timings) TK_CUDA_CHECK(cudaEventRecord(m.glare_start, s));
    if (m.decode) {
      if (Status st = m.glare->run(m.decoded, s); !st.ok()) return st;
    } else {
      if (Status st = m.run_glare(src, src_stride, s); !st.ok()) return st;
      src = m.glare_frame;
      src_stride = 0;
    }
    if (m.timings) TK_CUDA_CHECK(cudaEventRecord(m.glare_end, s));
  }
  if (Status st = m.run_night(src, src_stride, m.decode ? InputFormat::rgb_f32 : c.input, s); !st.ok()) return st;
  // A global operator's map, and reinhard-sat's tile map, write the 4:2:0 frame themselves
  // (launch_map_encode420, encode_tile_420): no display frame. They read the decoded frame, so
  // not after the night stage.
  const bool fused_encode = m.encode && m.decode && !m.night_ran && !c.part.active() && m.pass->fuses_encode();
  cuda::Encode420 enc;
  if (fused_encode) {
    const core::ColourSettings cs = core::make_colour_settings(c.params);
    enc.layout = c.output_layout;
    enc.gamma = static_cast<float>(cs.gamma);
    enc.dither = cs.dither;
    if (Status e = cuda::device_oetf_table(enc.oetf_table); !e.ok()) return e;
  }
  cuda::PassFrame frame;
  frame.in = src;
  frame.in_stride = src_stride;
  frame.out = fused_encode ? device_out : pass_out;
  frame.out_stride = fused_encode ? 0 : pass_stride;
  frame.stream = s;
  frame.temporal = m.temporal_control(dt);
  frame.totals_in_exchange = decode_stats;
  frame.encode = fused_encode ? &enc : nullptr;
  m.last_pass = m.pass;
  const Status st = m.pass->process(frame);
  if (!st.ok()) return st;
  if (m.encode && fused_encode) {  // the stage's events still frame it (empty): read_timings' encode_ms ~0
    if (m.timings) {
      TK_CUDA_CHECK(cudaEventRecord(m.stage_ev[2], s));
      TK_CUDA_CHECK(cudaEventRecord(m.stage_ev[3], s));
    }
  } else if (m.encode) {
    const core::ColourSettings cs = core::make_colour_settings(c.params);
    if (m.timings) TK_CUDA_CHECK(cudaEventRecord(m.stage_ev[2], s));
    if (Status e = cuda::launch_video_encode(m.display, c.width, c.height, c.output_layout, static_cast<float>(cs.gamma),
                                             cs.dither, static_cast<std::uint8_t*>(device_out), s);
        !e.ok())
      return e;
    if (m.timings) TK_CUDA_CHECK(cudaEventRecord(m.stage_ev[3], s));
  }
  m.ran = true;
  m.last_stream = s;
  return {};
}

Status ToneMapper::process_surfaces(unsigned long long input_surface, unsigned long long output_surface,
                                    CUstream_st* stream, double dt) {
  Impl& m = *impl_;
  const ToneMapperConfig& c = m.cfg;
  if (c.input != InputFormat::rgba_f16 && c.input != InputFormat::rgba_f32)
    return invalid_argument(std::string("ToneMapper::process_surfaces: the input must be rgba_f16 or rgba_f32, not ") +
                            input_format_name(c.input));
  if (m.decode || m.encode || c.output.type != PixelType::u8 || c.output.channels != 4)
    return invalid_argument(
        "ToneMapper::process_surfaces: needs scene-linear BT.709 input and an interleaved u8 x 4 (RGBA8) output");
  if (!input_surface || !output_surface) return invalid_argument("ToneMapper::process_surfaces: null surface");
  if (c.part.active()) return unsupported("ToneMapper::process_surfaces: a frame part (several GPUs) has no surface path");
  if (c.temporal && !(dt >= 0.0 && dt < 1e6))
    return invalid_argument("ToneMapper::process_surfaces: time step " + std::to_string(dt) + " s is not in [0, 1e6)");
  cudaStream_t s = stream;
  const void* src = nullptr;
  m.glare_ran = m.glare_on();
  if (m.glare_ran) {  // the glare's key pass reads the surface (and keeps its texels): no pass of its own
    if (m.timings) TK_CUDA_CHECK(cudaEventRecord(m.glare_start, s));
    if (Status st = m.glare->run(GlareSource{nullptr, 0, c.input == InputFormat::rgba_f16, input_surface}, m.glare_frame, s);
        !st.ok())
      return st;
    if (m.timings) TK_CUDA_CHECK(cudaEventRecord(m.glare_end, s));
    src = m.glare_frame;
  } else {  // fallback: the statistics pass reads row pointers, so the array is read into linear memory
    if (!m.surface_in) TK_CUDA_CHECK(cudaMalloc(&m.surface_in, stage_bytes(c.width, c.height, c.input)));
    if (Status st = cuda::launch_surface_to_linear(input_surface, c.input, c.width, c.height, m.surface_in, c.input, s);
        !st.ok())
      return st;
    src = m.surface_in;
  }
  std::size_t src_stride = 0;
  if (Status st = m.run_night(src, src_stride, c.input, s); !st.ok()) return st;
  cuda::PassFrame frame;
  frame.in = src;
  frame.stream = s;
  frame.temporal = m.temporal_control(dt);
  m.last_pass = m.pass;
  if (m.pass->writes_surfaces()) {
    if (!m.surface_slot) TK_CUDA_CHECK(cudaMalloc(&m.surface_slot, sizeof(unsigned long long)));
    if (m.surface_in_slot != output_surface) {  // pageable source: staged before the call returns
      TK_CUDA_CHECK(cudaMemcpyAsync(m.surface_slot, &output_surface, sizeof output_surface, cudaMemcpyHostToDevice, s));
      m.surface_in_slot = output_surface;
    }
    frame.out_surface = m.surface_slot;
    if (Status st = m.pass->process(frame); !st.ok()) return st;
  } else {  // fallback: the map kernel stores row pointers
    if (!m.surface_out) TK_CUDA_CHECK(cudaMalloc(&m.surface_out, static_cast<std::size_t>(c.width) * c.height * 4));
    frame.out = m.surface_out;
    if (Status st = m.pass->process(frame); !st.ok()) return st;
    if (Status st = cuda::launch_rgba8_to_surface(m.surface_out, c.width, c.height, output_surface, s); !st.ok())
      return st;
  }
  m.ran = true;
  m.last_stream = s;
  return {};
}

bool ToneMapper::surfaces_zero_copy() const {
  return impl_->glare_on() && impl_->pass->writes_surfaces();
}

Status ToneMapper::set_params(const Params& params, bool* reallocated) {
  Impl& m = *impl_;
  const Params previous = m.cfg.params;
  m.cfg.params = params;
  if (Status s = m.ensure_pass(reallocated); !s.ok()) {
    m.cfg.params = previous;
    return s;
  }
  return {};
}

Status ToneMapper::set_glare(const GlareParams& glare) {
  return impl_->set_stage(&Look::glare, glare, &Impl::configure_glare);
}

Status ToneMapper::set_night(const NightParams& night) {
  return impl_->set_stage(&Look::night, night, &Impl::configure_night);
}

Status ToneMapper::set_temporal(bool on, const TemporalParams& params) {
  if (params.cut_low_stops > params.cut_high_stops || !(params.tau_brighten >= 0) || !(params.tau_darken >= 0))
    return invalid_argument("ToneMapper::set_temporal: time constants must be >= 0 and cut_low <= cut_high");
  impl_->cfg.temporal = on;
  impl_->cfg.temporal_params = params;
  return {};
}

Status ToneMapper::read_temporal_state(TemporalState& state) {
  if (Status s = impl_->sync(); !s.ok()) return s;
  TK_CUDA_CHECK(cudaMemcpy(&state, impl_->state, sizeof state, cudaMemcpyDeviceToHost));
  return {};
}

Status ToneMapper::reset_temporal() {
  if (Status s = impl_->sync(); !s.ok()) return s;
  TK_CUDA_CHECK(cudaMemset(impl_->state, 0, sizeof(TemporalState)));
  return {};
}

Status ToneMapper::seed_temporal(const TemporalState& state) {
  if (Status s = impl_->sync(); !s.ok()) return s;
  TK_CUDA_CHECK(cudaMemcpy(impl_->state, &state, sizeof state, cudaMemcpyHostToDevice));
  return {};
}

Status ToneMapper::read_stats(FrameStats& stats, FrameStats* adapted) {
  Impl& m = *impl_;
  if (!m.ran) return invalid_argument("ToneMapper::read_stats: no frame processed yet");
  if (!m.last_pass) return invalid_argument("ToneMapper::read_stats: the last frame's pass was replaced");
  Status s = m.last_pass->read_stats(stats, adapted);
  if (!s.ok() || !m.decode) return s;
  // The passes saw the decoded (sanitised) frame: the bad pixels are the decoder's counts.
  unsigned bad[3];
  TK_CUDA_CHECK(cudaMemcpy(bad, m.bad, sizeof bad, cudaMemcpyDeviceToHost));
  for (FrameStats* f : {&stats, adapted}) {
    if (!f) continue;
    f->nan_count = bad[0];
    f->inf_count = bad[1];
    f->negative_count = bad[2];
  }
  return {};
}

const void* ToneMapper::device_stats() const {
  const Impl& m = *impl_;
  return m.pass->device_stats();
}

void ToneMapper::enable_timings(bool on) {
  Impl& m = *impl_;
  m.timings = on;
  for (auto& p : m.passes)
    if (p) p->enable_timings(on);
}

Status ToneMapper::read_timings(StageTimings& t) {
  Impl& m = *impl_;
  if (!m.timings || !m.ran) return invalid_argument("ToneMapper::read_timings: timings off or no frame processed");
  if (Status s = m.sync(); !s.ok()) return s;  // the encode stage's events come after the pass's
  t = StageTimings{};
  if (!m.last_pass) return invalid_argument("ToneMapper::read_timings: the last frame's pass was replaced");
  if (Status s = m.last_pass->read_timings(t); !s.ok()) return s;
  if (m.glare_ran) {
    float ms = 0.0f;
    TK_CUDA_CHECK(cudaEventElapsedTime(&ms, m.glare_start, m.glare_end));
    t.glare_ms = ms;
    t.total_ms += ms;
  }
  if (m.night_ran) {
    float ms = 0.0f;
    TK_CUDA_CHECK(cudaEventElapsedTime(&ms, m.night_start, m.night_end));
    t.night_ms = ms;
    t.total_ms += ms;
  }
  if (m.decode) {
    float ms = 0.0f;
    TK_CUDA_CHECK(cudaEventElapsedTime(&ms, m.stage_ev[0], m.stage_ev[1]));
    t.decode_ms = ms;
    t.total_ms += ms;
  }
  if (m.encode) {
    float ms = 0.0f;
    TK_CUDA_CHECK(cudaEventElapsedTime(&ms, m.stage_ev[2], m.stage_ev[3]));
    t.encode_ms = ms;
    t.total_ms += ms;
  }
  return {};
}

std::size_t ToneMapper::scratch_bytes() const { return impl_->held_bytes + sizeof(TemporalState); }

const ToneMapperConfig& ToneMapper::config() const { return impl_->cfg; }

}  // namespace tonekit
