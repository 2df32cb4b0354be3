// Portable Float Map, as described by Paul Debevec (https://www.pauldebevec.com/Research/HDR/PFM/):
//   "PF" (RGB) or "Pf" (grey), whitespace, width, whitespace, height, whitespace, scale, one
//   whitespace byte, then width*height*channels 32-bit floats, rows bottom to top. A negative
//   scale means little-endian floats, positive big-endian; its magnitude is a scale factor that
//   most writers set to 1 and most readers ignore (so do we, with a note).
#include <bit>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <new>
#include <optional>
#include <string_view>
#include <vector>

#include "file_bytes.hpp"
#include "input_checks.hpp"
#include "readers.hpp"
#include "tonekit/io.hpp"

namespace tonekit::io {
namespace {

// The longest header token we accept; real headers have tokens of a few characters.
constexpr std::size_t kMaxTokenLength = 64;

struct PfmHeader {
  int channels = 3;
  std::int64_t width = 0;
  std::int64_t height = 0;
  double scale = -1.0;
  bool little_endian = true;
  std::size_t data_offset = 0;
};

bool is_space(std::uint8_t c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }

// Skips whitespace, then returns the next token (nullopt if the data ends or the token is long).
std::optional<std::string_view> next_token(const std::uint8_t* data, std::size_t size, std::size_t& pos) {
  while (pos < size && is_space(data[pos])) ++pos;
  const std::size_t start = pos;
  while (pos < size && !is_space(data[pos]) && pos - start <= kMaxTokenLength) ++pos;
  if (pos == start || pos >= size || pos - start > kMaxTokenLength) return std::nullopt;
  return std::string_view(reinterpret_cast<const char*>(data) + start, pos - start);
}

// An optionally negative decimal integer (negative sides are reported as out of range);
// magnitudes past 10^12 saturate.
std::optional<std::int64_t> parse_integer(std::string_view token) {
  const bool negative = !token.empty() && token.front() == '-';
  if (negative) token.remove_prefix(1);
  if (token.empty()) return std::nullopt;
  std::int64_t value = 0;
  for (char c : token) {
    if (c < '0' || c > '9') return std::nullopt;
    value = std::min<std::int64_t>(value * 10 + (c - '0'), 1'000'000'000'000);
  }
  return negative ? -value : value;
}

Result<PfmHeader> parse_header(const std::string& name, const std::uint8_t* data, std::size_t size,
                               const ReadLimits& limits) {
  PfmHeader header;
  std::size_t pos = 0;
  const auto magic = next_token(data, size, pos);
  if (!magic || (*magic != "PF" && *magic != "Pf")) return bad_input(name + ": not an OpenEXR, Radiance HDR or PFM file");
  header.channels = *magic == "PF" ? 3 : 1;

  const auto width_token = next_token(data, size, pos);
  const auto height_token = width_token ? next_token(data, size, pos) : std::nullopt;
  const auto scale_token = height_token ? next_token(data, size, pos) : std::nullopt;
  if (!scale_token) return bad_input(name + ": truncated or malformed PFM header (expected 'PF', width, height, scale)");

  const auto width = parse_integer(*width_token);
  const auto height = parse_integer(*height_token);
  if (!width) return bad_input(name + ": PFM width '" + printable_excerpt(*width_token) + "' is not an integer");
  if (!height) return bad_input(name + ": PFM height '" + printable_excerpt(*height_token) + "' is not an integer");
  if (Status status = check_dimensions(name, *width, *height, limits); !status.ok()) return status;
  header.width = *width;
  header.height = *height;

  const std::string scale_text(*scale_token);
  char* end = nullptr;
  header.scale = std::strtod(scale_text.c_str(), &end);
  if (*end != '\0' || !std::isfinite(header.scale))
    return bad_input(name + ": PFM scale '" + printable_excerpt(scale_text) + "' is not a number");
  if (header.scale == 0.0)
    return bad_input(name + ": PFM scale is zero (its sign must give the byte order)");
  header.little_endian = header.scale < 0.0;
  // next_token stopped on the single whitespace byte that ends the header.
  header.data_offset = pos + 1;
  return header;
}

ImageMetadata metadata_of(const PfmHeader& header) {
  ImageMetadata meta;
  meta.format = "PFM";
  meta.compression = "none";
  meta.source_pixel_type = "float";
  meta.source_channels = header.channels == 3 ? "R,G,B" : "Y";
  meta.width = static_cast<int>(header.width);
  meta.height = static_cast<int>(header.height);
  if (header.channels == 1) meta.notes.push_back("grey PFM expanded to RGB");
  if (std::fabs(header.scale) != 1.0)
    meta.notes.push_back("PFM scale magnitude " + std::to_string(std::fabs(header.scale)) + " ignored");
  return meta;
}

std::uint64_t pixel_data_bytes(const PfmHeader& header) {
  return static_cast<std::uint64_t>(header.width) * static_cast<std::uint64_t>(header.height) *
         static_cast<std::uint64_t>(header.channels) * 4;
}

Status check_data_size(const std::string& name, const PfmHeader& header, std::uint64_t file_size) {
  const std::uint64_t needed = pixel_data_bytes(header);
  const std::uint64_t available = file_size > header.data_offset ? file_size - header.data_offset : 0;
  if (available >= needed) return Status::ok_status();
  return bad_input(name + ": truncated PFM pixel data: " + std::to_string(header.width) + "x" +
                   std::to_string(header.height) + " needs " + std::to_string(needed) + " bytes, the file holds " +
                   std::to_string(available));
}

float load_float(const std::uint8_t* bytes, bool swap) {
  std::uint32_t bits = 0;
  std::memcpy(&bits, bytes, 4);
  if (swap) bits = __builtin_bswap32(bits);
  return std::bit_cast<float>(bits);
}

bool needs_swap(const PfmHeader& header) { return header.little_endian != (std::endian::native == std::endian::little); }

std::size_t file_row_bytes(const PfmHeader& header) {
  return static_cast<std::size_t>(header.width) * static_cast<std::size_t>(header.channels) * 4;
}

// File rows (bottom-up, `channels` floats a pixel, either byte order) into the image's RGB rows.
void convert_rows(const std::uint8_t* pixels, const PfmHeader& header, Image& image) {
  const int width = image.width, height = image.height, channels = header.channels;
  const bool swap = needs_swap(header);
  const std::size_t row_bytes = file_row_bytes(header);
  for (int y = 0; y < height; ++y) {
    // Rows are stored bottom-up: the file's first row is the image's last.
    const std::uint8_t* source = pixels + static_cast<std::size_t>(height - 1 - y) * row_bytes;
    float* out = image.row(y);
    if (channels == 3 && !swap) {
      std::memcpy(out, source, row_bytes);
    } else if (channels == 3) {
      for (int i = 0; i < width * 3; ++i) out[i] = load_float(source + static_cast<std::size_t>(i) * 4, true);
    } else {
      for (int x = 0; x < width; ++x) out[x * 3] = out[x * 3 + 1] = out[x * 3 + 2] = load_float(source + static_cast<std::size_t>(x) * 4, swap);
    }
  }
}

Result<Image> decode(const std::string& name, const std::uint8_t* data, std::size_t size, const ReadLimits& limits) {
  auto header = parse_header(name, data, size, limits);
  if (!header.ok()) return header.status();
  if (Status status = check_data_size(name, *header, size); !status.ok()) return status;

  Image image(static_cast<int>(header->width), static_cast<int>(header->height), 3);
  convert_rows(data + header->data_offset, *header, image);
  image.meta = metadata_of(*header);
  const std::uint64_t trailing = size - header->data_offset - pixel_data_bytes(*header);
  if (trailing > 0) image.meta.notes.push_back(std::to_string(trailing) + " trailing bytes after the pixels ignored");
  return image;
}

void append_float(std::string& out, float value) {
  // Little-endian regardless of the host, matching the "-1.0" scale we write.
  std::uint32_t bits = std::bit_cast<std::uint32_t>(value);
  if constexpr (std::endian::native == std::endian::big) bits = __builtin_bswap32(bits);
  char bytes[4];
  std::memcpy(bytes, &bits, 4);
  out.append(bytes, 4);
}

}  // namespace

Result<Image> read_pfm_memory(const std::string& name, const std::uint8_t* data, std::size_t size,
                              const ReadLimits& limits) {
  try {
    return decode(name, data, size, limits);
  } catch (const std::bad_alloc&) {
    return Status(StatusCode::out_of_memory, name + ": out of memory while reading PFM");
  } catch (const std::exception& e) {
    return Status(StatusCode::runtime_error, name + ": " + one_line(e.what()));
  }
}

Result<Image> read_pfm_file(const std::string& path, int fd, const std::uint8_t* prefix, std::size_t prefix_size,
                            std::uint64_t file_size) {
  try {
    auto header = parse_header(path, prefix, prefix_size, ReadLimits{});
    // A header longer than the prefix (runs of whitespace): the whole-file reader decides.
    if (!header.ok() && prefix_size < file_size) {
      auto file = read_file_bytes(path);
      if (!file.ok()) return file.status();
      return decode(path, file->bytes.data(), file->bytes.size(), ReadLimits{});
    }
    if (!header.ok()) return header.status();
    if (Status status = check_data_size(path, *header, file_size); !status.ok()) return status;
    Image image(static_cast<int>(header->width), static_cast<int>(header->height), 3);
    const std::size_t row_bytes = file_row_bytes(*header);
    if (header->channels == 3 && !needs_swap(*header)) {
      // The common case: each file row read straight into its (flipped) image row, no staging.
      std::vector<RowTarget> rows(static_cast<std::size_t>(image.height));
      for (int y = 0; y < image.height; ++y) rows[static_cast<std::size_t>(y)] = {image.row(image.height - 1 - y), row_bytes};
      if (Status status = read_rows(path, fd, header->data_offset, rows); !status.ok()) return status;
    } else {
      std::vector<std::uint8_t> pixels(row_bytes * static_cast<std::size_t>(image.height));
      std::vector<RowTarget> all{{pixels.data(), pixels.size()}};
      if (Status status = read_rows(path, fd, header->data_offset, all); !status.ok()) return status;
      convert_rows(pixels.data(), *header, image);
    }
    image.meta = metadata_of(*header);
    const std::uint64_t trailing = file_size - header->data_offset - pixel_data_bytes(*header);
    if (trailing > 0) image.meta.notes.push_back(std::to_string(trailing) + " trailing bytes after the pixels ignored");
    return image;
  } catch (const std::bad_alloc&) {
    return Status(StatusCode::out_of_memory, path + ": out of memory while reading PFM");
  } catch (const std::exception& e) {
    return Status(StatusCode::runtime_error, path + ": " + one_line(e.what()));
  }
}

Result<ImageMetadata> probe_pfm_prefix(const std::string& name, const std::uint8_t* prefix, std::size_t prefix_size,
                                       std::uint64_t file_size) {
  try {
    auto header = parse_header(name, prefix, prefix_size, ReadLimits{});
    if (!header.ok()) return header.status();
    if (Status status = check_data_size(name, *header, file_size); !status.ok()) return status;
    return metadata_of(*header);
  } catch (const std::bad_alloc&) {
    return Status(StatusCode::out_of_memory, name + ": out of memory while probing PFM");
  } catch (const std::exception& e) {
    return Status(StatusCode::runtime_error, name + ": " + one_line(e.what()));
  }
}

// Writes "PF" (RGB; alpha dropped, PFM has none) or "Pf" (grey), little-endian, bottom-up rows.
Status write_pfm(const std::string& path, const Image& image) {
  if (Status status = check_writable(path, image); !status.ok()) return status;
  try {
    const int out_channels = image.channels == 1 ? 1 : 3;
    std::string out = std::string(out_channels == 3 ? "PF" : "Pf") + "\n" + std::to_string(image.width) + " " +
                      std::to_string(image.height) + "\n-1.0\n";
    out.reserve(out.size() + static_cast<std::size_t>(image.width) * image.height * out_channels * 4);
    for (int y = image.height - 1; y >= 0; --y) {
      const float* row = image.row(y);
      for (int x = 0; x < image.width; ++x)
        for (int c = 0; c < out_channels; ++c) append_float(out, row[x * image.channels + c]);
    }
    return write_file_atomically(path, out);
  } catch (const std::bad_alloc&) {
    return Status(StatusCode::out_of_memory, path + ": out of memory while encoding PFM");
  }
}

}  // namespace tonekit::io
