#include "input_checks.hpp"

#include <cstring>

namespace tonekit::io {

Status check_dimensions(const std::string& name, std::int64_t width, std::int64_t height,
                        const ReadLimits& limits) {
  const bool sides_ok = width >= 1 && height >= 1 && width <= limits.max_side && height <= limits.max_side;
  // Both sides are at most max_side (<= 2^31) here, so the product cannot overflow.
  if (sides_ok && width * height <= limits.max_pixels) return Status::ok_status();
  return bad_input(name + ": dimensions " + std::to_string(width) + "x" + std::to_string(height) +
                   " out of range (each side 1.." + std::to_string(limits.max_side) + ", at most " +
                   std::to_string(limits.max_pixels) + " pixels)");
}

std::string printable_excerpt(std::string_view text, std::size_t max_chars) {
  std::string out;
  for (char c : text.substr(0, max_chars)) out += (c >= 0x20 && c < 0x7f) ? c : '?';
  if (text.size() > max_chars) out += "...";
  return out;
}

std::string one_line(std::string_view text) {
  std::string out;
  for (char c : text) out += (c == '\n' || c == '\r' || c == '\t') ? ' ' : c;
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

std::string errno_text(int error_number) {
  char buffer[256] = {};
  // GNU strerror_r may return a static string instead of filling the buffer.
#if defined(__GLIBC__) && defined(_GNU_SOURCE)
  return strerror_r(error_number, buffer, sizeof buffer);
#else
  strerror_r(error_number, buffer, sizeof buffer);
  return buffer;
#endif
}

namespace {

Status check_shape(const std::string& path, int width, int height, int channels, std::size_t values,
                   std::size_t expected_values) {
  if (width < 1 || height < 1)
    return invalid_argument(path + ": cannot write an image of " + std::to_string(width) + "x" +
                            std::to_string(height) + " pixels");
  if (channels != 1 && channels != 3 && channels != 4)
    return invalid_argument(path + ": cannot write " + std::to_string(channels) +
                            " channels (1, 3 or 4 expected)");
  if (values != expected_values)
    return invalid_argument(path + ": image buffer holds " + std::to_string(values) + " values, " +
                            std::to_string(width) + "x" + std::to_string(height) + "x" +
                            std::to_string(channels) + " needs " + std::to_string(expected_values));
  return Status::ok_status();
}

}  // namespace

Status check_writable(const std::string& path, const Image& image) {
  const auto expected = static_cast<std::size_t>(image.width > 0 ? image.width : 0) *
                        static_cast<std::size_t>(image.height > 0 ? image.height : 0) *
                        static_cast<std::size_t>(image.channels > 0 ? image.channels : 0);
  return check_shape(path, image.width, image.height, image.channels, image.pixels.size(), expected);
}

Status check_writable(const std::string& path, const OutputImage& image) {
  const auto expected = static_cast<std::size_t>(image.width > 0 ? image.width : 0) *
                        static_cast<std::size_t>(image.height > 0 ? image.height : 0) *
                        static_cast<std::size_t>(image.channels > 0 ? image.channels : 0) *
                        bytes_per_channel(image.type);
  return check_shape(path, image.width, image.height, image.channels, image.bytes.size(), expected);
}

}  // namespace tonekit::io
