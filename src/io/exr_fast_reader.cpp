// The common OpenEXR file (one scanline part, ZIP or ZIPS, R, G, B and perhaps A, not
// subsampled: what renderers and our own writer produce) read through OpenEXRCore's decode
// pipeline, with its zlib inflate replaced by ISA-L's (the pipeline's decompress_fn, the
// documented place for a custom decompressor) and the chunks spread over OpenEXR's global thread
// pool. OpenEXRCore does the rest as for any file (header, chunk table, reads) but the last
// step: its own unpacker for exactly interleaved RGBA (OpenEXR 3.1.5's reversed-order case) puts
// the channels in file order, A first, so the planar lines are interleaved here
// (unpack_and_convert_fn), halves widened by Imath as the C++ reader does; for half output from
// half channels the decompressor writes the rows itself (unpack_split_halves), one pass fewer.
// The C++ reader (exr_reader.cpp) reads every other kind of file, and every file this path
// refuses or fails on, and reports the errors. Measured: docs/performance.md.
#include "exr_fast_reader.hpp"

#include <Imath/half.h>
#include <OpenEXR/IlmThreadPool.h>
#include <OpenEXR/openexr.h>
#include <isa-l/igzip_lib.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstring>
#include <memory>
#include <vector>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace tonekit::io {
namespace {

struct MemoryFile {
  const std::uint8_t* data;
  std::size_t size;
};

int64_t read_memory(exr_const_context_t, void* user, void* buffer, uint64_t size, uint64_t offset,
                    exr_stream_error_func_ptr_t) {
  const auto* file = static_cast<const MemoryFile*>(user);
  if (offset >= file->size) return 0;
  const uint64_t n = std::min<uint64_t>(size, file->size - offset);
  std::memcpy(buffer, file->data + offset, n);
  return static_cast<int64_t>(n);
}

int64_t memory_size(exr_const_context_t, void* user) { return static_cast<int64_t>(static_cast<const MemoryFile*>(user)->size); }

// Errors end this path quietly: the C++ reader then reads the file again and reports them.
void quiet(exr_const_context_t, exr_result_t, const char*) {}

// OpenEXR's ZIP layout (OpenEXRCore's internal_zip.c, ImfZip.cpp): the bytes were split into
// their even and odd halves and delta-coded before deflate; undone here after ISA-L's inflate.
// `unpacked_buffer` is already allocated by the pipeline (or aliases the packed bytes when the
// chunk was stored uncompressed, packed size == unpacked size: nothing to do, as in OpenEXRCore).
// The predictor undone: t[i] = t[i - 1] + t[i] - 128 (mod 256), a running sum. 16 bytes at a
// time with SSE2 (every x86-64): the sum within the vector in four shifted adds, plus the last
// byte of the vector before; ~4x the scalar loop's byte a cycle (its add chain), the same bytes.
void undo_predictor(std::uint8_t* t, uint64_t n) {
  uint64_t i = 1;
#if defined(__SSE2__)
  if (n >= 17) {
    std::uint8_t last = t[0];
    const __m128i bias = _mm_set1_epi8(static_cast<char>(0x80));  // - 128 = + 128 (mod 256)
    for (; i + 16 <= n; i += 16) {
      __m128i v = _mm_xor_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(t + i)), bias);
      v = _mm_add_epi8(v, _mm_slli_si128(v, 1));
      v = _mm_add_epi8(v, _mm_slli_si128(v, 2));
      v = _mm_add_epi8(v, _mm_slli_si128(v, 4));
      v = _mm_add_epi8(v, _mm_slli_si128(v, 8));
      v = _mm_add_epi8(v, _mm_set1_epi8(static_cast<char>(last)));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(t + i), v);
      last = static_cast<std::uint8_t>(_mm_extract_epi16(v, 7) >> 8);
    }
  }
#endif
  for (; i < n; ++i) t[i] = static_cast<std::uint8_t>(t[i - 1] + t[i] - 128);
}

// out = t's first (n + 1) / 2 bytes (the even positions) interleaved with the rest (the odd ones).
void interleave_halves(const std::uint8_t* t, uint64_t n, std::uint8_t* out) {
  const std::uint8_t* even = t;
  const std::uint8_t* odd = t + (n + 1) / 2;
  uint64_t i = 0;
#if defined(__SSE2__)
  for (; i + 32 <= n; i += 32, even += 16, odd += 16) {
    const __m128i e = _mm_loadu_si128(reinterpret_cast<const __m128i*>(even));
    const __m128i o = _mm_loadu_si128(reinterpret_cast<const __m128i*>(odd));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i), _mm_unpacklo_epi8(e, o));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i + 16), _mm_unpackhi_epi8(e, o));
  }
