// PNG writer: 8 or 16 bits per channel, grey, RGB or RGBA, no colour chunks (the tone mapper's
// output transfer varies, and untagged PNG is read as sRGB). The container (signature, IHDR,
// IDAT, IEND, CRC-32) is written here and the pixels are deflated in horizontal strips on several
// threads, as pigz does: each strip is a raw deflate stream ended by a sync flush (byte-aligned,
// not final), the last one by the final block, so their concatenation is one valid deflate
// stream; the Adler-32s are joined with zlib's adler32_combine. A strip's first row is filtered
// against the previous strip's last row, as in any PNG. Level 1, the default, deflates with ISA-L
// (igzip level 1, matches at most 2 bytes back: 3-9x faster than zlib's Huffman-only or RLE
// strategies at their size); the other levels with zlib. libpng deflated on one thread only:
// 0.26-0.41 s and 7.95 MB for a dithered 4K frame here (level 1, Paeth); zlib strips on 2 cores,
// 0.09 s and 5.66 MB; ISA-L strips, see docs/performance.md.
#include <isa-l/crc.h>
#include <isa-l/igzip_lib.h>
#include <zlib.h>

#include <algorithm>
#include <cstdint>
#include <bit>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <atomic>
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
    case PngFilter::sub: {
      const std::size_t head = std::min(b, row_bytes);
      std::memcpy(f, row, head);
      for (std::size_t i = head; i < row_bytes; ++i) f[i] = static_cast<std::uint8_t>(row[i] - row[i - b]);
      break;
    }
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

struct Strip {
  int y0 = 0, y1 = 0;
  std::unique_ptr<Bytef[]> deflated;  // not zero-filled: only the bytes deflate writes are touched
  std::size_t capacity = 0;
  std::size_t deflated_size = 0;
  uLong adler = 0;  // of the filtered bytes
  uLong crc = 0;    // of the deflated bytes, for the IDAT chunk's CRC (crc32_combine)
  std::size_t raw_bytes = 0;
  bool ok = true;
};

// Rows filtered and deflated 32 at a time, so the filtered bytes stay in cache (a whole strip
// filtered first, then deflated, cost 12 MB of page faults and memset per 4K strip).
constexpr int kRowsPerBlock = 32;

// Rows [y0, y1) of `bytes` (already in PNG byte order) filtered kRowsPerBlock at a time; each
// block is handed to `deflate_block(data, size, final_block)`, which returns false on failure.
template <typename DeflateBlock>
void filter_strip(const std::uint8_t* bytes, std::size_t row_bytes, int bpp, PngFilter filter, Strip& s,
                  DeflateBlock&& deflate_block) {
  const std::size_t filtered_row = row_bytes + 1;
  std::vector<std::uint8_t> block(filtered_row * kRowsPerBlock);
  s.raw_bytes = filtered_row * static_cast<std::size_t>(s.y1 - s.y0);
  s.adler = adler32(0, nullptr, 0);
  for (int y = s.y0; y < s.y1 && s.ok; y += kRowsPerBlock) {
    const int y_end = std::min(s.y1, y + kRowsPerBlock);
    for (int r = y; r < y_end; ++r) {
      const std::uint8_t* row = bytes + static_cast<std::size_t>(r) * row_bytes;
      filter_row(filter, row, r > 0 ? row - row_bytes : nullptr, row_bytes, bpp,
                 block.data() + filtered_row * static_cast<std::size_t>(r - y));
    }
    const std::size_t size = filtered_row * static_cast<std::size_t>(y_end - y);
    s.adler = isal_adler32(static_cast<std::uint32_t>(s.adler), block.data(), size);
    s.ok = deflate_block(block.data(), size, y_end == s.y1);
  }
}

// zlib: one deflate stream per strip, its size bounded in advance by deflateBound.
void deflate_strip_zlib(const std::uint8_t* bytes, std::size_t row_bytes, int bpp, const PngEncoding& enc, bool last,
                        Strip& s) {
  z_stream z{};
  if (deflateInit2(&z, enc.level, Z_DEFLATED, -15, 8, enc.strategy) != Z_OK) {
    s.ok = false;
    return;
  }
  const std::size_t raw = (row_bytes + 1) * static_cast<std::size_t>(s.y1 - s.y0);
  s.capacity = deflateBound(&z, static_cast<uLong>(raw)) + 64;
  s.deflated.reset(new Bytef[s.capacity]);
  z.next_out = s.deflated.get();
  z.avail_out = static_cast<uInt>(s.capacity);
  filter_strip(bytes, row_bytes, bpp, enc.filter, s, [&](std::uint8_t* data, std::size_t size, bool final_block) {
    z.next_in = data;
    z.avail_in = static_cast<uInt>(size);
    const int result = deflate(&z, final_block ? (last ? Z_FINISH : Z_SYNC_FLUSH) : Z_NO_FLUSH);
    return (final_block && last ? result == Z_STREAM_END : result == Z_OK) && z.avail_in == 0;
  });
  s.deflated_size = z.total_out;
  deflateEnd(&z);
}

