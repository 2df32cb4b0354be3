// Shared pieces of the CPU local operators: the final map pass (load -> L_d from the local
// result -> colour -> transfer/quantise/store, the global pipeline's stages) and the scaled
// luminance plane.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <memory>
#include <vector>

#include "core/map_settings.hpp"
#include "cpu/map_kernels.hpp"
#include "cpu/parallel.hpp"
#include "cpu/stats.hpp"
#include "tonekit/image.hpp"
#include "tonekit/tonemap.hpp"

namespace tonekit::cpu::local {

// Uninitialised scratch (the passes write every element before reading it).
template <class T>
std::unique_ptr<T[]> scratch(std::size_t n) {
  return std::unique_ptr<T[]>(new T[n]);
}

// fill_ld(y, x0, n, chunk) sets chunk.ld[0, n) from chunk.lw (sanitised luminance) and the
// operator's local data; then the global pipeline's colour and store stages.
template <class FillLd>
void map_rows(const ImageView& in, const core::ColourSettings& colour, const ImageView& out, FillLd&& fill_ld) {
  parallel_row_blocks(in.height, [&](int y0, int y1) {
    Chunk chunk;
    for (int y = y0; y < y1; ++y) {
      const void* in_row = in.row<const void>(y);
      void* out_row = out.row<void>(y);
      for (int x0 = 0; x0 < in.width; x0 += kChunk) {
        const int n = std::min(kChunk, in.width - x0);
        load_chunk(in_row, x0, n, in.channels, in.type, chunk);
        fill_ld(y, x0, n, chunk);
        colour_chunk(chunk, n, static_cast<float>(colour.saturation));
        store_chunk(chunk, x0, n, y, out.channels, out.type, static_cast<float>(colour.gamma), colour.dither, out_row);
      }
    }
  });
}

// The statistics pass of cpu::compute_stats, fused with the local operators' first use of the
// luminance: row_sink(y, lw, n, x0) receives each chunk of sanitised L_w of row y, so the
// summed-area table's row prefixes or the luminance plane are built in the same read of the
// input; the statistics are compute_stats' own (bit-identical, tested in
// test_local_operators.cpp).
template <class RowSink>
FrameStats stats_with_luminance(const ImageView& in, RowSink&& row_sink) {
  return compute_stats_with(in, row_sink);
}

// Statistics plus the plane of sanitised L_w (w x h, packed).
inline FrameStats stats_with_luminance_plane(const ImageView& in, float* plane) {
  const std::size_t w = static_cast<std::size_t>(in.width);
  return stats_with_luminance(in, [&](int y, const float* lw, int n, int x0) {
    std::copy(lw, lw + n, plane + static_cast<std::size_t>(y) * w + x0);
  });
}

}  // namespace tonekit::cpu::local
