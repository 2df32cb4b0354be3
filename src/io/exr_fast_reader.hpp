// The fast path for the common OpenEXR file (exr_fast_reader.cpp): one scanline part, ZIP or
// ZIPS, R, G and B (A optional) stored as half (or float, for a float output), not subsampled.
#pragma once
#include <cstddef>
#include <cstdint>

#include "tonekit/image.hpp"

namespace tonekit::io {

// Decodes the data window of the file held in data[0, size) into `out`: width x height pixels
// of `channels` (3 or 4) interleaved elements of `type` (f16 or f32) in the order R, G, B, A;
// a half RGBA output of a file without alpha gets alpha 1. False when the file is not of this
// kind or fails to decode: `out` is then undefined and the caller reads the file with the
// OpenEXR C++ API, which reads every kind and reports errors.
bool read_exr_fast(const std::uint8_t* data, std::size_t size, PixelType type, int width, int height, int channels,
                   std::uint8_t* out);

}  // namespace tonekit::io
