// Reading and vetting OpenEXR headers before the library opens the file. OpenEXR 3.1 sizes its
// allocations from header fields (attribute sizes, offset tables, tile and line buffers), so a
// few hostile bytes could make it allocate gigabytes; these checks bound every such field by the
// file's size and by ReadLimits first, the way OpenEXR's own fuzz targets limit image and tile
// size with Header::setMaxImageSize/setMaxTileSize (but without changing global state).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <OpenEXR/ImfHeader.h>
#include <OpenEXR/ImfIO.h>

#include "readers.hpp"
#include "tonekit/image.hpp"
#include "tonekit/status.hpp"

namespace tonekit::io {

struct ExrHeaders {
  std::vector<Imf::Header> parts;  // one per part; parts[0] is what we read
  bool multipart = false;
  bool part0_tiled = false;
};

// Reads and checks every part's header from `stream` (positioned anywhere; it is rewound).
// Throws only what the OpenEXR library throws; callers convert with exr_exception_status().
Result<ExrHeaders> read_exr_headers(const std::string& name, Imf::IStream& stream, std::uint64_t file_size,
                                    const ReadLimits& limits);

// What `info` prints about part 0: format, compression, pixel types, channel names, tiling,
// notes (data window, multi-part, mip levels).
ImageMetadata exr_metadata(const ExrHeaders& headers);

// Converts an exception escaping the OpenEXR library into a Status naming `name`.
Status exr_exception_status(const std::string& name);  // call inside a catch block

}  // namespace tonekit::io
