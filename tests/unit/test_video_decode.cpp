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

namespace {

// Expected R'G'B' of luma (x, y) of a 10-bit frame by the formulas written out here in double:
// BT.2100 Table 9 code ranges, the co-sited bilinear upsampling of video.hpp, Table 6 inverted.
void expected_signal(const Yuv10& f, bool bt2020, bool full, int x, int y, double out[3]) {
  auto tap = [](int p, int n, int& i0, int& i1, double& w) {
    i0 = p / 2;
    i1 = (p % 2) ? std::min(i0 + 1, n - 1) : i0;
    w = (p % 2) ? 0.5 : 0.0;
  };
  int x0, x1, y0, y1;
  double wx, wy;
  tap(x, f.cw, x0, x1, wx);
  tap(y, f.ch, y0, y1, wy);
  auto up = [&](const std::vector<std::uint16_t>& c) {
    auto at = [&](int i, int j) { return double(c[std::size_t(j) * f.cw + i]); };
    return (1 - wy) * ((1 - wx) * at(x0, y0) + wx * at(x1, y0)) + wy * ((1 - wx) * at(x0, y1) + wx * at(x1, y1));
  };
  const double yc = f.y[std::size_t(y) * f.w + x];
  const double yv = full ? yc / 1023.0 : (yc - 64.0) / 876.0;
  const double cb = (up(f.cb) - 512.0) / (full ? 1023.0 : 896.0);
  const double cr = (up(f.cr) - 512.0) / (full ? 1023.0 : 896.0);
  const double kr = bt2020 ? 0.2627 : 0.2126, kb = bt2020 ? 0.0593 : 0.0722;
  out[0] = yv + 2 * (1 - kr) * cr;
  out[2] = yv + 2 * (1 - kb) * cb;
  out[1] = (yv - kr * out[0] - kb * out[2]) / (1 - kr - kb);
}

Yuv10 pattern_frame(int w, int h, std::uint32_t seed) {
  Yuv10 f(w, h);
  for (auto& v : f.y) v = std::uint16_t(64 + core::hash32(seed++) % 877);
  for (auto& v : f.cb) v = std::uint16_t(64 + core::hash32(seed++) % 897);
  for (auto& v : f.cr) v = std::uint16_t(64 + core::hash32(seed++) % 897);
  return f;
}

}  // namespace

TEST(VideoDecode, YuvLayoutsOddSizesAndChromaSiting) {
  for (InputFormat fmt : {InputFormat::p010, InputFormat::yuv420p10})
    for (auto [w, h] : {std::pair{1, 1}, {3, 3}, {5, 2}, {2, 5}, {6, 4}, {7, 7}})
      for (bool bt2020 : {true, false})
        for (bool full : {false, true}) {
          const Yuv10 f = pattern_frame(w, h, std::uint32_t(w * 131 + h));
          InputColour c;
          c.matrix = bt2020 ? YuvMatrix::bt2020_ncl : YuvMatrix::bt709;
          c.range = full ? YuvRange::full : YuvRange::limited;
          const auto packed = f.packed(fmt);
          const Image out = decode_ok(packed.data(), fmt, c, w, h, true);
          ASSERT_EQ(out.width, w);
          for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) {
              double e[3];
              expected_signal(f, bt2020, full, x, y, e);
              for (int k = 0; k < 3; ++k)
                ASSERT_NEAR(out.row(y)[3 * x + k], e[k], 2e-6)
                    << input_format_name(fmt) << " " << w << "x" << h << " (" << x << "," << y << ") ch " << k;
            }
        }
}

