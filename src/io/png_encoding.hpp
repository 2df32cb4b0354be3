// The PNG encoder's settings below the public write_png(path, image, level): the deflater (ISA-L
// or zlib), the filter, the zlib strategy or ISA-L look-back and the number of threads. Separate so that the benchmark that chose the
// defaults (bench_codecs; docs/performance.md) and the tests can try the others.
#pragma once
#include <zlib.h>

#include <string>

#include "tonekit/image.hpp"

namespace tonekit::io {

// PNG filter types (PNG spec 9.2); Average is not offered: it was never the fastest or smallest.
enum class PngFilter : std::uint8_t { none = 0, sub = 1, up = 2, paeth = 4 };

// Which library deflates the strips: zlib, or Intel's ISA-L (igzip), whose level 1 with a short
// look-back is 3-9x faster than zlib's fastest strategies at about their size
// (docs/performance.md).
enum class Deflater : std::uint8_t { zlib, isal };

struct PngEncoding {
  int level = 1;                     // zlib level 0-9; ISA-L level 0-3
  int strategy = Z_DEFAULT_STRATEGY; // zlib: Z_DEFAULT_STRATEGY, Z_FILTERED, Z_RLE, Z_HUFFMAN_ONLY
  PngFilter filter = PngFilter::paeth;
  int threads = 0;                   // 0: one per core
  Deflater deflater = Deflater::zlib;
  int isal_hist_bits = 0;            // ISA-L: log2 of the longest match distance, 1-15; 0: 32 KiB
};

// The encoding write_png uses for a level (the default's filter and strategy).
PngEncoding png_encoding_for_level(int level);

// The whole PNG file in memory; empty if zlib failed.
std::string encode_png(const OutputImage& image, const PngEncoding& encoding);

}  // namespace tonekit::io
