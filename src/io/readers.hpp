// Internal reader entry points. read_image() and probe_image() (read_image.cpp) pick one of
// these by magic bytes; the fuzzers (tests/fuzz) and the tests call them directly on memory.
// None of them throws: every failure, including the OpenEXR library's exceptions, comes back
// as a Status whose one-line message starts with `name`.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include "tonekit/image.hpp"
#include "tonekit/io.hpp"
#include "tonekit/status.hpp"

namespace tonekit::io {

// Largest image a reader accepts. The defaults are the library-wide bounds of image.hpp; the
// fuzzers pass smaller ones so that a tiny hostile header cannot make them allocate gigabytes
// (OpenEXR's own fuzz targets limit image size the same way).
struct ReadLimits {
  int max_side = kMaxImageSide;
  std::int64_t max_pixels = kMaxImagePixels;
};

enum class FileFormat { exr, rgbe, pfm, unknown };

// Looks only at the first bytes: EXR magic 76 2f 31 01, "#?" (Radiance), "PF"/"Pf" + space.
FileFormat detect_format(const std::uint8_t* data, std::size_t size);

// Whole-image readers on a complete file held in memory.
Result<Image> read_exr_memory(const std::string& name, const std::uint8_t* data, std::size_t size,
                              const ReadLimits& limits = {});
// An RGB(A) OpenEXR whose colour (and alpha) channels are all half, as half RGBA (see
// io::read_half_rgba); anything else is `unsupported`, for read_exr_memory to read.
Result<HalfImage> read_exr_half_memory(const std::string& name, const std::uint8_t* data, std::size_t size,
                                       const ReadLimits& limits = {});
// The same into `out`, reusing its buffer (every byte is written; on failure `out` holds no image).
Status read_exr_half_memory(const std::string& name, const std::uint8_t* data, std::size_t size, const ReadLimits& limits,
                            HalfImage& out);
Result<Image> read_rgbe_memory(const std::string& name, const std::uint8_t* data, std::size_t size,
                               const ReadLimits& limits = {});
Result<Image> read_pfm_memory(const std::string& name, const std::uint8_t* data, std::size_t size,
                              const ReadLimits& limits = {});

// PFM straight from an open regular file: `prefix` holds its first bytes; the pixel rows are
// read into the image with one preadv per 1024 rows (flipped on the way, no staging copy).
// Same checks and messages as read_pfm_memory, which it falls back to when the header is
// longer than the prefix.
Result<Image> read_pfm_file(const std::string& path, int fd, const std::uint8_t* prefix, std::size_t prefix_size,
                            std::uint64_t file_size);

// Header-only readers for probe_image(). The RGBE and PFM ones get the first bytes of the file
// (`prefix`) and the whole file's size; the EXR one opens the file itself and reads its headers.
Result<ImageMetadata> probe_exr_file(const std::string& path, std::uint64_t file_size);
Result<ImageMetadata> probe_rgbe_prefix(const std::string& name, const std::uint8_t* prefix,
                                        std::size_t prefix_size);
Result<ImageMetadata> probe_pfm_prefix(const std::string& name, const std::uint8_t* prefix,
                                       std::size_t prefix_size, std::uint64_t file_size);

}  // namespace tonekit::io
