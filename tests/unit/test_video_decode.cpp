// CPU decode of every input layout from hand-built frames (known values, odd sizes), the chroma
// siting, the transfers end to end and the boundary checks (issue 14 item 4).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "core/half.hpp"
#include "core/video_colour.hpp"
#include "cpu/video_decode.hpp"

using namespace tonekit;

namespace {

// A packed yuv420p10 / P010 frame built from per-sample codes.
struct Yuv10 {
  int w, h, cw, ch;
  std::vector<std::uint16_t> y, cb, cr;
  Yuv10(int w_, int h_) : w(w_), h(h_), cw((w_ + 1) / 2), ch((h_ + 1) / 2), y(std::size_t(w_) * h_), cb(std::size_t(cw) * ch), cr(cb.size()) {}
  std::vector<std::uint16_t> packed(InputFormat f) const {
    std::vector<std::uint16_t> out(y);
    if (f == InputFormat::p010) {
      for (auto& v : out) v = std::uint16_t(v << 6);
      for (std::size_t i = 0; i < cb.size(); ++i) {
        out.push_back(std::uint16_t(cb[i] << 6));
        out.push_back(std::uint16_t(cr[i] << 6));
      }
    } else {
      out.insert(out.end(), cb.begin(), cb.end());
      out.insert(out.end(), cr.begin(), cr.end());
    }
    return out;
  }
};

Image decode_ok(const void* data, InputFormat f, const InputColour& c, int w, int h, bool signal = false,
                FrameStats* counts = nullptr) {
  Image out;
  const FramePlanes planes = packed_planes(f, data, w, h);
  Status s = signal ? cpu::decode_signal(planes, f, c, w, h, out, counts) : cpu::decode_frame(planes, f, c, w, h, out, counts);
  EXPECT_TRUE(s.ok()) << s.message();
  return out;
}

}  // namespace

TEST(VideoDecode, FloatLayoutsAndRgb48KnownValues) {
  const int w = 3, h = 3;
  InputColour lin;
  std::vector<float> rgb(w * h * 3), rgba(w * h * 4), gbrp(w * h * 3);
  std::vector<std::uint16_t> half(w * h * 4), rgb48(w * h * 3);
  for (int i = 0; i < w * h; ++i)
    for (int c = 0; c < 3; ++c) {
      const float v = 0.125f * float(i) + 0.25f * float(c);
      rgb[3 * i + c] = v;
      rgba[4 * i + c] = v;
      half[4 * i + c] = core::float_to_half(v);
      rgb48[3 * i + c] = std::uint16_t(1000 * i + 7000 * c);
      gbrp[std::size_t(c == 0 ? 2 : c - 1) * w * h + i] = v;  // planes G, B, R
    }
  const Image a = decode_ok(rgb.data(), InputFormat::rgb_f32, lin, w, h);
  const Image b = decode_ok(rgba.data(), InputFormat::rgba_f32, lin, w, h);
  const Image c = decode_ok(half.data(), InputFormat::rgba_f16, lin, w, h);
  const Image d = decode_ok(gbrp.data(), InputFormat::gbrpf32, lin, w, h);
  const Image e = decode_ok(rgb48.data(), InputFormat::rgb48, lin, w, h);
  ASSERT_EQ(a.channels, 3);
  for (int i = 0; i < w * h * 3; ++i) {
    EXPECT_EQ(a.pixels[i], rgb[i]);
    EXPECT_EQ(b.pixels[i], rgb[i]);
    EXPECT_EQ(c.pixels[i], rgb[i]);  // multiples of 1/8 below 4 are exact halves
    EXPECT_EQ(d.pixels[i], rgb[i]) << i;
    EXPECT_FLOAT_EQ(e.pixels[i], float(rgb48[i]) / 65535.0f);
  }
}
