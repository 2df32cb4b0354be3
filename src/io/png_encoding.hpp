// The PNG encoder's settings below the public write_png(path, image, level): the filter, the
// zlib strategy and the number of threads. Separate so that the benchmark that chose the
// defaults (bench/cpu/STILLS_NOTES.md) and the tests can try the others.
#pragma once
#include <zlib.h>

#include <string>

#include "tonekit/image.hpp"

namespace tonekit::io {

// PNG filter types (PNG spec 9.2); Average is not offered: it was never the fastest or smallest.
enum class PngFilter : std::uint8_t { none = 0, sub = 1, up = 2, paeth = 4 };

// Each strip tries Z_RLE and Z_HUFFMAN_ONLY on its first rows and deflates with the smaller.
constexpr int kRleOrHuffman = -1;

struct PngEncoding {
  int level = 1;                     // zlib level 0-9
  int strategy = Z_DEFAULT_STRATEGY; // Z_DEFAULT_STRATEGY, Z_FILTERED, Z_RLE, Z_HUFFMAN_ONLY, kRleOrHuffman
  PngFilter filter = PngFilter::paeth;
  int threads = 0;                   // 0: one per core
};

// The encoding write_png uses for a level (the default's filter and strategy).
PngEncoding png_encoding_for_level(int level);

// The whole PNG file in memory; empty if zlib failed.
std::string encode_png(const OutputImage& image, const PngEncoding& encoding);

}  // namespace tonekit::io
