#include "exr_headers.hpp"

#include <OpenEXR/ImfChannelList.h>
#include <OpenEXR/ImfCompression.h>
#include <OpenEXR/ImfPartType.h>
#include <OpenEXR/ImfTileDescription.h>
#include <OpenEXR/ImfVersion.h>

#include <algorithm>
#include <cstring>
#include <new>
#include <utility>

#include "input_checks.hpp"

namespace tonekit::io {
namespace {

// Real files have a handful of parts and at most a few hundred channels (renderer AOVs).
constexpr std::size_t kMaxParts = 1024;
constexpr int kMaxChannels = 1024;
// Decoded size of a part in its file's own pixel types, in bytes per output pixel: 16 float
// channels. Bounds the library's line and tile buffers for files with many channels.
constexpr std::int64_t kMaxFileBytesPerPixel = 64;

std::uint32_t little_endian_u32(const char* bytes) {
  return static_cast<std::uint32_t>(static_cast<std::uint8_t>(bytes[0])) |
         static_cast<std::uint32_t>(static_cast<std::uint8_t>(bytes[1])) << 8 |
         static_cast<std::uint32_t>(static_cast<std::uint8_t>(bytes[2])) << 16 |
         static_cast<std::uint32_t>(static_cast<std::uint8_t>(bytes[3])) << 24;
}

// A null-terminated name of at most max_length characters; false if too long.
bool read_name(Imf::IStream& stream, std::size_t max_length, std::string& name) {
  name.clear();
  for (;;) {
    char c = 0;
    stream.read(&c, 1);
    if (c == '\0') return true;
    if (name.size() == max_length) return false;
    name += c;
  }
}

// Value sizes of the fixed-size attribute types OpenEXR 3.1 knows (ImfHeader.cpp registers
// them; sizes from the file layout document). Their readers consume this many bytes whatever the
// size field says, so a different size field would put the library's parse out of step with ours.
int fixed_value_size(const std::string& type) {
  static const std::pair<const char*, int> kSizes[] = {
      {"box2i", 16}, {"box2f", 16}, {"chromaticities", 32}, {"compression", 1}, {"double", 8}, {"envmap", 1},
      {"float", 4}, {"int", 4}, {"keycode", 28}, {"lineOrder", 1}, {"m33f", 36}, {"m33d", 72}, {"m44f", 64},
      {"m44d", 128}, {"rational", 8}, {"tiledesc", 9}, {"timecode", 8}, {"v2i", 8}, {"v2f", 8}, {"v2d", 16},
      {"v3i", 12}, {"v3f", 12}, {"v3d", 24}, {"deepImageState", 1}};
  for (const auto& [name, size] : kSizes)
    if (type == name) return size;
  return -1;
}

// Channel list: entries of name (1..255 characters, null-terminated) + 16 bytes, then a null.
bool valid_channel_list(const std::vector<char>& value) {
  std::size_t pos = 0;
  while (pos < value.size() && value[pos] != '\0') {
    const void* null = std::memchr(value.data() + pos, '\0', std::min<std::size_t>(value.size() - pos, 256));
    if (null == nullptr) return false;
    pos = static_cast<std::size_t>(static_cast<const char*>(null) - value.data()) + 1 + 16;
  }
  return pos + 1 == value.size();
}

// Preview image: width, height, then width * height RGBA8 pixels.
bool valid_preview(const std::vector<char>& value) {
  if (value.size() < 8) return false;
  const std::uint64_t width = little_endian_u32(value.data());
  const std::uint64_t height = little_endian_u32(value.data() + 4);
  return width * height == (value.size() - 8) / 4 && (value.size() - 8) % 4 == 0;
}

// String vector: (int32 length, characters) repeated to fill the value exactly.
bool valid_string_vector(const std::vector<char>& value) {
  std::size_t pos = 0;
  while (pos < value.size()) {
    if (value.size() - pos < 4) return false;
    const auto length = static_cast<std::int32_t>(little_endian_u32(value.data() + pos));
    pos += 4;
    if (length < 0 || static_cast<std::size_t>(length) > value.size() - pos) return false;
    pos += static_cast<std::size_t>(length);
  }
  return true;
}

// Checks one attribute's value (the stream is at its start) so that Header::readFrom will
// consume exactly `size` bytes and allocate no more than that.
bool valid_attribute_value(Imf::IStream& stream, const std::string& type, std::int32_t size) {
  const int fixed = fixed_value_size(type);
  if (fixed >= 0) return size == fixed;
  if (type == "floatvector") return size % 4 == 0;
  if (type != "chlist" && type != "preview" && type != "stringvector") return true;  // string, opaque: size bytes
  std::vector<char> value(static_cast<std::size_t>(size));
  if (size > 0) stream.read(value.data(), size);
  if (type == "chlist") return valid_channel_list(value);
  if (type == "preview") return valid_preview(value);
  return valid_string_vector(value);
}

// Walks the attribute list(s) as laid out in the file (name, type, int32 size, value) and checks
// every attribute against the file size and its type's layout: Header::readFrom allocates what
// a size field (or a preview's width * height) says before reading, and parses typed values
// without checking them against their size field.
Status check_attributes(const std::string& name, Imf::IStream& stream, std::uint64_t file_size, int version) {
  const std::size_t max_name = (version & Imf::LONG_NAMES_FLAG) ? 255 : 31;
  const bool multipart = Imf::isMultiPart(version);
  std::string attribute, type;
  for (std::size_t part = 0;; ++part) {
    if (part == kMaxParts) return bad_input(name + ": OpenEXR file has more than " + std::to_string(kMaxParts) + " parts");
    for (std::size_t count = 0;; ++count) {
      if (!read_name(stream, max_name, attribute))
        return bad_input(name + ": corrupt OpenEXR header: attribute name too long");
      if (attribute.empty()) {
        // An empty first name is the empty header that ends a multi-part file's header list.
        if (!multipart || count == 0) return Status::ok_status();
        break;
      }
      if (!read_name(stream, max_name, type))
        return bad_input(name + ": corrupt OpenEXR header: attribute type name too long");
      char size_bytes[4];
      stream.read(size_bytes, 4);
      const auto size = static_cast<std::int32_t>(little_endian_u32(size_bytes));
      const std::uint64_t value_start = stream.tellg();
      if (size < 0 || value_start + static_cast<std::uint64_t>(size) > file_size)
        return bad_input(name + ": truncated OpenEXR header: attribute '" + printable_excerpt(attribute) + "' claims " +
                         std::to_string(size) + " bytes, more than the file holds");
      if (!valid_attribute_value(stream, type, size))
        return bad_input(name + ": corrupt OpenEXR header: attribute '" + printable_excerpt(attribute) + "' of type '" +
                         printable_excerpt(type) + "' has a malformed value");
      stream.seekg(value_start + static_cast<std::uint64_t>(size));
    }
    if (!multipart) return Status::ok_status();
  }
}

int lines_per_chunk(Imf::Compression compression) {
  switch (compression) {
    case Imf::ZIP_COMPRESSION:
    case Imf::PXR24_COMPRESSION: return 16;
    case Imf::PIZ_COMPRESSION:
    case Imf::B44_COMPRESSION:
    case Imf::B44A_COMPRESSION:
    case Imf::DWAA_COMPRESSION: return 32;
    case Imf::DWAB_COMPRESSION: return 256;
    default: return 1;
  }
}

bool part_is_tiled(const Imf::Header& header, int version) {
  if (Imf::isMultiPart(version)) return header.hasType() && Imf::isTiled(header.type());
  return Imf::isTiled(version);
}

// Checks one part's dimensions, tiles and channels; adds its offset-table entries to `chunks`.
Status check_part(const std::string& name, const Imf::Header& header, bool tiled, bool multipart,
                  const ReadLimits& limits, std::uint64_t& chunks) {
  const Imath::Box2i& window = header.dataWindow();
  const std::int64_t width = std::int64_t{window.max.x} - window.min.x + 1;
  const std::int64_t height = std::int64_t{window.max.y} - window.min.y + 1;
  if (Status status = check_dimensions(name, width, height, limits); !status.ok()) return status;

  std::int64_t bytes_per_pixel = 0;
  int channel_count = 0;
  for (auto channel = header.channels().begin(); channel != header.channels().end(); ++channel) {
    if (++channel_count > kMaxChannels)
      return unsupported(name + ": OpenEXR part has more than " + std::to_string(kMaxChannels) + " channels");
    bytes_per_pixel += channel.channel().type == Imf::HALF ? 2 : 4;
  }
  if (width * height * bytes_per_pixel > limits.max_pixels * kMaxFileBytesPerPixel)
    return unsupported(name + ": OpenEXR part of " + std::to_string(width) + "x" + std::to_string(height) + " pixels with " +
                       std::to_string(channel_count) + " channels is too large to decode");

  if (multipart && header.hasChunkCount()) {
    if (header.chunkCount() < 0) return bad_input(name + ": corrupt OpenEXR header: negative chunkCount");
    chunks += static_cast<std::uint64_t>(header.chunkCount());
  } else if (tiled) {
    const Imf::TileDescription& tile = header.tileDescription();
    const std::int64_t tile_w = tile.xSize, tile_h = tile.ySize;
    if (tile_w < 1 || tile_h < 1 || tile_w > limits.max_side || tile_h > limits.max_side || tile_w * tile_h > limits.max_pixels)
      return bad_input(name + ": OpenEXR tile size " + std::to_string(tile_w) + "x" + std::to_string(tile_h) + " out of range");
    // Level 0 alone; mip levels only add to it, so this is a lower bound on the table.
    chunks += static_cast<std::uint64_t>(((width + tile_w - 1) / tile_w) * ((height + tile_h - 1) / tile_h));
  } else {
    chunks += static_cast<std::uint64_t>((height + lines_per_chunk(header.compression()) - 1) /
                                         lines_per_chunk(header.compression()));
  }
  return Status::ok_status();
}

}  // namespace

Result<ExrHeaders> read_exr_headers(const std::string& name, Imf::IStream& stream, std::uint64_t file_size,
                                    const ReadLimits& limits) {
  stream.seekg(0);
  char start[8];
  if (file_size < 8) return bad_input(name + ": truncated OpenEXR file (" + std::to_string(file_size) + " bytes)");
  stream.read(start, 8);
  if (!Imf::isImfMagic(start)) return bad_input(name + ": not an OpenEXR, Radiance HDR or PFM file");
  const int version = static_cast<int>(little_endian_u32(start + 4));
  if (Imf::getVersion(version) != Imf::EXR_VERSION)
    return unsupported(name + ": OpenEXR format version " + std::to_string(Imf::getVersion(version)) +
                       " is not supported (only 2)");
  if (!Imf::supportsFlags(Imf::getFlags(version)))
    return unsupported(name + ": OpenEXR file uses unknown feature flags");

  if (Status status = check_attributes(name, stream, file_size, version); !status.ok()) return status;

  ExrHeaders headers;
  headers.multipart = Imf::isMultiPart(version);
  stream.seekg(8);
  for (;;) {
    Imf::Header header;
    int header_version = version;
    header.readFrom(stream, header_version);
    if (headers.multipart && header.readsNothing()) break;
    headers.parts.push_back(header);
    if (!headers.multipart) break;
  }
  if (headers.parts.empty()) return bad_input(name + ": OpenEXR multi-part file has no parts");

  std::uint64_t chunks = 0;
  for (const Imf::Header& header : headers.parts) {
    const bool tiled = part_is_tiled(header, version);
    if (Status status = check_part(name, header, tiled, headers.multipart, limits, chunks); !status.ok()) return status;
    header.sanityCheck(tiled, headers.multipart);
  }
  // Every chunk has an 8-byte entry in the offset tables that follow the headers.
  const std::uint64_t after_headers = stream.tellg();
  if (chunks > file_size / 8 || after_headers + chunks * 8 > file_size)
    return bad_input(name + ": truncated OpenEXR file: the header describes " + std::to_string(chunks) +
                     " chunks, more than the " + std::to_string(file_size) + "-byte file holds");

  const Imf::Header& first = headers.parts[0];
  const bool deep = headers.multipart ? (first.hasType() && Imf::isDeepData(first.type()))
                                      : Imf::isNonImage(version);
  if (deep) return unsupported(name + ": deep OpenEXR data is not supported");
  headers.part0_tiled = part_is_tiled(first, version);
  return headers;
}

namespace {

std::string compression_name(Imf::Compression compression) {
  switch (compression) {
    case Imf::NO_COMPRESSION: return "none";
    case Imf::RLE_COMPRESSION: return "RLE";
    case Imf::ZIPS_COMPRESSION: return "ZIPS";
    case Imf::ZIP_COMPRESSION: return "ZIP";
    case Imf::PIZ_COMPRESSION: return "PIZ";
    case Imf::PXR24_COMPRESSION: return "PXR24";
    case Imf::B44_COMPRESSION: return "B44";
    case Imf::B44A_COMPRESSION: return "B44A";
    case Imf::DWAA_COMPRESSION: return "DWAA";
    case Imf::DWAB_COMPRESSION: return "DWAB";
    default: return "unknown";
  }
}

const char* pixel_type_word(Imf::PixelType type) {
  switch (type) {
    case Imf::HALF: return "half";
    case Imf::FLOAT: return "float";
    case Imf::UINT: return "uint";
    default: return "unknown";
  }
}

// Built by appending: `"(" + std::to_string(...)` trips GCC 12's false -Wrestrict (GCC bug 105651).
std::string box_text(const Imath::Box2i& box) {
  std::string text = "(";
  text += std::to_string(box.min.x);
  text += ",";
  text += std::to_string(box.min.y);
  text += ")-(";
  text += std::to_string(box.max.x);
  text += ",";
  text += std::to_string(box.max.y);
  text += ")";
  return text;
}

}  // namespace

ImageMetadata exr_metadata(const ExrHeaders& headers) {
  const Imf::Header& header = headers.parts[0];
  ImageMetadata meta;
  meta.format = "OpenEXR";
  meta.compression = compression_name(header.compression());
  meta.tiled = headers.part0_tiled;
  std::string types;
  for (auto channel = header.channels().begin(); channel != header.channels().end(); ++channel) {
    if (!meta.source_channels.empty()) meta.source_channels += ",";
    meta.source_channels += channel.name();
    const std::string type = pixel_type_word(channel.channel().type);
    if (types.find(type) == std::string::npos) types += (types.empty() ? "" : ",") + type;
  }
  meta.source_pixel_type = types;
  const Imath::Box2i& data = header.dataWindow();
  meta.width = data.max.x - data.min.x + 1;
  meta.height = data.max.y - data.min.y + 1;
  if (data != header.displayWindow())
    meta.notes.push_back("data window " + box_text(data) + " differs from display window " +
                         box_text(header.displayWindow()) + "; the data window's pixels are returned");
  if (headers.multipart)
    meta.notes.push_back("multi-part file: part 0 of " + std::to_string(headers.parts.size()) + " read");
  if (headers.part0_tiled && header.tileDescription().mode != Imf::ONE_LEVEL)
    meta.notes.push_back(std::string(header.tileDescription().mode == Imf::MIPMAP_LEVELS ? "mip-mapped" : "rip-mapped") +
                         " file: level 0 (full resolution) read");
  return meta;
}

Status exr_exception_status(const std::string& name) {
  try {
    throw;
  } catch (const std::bad_alloc&) {
    return Status(StatusCode::out_of_memory, name + ": out of memory while reading OpenEXR");
  } catch (const std::exception& e) {
    return bad_input(name + ": OpenEXR: " + one_line(e.what()));
  } catch (...) {
    return bad_input(name + ": OpenEXR: unknown error");
  }
}

}  // namespace tonekit::io
