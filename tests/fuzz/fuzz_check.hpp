// What every reader must guarantee on any input, checked by the fuzz targets: a consistent image,
// or a one-line Status that starts with the name and blames the input. A violation aborts, so
// libFuzzer records the input as a crash.
#pragma once
#include <cstdlib>
#include <string>

#include "tonekit/image.hpp"
#include "tonekit/io.hpp"
#include "tonekit/status.hpp"

namespace tonekit::fuzz {

// Small enough that no accepted input can make a reader allocate more than a few hundred MB,
// as OpenEXR's own fuzz targets limit image size.
inline constexpr int kFuzzMaxSide = 4096;
inline constexpr std::int64_t kFuzzMaxPixels = std::int64_t{1} << 22;

inline void require(bool condition) {
  if (!condition) std::abort();
}

inline void check_status(const std::string& name, const Status& status) {
  require(!status.ok());
  require(status.is_input_error());
  require(status.message().rfind(name + ": ", 0) == 0);
  require(status.message().find('\n') == std::string::npos);
}

inline void check_image(const std::string& name, const Result<Image>& result) {
  if (!result.ok()) return check_status(name, result.status());
  const Image& image = result.value();
  require(image.width >= 1 && image.height >= 1 && image.width <= kFuzzMaxSide && image.height <= kFuzzMaxSide);
  require(image.channels == 3 || image.channels == 4);
  require(image.pixels.size() == static_cast<std::size_t>(image.width) * image.height * image.channels);
}

// The half reader (io::read_half_rgba): half RGBA of a consistent size, the file's channels.
inline void check_half(const std::string& name, const Result<io::HalfImage>& result) {
  if (!result.ok()) return check_status(name, result.status());
  const OutputImage& p = result.value().pixels;
  require(p.width >= 1 && p.height >= 1 && p.width <= kFuzzMaxSide && p.height <= kFuzzMaxSide);
  require(p.channels == 4 && p.type == PixelType::f16);
  require(p.bytes.size() == static_cast<std::size_t>(p.width) * p.height * 4 * 2);
  require(result.value().file_channels == 3 || result.value().file_channels == 4);
}

inline void check_metadata(const std::string& name, const Result<ImageMetadata>& result) {
  if (!result.ok()) return check_status(name, result.status());
  require(result.value().width >= 1 && result.value().height >= 1);
}

}  // namespace tonekit::fuzz
