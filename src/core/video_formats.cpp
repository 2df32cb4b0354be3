// Names, parsing and plane geometry of the frame layouts in tonekit/video.hpp: plain host code
// shared by the CLI, the CPU reference and the device pipeline's validation.
#include <string>
#include <vector>

#include "tonekit/video.hpp"
#include "core/video_colour.hpp"

namespace tonekit {

namespace {

template <class E, std::size_t N>
Result<E> parse_named(std::string_view text, const char* what, const E (&values)[N], const char* (*name)(E)) {
  std::string known;
  for (E v : values) {
    if (text == name(v)) return v;
    known += (known.empty() ? "" : ", ") + std::string(name(v));
  }
  return invalid_argument("unknown " + std::string(what) + " '" + std::string(text) + "' (known: " + known + ")");
}

int half_up(int n) { return (n + 1) / 2; }

}  // namespace

const char* input_format_name(InputFormat f) {
  switch (f) {
    case InputFormat::rgb_f32: return "rgb_f32";
    case InputFormat::rgba_f32: return "rgba_f32";
    case InputFormat::rgba_f16: return "rgba_f16";
    case InputFormat::rgb48: return "rgb48";
    case InputFormat::gbrpf32: return "gbrpf32";
    case InputFormat::p010: return "p010";
    case InputFormat::yuv420p10: return "yuv420p10";
  }
  return "?";
}

Result<InputFormat> parse_input_format(std::string_view name) {
  static constexpr InputFormat all[] = {InputFormat::rgb_f32, InputFormat::rgba_f32, InputFormat::rgba_f16,
                                        InputFormat::rgb48,   InputFormat::gbrpf32,  InputFormat::p010,
                                        InputFormat::yuv420p10};
  return parse_named(name, "input format", all, input_format_name);
}

bool is_yuv(InputFormat f) { return f == InputFormat::p010 || f == InputFormat::yuv420p10; }
bool is_planar(InputFormat f) { return f == InputFormat::gbrpf32 || is_yuv(f); }
int plane_count(InputFormat f) { return f == InputFormat::p010 ? 2 : (is_planar(f) ? 3 : 1); }

std::size_t input_pixel_bytes(InputFormat f) {
  switch (f) {
    case InputFormat::rgb_f32: return 12;
    case InputFormat::rgba_f32: return 16;
    case InputFormat::rgba_f16: return 8;
    case InputFormat::rgb48: return 6;
    default: return 0;
  }
}

std::size_t plane_row_bytes(InputFormat f, int plane, int width) {
  const std::size_t w = static_cast<std::size_t>(width);
  switch (f) {
    case InputFormat::gbrpf32: return 4 * w;
    case InputFormat::p010: return plane == 0 ? 2 * w : 4 * static_cast<std::size_t>(half_up(width));
    case InputFormat::yuv420p10: return plane == 0 ? 2 * w : 2 * static_cast<std::size_t>(half_up(width));
    default: return input_pixel_bytes(f) * w;
  }
}

int plane_rows(InputFormat f, int plane, int height) { return is_yuv(f) && plane > 0 ? half_up(height) : height; }

std::size_t frame_bytes(InputFormat f, int width, int height) {
  std::size_t n = 0;
  for (int p = 0; p < plane_count(f); ++p)
    n += plane_row_bytes(f, p, width) * static_cast<std::size_t>(plane_rows(f, p, height));
  return n;
}

FramePlanes packed_planes(InputFormat f, const void* base, int width, int height) {
  FramePlanes planes;
  const unsigned char* p = static_cast<const unsigned char*>(base);
  for (int i = 0; i < plane_count(f); ++i) {
    planes.data[i] = p;
    planes.stride[i] = plane_row_bytes(f, i, width);
    p += planes.stride[i] * static_cast<std::size_t>(plane_rows(f, i, height));
  }
  return planes;
}

const char* transfer_name(Transfer t) {
  switch (t) {
    case Transfer::linear: return "linear";
    case Transfer::pq: return "pq";
    case Transfer::hlg: return "hlg";
  }
  return "?";
}
const char* primaries_name(Primaries p) { return p == Primaries::bt709 ? "bt709" : "bt2020"; }
const char* yuv_matrix_name(YuvMatrix m) { return m == YuvMatrix::bt2020_ncl ? "bt2020nc" : "bt709"; }
const char* yuv_range_name(YuvRange r) { return r == YuvRange::limited ? "limited" : "full"; }

Result<Transfer> parse_transfer(std::string_view name) {
  static constexpr Transfer all[] = {Transfer::linear, Transfer::pq, Transfer::hlg};
  return parse_named(name, "transfer", all, transfer_name);
}
Result<Primaries> parse_primaries(std::string_view name) {
  static constexpr Primaries all[] = {Primaries::bt709, Primaries::bt2020};
  return parse_named(name, "primaries", all, primaries_name);
}
const char* gamut_mapping_name(GamutMapping g) {
  switch (g) {
    case GamutMapping::clip: return "clip";
    case GamutMapping::desaturate: return "desaturate";
    case GamutMapping::perceptual: return "perceptual";
  }
  return "?";
}
Result<GamutMapping> parse_gamut_mapping(std::string_view name) {
  static constexpr GamutMapping all[] = {GamutMapping::clip, GamutMapping::desaturate, GamutMapping::perceptual};
  return parse_named(name, "gamut mapping", all, gamut_mapping_name);
}
Result<YuvMatrix> parse_yuv_matrix(std::string_view name) {
  static constexpr YuvMatrix all[] = {YuvMatrix::bt2020_ncl, YuvMatrix::bt709};
  return parse_named(name, "YUV matrix", all, yuv_matrix_name);
}
Result<YuvRange> parse_yuv_range(std::string_view name) {
  if (name == "tv") return YuvRange::limited;
  if (name == "pc") return YuvRange::full;
  static constexpr YuvRange all[] = {YuvRange::limited, YuvRange::full};
  return parse_named(name, "range", all, yuv_range_name);
}

Status validate(const InputColour& c) {
  if (!(c.reference_white >= 1.0 && c.reference_white <= 10000.0))
    return invalid_argument("reference_white = " + std::to_string(c.reference_white) + " cd/m^2 is out of range [1, 10000]");
  if (!(c.hlg_peak >= 100.0 && c.hlg_peak <= 10000.0))
    return invalid_argument("hlg_peak = " + std::to_string(c.hlg_peak) + " cd/m^2 is out of range [100, 10000]");
  return {};
}

const char* output_layout_name(OutputLayout l) {
  switch (l) {
    case OutputLayout::interleaved: return "interleaved";
    case OutputLayout::yuv420p: return "yuv420p";
    case OutputLayout::nv12: return "nv12";
  }
  return "?";
}

std::size_t output_frame_bytes(OutputLayout l, int width, int height, int channels, std::size_t bytes_per_channel) {
  const std::size_t w = static_cast<std::size_t>(width), h = static_cast<std::size_t>(height);
  if (l == OutputLayout::interleaved) return w * h * static_cast<std::size_t>(channels) * bytes_per_channel;
  return w * h + 2 * static_cast<std::size_t>(half_up(width)) * static_cast<std::size_t>(half_up(height));
}

namespace core {
namespace {
// intervals + 1 values of a curve in double, rounded to float.
template <class Curve>
std::vector<float> tabulate(int intervals, Curve&& curve) {
  std::vector<float> t(static_cast<std::size_t>(intervals) + 1);
  for (int i = 0; i <= intervals; ++i) t[i] = static_cast<float>(curve(static_cast<double>(i) / intervals));
  return t;
}
// A table's (value, step) pairs: the step rounded as table_lerp rounds hi - lo.
std::vector<LerpPair> pairs_of(const float* t, int intervals) {
  std::vector<LerpPair> p(static_cast<std::size_t>(intervals));
  for (int i = 0; i < intervals; ++i) p[i] = LerpPair{t[i], t[i + 1] - t[i]};
  return p;
}
}  // namespace

const LerpPair* pq_eotf_pairs_host() {
  static const std::vector<LerpPair> pairs = pairs_of(pq_eotf_table_host(), kPqTableIntervals);
  return pairs.data();
}

const LerpPair* bt709_oetf_pairs_host() {
  static const std::vector<LerpPair> pairs = pairs_of(bt709_oetf_table_host(), kOetfTableIntervals);
  return pairs.data();
}

const float* pq_eotf_table_host() {
  static const std::vector<float> table = tabulate(kPqTableIntervals, [](double s) { return pq_eotf<double>(s); });
  return table.data();
}

const float* bt709_oetf_table_host() {
  static const std::vector<float> table =
      tabulate(kOetfTableIntervals, [](double u) { return bt709_oetf<double>(0.018 + (1.0 - 0.018) * u); });
  return table.data();
}
}  // namespace core

}  // namespace tonekit
