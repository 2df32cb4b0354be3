// Rendered frames as video frames (tonekit/synth.hpp): PQ 10-bit Y'CbCr 4:2:0 and gbrpf32, for
// `tonekit synth` sequences written as y4m or raw frames. The transfer and matrix maths come
// from core/video_colour.hpp, the decoder's own definitions, so a stream we write decodes back
// through cpu::decode_frame to the scene within the 10-bit quantisation.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "core/video_colour.hpp"
#include "tonekit/synth.hpp"

namespace tonekit::synth {
namespace {

// BT.709 -> BT.2020 in linear light: the inverse of core::bt2020_to_bt709's matrix (adjugate /
// determinant), so the round trip through the decoder is the identity to double rounding.
struct Matrix3 {
  double m[3][3];
};
Matrix3 bt709_to_bt2020_matrix() {
  double a[3][3];
  for (int c = 0; c < 3; ++c) {
    double v[3] = {c == 0 ? 1.0 : 0.0, c == 1 ? 1.0 : 0.0, c == 2 ? 1.0 : 0.0};
    core::bt2020_to_bt709(v[0], v[1], v[2]);
    for (int r = 0; r < 3; ++r) a[r][c] = v[r];
  }
  const double det = a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1]) - a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0]) +
                     a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0]);
  Matrix3 inv{};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      const int i1 = (j + 1) % 3, i2 = (j + 2) % 3, j1 = (i + 1) % 3, j2 = (i + 2) % 3;
      inv.m[i][j] = (a[i1][j1] * a[i2][j2] - a[i1][j2] * a[i2][j1]) / det;
    }
  return inv;
}

std::uint16_t code10(double v, double lo, double hi) {
  return static_cast<std::uint16_t>(std::clamp(std::lround(v), static_cast<long>(lo), static_cast<long>(hi)));
}

void put16(std::uint8_t* p, std::uint16_t v) {
  p[0] = static_cast<std::uint8_t>(v & 0xFF);
  p[1] = static_cast<std::uint8_t>(v >> 8);
}

}  // namespace

void encode_pq_yuv420p10(const Image& scene, Primaries primaries, std::vector<std::uint8_t>& out) {
  static const Matrix3 to2020 = bt709_to_bt2020_matrix();
  const bool bt2020 = primaries == Primaries::bt2020;
  const int w = scene.width, h = scene.height;
  const auto k = core::ycbcr_coeffs<double>(bt2020);
  const double kg = 1.0 - k.kr - k.kb;
  // Per pixel: Y' code now, Cb and Cr (normalised) kept for the chroma filter.
  out.resize(frame_bytes(InputFormat::yuv420p10, w, h));
  std::vector<float> cb(static_cast<std::size_t>(w) * h), cr(cb.size());
  for (int y = 0; y < h; ++y) {
    const float* px = scene.row(y);
    for (int x = 0; x < w; ++x) {
      double r = std::max(0.0f, px[3 * x]), g = std::max(0.0f, px[3 * x + 1]), b = std::max(0.0f, px[3 * x + 2]);
      if (bt2020) {
        const double r2 = to2020.m[0][0] * r + to2020.m[0][1] * g + to2020.m[0][2] * b;
        const double g2 = to2020.m[1][0] * r + to2020.m[1][1] * g + to2020.m[1][2] * b;
        const double b2 = to2020.m[2][0] * r + to2020.m[2][1] * g + to2020.m[2][2] * b;
        r = std::max(0.0, r2), g = std::max(0.0, g2), b = std::max(0.0, b2);
      }
      r = core::pq_inverse_eotf(r), g = core::pq_inverse_eotf(g), b = core::pq_inverse_eotf(b);
      const double luma = k.kr * r + kg * g + k.kb * b;
      const std::size_t i = static_cast<std::size_t>(y) * w + x;
      cb[i] = static_cast<float>((b - luma) / (2.0 * (1.0 - k.kb)));
      cr[i] = static_cast<float>((r - luma) / (2.0 * (1.0 - k.kr)));
      put16(out.data() + 2 * i, code10(219.0 * 4.0 * luma + 64.0, 64, 940));  // BT.2100 Table 9, n = 10
    }
  }
  // Chroma: [1 2 1] / 4 on each axis around the co-sited luma sample (2i, 2j), edges clamped.
  const int cw = (w + 1) / 2, ch = (h + 1) / 2;
  std::uint8_t* cb_plane = out.data() + 2 * static_cast<std::size_t>(w) * h;
  std::uint8_t* cr_plane = cb_plane + 2 * static_cast<std::size_t>(cw) * ch;
  for (int j = 0; j < ch; ++j)
    for (int i = 0; i < cw; ++i) {
      double sb = 0.0, sr = 0.0, sw = 0.0;
      for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) {
          const int x = std::clamp(2 * i + dx, 0, w - 1), y = std::clamp(2 * j + dy, 0, h - 1);
          const double wt = (dx == 0 ? 2.0 : 1.0) * (dy == 0 ? 2.0 : 1.0);
          const std::size_t p = static_cast<std::size_t>(y) * w + x;
          sb += wt * cb[p], sr += wt * cr[p], sw += wt;
        }
      const std::size_t o = 2 * (static_cast<std::size_t>(j) * cw + i);
      put16(cb_plane + o, code10(224.0 * 4.0 * sb / sw + 512.0, 64, 960));
      put16(cr_plane + o, code10(224.0 * 4.0 * sr / sw + 512.0, 64, 960));
    }
}

void encode_gbrpf32(const Image& scene, std::vector<std::uint8_t>& out) {
  const std::size_t n = static_cast<std::size_t>(scene.width) * scene.height;
  out.resize(3 * n * sizeof(float));
  float* planes = reinterpret_cast<float*>(out.data());
  for (std::size_t i = 0; i < n; ++i) {
    planes[i] = scene.pixels[3 * i + 1];          // G
    planes[n + i] = scene.pixels[3 * i + 2];      // B
    planes[2 * n + i] = scene.pixels[3 * i];      // R
  }
}

}  // namespace tonekit::synth
