// Box sums and means from a summed-area table, shared by the CPU reference and the CUDA kernels
// (TK_HD). Table layout, for an image of w x h: (w + 1) x (h + 1) entries, row pitch w + 1,
// entry (x, y) = sum of the plane over [0, x) x [0, y) (an exclusive table: row 0 and column 0
// are zero), so a box needs no branches: sum = T(x1, y1) - T(x0, y1) - T(x1, y0) + T(x0, y0)
// (thesis section 2.2.2.3: 3 additions, 1 subtraction).
#pragma once
#include <stddef.h>

#include "core/hd.hpp"

namespace tonekit::sat {

// Half-open rectangle [x0, x1) x [y0, y1), inside the image.
struct BoxRect {
  int x0, y0, x1, y1;
};

// The box of odd edge length `width` centred on pixel (x, y), clamped to the w x h image
// (box_mean_f64 of it divides by the clamped area; the operators instead replicate the edge
// pixels, box_sum_replicated below, and always divide by width^2).
TK_HD BoxRect centred_box(int x, int y, int width, int w, int h) {
  const int r = width >> 1;
  BoxRect b;
  b.x0 = x - r < 0 ? 0 : x - r;
  b.y0 = y - r < 0 ? 0 : y - r;
  b.x1 = x + r + 1 > w ? w : x + r + 1;
  b.y1 = y + r + 1 > h ? h : y + r + 1;
  return b;
}

TK_HD int box_area(const BoxRect& b) { return (b.x1 - b.x0) * (b.y1 - b.y0); }

// Differences grouped per table row so that, for a table built row by row, the two terms of
// each difference are neighbours in magnitude.
template <class T>
TK_HD T box_sum(const T* table, size_t pitch, const BoxRect& b) {
  const T* top = table + static_cast<size_t>(b.y0) * pitch;
  const T* bottom = table + static_cast<size_t>(b.y1) * pitch;
  return (bottom[b.x1] - bottom[b.x0]) - (top[b.x1] - top[b.x0]);
}

TK_HD double box_mean_f64(const double* table, size_t pitch, const BoxRect& b) {
  return box_sum(table, pitch, b) / static_cast<double>(box_area(b));
}

// Sum over the width x width box centred on (x, y) with the image's edge pixels replicated
// outwards (clamp-to-edge sampling, as the Gaussian reference convolves): the clamped box, plus
// the overhanging columns / rows as multiples of the edge column / row sums, plus the corner
// pixels. `rect_sum(BoxRect)` sums a rectangle inside the image (any table layout). No overhang
// (the interior) evaluates only the clamped box.
template <class T, class RectSum>
TK_HD T box_sum_replicated_by(RectSum&& rect_sum, int x, int y, int width, int w, int h) {
  const int r = width >> 1;
  const BoxRect b = centred_box(x, y, width, w, h);
  const int left = b.x0 - (x - r), right = (x + r + 1) - b.x1;  // overhanging columns
  const int top = b.y0 - (y - r), bottom = (y + r + 1) - b.y1;   // overhanging rows
  T sum = rect_sum(b);
  if ((left | right | top | bottom) == 0) return sum;
  sum += T(left) * rect_sum(BoxRect{0, b.y0, 1, b.y1}) + T(right) * rect_sum(BoxRect{w - 1, b.y0, w, b.y1});
  sum += T(top) * rect_sum(BoxRect{b.x0, 0, b.x1, 1}) + T(bottom) * rect_sum(BoxRect{b.x0, h - 1, b.x1, h});
  sum += T(left * top) * rect_sum(BoxRect{0, 0, 1, 1}) + T(right * top) * rect_sum(BoxRect{w - 1, 0, w, 1});
  sum += T(left * bottom) * rect_sum(BoxRect{0, h - 1, 1, h}) + T(right * bottom) * rect_sum(BoxRect{w - 1, h - 1, w, h});
  return sum;
}

template <class T>
TK_HD T box_sum_replicated(const T* table, size_t pitch, int x, int y, int width, int w, int h) {
  return box_sum_replicated_by<T>([&](const BoxRect& b) { return box_sum(table, pitch, b); }, x, y, width, w, h);
}

// Knuth's TwoSum: s + e == a + b exactly (round-to-nearest; no -ffast-math reassociation, which
// would delete e; nvcc's --use_fast_math leaves additions alone).
TK_HD void two_sum(float a, float b, float& s, float& e) {
  s = a + b;
  const float bb = s - a;
  e = (a - (s - bb)) + (b - bb);
}

// ---- The float32 precision strategy: tile-relative compensated tables (sat_table.hpp) ----
// The image is cut into kSatTile x kSatTile tiles; each tile holds its own exclusive table
// ((kSatTile + 1)^2 entries, row pitch kSatTile + 1, tiles in row-major order), so no entry sums
// more than one tile. Each entry is a float32 pair hi + lo (hi = fl32(S), lo = fl32(S - hi), S
// accumulated in float64): ~48 bits of a tile's sum. A box of width <= kSatTile + 1 spans at most
// 2 x 2 tiles; its sum is the sum of the <= 4 pieces, each read from its own tile.
constexpr int kSatTile = 64;
constexpr int kSatTilePitch = kSatTile + 1;
constexpr int kSatTileEntries = kSatTilePitch * kSatTilePitch;

struct TiledLayout {
  int width = 0, height = 0, tiles_x = 0, tiles_y = 0;
};

TK_HD TiledLayout tiled_layout(int w, int h) {
  TiledLayout t;
  t.width = w;
  t.height = h;
  t.tiles_x = (w + kSatTile - 1) / kSatTile;
  t.tiles_y = (h + kSatTile - 1) / kSatTile;
  return t;
}

// Sum of a rectangle inside one tile from that tile's pair table: the three hi differences are
// taken exactly with TwoSum, the lo terms are ~2^-24 smaller.
TK_HD float tile_piece_sum(const float* hi, const float* lo, const TiledLayout& t, int x0, int y0, int x1, int y1) {
  const int tx = x0 / kSatTile, ty = y0 / kSatTile;
  const size_t base = static_cast<size_t>(ty * t.tiles_x + tx) * kSatTileEntries;
  const int lx0 = x0 - tx * kSatTile, lx1 = x1 - tx * kSatTile, ly0 = y0 - ty * kSatTile, ly1 = y1 - ty * kSatTile;
  const size_t top = base + static_cast<size_t>(ly0) * kSatTilePitch, bottom = base + static_cast<size_t>(ly1) * kSatTilePitch;
  float s1, e1, s2, e2, s3, e3;
  two_sum(hi[bottom + lx1], -hi[bottom + lx0], s1, e1);
  two_sum(hi[top + lx1], -hi[top + lx0], s2, e2);
  two_sum(s1, -s2, s3, e3);
  const float lo_sum = (lo[bottom + lx1] - lo[bottom + lx0]) - (lo[top + lx1] - lo[top + lx0]);
  return s3 + (e3 + (e1 - e2) + lo_sum);
}

// Sum of any rectangle inside the image whose sides are <= kSatTile + 1 (split at tile edges).
TK_HD float tiled_rect_sum(const float* hi, const float* lo, const TiledLayout& t, const BoxRect& b) {
  const int xs = (b.x0 / kSatTile + 1) * kSatTile, ys = (b.y0 / kSatTile + 1) * kSatTile;
  const int xm = b.x1 < xs ? b.x1 : xs, ym = b.y1 < ys ? b.y1 : ys;
  float sum = tile_piece_sum(hi, lo, t, b.x0, b.y0, xm, ym);
  if (xm < b.x1) sum += tile_piece_sum(hi, lo, t, xm, b.y0, b.x1, ym);
  if (ym < b.y1) {
    sum += tile_piece_sum(hi, lo, t, b.x0, ym, xm, b.y1);
    if (xm < b.x1) sum += tile_piece_sum(hi, lo, t, xm, ym, b.x1, b.y1);
  }
  return sum;
}

// Edge-replicated box mean from the tiled pair table (width <= kSatTile + 1).
TK_HD float tiled_box_mean_replicated(const float* hi, const float* lo, const TiledLayout& t, int x, int y, int width) {
  const float sum = box_sum_replicated_by<float>([&](const BoxRect& b) { return tiled_rect_sum(hi, lo, t, b); }, x, y,
                                                 width, t.width, t.height);
  return sum / static_cast<float>(width * width);
}

}  // namespace tonekit::sat