TEST(VideoDecode, CositedSampleIsReadExactlyAndOddLumaHalfway) {
  // 4x4 limited BT.709 frame, Y' 50 %, Cr neutral, Cb samples 212, 812 / 512, 412: B' - Y' is
  // 2 (1 - K_B) Cb, so pixel (0, 0) sees Cb = -300/896 exactly, (1, 0) the mean of 212 and 812,
  // (3, 0) replicates 812 (no right neighbour), (0, 1) the mean of 212 and 512.
  Yuv10 f(4, 4);
  for (auto& v : f.y) v = 502;
  f.cb = {212, 812, 512, 412};
  f.cr = {512, 512, 512, 512};
  InputColour c;
  c.matrix = YuvMatrix::bt709;
  const auto packed = f.packed(InputFormat::yuv420p10);
  const Image out = decode_ok(packed.data(), InputFormat::yuv420p10, c, 4, 4, true);
  auto cb_at = [&](int x, int y) { return (out.row(y)[3 * x + 2] - out.row(y)[3 * x]) / (2 * (1 - 0.0722)) * 896 + 512; };
  EXPECT_NEAR(cb_at(0, 0), 212, 1e-3);
  EXPECT_NEAR(cb_at(2, 0), 812, 1e-3);
  EXPECT_NEAR(cb_at(1, 0), 512, 1e-3);
  EXPECT_NEAR(cb_at(3, 0), 812, 1e-3);
  EXPECT_NEAR(cb_at(0, 1), 362, 1e-3);
  EXPECT_NEAR(cb_at(1, 1), (212 + 812 + 512 + 412) / 4.0, 1e-3);
  EXPECT_NEAR(cb_at(3, 3), 412, 1e-3);  // last row and column: the last sample, replicated
  EXPECT_NEAR(out.row(0)[0], (502 - 64) / 876.0, 1e-6);  // R' = Y' with Cr neutral
}

TEST(VideoDecode, PqAndHlgEndToEnd) {
  // Neutral 10-bit limited frames: Y' = (D - 64) / 876, scene value = EOTF(Y') / 203.
  Yuv10 f(3, 3);
  const std::uint16_t codes[9] = {64, 128, 300, 512, 572, 700, 721, 900, 940};
  for (int i = 0; i < 9; ++i) f.y[i] = codes[i];
  for (auto& v : f.cb) v = 512;
  for (auto& v : f.cr) v = 512;
  const auto packed = f.packed(InputFormat::p010);
  InputColour pq;
  pq.transfer = Transfer::pq;
  pq.primaries = Primaries::bt2020;
  InputColour hlg = pq;
  hlg.transfer = Transfer::hlg;
  const Image a = decode_ok(packed.data(), InputFormat::p010, pq, 3, 3);
  const Image b = decode_ok(packed.data(), InputFormat::p010, hlg, 3, 3);
  for (int i = 0; i < 9; ++i) {
    const double s = (codes[i] - 64) / 876.0;
    const double want_pq = core::pq_eotf(s) / 203.0;
    // HLG neutral: Y_S = E, so F_D = 1000 E^1.2 (BT.2100 Table 5 at L_W = 1000).
    const double want_hlg = 1000.0 * std::pow(core::hlg_inverse_oetf(s), 1.2) / 203.0;
    for (int k = 0; k < 3; ++k) {
      EXPECT_NEAR(a.pixels[3 * i + k], want_pq, 2e-4 * want_pq + 1e-7) << codes[i];
      EXPECT_NEAR(b.pixels[3 * i + k], want_hlg, 1e-5 * want_hlg + 1e-7) << codes[i];
    }
  }
  // BT.2408 reference white: HLG 75 % (code 721) at 1000 cd/m^2 -> 1.0 (203 cd/m^2).
  EXPECT_NEAR(b.pixels[3 * 6], 1.0, 0.003);
  EXPECT_NEAR(a.pixels[3 * 8], 10000.0 / 203.0, 0.01);  // code 940: PQ peak
}