#endif
  for (; i + 1 < n; i += 2) {
    out[i] = *even++;
    out[i + 1] = *odd++;
  }
  if (i < n) out[i] = *even;
}

struct Layout {
  exr_const_context_t context;
  int width;
  int height;
  int min_y;
  int scanlines_per_chunk;
  PixelType type;
  int channels;
  bool fill_alpha;  // half RGBA out of a file without A: alpha 1.0, written with each line
  std::uint8_t* out;
  std::atomic<bool>* failed;
};

int rgba_index(const char* name) {
  if (std::strcmp(name, "R") == 0) return 0;
  if (std::strcmp(name, "G") == 0) return 1;
  if (std::strcmp(name, "B") == 0) return 2;
  if (std::strcmp(name, "A") == 0) return 3;
  return -1;
}

constexpr std::uint16_t kHalfOne = 0x3C00;  // half 1.0: the alpha of a file without A

// One output row of halves from the split bytes: sample x of channel c is lo[c][x] | hi[c][x] << 8
// (a channel missing from the file, alpha to fill, has lo[c] == nullptr: 1.0). The generic form.
void interleave_row(std::uint16_t* row, int channels, int width, const std::uint8_t* const* lo,
                    const std::uint8_t* const* hi) {
  for (int c = 0; c < channels; ++c) {
    std::uint16_t* dst = row + c;
    if (lo[c] == nullptr) {
      for (int x = 0; x < width; ++x) dst[static_cast<std::size_t>(x) * channels] = kHalfOne;
      continue;
    }
    for (int x = 0; x < width; ++x)
      dst[static_cast<std::size_t>(x) * channels] = static_cast<std::uint16_t>(lo[c][x] | (hi[c][x] << 8));
  }
}