// ISA-L: one raw deflate stream per strip (isal_deflate, stateful). Its output has no bound
// computed in advance, so the buffer grows if a strip does not compress (first size: the
// filtered bytes and an eighth; only the pages written are touched).
void deflate_strip_isal(const std::uint8_t* bytes, std::size_t row_bytes, int bpp, const PngEncoding& enc, bool last,
                        Strip& s) {
  static constexpr std::uint32_t kLevelBuf[4] = {ISAL_DEF_LVL0_DEFAULT, ISAL_DEF_LVL1_DEFAULT, ISAL_DEF_LVL2_DEFAULT,
                                                 ISAL_DEF_LVL3_DEFAULT};
  if (enc.level < 0 || enc.level > 3 || enc.isal_hist_bits < 0 || enc.isal_hist_bits > 15) {
    s.ok = false;
    return;
  }
  auto stream = std::make_unique<isal_zstream>();  // ~100 KB of state: not on the thread's stack
  isal_deflate_init(stream.get());
  isal_zstream& z = *stream;
  std::unique_ptr<std::uint8_t[]> level_buf(new std::uint8_t[std::max<std::uint32_t>(kLevelBuf[enc.level], 1)]);
  z.level = static_cast<std::uint32_t>(enc.level);
  z.level_buf = level_buf.get();
  z.level_buf_size = kLevelBuf[enc.level];
  z.hist_bits = static_cast<std::uint16_t>(enc.isal_hist_bits);
  z.gzip_flag = IGZIP_DEFLATE;
  const std::size_t raw = (row_bytes + 1) * static_cast<std::size_t>(s.y1 - s.y0);
  s.capacity = raw + raw / 8 + 4096;
  s.deflated.reset(new Bytef[s.capacity]);
  filter_strip(bytes, row_bytes, bpp, enc.filter, s, [&](std::uint8_t* data, std::size_t size, bool final_block) {
    z.next_in = data;
    z.avail_in = static_cast<std::uint32_t>(size);
    z.end_of_stream = final_block && last;
    z.flush = final_block && !last ? SYNC_FLUSH : NO_FLUSH;
    for (;;) {
      if (s.capacity - z.total_out < 1024) {  // grow, keeping what was written
        const std::size_t grown = s.capacity * 2;
        std::unique_ptr<Bytef[]> bigger(new Bytef[grown]);
        std::memcpy(bigger.get(), s.deflated.get(), z.total_out);
        s.deflated = std::move(bigger);
        s.capacity = grown;
      }
      z.next_out = s.deflated.get() + z.total_out;
      z.avail_out = static_cast<std::uint32_t>(std::min<std::size_t>(s.capacity - z.total_out, UINT32_MAX));
      if (isal_deflate(&z) != COMP_OK) return false;
      // Done with this block once its input is taken and the output was not filled (isal_deflate's
      // own condition for a flushed stream); at the end the stream must have reached its end.
      if (z.avail_in == 0 && z.avail_out != 0) break;
    }
    return !(final_block && last) || z.internal_state.state == ZSTATE_END;
  });
  s.deflated_size = z.total_out;
}

void deflate_strip(const std::uint8_t* bytes, std::size_t row_bytes, int bpp, const PngEncoding& enc, bool last,
                   Strip& s) {
  if (enc.deflater == Deflater::isal)
    deflate_strip_isal(bytes, row_bytes, bpp, enc, last, s);
  else
    deflate_strip_zlib(bytes, row_bytes, bpp, enc, last, s);
  if (s.ok) s.crc = crc32_gzip_refl(0, s.deflated.get(), s.deflated_size);
}

// The PNG file in pieces: the signature, IHDR and IDAT's start; the strips' deflated bytes as
// they were written; IDAT's end and IEND. write_png writes the pieces as they are (joining them
// was a 6 MB copy into fresh pages for a dithered 4K frame, 3 % of a whole EXR -> PNG process).
struct PngParts {
  std::string head;
  std::vector<Strip> strips;
  std::string tail;
  std::size_t size() const {
    std::size_t n = head.size() + tail.size();
    for (const Strip& s : strips) n += s.deflated_size;
    return n;
  }
  std::vector<std::string_view> pieces() const {
    std::vector<std::string_view> out{head};
    for (const Strip& s : strips) out.emplace_back(reinterpret_cast<const char*>(s.deflated.get()), s.deflated_size);
    out.emplace_back(tail);
    return out;
  }
};

