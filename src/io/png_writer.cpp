// PNG writer: 8 or 16 bits per channel, grey, RGB or RGBA, no colour chunks (the tone mapper's
// output transfer varies, and untagged PNG is read as sRGB). The container (signature, IHDR,
// IDAT, IEND, CRC-32) is written here and the pixels are deflated with zlib in horizontal strips
// on several threads, as pigz does: each strip is a raw deflate stream ended by Z_SYNC_FLUSH
// (byte-aligned, not final), the last one by Z_FINISH, so their concatenation is one valid
// deflate stream; the Adler-32s are joined with adler32_combine. A strip's first row is filtered
// against the previous strip's last row, as in any PNG. libpng deflated on one thread only:
// 0.26-0.41 s and 7.95 MB for a dithered 4K frame here (level 1, Paeth); with strips on 2 cores
// and the filter and strategy below, 0.09 s and 5.66 MB (bench/cpu/STILLS_NOTES.md).
#include <zlib.h>

#include <algorithm>
#include <cstdint>
#include <bit>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "input_checks.hpp"
#include "png_encoding.hpp"
#include "tonekit/io.hpp"

namespace tonekit::io {
namespace {

void append_u32(std::string& out, std::uint32_t v) {
  const char bytes[4] = {static_cast<char>(v >> 24), static_cast<char>(v >> 16), static_cast<char>(v >> 8),
                         static_cast<char>(v)};
  out.append(bytes, 4);
}

// length, type, data, CRC-32 of type + data (PNG spec 5.3).
void append_chunk(std::string& out, const char type[4], const std::string& data) {
  append_u32(out, static_cast<std::uint32_t>(data.size()));
  const std::size_t start = out.size();
  out.append(type, 4);
  out += data;
  const auto* crc_bytes = reinterpret_cast<const Bytef*>(out.data() + start);
  append_u32(out, static_cast<std::uint32_t>(crc32_z(crc32(0, nullptr, 0), crc_bytes, out.size() - start)));
}

std::uint8_t paeth(int a, int b, int c) {
  const int p = a + b - c;
  const int pa = std::abs(p - a), pb = std::abs(p - b), pc = std::abs(p - c);
  return static_cast<std::uint8_t>(pa <= pb && pa <= pc ? a : (pb <= pc ? b : c));
}

// Filters one row (PNG spec 9.2) into out[0] = filter type, out[1..] = filtered bytes.
void filter_row(PngFilter filter, const std::uint8_t* row, const std::uint8_t* above, std::size_t row_bytes, int bpp,
                std::uint8_t* out) {
  out[0] = static_cast<std::uint8_t>(filter);
  std::uint8_t* f = out + 1;
  const auto b = static_cast<std::size_t>(bpp);
  switch (filter) {
    case PngFilter::none: std::memcpy(f, row, row_bytes); break;
    case PngFilter::sub:
      for (std::size_t i = 0; i < row_bytes; ++i) f[i] = static_cast<std::uint8_t>(row[i] - (i >= b ? row[i - b] : 0));
      break;
    case PngFilter::up:
      for (std::size_t i = 0; i < row_bytes; ++i) f[i] = static_cast<std::uint8_t>(row[i] - (above ? above[i] : 0));
      break;
    case PngFilter::paeth:
      for (std::size_t i = 0; i < row_bytes; ++i) {
        const int a = i >= b ? row[i - b] : 0;
        const int up = above ? above[i] : 0;
        const int c = (above && i >= b) ? above[i - b] : 0;
        f[i] = static_cast<std::uint8_t>(row[i] - paeth(a, up, c));
      }
      break;
  }
}

// Deflated size of the first `size` bytes of `data` (raw deflate, one shot) with `strategy`;
// SIZE_MAX if zlib fails.
std::size_t deflated_size(const std::vector<std::uint8_t>& data, std::size_t size, int level, int strategy) {
  z_stream z{};
  if (deflateInit2(&z, level, Z_DEFLATED, -15, 8, strategy) != Z_OK) return SIZE_MAX;
  std::vector<std::uint8_t> out(deflateBound(&z, static_cast<uLong>(size)) + 16);
  z.next_in = const_cast<Bytef*>(data.data());
  z.avail_in = static_cast<uInt>(size);
  z.next_out = out.data();
  z.avail_out = static_cast<uInt>(out.size());
  const bool ok = deflate(&z, Z_FINISH) == Z_STREAM_END;
  const std::size_t result = ok ? z.total_out : SIZE_MAX;
  deflateEnd(&z);
  return result;
}

// Z_RLE or Z_HUFFMAN_ONLY, whichever makes the strip's first 16 rows smaller. Dithered images
// leave runs nothing to find, and Huffman coding alone is then faster and smaller (4K
// night-drive: 5.7 MB instead of 6.1 MB); flat, undithered ones need the runs (1.8 MB against
// 3.7 MB). The trial costs under 2 % of the strip's time.
int pick_strategy(const std::vector<std::uint8_t>& filtered, std::size_t sample, int level) {
  return deflated_size(filtered, sample, level, Z_HUFFMAN_ONLY) <= deflated_size(filtered, sample, level, Z_RLE)
             ? Z_HUFFMAN_ONLY
             : Z_RLE;
}

struct Strip {
  int y0 = 0, y1 = 0;
  std::unique_ptr<Bytef[]> deflated;  // not zero-filled: only the bytes deflate writes are touched
  std::size_t deflated_size = 0;
  uLong adler = 0;  // of the filtered bytes
  uLong crc = 0;    // of the deflated bytes, for the IDAT chunk's CRC (crc32_combine)
  std::size_t raw_bytes = 0;
  bool ok = true;
};

// Rows filtered and deflated 32 at a time, so the filtered bytes stay in cache (a whole strip
// filtered first, then deflated, cost 12 MB of page faults and memset per 4K strip).
constexpr int kRowsPerBlock = 32;

// Filters and deflates rows [y0, y1) of `bytes` (already in PNG byte order).
void deflate_strip(const std::uint8_t* bytes, std::size_t row_bytes, int bpp, const PngEncoding& enc, bool last,
                   Strip& s) {
  const std::size_t filtered_row = row_bytes + 1;
  std::vector<std::uint8_t> block(filtered_row * kRowsPerBlock);
  auto filter_block = [&](int y0, int y1) {
    for (int y = y0; y < y1; ++y) {
      const std::uint8_t* row = bytes + static_cast<std::size_t>(y) * row_bytes;
      filter_row(enc.filter, row, y > 0 ? row - row_bytes : nullptr, row_bytes, bpp,
                 block.data() + filtered_row * static_cast<std::size_t>(y - y0));
    }
    return filtered_row * static_cast<std::size_t>(y1 - y0);
  };
  int strategy = enc.strategy;
  if (strategy == kRleOrHuffman) {
    const std::size_t sample = filter_block(s.y0, std::min(s.y1, s.y0 + kRowsPerBlock));
    strategy = pick_strategy(block, std::min(sample, filtered_row * 16), enc.level);
  }
  z_stream z{};
  if (deflateInit2(&z, enc.level, Z_DEFLATED, -15, 8, strategy) != Z_OK) {
    s.ok = false;
    return;
  }
  s.raw_bytes = filtered_row * static_cast<std::size_t>(s.y1 - s.y0);
  const std::size_t capacity = deflateBound(&z, static_cast<uLong>(s.raw_bytes)) + 64;
  s.deflated.reset(new Bytef[capacity]);
  z.next_out = s.deflated.get();
  z.avail_out = static_cast<uInt>(capacity);
  s.adler = adler32(0, nullptr, 0);
  for (int y = s.y0; y < s.y1 && s.ok; y += kRowsPerBlock) {
    const int y_end = std::min(s.y1, y + kRowsPerBlock);
    const std::size_t size = filter_block(y, y_end);
    s.adler = adler32_z(s.adler, block.data(), size);
    z.next_in = block.data();
    z.avail_in = static_cast<uInt>(size);
    const bool final_block = y_end == s.y1;
    const int flush = final_block ? (last ? Z_FINISH : Z_SYNC_FLUSH) : Z_NO_FLUSH;
    const int result = deflate(&z, flush);
    s.ok = (final_block && last ? result == Z_STREAM_END : result == Z_OK) && z.avail_in == 0;
  }
  s.deflated_size = z.total_out;
  s.crc = crc32_z(crc32(0, nullptr, 0), s.deflated.get(), s.deflated_size);
  deflateEnd(&z);
}

}  // namespace

std::string encode_png(const OutputImage& image, const PngEncoding& enc) {
  const bool sixteen = image.type == PixelType::u16;
  const int bpp = image.channels * (sixteen ? 2 : 1);
  const std::size_t row_bytes = static_cast<std::size_t>(image.width) * static_cast<std::size_t>(bpp);

  // 16-bit samples are held in host byte order; PNG stores them big-endian.
  std::vector<std::uint8_t> swapped;
  const std::uint8_t* bytes = image.bytes.data();
  if (sixteen && std::endian::native == std::endian::little) {
    swapped.resize(image.bytes.size());
    for (std::size_t i = 0; i + 1 < swapped.size(); i += 2) {
      swapped[i] = image.bytes[i + 1];
      swapped[i + 1] = image.bytes[i];
    }
    bytes = swapped.data();
  }

  // One strip per thread, of at least 64 rows: each restarts deflate's 32 KiB window, which
  // costs little (4K dithered, 1 strip against 2: 5.66 MB both; level 2: 7.16 against 7.17 MB).
  int threads = enc.threads > 0 ? enc.threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  threads = std::clamp(threads, 1, std::max(1, image.height / 64));
  std::vector<Strip> strips(static_cast<std::size_t>(threads));
  for (int i = 0; i < threads; ++i) {
    strips[i].y0 = static_cast<int>(static_cast<long long>(image.height) * i / threads);
    strips[i].y1 = static_cast<int>(static_cast<long long>(image.height) * (i + 1) / threads);
  }
  {
    std::vector<std::jthread> workers;
    for (int i = 1; i < threads; ++i)
      workers.emplace_back([&, i] { deflate_strip(bytes, row_bytes, bpp, enc, i == threads - 1, strips[i]); });
    deflate_strip(bytes, row_bytes, bpp, enc, threads == 1, strips[0]);
  }
  uLong adler = adler32(0, nullptr, 0);
  std::size_t deflated = 0;
  for (const Strip& s : strips) {
    if (!s.ok) return {};
    adler = adler32_combine(adler, s.adler, static_cast<z_off_t>(s.raw_bytes));
    deflated += s.deflated_size;
  }

  std::string header;
  append_u32(header, static_cast<std::uint32_t>(image.width));
  append_u32(header, static_cast<std::uint32_t>(image.height));
  const int colour_type = image.channels == 1 ? 0 : (image.channels == 3 ? 2 : 6);
  header += {static_cast<char>(sixteen ? 16 : 8), static_cast<char>(colour_type), 0, 0, 0};

  std::string out("\x89PNG\r\n\x1a\n", 8);
  out.reserve(deflated + 128);
  append_chunk(out, "IHDR", header);

  // One IDAT (chunks may hold up to 2^31 - 1 bytes, far more than any accepted image deflates
  // to): the zlib header (RFC 1950: CM 8, CINFO 7 = 32 KiB window, FLEVEL, FCHECK), the strips,
  // the Adler-32. Its CRC joins the strips' own, computed on their threads.
  append_u32(out, static_cast<std::uint32_t>(2 + deflated + 4));
  const std::size_t crc_start = out.size();
  const int flevel = enc.level <= 1 ? 0 : (enc.level <= 5 ? 1 : (enc.level == 6 ? 2 : 3));
  unsigned cmf_flg = (0x78u << 8) | (static_cast<unsigned>(flevel) << 6);
  cmf_flg += 31 - cmf_flg % 31;
  out += "IDAT";
  out += {static_cast<char>(cmf_flg >> 8), static_cast<char>(cmf_flg & 0xff)};
  uLong crc = crc32_z(crc32(0, nullptr, 0), reinterpret_cast<const Bytef*>(out.data() + crc_start), out.size() - crc_start);
  for (const Strip& s : strips) {
    out.append(reinterpret_cast<const char*>(s.deflated.get()), s.deflated_size);
    crc = crc32_combine(crc, s.crc, static_cast<z_off_t>(s.deflated_size));
  }
  const std::size_t adler_start = out.size();
  append_u32(out, static_cast<std::uint32_t>(adler));
  crc = crc32_z(crc, reinterpret_cast<const Bytef*>(out.data() + adler_start), 4);
  append_u32(out, static_cast<std::uint32_t>(crc));
  append_chunk(out, "IEND", {});
  return out;
}

// Chosen by measurement (bench/cpu/STILLS_NOTES.md, 4K night-drive, reinhard): the dither's
// noise leaves deflate's string matching almost nothing to find, so at level 1 the Sub filter
// with runs only (Z_RLE) or no matching at all (Z_HUFFMAN_ONLY), picked per strip, is faster
// and smaller than libpng's default strategy with Paeth (5.7 MB instead of 8.0 MB dithered,
// 1.8 MB instead of 2.6 MB without dither). Higher levels search for matches (default strategy,
// Sub); 0 stores.
PngEncoding png_encoding_for_level(int level) {
  PngEncoding enc;
  enc.level = level;
  enc.filter = level == 0 ? PngFilter::none : PngFilter::sub;
  enc.strategy = level == 1 ? kRleOrHuffman : Z_DEFAULT_STRATEGY;
  return enc;
}

Status write_png(const std::string& path, const OutputImage& image, int level) {
  if (image.type != PixelType::u8 && image.type != PixelType::u16)
    return invalid_argument(path + ": PNG needs an 8- or 16-bit image");
  if (level < 0 || level > 9) return invalid_argument(path + ": PNG level must be in [0, 9]");
  if (Status status = check_writable(path, image); !status.ok()) return status;
  std::string bytes;
  try {
    bytes = encode_png(image, png_encoding_for_level(level));
  } catch (const std::bad_alloc&) {
    return Status(StatusCode::out_of_memory, path + ": out of memory while encoding PNG");
  }
  if (bytes.empty()) return Status(StatusCode::runtime_error, path + ": zlib failed while encoding PNG");
  return write_file_atomically(path, bytes);
}

Result<std::string> encode_png(const OutputImage& image) {
  if (image.type != PixelType::u8 && image.type != PixelType::u16)
    return invalid_argument("PNG needs an 8- or 16-bit image");
  std::string bytes = encode_png(image, png_encoding_for_level(kDefaultPngLevel));
  if (bytes.empty()) return Status(StatusCode::runtime_error, "zlib failed while encoding PNG");
  return bytes;
}

}  // namespace tonekit::io
