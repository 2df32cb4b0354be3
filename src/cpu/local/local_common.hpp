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
  parallel_rows(in.height, [&](int, int y0, int y1) {
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

// The statistics pass of cpu::compute_stats (stats.cpp), fused with the local operators' first
// use of the luminance: row_sink(y, lw, n, x0) receives each chunk of sanitised L_w of row y, so
// the summed-area table's row prefixes or the luminance plane are built in the same read of the
// input. The per-band reductions and their in-order merge are compute_stats' own, so the returned
// statistics are bit-identical to it (tested in test_local_operators.cpp).
template <class RowSink>
FrameStats stats_with_luminance(const ImageView& in, RowSink&& row_sink) {
  struct Partial {
    LuminanceReduction lum{std::numeric_limits<float>::infinity(), 0.0f, std::numeric_limits<float>::infinity(), 0.0};
    BadPixelCounts bad;
  };
  std::vector<Partial> partials(band_count(in.height));
  parallel_rows(in.height, [&](int band, int y0, int y1) {
    Partial p;
    Chunk chunk;
    for (int y = y0; y < y1; ++y) {
      const void* row = in.row<const void>(y);
      for (int x0 = 0; x0 < in.width; x0 += kChunk) {
        const int n = std::min(kChunk, in.width - x0);
        load_chunk(row, x0, n, in.channels, in.type, chunk);
        reduce_luminance(chunk, n, p.lum);
        count_bad_pixels(row, x0, n, in.channels, in.type, p.bad);
        row_sink(y, chunk.lw, n, x0);
      }
    }
    partials[band] = p;
  });
  FrameStats s;
  s.pixel_count = static_cast<std::uint64_t>(in.width) * in.height;
  Partial t;
  for (const Partial& p : partials) {
    t.lum.log_sum += p.lum.log_sum;
    t.lum.min = std::min(t.lum.min, p.lum.min);
    t.lum.max = std::max(t.lum.max, p.lum.max);
    t.lum.min_positive = std::min(t.lum.min_positive, p.lum.min_positive);
    t.bad.nan += p.bad.nan; t.bad.inf += p.bad.inf; t.bad.negative += p.bad.negative;
  }
  if (s.pixel_count == 0) return s;
  s.log_sum = t.lum.log_sum;
  s.log_average = std::exp(t.lum.log_sum / static_cast<double>(s.pixel_count));
  s.min_luminance = t.lum.min;
  s.max_luminance = t.lum.max;
  s.min_positive_luminance = t.lum.min_positive < std::numeric_limits<float>::infinity() ? t.lum.min_positive : 0.0;
  s.nan_count = t.bad.nan; s.inf_count = t.bad.inf; s.negative_count = t.bad.negative;
  return s;
}

// Statistics plus the plane of sanitised L_w (w x h, packed).
inline FrameStats stats_with_luminance_plane(const ImageView& in, float* plane) {
  const std::size_t w = static_cast<std::size_t>(in.width);
  return stats_with_luminance(in, [&](int y, const float* lw, int n, int x0) {
    std::copy(lw, lw + n, plane + static_cast<std::size_t>(y) * w + x0);
  });
}

}  // namespace tonekit::cpu::local