#if defined(__x86_64__)
// The same for RGB and RGBA, 8 pixels at a time with SSSE3 (every x86-64 CPU since 2006 but the
// first; checked at run time): each channel's 8 halves from its low and high bytes (one unpack),
// then RGB interleaved by byte shuffles, RGBA by unpacks. Half the time of the generic loop and
// one pass instead of OpenEXR's interleave and unpack passes.
__attribute__((target("ssse3"))) __m128i channel8(const std::uint8_t* lo, const std::uint8_t* hi, int x) {
  if (lo == nullptr) return _mm_set1_epi16(static_cast<short>(kHalfOne));
  return _mm_unpacklo_epi8(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(lo + x)),
                           _mm_loadl_epi64(reinterpret_cast<const __m128i*>(hi + x)));
}
__attribute__((target("ssse3"))) void interleave_row_ssse3(std::uint16_t* row, int channels, int width,
                                                          const std::uint8_t* const* lo, const std::uint8_t* const* hi) {
  int x = 0;
  if (channels == 3) {
    // Output word k of the 24 (3 vectors of 8) is channel k % 3 of pixel k / 3: per vector, each
    // channel's bytes go where their words land (0x80: zero).
    alignas(16) static constexpr std::int8_t kMask[3][3][16] = {
        {{0, 1, -128, -128, -128, -128, 2, 3, -128, -128, -128, -128, 4, 5, -128, -128},
         {-128, -128, 0, 1, -128, -128, -128, -128, 2, 3, -128, -128, -128, -128, 4, 5},
         {-128, -128, -128, -128, 0, 1, -128, -128, -128, -128, 2, 3, -128, -128, -128, -128}},
        {{-128, -128, 6, 7, -128, -128, -128, -128, 8, 9, -128, -128, -128, -128, 10, 11},
         {-128, -128, -128, -128, 6, 7, -128, -128, -128, -128, 8, 9, -128, -128, -128, -128},
         {4, 5, -128, -128, -128, -128, 6, 7, -128, -128, -128, -128, 8, 9, -128, -128}},
        {{-128, -128, -128, -128, 12, 13, -128, -128, -128, -128, 14, 15, -128, -128, -128, -128},
         {10, 11, -128, -128, -128, -128, 12, 13, -128, -128, -128, -128, 14, 15, -128, -128},
         {-128, -128, 10, 11, -128, -128, -128, -128, 12, 13, -128, -128, -128, -128, 14, 15}}};
    for (; x + 8 <= width; x += 8) {
      const __m128i c[3] = {channel8(lo[0], hi[0], x), channel8(lo[1], hi[1], x), channel8(lo[2], hi[2], x)};
      for (int v = 0; v < 3; ++v) {
        __m128i out = _mm_setzero_si128();
        for (int ch = 0; ch < 3; ++ch)
          out = _mm_or_si128(out, _mm_shuffle_epi8(c[ch], _mm_load_si128(reinterpret_cast<const __m128i*>(kMask[v][ch]))));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(row + static_cast<std::size_t>(x) * 3 + 8 * v), out);
      }
    }
  } else if (channels == 4) {
    for (; x + 8 <= width; x += 8) {
      const __m128i r = channel8(lo[0], hi[0], x), g = channel8(lo[1], hi[1], x);
      const __m128i b = channel8(lo[2], hi[2], x), a = channel8(lo[3], hi[3], x);
      const __m128i rg_lo = _mm_unpacklo_epi16(r, g), rg_hi = _mm_unpackhi_epi16(r, g);
      const __m128i ba_lo = _mm_unpacklo_epi16(b, a), ba_hi = _mm_unpackhi_epi16(b, a);
      auto* out = reinterpret_cast<__m128i*>(row + static_cast<std::size_t>(x) * 4);
      _mm_storeu_si128(out + 0, _mm_unpacklo_epi32(rg_lo, ba_lo));
      _mm_storeu_si128(out + 1, _mm_unpackhi_epi32(rg_lo, ba_lo));
      _mm_storeu_si128(out + 2, _mm_unpacklo_epi32(rg_hi, ba_hi));
      _mm_storeu_si128(out + 3, _mm_unpackhi_epi32(rg_hi, ba_hi));
    }
  }
  if (x < width) {
    const std::uint8_t* lo_rest[4] = {};
    const std::uint8_t* hi_rest[4] = {};
    for (int c = 0; c < channels; ++c)
      if (lo[c] != nullptr) lo_rest[c] = lo[c] + x, hi_rest[c] = hi[c] + x;
    interleave_row(row + static_cast<std::size_t>(x) * channels, channels, width - x, lo_rest, hi_rest);
  }
}
#endif

// Whether the decompressor already wrote the chunk's output rows (unpack_split_halves): set by
// isal_undo_zip and read by unpack_interleaved, which the pipeline calls next on the same thread.
thread_local bool chunk_written = false;

// Half output from half channels: the inflated, predictor-undone bytes `t` (n of them: the even
// positions of the unpacked bytes, then the odd ones) straight into the output rows, instead of
// OpenEXRCore's order (interleave into the unpacked buffer, then unpack_interleaved): one pass
// fewer. False (nothing written) for any other layout, or a chunk whose sizes do not add up
// (unpack_interleaved then reports it).
bool unpack_split_halves(const exr_decode_pipeline_t* decode, const Layout& l, const std::uint8_t* t, uint64_t n) {
  if (l.type != PixelType::f16 || l.channels > 4) return false;
  const int first = decode->chunk.start_y - l.min_y, lines = decode->chunk.height;
  std::size_t offset[4] = {};
  bool present[4] = {};
  std::size_t line_bytes = 0;
  for (int k = 0; k < decode->channel_count; ++k) {
    const exr_coding_channel_info_t& ch = decode->channels[k];
    if (ch.width != l.width || ch.height != lines) return false;
    const int index = rgba_index(ch.channel_name);
    if (index >= 0 && index < l.channels) {
      if (ch.data_type != EXR_PIXEL_HALF || present[index]) return false;
      present[index] = true;
      offset[index] = line_bytes;
    }
    line_bytes += static_cast<std::size_t>(ch.width) * static_cast<std::size_t>(ch.bytes_per_element);
  }
  if (first < 0 || lines < 0 || first + lines > l.height || line_bytes * static_cast<std::size_t>(lines) != n ||
      n % 2 != 0)
    return false;
  for (int c = 0; c < l.channels; ++c)
    if (!present[c] && !(c == 3 && l.fill_alpha)) return false;
#if defined(__x86_64__)
  static const bool ssse3 = __builtin_cpu_supports("ssse3");
#endif
  const std::uint8_t* even = t;
  const std::uint8_t* odd = t + n / 2;
  const std::size_t row_halves = static_cast<std::size_t>(l.width) * static_cast<std::size_t>(l.channels);
  for (int y = 0; y < lines; ++y) {
    const std::size_t line = static_cast<std::size_t>(y) * line_bytes / 2;  // line_bytes is even
    const std::uint8_t* lo[4] = {};
    const std::uint8_t* hi[4] = {};
    for (int c = 0; c < l.channels; ++c)
      if (present[c]) lo[c] = even + line + offset[c] / 2, hi[c] = odd + line + offset[c] / 2;
    auto* row = reinterpret_cast<std::uint16_t*>(l.out) + static_cast<std::size_t>(first + y) * row_halves;
#if defined(__x86_64__)
    if (ssse3) {
      interleave_row_ssse3(row, l.channels, l.width, lo, hi);
      continue;
    }
#endif
    interleave_row(row, l.channels, l.width, lo, hi);
  }
  return true;
}