// False if zlib or ISA-L failed.
bool encode_png_parts(const OutputImage& image, const PngEncoding& enc, PngParts& parts) {
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

  // Four strips per thread, of at least 64 rows, taken by the threads as each finishes one (one
  // strip a thread left a core idle for up to half of the deflate where the picture's bands
  // compress at different speeds). Each strip restarts deflate's 32 KiB window, which costs
  // little (4K dithered, 1 strip against 2: 5.66 MB both; level 2: 7.16 against 7.17 MB).
  int threads = enc.threads > 0 ? enc.threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  threads = std::clamp(threads, 1, std::max(1, image.height / 64));
  const int count = threads == 1 ? 1 : std::clamp(4 * threads, 1, std::max(1, image.height / 64));
  std::vector<Strip>& strips = parts.strips;
  strips.clear();
  strips.resize(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i) {
    strips[i].y0 = static_cast<int>(static_cast<long long>(image.height) * i / count);
    strips[i].y1 = static_cast<int>(static_cast<long long>(image.height) * (i + 1) / count);
  }
  {
    std::atomic<int> next{0};
    auto work = [&] {
      for (int i; (i = next.fetch_add(1)) < count;) deflate_strip(bytes, row_bytes, bpp, enc, i == count - 1, strips[i]);
    };
    std::vector<std::jthread> workers;
    for (int i = 1; i < threads; ++i) workers.emplace_back(work);
    work();
  }
  uLong adler = adler32(0, nullptr, 0);
  std::size_t deflated = 0;
  for (const Strip& s : strips) {
    if (!s.ok) return false;
    adler = adler32_combine(adler, s.adler, static_cast<z_off_t>(s.raw_bytes));
    deflated += s.deflated_size;
  }

  std::string header;
  append_u32(header, static_cast<std::uint32_t>(image.width));
  append_u32(header, static_cast<std::uint32_t>(image.height));
  const int colour_type = image.channels == 1 ? 0 : (image.channels == 3 ? 2 : 6);
  header += {static_cast<char>(sixteen ? 16 : 8), static_cast<char>(colour_type), 0, 0, 0};

  std::string& out = parts.head;
  out.assign("\x89PNG\r\n\x1a\n", 8);
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
  for (const Strip& s : strips) crc = crc32_combine(crc, s.crc, static_cast<z_off_t>(s.deflated_size));
  std::string& tail = parts.tail;
  tail.clear();
  append_u32(tail, static_cast<std::uint32_t>(adler));
  crc = crc32_z(crc, reinterpret_cast<const Bytef*>(tail.data()), 4);
  append_u32(tail, static_cast<std::uint32_t>(crc));
  append_chunk(tail, "IEND", {});
  return true;
}

}  // namespace

std::string encode_png(const OutputImage& image, const PngEncoding& enc) {
  PngParts parts;
  if (!encode_png_parts(image, enc, parts)) return {};
  std::string out;
  out.reserve(parts.size());
  for (std::string_view piece : parts.pieces()) out += piece;
  return out;
}

// Chosen by measurement (bench_codecs; docs/performance.md): the dither's noise leaves
// deflate's string matching almost nothing to find. zlib's fastest was the Sub filter with runs
// only (Z_RLE) or Huffman coding alone (5.66 MB for a dithered 4K frame, 1.83 MB undithered, in
// 0.16 / 0.07 s on one thread here); ISA-L's level 1 with Sub and matches at most 2 bytes back
// (hist_bits 1: runs, in effect) gives 5.81 / 1.76 MB in 0.05 / 0.02 s, and was as small or
// smaller than both on the real images. Higher levels search for matches with zlib's default
// strategy and Sub; 0 stores.
PngEncoding png_encoding_for_level(int level) {
  PngEncoding enc;
  enc.level = level;
  enc.filter = level == 0 ? PngFilter::none : PngFilter::sub;
  enc.strategy = Z_DEFAULT_STRATEGY;
  if (level == 1) {
    enc.deflater = Deflater::isal;
    enc.isal_hist_bits = 1;
  }
  return enc;
}

Status write_png(const std::string& path, const OutputImage& image, int level) {
  if (image.type != PixelType::u8 && image.type != PixelType::u16)
    return invalid_argument(path + ": PNG needs an 8- or 16-bit image");
  if (level < 0 || level > 9) return invalid_argument(path + ": PNG level must be in [0, 9]");
  if (Status status = check_writable(path, image); !status.ok()) return status;
  PngParts parts;
  try {
    if (!encode_png_parts(image, png_encoding_for_level(level), parts))
      return Status(StatusCode::runtime_error, path + ": zlib failed while encoding PNG");
  } catch (const std::bad_alloc&) {
    return Status(StatusCode::out_of_memory, path + ": out of memory while encoding PNG");
  }
  return write_file_atomically(path, parts.pieces());
}

Result<std::string> encode_png(const OutputImage& image) {
  if (image.type != PixelType::u8 && image.type != PixelType::u16)
    return invalid_argument("PNG needs an 8- or 16-bit image");
  std::string bytes = encode_png(image, png_encoding_for_level(kDefaultPngLevel));
  if (bytes.empty()) return Status(StatusCode::runtime_error, "zlib failed while encoding PNG");
  return bytes;
}

}  // namespace tonekit::io