TEST(VideoDecode, Bt2020GamutPolicyOnFrames) {
  // Pure BT.2020 green and red (R'G'B' corners in PQ, full range so the codes are exact) lie
  // outside BT.709: the decoded pixel has no negative channel, its smallest channel is 0 and its
  // luminance is that of the matrix output.
  const double corners[3][3] = {{0, 1, 0}, {1, 0, 0}, {0, 0, 1}};
  for (const auto& rgb : corners) {
    const auto k = core::ycbcr_coeffs<double>(true);
    const double yv = k.kr * rgb[0] + (1 - k.kr - k.kb) * rgb[1] + k.kb * rgb[2];
    Yuv10 f(1, 1);
    f.y[0] = std::uint16_t(std::lround(yv * 1023));
    f.cb[0] = std::uint16_t(std::lround((rgb[2] - yv) / (2 * (1 - k.kb)) * 1023 + 512));
    f.cr[0] = std::uint16_t(std::lround((rgb[0] - yv) / (2 * (1 - k.kr)) * 1023 + 512));
    InputColour c;
    c.transfer = Transfer::pq;
    c.primaries = Primaries::bt2020;
    c.range = YuvRange::full;
    const auto packed = f.packed(InputFormat::yuv420p10);
    const Image sig = decode_ok(packed.data(), InputFormat::yuv420p10, c, 1, 1, true);
    const Image out = decode_ok(packed.data(), InputFormat::yuv420p10, c, 1, 1);
    double lin[3];
    for (int i = 0; i < 3; ++i) lin[i] = core::pq_eotf(double(sig.pixels[i])) / 203.0;
    core::bt2020_to_bt709(lin[0], lin[1], lin[2]);
    ASSERT_LT(std::min(lin[0], std::min(lin[1], lin[2])), -0.01);  // really out of gamut
    const float mn = std::min(out.pixels[0], std::min(out.pixels[1], out.pixels[2]));
    EXPECT_GE(mn, 0.0f);
    EXPECT_NEAR(mn, 0.0f, 1e-6);
    const double y = core::luminance(lin[0], lin[1], lin[2]);
    EXPECT_NEAR(core::luminance(out.pixels[0], out.pixels[1], out.pixels[2]), y, 1e-4 * y);
  }
}

TEST(VideoDecode, FloatBadPixelsSanitisedAndCounted) {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> rgb = {nan, 1, inf, inf, 0.5f, -1, -1, 0.25f, 0.5f, -inf, 0, 0, 0.1f, 0.2f, 0.3f};
  FrameStats counts;
  const Image out = decode_ok(rgb.data(), InputFormat::rgb_f32, InputColour{}, 5, 1, false, &counts);
  EXPECT_EQ(counts.pixel_count, 5u);
  EXPECT_EQ(counts.nan_count, 1u);
  EXPECT_EQ(counts.inf_count, 2u);  // +Inf with a negative counts as Inf; -Inf is Inf
  EXPECT_EQ(counts.negative_count, 1u);
  const float want[15] = {0, 1, core::kInfReplacement, core::kInfReplacement, 0.5f, 0, 0, 0.25f, 0.5f, 0, 0, 0,
                          0.1f, 0.2f, 0.3f};
  for (int i = 0; i < 15; ++i) EXPECT_EQ(out.pixels[i], want[i]) << i;
  // A PQ float signal beyond 1 is clamped to the peak, not sent past the curve's pole.
  InputColour pq;
  pq.transfer = Transfer::pq;
  std::vector<float> big = {1.5f, 2.0f, 65504.0f};
  const Image p = decode_ok(big.data(), InputFormat::rgb_f32, pq, 1, 1);
  for (float v : p.pixels) EXPECT_NEAR(v, 10000.0f / 203.0f, 1e-2f);
}