exr_result_t isal_undo_zip(exr_decode_pipeline_t* decode) {
  const uint64_t packed = decode->chunk.packed_size, unpacked = decode->chunk.unpacked_size;
  if (packed == 0 || packed == unpacked) return EXR_ERR_SUCCESS;
  if (decode->unpacked_buffer == nullptr || decode->packed_buffer == nullptr || packed > UINT32_MAX ||
      unpacked > UINT32_MAX)
    return EXR_ERR_CORRUPT_CHUNK;
  thread_local std::vector<std::uint8_t> scratch;
  if (scratch.size() < unpacked) scratch.resize(unpacked);
  inflate_state state;
  isal_inflate_init(&state);
  state.crc_flag = ISAL_ZLIB;  // the zlib header and Adler-32 checked, as zlib's uncompress does
  state.next_in = static_cast<std::uint8_t*>(decode->packed_buffer);
  state.avail_in = static_cast<uint32_t>(packed);
  state.next_out = scratch.data();
  state.avail_out = static_cast<uint32_t>(unpacked);
  if (isal_inflate_stateless(&state) != ISAL_DECOMP_OK || state.avail_out != 0) return EXR_ERR_CORRUPT_CHUNK;
  undo_predictor(scratch.data(), unpacked);
  chunk_written = unpack_split_halves(decode, *static_cast<const Layout*>(decode->decoding_user_data), scratch.data(),
                                      unpacked);
  if (!chunk_written) interleave_halves(scratch.data(), unpacked, static_cast<std::uint8_t*>(decode->unpacked_buffer));
  return EXR_ERR_SUCCESS;
}

// The chunk's unpacked bytes (per line, each channel's samples in turn, little-endian) into the
// interleaved output rows: halves copied or widened (Imath, as the C++ reader does), floats copied.
exr_result_t unpack_interleaved(exr_decode_pipeline_t* decode) {
  if (chunk_written) {  // by isal_undo_zip, just before
    chunk_written = false;
    return EXR_ERR_SUCCESS;
  }
  const Layout& l = *static_cast<const Layout*>(decode->decoding_user_data);
  const std::size_t element = l.type == PixelType::f16 ? 2 : 4;
  const std::size_t stride = element * static_cast<std::size_t>(l.channels);
  const std::size_t row_bytes = stride * static_cast<std::size_t>(l.width);
  const int first = decode->chunk.start_y - l.min_y, lines = decode->chunk.height;
  std::size_t line_bytes = 0;
  for (int k = 0; k < decode->channel_count; ++k) {
    const exr_coding_channel_info_t& ch = decode->channels[k];
    if (ch.width != l.width || ch.height != lines) return EXR_ERR_CORRUPT_CHUNK;
    line_bytes += static_cast<std::size_t>(ch.width) * static_cast<std::size_t>(ch.bytes_per_element);
  }
  if (first < 0 || lines < 0 || first + lines > l.height || decode->unpacked_buffer == nullptr ||
      line_bytes * static_cast<std::size_t>(lines) != decode->chunk.unpacked_size)
    return EXR_ERR_CORRUPT_CHUNK;
  const auto* src = static_cast<const std::uint8_t*>(decode->unpacked_buffer);
  for (int y = 0; y < lines; ++y) {
    std::uint8_t* row = l.out + static_cast<std::size_t>(first + y) * row_bytes;
    if (l.fill_alpha) {
      for (int x = 0; x < l.width; ++x) std::memcpy(row + static_cast<std::size_t>(x) * stride + 3 * element, &kHalfOne, 2);
    }
    for (int k = 0; k < decode->channel_count; ++k) {
      const exr_coding_channel_info_t& ch = decode->channels[k];
      const int index = rgba_index(ch.channel_name);
      const std::size_t n = static_cast<std::size_t>(ch.width);
      if (index >= 0 && index < l.channels) {
        std::uint8_t* dst = row + static_cast<std::size_t>(index) * element;
        if (ch.data_type == EXR_PIXEL_HALF && element == 2) {
          for (std::size_t x = 0; x < n; ++x) std::memcpy(dst + x * stride, src + 2 * x, 2);
        } else if (ch.data_type == EXR_PIXEL_HALF) {
          for (std::size_t x = 0; x < n; ++x) {
            std::uint16_t bits;
            std::memcpy(&bits, src + 2 * x, 2);
            const float v = imath_half_to_float(bits);
            std::memcpy(dst + x * stride, &v, 4);
          }
        } else if (ch.data_type == EXR_PIXEL_FLOAT && element == 4) {
          for (std::size_t x = 0; x < n; ++x) std::memcpy(dst + x * stride, src + 4 * x, 4);
        } else {
          return EXR_ERR_CORRUPT_CHUNK;  // refused before decoding starts; never reached
        }
      }
      src += n * static_cast<std::size_t>(ch.bytes_per_element);
    }
  }
  return EXR_ERR_SUCCESS;
}

