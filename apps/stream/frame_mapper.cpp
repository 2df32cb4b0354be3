#include "stream/frame_mapper.hpp"

namespace tonekit::stream {
namespace {

bool is_float_rgb(InputFormat f) {
  return f == InputFormat::rgb_f32 || f == InputFormat::rgba_f32 || f == InputFormat::rgba_f16;
}

// Output pixel type and channels tone_map must produce for each sink (YUV: linear display
// float, which the encoder turns into 8-bit Y'CbCr).
OutputFormat mapped_format(OutputKind kind, io::OutputKind image_kind) {
  switch (kind) {
    case OutputKind::rgba: return {PixelType::u8, 4};
    case OutputKind::rgb24: return {PixelType::u8, 3};
    case OutputKind::sequence: return {image_kind == io::OutputKind::exr ? PixelType::f32 : PixelType::u8, 3};
    default: return {PixelType::f32, 3};
  }
}

bool is_yuv_output(OutputKind k) { return k == OutputKind::yuv420p || k == OutputKind::nv12 || k == OutputKind::y4m; }

OutputLayout output_layout(OutputKind k) {
  if (!is_yuv_output(k)) return OutputLayout::interleaved;
  return k == OutputKind::nv12 ? OutputLayout::nv12 : OutputLayout::yuv420p;
}

}  // namespace

FrameMapper::~FrameMapper() {
  if (log_) std::fclose(log_);
}

Result<std::unique_ptr<FrameMapper>> FrameMapper::create(const MapperSetup& s) {
  if (Status st = validate(s.colour); !st.ok()) return st;
  std::unique_ptr<FrameMapper> m(new FrameMapper(s));
  m->mapped_ = mapped_format(s.out, s.image_kind);
  m->output_bytes_ = is_yuv_output(s.out)
                         ? output_frame_bytes(OutputLayout::yuv420p, s.width, s.height, 3, 1)
                         : output_frame_bytes(OutputLayout::interleaved, s.width, s.height, m->mapped_.channels,
                                              bytes_per_channel(m->mapped_.type));
  if (s.devices.size() > 1) {
    const bool linear709 = s.colour.transfer == Transfer::linear && s.colour.primaries == Primaries::bt709;
    if (!is_float_rgb(s.format) || !linear709 || is_yuv_output(s.out))
      return unsupported("--devices splits each frame over the GPUs: it takes scene-linear BT.709 float or half RGB(A) "
                         "frames (EXR/HDR/PFM sequences, raw rgba_f16 or rgb_f32) and an RGB/RGBA or image-sequence "
                         "output (glare with its default pyramid blur splits too); video layouts, PQ/HLG and YUV "
                         "outputs run on one GPU");
  }
  if (!s.temporal_log.empty()) {
    m->log_ = std::fopen(s.temporal_log.c_str(), "w");
    if (!m->log_) return io_error(s.temporal_log + ": cannot create the temporal log");
    std::fputs("frame,frame_log_average,adapted_log_average,frame_peak,adapted_peak,cut\n", m->log_);
  }
  return m;
}

Status FrameMapper::start() {
  if (started_) return {};
  started_ = true;
  if (s_.backend == Backend::automatic) s_.backend = cuda_available() ? Backend::cuda : Backend::cpu;
  if (s_.backend == Backend::cuda) return start_cuda();
  return start_cpu();
}

template <class Config>
void FrameMapper::fill_config(Config& cfg) const {
  cfg.width = s_.width;
  cfg.height = s_.height;
  cfg.input = s_.format;
  cfg.colour = s_.colour;
  cfg.output = mapped_;
  cfg.output_layout = output_layout(s_.out);
  cfg.params = s_.params;
  cfg.glare = s_.glare;
  cfg.night = s_.night;
  cfg.temporal = s_.temporal.has_value();
  if (s_.temporal) cfg.temporal_params = *s_.temporal;
}

// The CPU pipeline (tonekit::CpuToneMapper) with the stream's layout, colour, glare and temporal
// state; sequences hand over float RGB(A) images.
Status FrameMapper::start_cpu() {
  CpuToneMapperConfig cfg;
  fill_config(cfg);
  cfg.exact = s_.exact;
  auto cpu = CpuToneMapper::create(cfg);
  if (!cpu.ok()) return cpu.status();
  cpu_ = std::move(cpu.value());
  return {};
}

// The device pipeline (tonekit::ToneMapper) with the stream's layout, colour, glare and temporal
// state; sequences hand over float RGB(A) images.
Status FrameMapper::start_cuda() {
  if (!cuda_available())
    return {StatusCode::no_device, "--backend cuda: no CUDA device available (or a build without CUDA); use --backend cpu or auto"};
  ToneMapperConfig cfg;
  fill_config(cfg);
  if (s_.devices.size() > 1) {
    MultiGpuConfig mc;
    mc.frame = cfg;
    mc.devices = s_.devices;
    auto multi = MultiGpuToneMapper::create(mc);
    if (!multi.ok()) return multi.status();
    multi_ = std::move(multi.value());
    return {};
  }
  if (s_.devices.size() == 1)
    if (Status st = use_cuda_device(s_.devices[0]); !st.ok()) return st;
  auto device = DeviceFrameMapper::create(cfg, kDeviceFramesInFlight);
  if (!device.ok()) return device.status();
  device_ = std::move(device.value());
  return {};
}

const char* FrameMapper::backend_label() const {
  if (multi_) return "cuda (several GPUs)";
  return backend_name(s_.backend);
}

// Buffers of 256 KiB and more: below that a staging copy costs less than the locking.
void FrameMapper::note_buffer(void* p, std::size_t bytes) {
  if (bytes < (std::size_t{256} << 10)) return;
  if (++buffer_uses_[p] == 2) device_->lock_host_buffer(p, bytes);
}

void FrameMapper::release(Frame& frame) {
  if (!device_) return;
  auto it = buffer_uses_.find(frame.bytes.data());
  if (it == buffer_uses_.end()) return;
  if (it->second >= 2) device_->unlock_host_buffer(frame.bytes.data());
  buffer_uses_.erase(it);
}

void FrameMapper::release_buffers() {
  if (!device_) return;
  for (const auto& [p, uses] : buffer_uses_)
    if (uses >= 2) device_->unlock_host_buffer(const_cast<void*>(p));
  buffer_uses_.clear();
}

int FrameMapper::pending() const { return device_ ? device_->pending() : 0; }
bool FrameMapper::oldest_ready() const { return !device_ || device_->oldest_ready(); }
Status FrameMapper::complete_oldest() { return device_ ? device_->complete_oldest() : Status{}; }

Status FrameMapper::set_params(const Params& params) {
  s_.params = params;
  if (!started_) return {};
  if (multi_) return multi_->set_params(params);
  if (device_) return device_->set_params(params);
  return cpu_->set_params(params);
}

Status FrameMapper::submit_device(const FramePlanes& device_in, Frame& out) {
  if (Status s = start(); !s.ok()) return s;
  if (!device_) return unsupported("frames on the device need the cuda backend on one GPU");
  out.bytes.resize(output_bytes_);
  note_buffer(out.bytes.data(), out.bytes.size());
  if (Status s = device_->submit_device(device_in, out.bytes.data(), s_.frame_seconds); !s.ok()) return s;
  ++frame_;
  return {};
}

Status FrameMapper::map(Frame& in, Frame& out) {
  if (Status s = submit(in, out); !s.ok()) return s;
  while (pending() > 0)
    if (Status s = complete_oldest(); !s.ok()) return s;
  return {};
}

// One row of --temporal-log: the frame's own key and peak (the robust one with peak_percentile
// below 100), what the curves read, the cut flag.
void FrameMapper::log_row(const FrameStats& adapted) {
  std::fprintf(log_, "%lld,%.9g,%.9g,%.9g,%.9g,%u\n", frame_, stats_.log_average, adapted.log_average,
               stats_.peak_luminance > 0 ? stats_.peak_luminance : stats_.max_luminance, adapted.max_luminance,
               s_.temporal ? state_.last_cut : 0u);
}

Status FrameMapper::submit(Frame& in, Frame& out) {
  if (Status s = start(); !s.ok()) return s;
  out.bytes.resize(output_bytes_);
  const void* host_in = in.image.width > 0 ? static_cast<const void*>(in.image.pixels.data()) : in.data();
  if (multi_) {
    if (Status s = multi_->process_host(host_in, 0, out.bytes.data(), 0, s_.frame_seconds); !s.ok()) return s;
    if (log_) {
      FrameStats adapted;
      if (Status s = multi_->read_stats(stats_, &adapted); !s.ok()) return s;
      if (s_.temporal)
        if (Status s = multi_->read_temporal_state(0, state_); !s.ok()) return s;
      log_row(adapted);
    }
    ++frame_;
    return {};
  }
  if (device_) {
    // Only buffers that live as long as their frame slot: a sequence's decoded images are new
    // allocations each frame (and may land at a freed one's address), so they are never locked.
    if (in.image.width == 0 && !in.view) note_buffer(in.bytes.data(), device_->input_bytes());
    note_buffer(out.bytes.data(), out.bytes.size());
    if (Status s = device_->submit(host_in, out.bytes.data(), s_.frame_seconds); !s.ok()) return s;
    if (log_) {  // waits for this frame's kernels (not its download): the log is in frame order
      FrameStats adapted;
      if (Status s = device_->read_stats(stats_, &adapted); !s.ok()) return s;
      if (s_.temporal)
        if (Status s = device_->read_temporal_state(state_); !s.ok()) return s;
      log_row(adapted);
    }
    ++frame_;
    return {};
  }
  return map_on_cpu(in, out);
}

Status FrameMapper::map_on_cpu(Frame& in, Frame& out) {
  const void* host_in = in.image.width > 0 ? static_cast<const void*>(in.image.pixels.data()) : in.data();
  return map_planes_on_cpu(packed_planes(s_.format, host_in, s_.width, s_.height), out);
}

Status FrameMapper::map_host_planes(const FramePlanes& in, Frame& out) {
  if (Status s = start(); !s.ok()) return s;
  if (!cpu_) return unsupported("frames by planes need the cpu backend");
  out.bytes.resize(output_bytes_);
  return map_planes_on_cpu(in, out);
}

Status FrameMapper::map_planes_on_cpu(const FramePlanes& planes, Frame& out) {
  if (Status s = cpu_->process(planes, out.bytes.data(), 0, s_.frame_seconds); !s.ok()) return s;
  FrameStats adapted;
  if (Status s = cpu_->read_stats(stats_, &adapted); !s.ok()) return s;
  if (s_.temporal)
    if (Status s = cpu_->read_temporal_state(state_); !s.ok()) return s;
  if (log_) log_row(adapted);
  ++frame_;
  return {};
}

Status apply_primaries_flag(InputColour& c, const std::string& primaries) {
  if (primaries.empty()) return Status::ok_status();
  auto p = parse_primaries(primaries);
  if (!p.ok()) return p.status();
  c.primaries = *p;
  return Status::ok_status();
}

Result<InputColour> finish_input_colour(InputColour c, const std::string& gamut, double reference_white, double hlg_peak) {
  if (!gamut.empty()) {
    auto g = parse_gamut_mapping(gamut);
    if (!g.ok()) return g.status();
    c.gamut = *g;
  }
  c.reference_white = reference_white;
  c.hlg_peak = hlg_peak;
  if (Status s = validate(c); !s.ok()) return s;
  return c;
}

}  // namespace tonekit::stream