TEST(VideoDecode, StridesAndBoundaryChecks) {
  const Yuv10 f = pattern_frame(5, 3, 77);
  const auto packed = f.packed(InputFormat::yuv420p10);
  InputColour c;
  const Image ref = decode_ok(packed.data(), InputFormat::yuv420p10, c, 5, 3);
  // The same frame with padded rows in every plane.
  const std::size_t stride = 64;
  std::vector<std::uint8_t> padded(stride * (3 + 2 + 2));
  FramePlanes pp;
  const FramePlanes tight = packed_planes(InputFormat::yuv420p10, packed.data(), 5, 3);
  std::size_t at = 0;
  for (int p = 0; p < 3; ++p) {
    const int rows = plane_rows(InputFormat::yuv420p10, p, 3);
    for (int r = 0; r < rows; ++r)
      std::memcpy(&padded[at + r * stride], static_cast<const std::uint8_t*>(tight.data[p]) + r * tight.stride[p],
                  tight.stride[p]);
    pp.data[p] = &padded[at];
    pp.stride[p] = stride;
    at += stride * rows;
  }
  Image out;
  ASSERT_TRUE(cpu::decode_frame(pp, InputFormat::yuv420p10, c, 5, 3, out).ok());
  EXPECT_EQ(out.pixels, ref.pixels);

  FramePlanes bad = pp;
  bad.data[2] = nullptr;
  Status s = cpu::decode_frame(bad, InputFormat::yuv420p10, c, 5, 3, out);
  EXPECT_EQ(s.code(), StatusCode::invalid_argument);
  EXPECT_NE(s.message().find("plane 2"), std::string::npos) << s.message();
  bad = pp;
  bad.stride[1] = 4;  // chroma rows of a 5-wide frame need 6 bytes
  s = cpu::decode_frame(bad, InputFormat::yuv420p10, c, 5, 3, out);
  EXPECT_NE(s.message().find("stride 4"), std::string::npos) << s.message();
  EXPECT_FALSE(cpu::decode_frame(pp, InputFormat::yuv420p10, c, 0, 3, out).ok());
  EXPECT_FALSE(cpu::decode_frame(pp, InputFormat::yuv420p10, c, 5, -1, out).ok());
  InputColour wrong = c;
  wrong.reference_white = 0.5;
  EXPECT_FALSE(cpu::decode_frame(pp, InputFormat::yuv420p10, wrong, 5, 3, out).ok());
  wrong = c;
  wrong.hlg_peak = 50;
  EXPECT_FALSE(cpu::decode_frame(pp, InputFormat::yuv420p10, wrong, 5, 3, out).ok());
  // P010 needs only two planes.
  const auto p010 = f.packed(InputFormat::p010);
  FramePlanes two = packed_planes(InputFormat::p010, p010.data(), 5, 3);
  two.data[2] = nullptr;
  EXPECT_TRUE(cpu::decode_frame(two, InputFormat::p010, c, 5, 3, out).ok());
  EXPECT_EQ(out.pixels, ref.pixels);  // the same codes in either layout decode the same
}

TEST(VideoDecode, HalfAndPlanarBadPixelsOutOfRangeCodesAndHlgPeak) {
  // rgba_f16 and gbrpf32 go through the same sanitise policy and counts.
  const std::uint16_t half_nan = 0x7E00, half_inf = 0x7C00, half_neg = 0xBC00, one = 0x3C00;
  std::vector<std::uint16_t> h = {half_nan, one, one, one, half_inf, one, one, one, half_neg, one, one, one};
  FrameStats counts;
  const Image a = decode_ok(h.data(), InputFormat::rgba_f16, InputColour{}, 3, 1, false, &counts);
  EXPECT_EQ(counts.nan_count, 1u);
  EXPECT_EQ(counts.inf_count, 1u);
  EXPECT_EQ(counts.negative_count, 1u);
  EXPECT_EQ(a.pixels[0], 0.0f);
  EXPECT_EQ(a.pixels[3], core::kInfReplacement);
  std::vector<float> planes = {-2.0f, 0.5f, 0.25f};  // G, B, R planes of a 1x1 frame
  const Image b = decode_ok(planes.data(), InputFormat::gbrpf32, InputColour{}, 1, 1, false, &counts);
  EXPECT_EQ(counts.negative_count, 1u);
  EXPECT_EQ(b.pixels[0], 0.25f);
  EXPECT_EQ(b.pixels[1], 0.0f);
  EXPECT_EQ(b.pixels[2], 0.5f);
  // yuv420p10 keeps its 10 bits in the low bits: larger values clamp to 1023 instead of wrapping.
  std::vector<std::uint16_t> yuv = {0xFFFF, 512, 512};
  InputColour full;
  full.range = YuvRange::full;
  const Image c = decode_ok(yuv.data(), InputFormat::yuv420p10, full, 1, 1, true);
  EXPECT_NEAR(c.pixels[1], 1.0f, 1e-6f);
  // HLG signal 1.0 at a 2000 cd/m^2 nominal peak: the peak, divided by the reference white.
  std::vector<float> white = {1.0f, 1.0f, 1.0f};
  InputColour hlg;
  hlg.transfer = Transfer::hlg;
  hlg.hlg_peak = 2000.0;
  hlg.reference_white = 100.0;
  const Image d = decode_ok(white.data(), InputFormat::rgb_f32, hlg, 1, 1);
  EXPECT_NEAR(d.pixels[0], 20.0f, 20.0f * 1e-5f);
}