// Decodes chunks [first, last) with one pipeline of its own.
void decode_chunks(const Layout& l, int first, int last) {
  const std::size_t element = l.type == PixelType::f16 ? 2 : 4;
  const std::size_t pixel = element * static_cast<std::size_t>(l.channels);
  const std::size_t row = pixel * static_cast<std::size_t>(l.width);
  exr_decode_pipeline_t decode{};  // all zero, as EXR_DECODE_PIPELINE_INITIALIZER (which clang flags)
  bool initialised = false;
  for (int c = first; c < last && !l.failed->load(std::memory_order_relaxed); ++c) {
    exr_chunk_info_t info;
    bool ok = exr_read_scanline_chunk_info(l.context, 0, l.min_y + c * l.scanlines_per_chunk, &info) == EXR_ERR_SUCCESS;
    if (ok) ok = (initialised ? exr_decoding_update(l.context, 0, &info, &decode)
                              : exr_decoding_initialize(l.context, 0, &info, &decode)) == EXR_ERR_SUCCESS;
    if (ok && !initialised) {
      // The default routines give the pipeline its reader and decompressor; both the
      // decompressor and the unpacker are then replaced. Every channel gets a valid pointer so
      // that the choice succeeds; unpack_interleaved writes the output itself.
      for (int k = 0; k < decode.channel_count; ++k) {
        exr_coding_channel_info_t& ch = decode.channels[k];
        ch.decode_to_ptr = l.out;
        ch.user_pixel_stride = static_cast<int32_t>(pixel);
        ch.user_line_stride = static_cast<int32_t>(row);
        ch.user_bytes_per_element = static_cast<int16_t>(element);
        ch.user_data_type = static_cast<uint16_t>(l.type == PixelType::f16 ? EXR_PIXEL_HALF : EXR_PIXEL_FLOAT);
      }
      ok = exr_decoding_choose_default_routines(l.context, 0, &decode) == EXR_ERR_SUCCESS;
      initialised = true;
    }
    decode.decoding_user_data = const_cast<Layout*>(&l);
    decode.unpack_and_convert_fn = unpack_interleaved;
    if (ok && decode.decompress_fn != nullptr) decode.decompress_fn = isal_undo_zip;
    chunk_written = false;
    if (ok) ok = exr_decoding_run(l.context, 0, &decode) == EXR_ERR_SUCCESS;
    if (!ok) l.failed->store(true);
  }
  exr_decoding_destroy(l.context, &decode);
}

class ChunkTask : public IlmThread::Task {
 public:
  ChunkTask(IlmThread::TaskGroup* group, const Layout& layout, int first, int last)
      : Task(group), layout_(layout), first_(first), last_(last) {}
  void execute() override { decode_chunks(layout_, first_, last_); }

 private:
  Layout layout_;
  int first_, last_;
};

struct ContextCloser {
  void operator()(exr_context_t c) const { exr_finish(&c); }
};

}  // namespace

