#include "stream/frame_mapper.hpp"

#include <cstring>

#include "core/half.hpp"
#include "core/map_settings.hpp"
#include "cpu/video_decode.hpp"
#include "cpu/video_encode.hpp"

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

// Any host float/half view into an owning float image with the same channels.
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
  const core::ColourSettings cs = core::make_colour_settings(s_.params);
  if (!s_.exact && FastVideo::covers(s_.format, s_.colour, is_yuv_output(s_.out), cs.gamma))
    fast_ = std::make_unique<FastVideo>(s_.format, s_.colour, s_.width, s_.height);
  return {};
}

// The device pipeline (tonekit::ToneMapper) with the stream's layout, colour, glare and temporal
// state; sequences hand over float RGB(A) images.
Status FrameMapper::start_cuda() {
  if (!cuda_available())
    return {StatusCode::no_device, "--backend cuda: no CUDA device available (or a build without CUDA); use --backend cpu or auto"};
  ToneMapperConfig cfg;
  cfg.width = s_.width;
  cfg.height = s_.height;
  cfg.input = s_.format;
  cfg.colour = s_.colour;
  cfg.output = mapped_;
  cfg.output_layout = is_yuv_output(s_.out) ? (s_.out == OutputKind::nv12 ? OutputLayout::nv12 : OutputLayout::yuv420p)
                                            : OutputLayout::interleaved;
  cfg.params = s_.params;
  cfg.glare = s_.glare;
  cfg.temporal = s_.temporal.has_value();
  if (s_.temporal) cfg.temporal_params = *s_.temporal;
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

Status FrameMapper::map(Frame& in, Frame& out) {
  if (Status s = submit(in, out); !s.ok()) return s;
  while (pending() > 0)
    if (Status s = complete_oldest(); !s.ok()) return s;
  return {};
}

// Leaves `view` on the frame's scene-linear BT.709 pixels: the input's own memory when it is
// float RGB(A) in linear BT.709 already, else scene_ after cpu::decode_frame.
Status FrameMapper::decode(Frame& in, ImageView& view) {
  const bool linear709 = s_.colour.transfer == Transfer::linear && s_.colour.primaries == Primaries::bt709;
  const int w = s_.width, h = s_.height;
  FramePlanes planes;
  InputFormat format = s_.format;
  if (in.image.width > 0) {
    view = in.image.view();
    if (linear709) return {};
    planes = packed_planes(format, in.image.pixels.data(), w, h);
  } else {
    if (is_float_rgb(format) && linear709) {
      const int channels = format == InputFormat::rgb_f32 ? 3 : 4;
      // Read only (the CPU passes read their input; glare copies it first): the const_cast lets a
      // mapped file frame (Frame::view) through ImageView, which has one pointer type.
      view = ImageView{const_cast<std::uint8_t*>(in.data()), w, h, channels, format == InputFormat::rgba_f16 ? PixelType::f16 : PixelType::f32,
                       0, MemorySpace::host};
      return {};
    }
    if (fast_) {
      fast_->decode(in.data(), scene_);
      view = scene_.view();
      return {};
    }
    planes = packed_planes(format, in.data(), w, h);
  }
  if (Status s = cpu::decode_frame(planes, format, s_.colour, w, h, scene_); !s.ok()) return s;
  view = scene_.view();
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
  // Temporal adaptation replaces the statistics the curve reads; the state lives on here,
  // across every frame of the stream.
  FrameStats adapted;
  cpu::CurveStatsHook hook;
  if (s_.temporal)
    hook = [&](const FrameStats& own) { return adapted = temporal_update(state_, own, *s_.temporal, s_.frame_seconds); };
  const core::ColourSettings cs = core::make_colour_settings(s_.params);
  const OutputLayout layout = s_.out == OutputKind::nv12 ? OutputLayout::nv12 : OutputLayout::yuv420p;
  // The commonest video case in one fused path: no display image between the map and the encode.
  if (fast_ && s_.glare.strength <= 0 && in.image.width == 0 && FastVideo::fuses(s_.params)) {
    if (Status s = fast_->map(in.data(), s_.params, s_.temporal ? &hook : nullptr, layout, cs.dither, scene_, stats_,
                              out.bytes.data());
        !s.ok())
      return s;
    if (log_) log_row(s_.temporal ? adapted : stats_);
    ++frame_;
    return {};
  }
  ImageView scene;
  if (Status s = decode(in, scene); !s.ok()) return s;
  // Glare takes an owning float image.
  if (s_.glare.strength > 0 && scene.data != scene_.pixels.data()) {
    copy_to_image(scene, scene_);
    scene = scene_.view();
  }
  if (s_.glare.strength > 0)
    if (Status s = apply_glare(scene_, s_.glare); !s.ok()) return s;

  const bool yuv = is_yuv_output(s_.out);
  ImageView target;
  if (yuv) {
    if (display_.width != s_.width || display_.height != s_.height) display_ = Image(s_.width, s_.height, 3);
    target = display_.view();
  } else {
    target = ImageView{out.bytes.data(), s_.width, s_.height, mapped_.channels, mapped_.type, 0, MemorySpace::host};
  }
  if (Status s = cpu::tone_map(scene, s_.params, target, &stats_, nullptr, s_.temporal ? &hook : nullptr); !s.ok())
    return s;
  if (log_) log_row(s_.temporal ? adapted : stats_);
  ++frame_;
  if (yuv) {
    if (fast_) {
      fast_->encode(display_, layout, cs.dither, out.bytes.data());
      return {};
    }
    return cpu::encode_yuv420(display_.view(), layout, cs.gamma, cs.dither, out.bytes.data(), out.bytes.size());
  }
  return {};
}

}  // namespace tonekit::stream
