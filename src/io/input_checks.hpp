// Checks and message helpers shared by the readers and writers, so that every error reads the
// same way: one line, starting with the file's path.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "readers.hpp"
#include "tonekit/image.hpp"
#include "tonekit/status.hpp"

namespace tonekit::io {

// bad_input("NAME: dimensions WxH out of range (...)") unless 1 <= W, H <= max_side and
// W * H <= max_pixels.
Status check_dimensions(const std::string& name, std::int64_t width, std::int64_t height,
                        const ReadLimits& limits);

// A file excerpt fit to quote inside a one-line message: at most `max_chars` characters,
// anything but printable ASCII shown as '?'.
std::string printable_excerpt(std::string_view text, std::size_t max_chars = 40);

// An exception text (OpenEXR's can span lines) flattened to one line.
std::string one_line(std::string_view text);

// strerror() for the current errno, thread-safe.
std::string errno_text(int error_number);

// Writers' argument checks: invalid_argument naming `path` unless the image has positive
// dimensions, 1, 3 or 4 channels and exactly width * height * channels values.
Status check_writable(const std::string& path, const Image& image);
Status check_writable(const std::string& path, const OutputImage& image);

}  // namespace tonekit::io