bool read_exr_fast(const std::uint8_t* data, std::size_t size, PixelType type, int width, int height, int channels,
                   std::uint8_t* out) {
  if ((type != PixelType::f16 && type != PixelType::f32) || channels < 3 || channels > 4) return false;
  if constexpr (std::endian::native != std::endian::little) return false;  // the unpacker reads little-endian
  MemoryFile file{data, size};
  exr_context_initializer_t init = EXR_DEFAULT_CONTEXT_INITIALIZER;
  init.user_data = &file;
  init.read_fn = read_memory;
  init.size_fn = memory_size;
  init.error_handler_fn = quiet;
  exr_context_t raw = nullptr;
  if (exr_start_read(&raw, "memory", &init) != EXR_ERR_SUCCESS) {
    if (raw != nullptr) exr_finish(&raw);
    return false;
  }
  std::unique_ptr<_priv_exr_context_t, ContextCloser> context(raw);

  int parts = 0;
  exr_storage_t storage;
  exr_compression_t compression;
  exr_attr_box2i_t window;
  const exr_attr_chlist_t* list = nullptr;
  int32_t chunks = 0, per_chunk = 0;
  if (exr_get_count(raw, &parts) != EXR_ERR_SUCCESS || parts != 1) return false;
  if (exr_get_storage(raw, 0, &storage) != EXR_ERR_SUCCESS || storage != EXR_STORAGE_SCANLINE) return false;
  if (exr_get_compression(raw, 0, &compression) != EXR_ERR_SUCCESS ||
      (compression != EXR_COMPRESSION_ZIP && compression != EXR_COMPRESSION_ZIPS))
    return false;
  if (exr_get_data_window(raw, 0, &window) != EXR_ERR_SUCCESS || window.max.x - window.min.x + 1 != width ||
      window.max.y - window.min.y + 1 != height)
    return false;
  if (exr_get_channels(raw, 0, &list) != EXR_ERR_SUCCESS || list == nullptr) return false;
  bool present[4] = {};
  for (int i = 0; i < list->num_channels; ++i) {
    const exr_attr_chlist_entry_t& e = list->entries[i];
    const char* names[4] = {"R", "G", "B", "A"};
    for (int c = 0; c < 4; ++c) {
      if (std::strcmp(e.name.str, names[c]) != 0) continue;
      present[c] = true;
      if (e.x_sampling != 1 || e.y_sampling != 1) return false;
      if (e.pixel_type != EXR_PIXEL_HALF && (type == PixelType::f16 || e.pixel_type != EXR_PIXEL_FLOAT)) return false;
    }
  }
  // R, G and B all there; A there exactly when the caller's layout has it (a half RGBA output
  // of a file without alpha gets its alpha filled below).
  if (!present[0] || !present[1] || !present[2]) return false;
  if (channels == 4 && !present[3] && type != PixelType::f16) return false;
  if (exr_get_chunk_count(raw, 0, &chunks) != EXR_ERR_SUCCESS || chunks <= 0) return false;
  if (exr_get_scanlines_per_chunk(raw, 0, &per_chunk) != EXR_ERR_SUCCESS || per_chunk <= 0) return false;

  std::atomic<bool> failed{false};
  const bool fill_alpha = channels == 4 && !present[3];
  const Layout layout{raw, width, height, window.min.y, per_chunk, type, channels, fill_alpha, out, &failed};
  {
    // Four tasks per pool thread (the pool starts empty: exr_reader.cpp gives it one thread per
    // core; with none, addGlobalTask runs each task at once, here): the pool hands them out as
    // threads free up, so a band of the picture that inflates slower does not leave a core idle
    // (one task per thread: half of a 4K decode ran on one core of two).
    const int threads = std::max(1, IlmThread::ThreadPool::globalThreadPool().numThreads());
    const int tasks = std::min(chunks, threads == 1 ? 1 : 4 * threads);
    IlmThread::TaskGroup group;  // its destructor waits for the tasks
    for (int t = 0; t < tasks; ++t)
      IlmThread::ThreadPool::addGlobalTask(new ChunkTask(&group, layout,
                                                         static_cast<int>(static_cast<long long>(chunks) * t / tasks),
                                                         static_cast<int>(static_cast<long long>(chunks) * (t + 1) / tasks)));
  }
  return !failed.load();
}

}  // namespace tonekit::io
