#include "stream/frame_mapper.hpp"

#include <cstring>

#include "core/half.hpp"

namespace tonekit::stream {
namespace {

bool is_float_rgb(InputFormat f) {
  return f == InputFormat::rgb_f32 || f == InputFormat::rgba_f32 || f == InputFormat::rgba_f16;
}

// Output layout, pixel type and channels tone_map must produce for each sink.
OutputFormat mapped_format(OutputKind kind, io::OutputKind image_kind) {
  switch (kind) {
    case OutputKind::rgba: return {PixelType::u8, 4};
    case OutputKind::sequence:
      return {image_kind == io::OutputKind::exr ? PixelType::f32 : PixelType::u8, 3};
    default: return {PixelType::u8, 3};
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

Result<std::unique_ptr<FrameMapper>> FrameMapper::create(const MapperSetup& s) {
  if (Status st = validate(s.colour); !st.ok()) return st;
  const bool linear709 = s.colour.transfer == Transfer::linear && s.colour.primaries == Primaries::bt709;
  if (!linear709 || is_yuv(s.format))
    return unsupported(std::string("input ") + input_format_name(s.format) + " with transfer " +
                       transfer_name(s.colour.transfer) + " and primaries " + primaries_name(s.colour.primaries) +
                       " needs the video decoder (not in this build yet)");
  if (is_yuv_output(s.out)) return unsupported("yuv420p/nv12/y4m output needs the video encoder (not in this build yet)");
  std::unique_ptr<FrameMapper> m(new FrameMapper(s));
  m->mapped_ = mapped_format(s.out, s.image_kind);
  m->output_bytes_ = is_yuv_output(s.out)
                         ? output_frame_bytes(OutputLayout::yuv420p, s.width, s.height, 3, 1)
                         : static_cast<std::size_t>(s.width) * static_cast<std::size_t>(s.height) *
                               static_cast<std::size_t>(m->mapped_.channels) * bytes_per_channel(m->mapped_.type);
  return m;
}

// Leaves `view` on the frame's scene-linear BT.709 pixels: the input's own memory when it is
// float RGB(A) already, else scene_ after a conversion.
Status FrameMapper::decode(Frame& in, ImageView& view) {
  if (in.image.width > 0) {
    view = in.image.view();
    return {};
  }
  const int w = s_.width, h = s_.height;
  if (is_float_rgb(s_.format)) {
    const int channels = s_.format == InputFormat::rgb_f32 ? 3 : 4;
    view = ImageView{in.bytes.data(), w, h, channels, s_.format == InputFormat::rgba_f16 ? PixelType::f16 : PixelType::f32,
                     0, MemorySpace::host};
    return {};
  }
  if (scene_.width != w || scene_.height != h || scene_.channels != 3) scene_ = Image(w, h, 3);
  const FramePlanes planes = packed_planes(s_.format, in.bytes.data(), w, h);
  for (int y = 0; y < h; ++y) {
    float* dst = scene_.row(y);
    if (s_.format == InputFormat::gbrpf32) {
      const float* g = reinterpret_cast<const float*>(static_cast<const std::uint8_t*>(planes.data[0]) + planes.stride[0] * y);
      const float* b = reinterpret_cast<const float*>(static_cast<const std::uint8_t*>(planes.data[1]) + planes.stride[1] * y);
      const float* r = reinterpret_cast<const float*>(static_cast<const std::uint8_t*>(planes.data[2]) + planes.stride[2] * y);
      for (int x = 0; x < w; ++x) dst[3 * x] = r[x], dst[3 * x + 1] = g[x], dst[3 * x + 2] = b[x];
    } else {  // rgb48, linear: code / 65535
      const auto* src = reinterpret_cast<const std::uint16_t*>(static_cast<const std::uint8_t*>(planes.data[0]) + planes.stride[0] * y);
      for (int i = 0; i < 3 * w; ++i) dst[i] = static_cast<float>(src[i]) * (1.0f / 65535.0f);
    }
  }
  view = scene_.view();
  return {};
}

Status FrameMapper::map(Frame& in, Frame& out) {
  ImageView scene;
  if (Status s = decode(in, scene); !s.ok()) return s;
  // Glare and the CUDA host API take an owning float image.
  const bool need_image = s_.glare.strength > 0 || s_.backend == Backend::cuda;
  if (need_image && scene.data != scene_.pixels.data()) {
    copy_to_image(scene, scene_);
    scene = scene_.view();
  }
  if (s_.glare.strength > 0)
    if (Status s = apply_glare(scene_, s_.glare); !s.ok()) return s;

  out.bytes.resize(output_bytes_);
  const bool yuv = is_yuv_output(s_.out);
  if (s_.backend == Backend::cuda) {
    if (Status s = tone_map(scene_, s_.params, mapped_, Backend::cuda, display_, &stats_); !s.ok()) return s;
    if (!yuv) std::memcpy(out.bytes.data(), display_.bytes.data(), output_bytes_);
  } else {
    ImageView target;
    if (yuv) {
      if (display_.width != s_.width || display_.height != s_.height) display_.allocate(s_.width, s_.height, 3, PixelType::u8);
      target = display_.view();
    } else {
      target = ImageView{out.bytes.data(), s_.width, s_.height, mapped_.channels, mapped_.type, 0, MemorySpace::host};
    }
    if (Status s = cpu::tone_map(scene, s_.params, target, &stats_); !s.ok()) return s;
  }
  return {};
}

}  // namespace tonekit::stream
