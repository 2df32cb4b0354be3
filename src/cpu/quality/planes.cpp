// Float64 planes for the metrics, and the one check every metric runs on its inputs.
#include "cpu/quality/planes.hpp"

#include <cstdint>
#include <cstring>
#include <string>

#include "core/colour.hpp"
#include "tonekit/quality.hpp"

namespace tonekit::quality {
namespace detail {

double ldr_code(const OutputImage& ldr, std::size_t pixel, int channel) {
  const unsigned v = ldr_raw_code(ldr, pixel, channel);
  return ldr.type == PixelType::u8 ? v : v / 257.0;
}

unsigned ldr_raw_code(const OutputImage& ldr, std::size_t pixel, int channel) {
  const std::size_t i = pixel * static_cast<std::size_t>(ldr.channels) + static_cast<std::size_t>(channel);
  if (ldr.type == PixelType::u8) return ldr.bytes[i];
  std::uint16_t v;
  std::memcpy(&v, ldr.bytes.data() + 2 * i, 2);
  return v;
}

std::vector<double> shown_linear_table(PixelType type) {
  std::vector<double> table(type == PixelType::u16 ? 65536 : 256);
  for (std::size_t code = 0; code < table.size(); ++code) {
    const double on_255 = type == PixelType::u16 ? static_cast<double>(code) / 257.0 : static_cast<double>(code);
    table[code] = core::decode_srgb(on_255 / 255.0);
  }
  return table;
}

double hdr_value(const Image& hdr, std::size_t pixel, int channel) {
  unsigned flags = 0;
  return core::sanitise_channel(hdr.pixels[pixel * hdr.channels + channel], flags);
}

std::vector<double> hdr_luminance(const Image& hdr) {
  const std::size_t n = static_cast<std::size_t>(hdr.width) * hdr.height;
  std::vector<double> y(n);
  for (std::size_t i = 0; i < n; ++i)
    y[i] = 0.2126 * hdr_value(hdr, i, 0) + 0.7152 * hdr_value(hdr, i, 1) + 0.0722 * hdr_value(hdr, i, 2);
  return y;
}

std::vector<double> ldr_luminance(const OutputImage& ldr) {
  const std::size_t n = static_cast<std::size_t>(ldr.width) * ldr.height;
  std::vector<double> y(n);
  for (std::size_t i = 0; i < n; ++i)
    y[i] = 0.2126 * ldr_code(ldr, i, 0) + 0.7152 * ldr_code(ldr, i, 1) + 0.0722 * ldr_code(ldr, i, 2);
  return y;
}

std::vector<double> hdr_channel(const Image& hdr, int channel) {
  const std::size_t n = static_cast<std::size_t>(hdr.width) * hdr.height;
  std::vector<double> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = hdr_value(hdr, i, channel);
  return v;
}

std::vector<double> ldr_channel(const OutputImage& ldr, int channel) {
  const std::size_t n = static_cast<std::size_t>(ldr.width) * ldr.height;
  std::vector<double> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = ldr_code(ldr, i, channel);
  return v;
}

Status check_pair_shape(int hdr_width, int hdr_height, int hdr_channels, int ldr_width, int ldr_height,
                        int ldr_channels, PixelType ldr_type) {
  if (hdr_channels < 3 || ldr_channels < 3)
    return invalid_argument("quality metrics need RGB images (got " + std::to_string(hdr_channels) + " and " +
                            std::to_string(ldr_channels) + " channels)");
  if (ldr_type != PixelType::u8 && ldr_type != PixelType::u16)
    return invalid_argument("the tone-mapped image must hold 8- or 16-bit code values");
  if (hdr_width != ldr_width || hdr_height != ldr_height)
    return invalid_argument("HDR " + std::to_string(hdr_width) + "x" + std::to_string(hdr_height) +
                            " and tone-mapped " + std::to_string(ldr_width) + "x" + std::to_string(ldr_height) +
                            " differ in size");
  if (hdr_width < kMinSide || hdr_height < kMinSide)
    return invalid_argument("image " + std::to_string(hdr_width) + "x" + std::to_string(hdr_height) +
                            " is too small for TMQI/FSITM: at least " + std::to_string(kMinSide) +
                            " pixels on each side are needed (TMQI's fifth scale)");
  return {};
}

}  // namespace detail

Status check_pair(const Image& hdr, const OutputImage& ldr) {
  if (Status s = detail::check_pair_shape(hdr.width, hdr.height, hdr.channels, ldr.width, ldr.height, ldr.channels,
                                          ldr.type);
      !s.ok())
    return s;
  if (hdr.pixels.size() != static_cast<std::size_t>(hdr.width) * hdr.height * hdr.channels ||
      ldr.bytes.size() != static_cast<std::size_t>(ldr.width) * ldr.height * ldr.channels * bytes_per_channel(ldr.type))
    return invalid_argument("image buffer does not match its size");
  return {};
}

}  // namespace tonekit::quality
