// CPU video input conversion: one pass over the frame's rows (threaded like the map pass), each
// row read from its planes, upsampled, matrixed and linearised with core/video_colour.hpp.
#include "cpu/video_decode.hpp"

#include <bit>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "core/colour.hpp"
#include "core/half.hpp"
#include "core/video_colour.hpp"
#include "cpu/parallel.hpp"
#include "cpu/video_kernels.hpp"

namespace tonekit::cpu {
namespace {

static_assert(std::endian::native == std::endian::little, "16-bit frame layouts are read as little-endian");

struct Counts {
  std::uint64_t nan = 0, inf = 0, negative = 0;
};

const unsigned char* plane_row(const FramePlanes& p, InputFormat f, int plane, int width, int y) {
  const std::size_t stride = p.stride[plane] ? p.stride[plane] : plane_row_bytes(f, plane, width);
  return static_cast<const unsigned char*>(p.data[plane]) + stride * static_cast<std::size_t>(y);
}

template <class S>
S load(const unsigned char* row, std::size_t index) {
  S v;
  std::memcpy(&v, row + index * sizeof(S), sizeof(S));
  return v;
}

// 10-bit code of a 16-bit sample: P010 keeps it in the high bits; yuv420p10 in the low bits
// (values above 1023 are clamped, not wrapped).
float code10(InputFormat f, std::uint16_t s) {
  if (f == InputFormat::p010) return static_cast<float>(s >> 6);
  return static_cast<float>(s > 1023 ? 1023 : s);
}

// Float layouts: per-channel sanitise and one count per pixel (README "Bad pixels").
void sanitise_pixel(float& r, float& g, float& b, Counts& counts) {
  unsigned flags = 0;
  r = core::sanitise_channel(r, flags);
  g = core::sanitise_channel(g, flags);
  b = core::sanitise_channel(b, flags);
  const unsigned kind = core::classify_flags(flags);
  counts.nan += kind == core::kPixelNaN;
  counts.inf += kind == core::kPixelInf;
  counts.negative += kind == core::kPixelNegative;
}

void signal_row_rgb(const FramePlanes& p, InputFormat f, int width, int y, float* out, Counts& counts) {
  const unsigned char* row = plane_row(p, f, 0, width, y);
  for (int x = 0; x < width; ++x) {
    float* o = out + 3 * static_cast<std::size_t>(x);
    const std::size_t i = static_cast<std::size_t>(x);
    switch (f) {
      case InputFormat::rgb_f32:
        for (int c = 0; c < 3; ++c) o[c] = load<float>(row, 3 * i + c);
        break;
      case InputFormat::rgba_f32:
        for (int c = 0; c < 3; ++c) o[c] = load<float>(row, 4 * i + c);
        break;
      case InputFormat::rgba_f16:
        for (int c = 0; c < 3; ++c) o[c] = core::half_to_float(load<std::uint16_t>(row, 4 * i + c));
        break;
      case InputFormat::rgb48:
        for (int c = 0; c < 3; ++c) o[c] = static_cast<float>(load<std::uint16_t>(row, 3 * i + c)) * (1.0f / 65535.0f);
        continue;  // codes are always valid
      case InputFormat::gbrpf32:
        o[1] = load<float>(row, i);
        o[2] = load<float>(plane_row(p, f, 1, width, y), i);
        o[0] = load<float>(plane_row(p, f, 2, width, y), i);
        break;
      default:
        break;
    }
    sanitise_pixel(o[0], o[1], o[2], counts);
  }
}

// One luma row of a 4:2:0 frame: the two chroma rows around it are blended vertically once per
// chroma column into `chroma` (2 * cw floats: Cb then Cr), then each pixel blends horizontally.
// Codes are integers below 2^10 and the weights 0 or 1/2, so every blend is exact in float and this
// order gives the same values as core::chroma_bilinear.
void signal_row_yuv(const FramePlanes& p, InputFormat f, const InputColour& colour, int width, int height, int y,
                    float* chroma, float* out) {
  const int cw = (width + 1) / 2, ch = (height + 1) / 2;
  const core::ChromaTaps ty = core::chroma_taps_cosited(y, ch);
  const float wy = core::chroma_tap_weight<float>(ty);
  const bool full = colour.range == YuvRange::full;
  const auto k = core::ycbcr_coeffs<float>(colour.matrix == YuvMatrix::bt2020_ncl);
  const unsigned char* luma = plane_row(p, f, 0, width, y);
  // Chroma rows j0, j1: P010 interleaves Cb, Cr in plane 1; yuv420p10 has planes 1 (Cb) and 2 (Cr).
  const bool nv = f == InputFormat::p010;
  const unsigned char* rows[2][2] = {
      {plane_row(p, f, 1, width, ty.i0), plane_row(p, f, 1, width, ty.i1)},
      {nv ? plane_row(p, f, 1, width, ty.i0) : plane_row(p, f, 2, width, ty.i0),
       nv ? plane_row(p, f, 1, width, ty.i1) : plane_row(p, f, 2, width, ty.i1)}};
  const std::size_t step = nv ? 2 : 1;
  for (int c = 0; c < 2; ++c) {
    const std::size_t off = nv ? static_cast<std::size_t>(c) : 0;
    float* blended = chroma + static_cast<std::size_t>(c) * cw;
    for (int i = 0; i < cw; ++i) {
      const float top = code10(f, load<std::uint16_t>(rows[c][0], step * i + off));
      const float bottom = code10(f, load<std::uint16_t>(rows[c][1], step * i + off));
      blended[i] = top + wy * (bottom - top);
    }
  }
  const float* cb = chroma;
  const float* cr = chroma + cw;
  for (int x = 0; x < width; ++x) {
    const core::ChromaTaps tx = core::chroma_taps_cosited(x, cw);
    const float wx = core::chroma_tap_weight<float>(tx);
    float* o = out + 3 * static_cast<std::size_t>(x);
    core::ycbcr10_codes_to_rgb(code10(f, load<std::uint16_t>(luma, static_cast<std::size_t>(x))),
                               cb[tx.i0] + wx * (cb[tx.i1] - cb[tx.i0]), cr[tx.i0] + wx * (cr[tx.i1] - cr[tx.i0]), full,
                               k, o[0], o[1], o[2]);
  }
}

Status decode(const FramePlanes& planes, InputFormat format, const InputColour& colour, int width, int height,
              Image& out, FrameStats* counts_out, bool linearise) {
  if (Status s = validate_frame(planes, format, colour, width, height); !s.ok()) return s;
  out = Image(width, height, 3);
  const core::VideoLinearise lin = core::make_video_linearise(colour, format);
  std::vector<Counts> band_counts(static_cast<std::size_t>(band_count(height)));
  parallel_rows(height, [&](int band, int y0, int y1) {
    Counts& counts = band_counts[static_cast<std::size_t>(band)];
    std::vector<float> chroma(is_yuv(format) ? 2 * static_cast<std::size_t>((width + 1) / 2) : 0);
    for (int y = y0; y < y1; ++y) {
      float* row = out.row(y);
      if (is_yuv(format)) signal_row_yuv(planes, format, colour, width, height, y, chroma.data(), row);
      else signal_row_rgb(planes, format, width, y, row, counts);
      if (linearise) linearise_row(lin, row, width);
    }
  });
  if (counts_out) {
    *counts_out = FrameStats{};
    counts_out->pixel_count = static_cast<std::uint64_t>(width) * static_cast<std::uint64_t>(height);
    for (const Counts& c : band_counts) {
      counts_out->nan_count += c.nan;
      counts_out->inf_count += c.inf;
      counts_out->negative_count += c.negative;
    }
  }
  return {};
}

}  // namespace

Status validate_frame(const FramePlanes& planes, InputFormat format, const InputColour& colour, int width,
                      int height) {
  if (width <= 0 || height <= 0 || width > kMaxImageSide || height > kMaxImageSide ||
      static_cast<std::int64_t>(width) * height > kMaxImagePixels)
    return invalid_argument("frame size " + std::to_string(width) + "x" + std::to_string(height) +
                            " is outside [1, " + std::to_string(kMaxImageSide) + "] per side");
  for (int p = 0; p < plane_count(format); ++p) {
    const std::string which = "plane " + std::to_string(p) + " of a " + input_format_name(format) + " frame";
    if (!planes.data[p]) return invalid_argument(which + " is null");
    const std::size_t need = plane_row_bytes(format, p, width);
    if (planes.stride[p] != 0 && planes.stride[p] < need)
      return invalid_argument(which + ": stride " + std::to_string(planes.stride[p]) + " bytes is below its " +
                              std::to_string(need) + "-byte rows");
  }
  return validate(colour);
}

Status decode_signal(const FramePlanes& planes, InputFormat format, const InputColour& colour, int width, int height,
                     Image& out, FrameStats* sanitise_counts) {
  return decode(planes, format, colour, width, height, out, sanitise_counts, false);
}

Status decode_frame(const FramePlanes& planes, InputFormat format, const InputColour& colour, int width, int height,
                    Image& out, FrameStats* sanitise_counts) {
  return decode(planes, format, colour, width, height, out, sanitise_counts, true);
}

}  // namespace tonekit::cpu
