// CPU 8-bit 4:2:0 encoder against the BT.709 formulas written out here (odd sizes, both layouts,
// dither contract, errors), and cpu::tone_map_frame against its three stages run by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "core/colour.hpp"
#include "core/video_colour.hpp"
#include "cpu/video_decode.hpp"
#include "cpu/video_encode.hpp"
#include "tonekit/video_tonemap.hpp"

using namespace tonekit;

namespace {

std::vector<float> test_rgb(int w, int h) {
  std::vector<float> rgb(std::size_t(w) * h * 3);
  for (std::size_t i = 0; i < rgb.size(); ++i) rgb[i] = float((core::hash32(std::uint32_t(i) + 5) >> 8) / 16777216.0);
  return rgb;
}

ImageView view_of(const std::vector<float>& rgb, int w, int h) {
  return ImageView{const_cast<float*>(rgb.data()), w, h, 3, PixelType::f32, 0, MemorySpace::host};
}

// Exact code unless the value sits within 1e-3 of a rounding boundary (float vs double may differ).
void expect_code(unsigned got, double exact, const char* what, int x, int y) {
  const double frac = exact - std::floor(exact);
  if (std::fabs(frac - 0.5) < 1e-3) EXPECT_LE(std::fabs(double(got) - exact), 0.501) << what << " " << x << "," << y;
  else EXPECT_EQ(got, unsigned(std::lround(exact))) << what << " " << x << "," << y;
}

}  // namespace

TEST(VideoEncode, OddSizesAgainstBt709Formulas) {
  for (double gamma : {0.0, 2.2})
    for (auto [w, h] : {std::pair{1, 1}, {3, 3}, {5, 2}, {2, 5}, {4, 4}}) {
      const std::vector<float> rgb = test_rgb(w, h);
      const int cw = (w + 1) / 2, ch = (h + 1) / 2;
      std::vector<std::uint8_t> out(output_frame_bytes(OutputLayout::yuv420p, w, h, 3, 1));
      ASSERT_EQ(out.size(), std::size_t(w * h + 2 * cw * ch));
      ASSERT_TRUE(cpu::encode_yuv420(view_of(rgb, w, h), OutputLayout::yuv420p, gamma, false, out.data(), out.size()).ok());
      // BT.709-6 Part 1: OETF (1.2), Y' and the colour-difference divisors (3.2, 3.3), 8-bit limited codes (4.6).
      auto signal = [&](double l) {
        return gamma != 0 ? std::pow(l, 1 / gamma) : (l < 0.018 ? 4.5 * l : 1.099 * std::pow(l, 0.45) - 0.099);
      };
      std::vector<double> cb_sum(std::size_t(cw * ch)), cr_sum(cb_sum.size()), count(cb_sum.size());
      for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
          const float* p = &rgb[(std::size_t(y) * w + x) * 3];
          const double r = signal(p[0]), g = signal(p[1]), b = signal(p[2]);
          const double yv = 0.2126 * r + 0.7152 * g + 0.0722 * b;
          expect_code(out[std::size_t(y) * w + x], 16 + 219 * yv, "Y", x, y);
          const std::size_t k = std::size_t(y / 2) * cw + x / 2;
          cb_sum[k] += (b - yv) / 1.8556;
          cr_sum[k] += (r - yv) / 1.5748;
          count[k] += 1;
        }
      for (std::size_t k = 0; k < cb_sum.size(); ++k) {
        // Odd edges: the last column / row blocks average the 2 or 1 pixels they have.
        EXPECT_EQ(count[k], double((2 * int(k % cw) + 1 < w ? 2 : 1) * (2 * int(k / cw) + 1 < h ? 2 : 1)));
        expect_code(out[std::size_t(w * h) + k], 128 + 224 * cb_sum[k] / count[k], "Cb", int(k % cw), int(k / cw));
        expect_code(out[std::size_t(w * h + cw * ch) + k], 128 + 224 * cr_sum[k] / count[k], "Cr", int(k % cw),
                    int(k / cw));
      }
      // NV12: the same Y plane, then Cb, Cr interleaved.
      std::vector<std::uint8_t> nv(out.size());
      ASSERT_TRUE(cpu::encode_yuv420(view_of(rgb, w, h), OutputLayout::nv12, gamma, false, nv.data(), nv.size()).ok());
      for (int i = 0; i < w * h; ++i) EXPECT_EQ(nv[i], out[i]);
      for (int k = 0; k < cw * ch; ++k) {
        EXPECT_EQ(nv[w * h + 2 * k], out[w * h + k]);
        EXPECT_EQ(nv[w * h + 2 * k + 1], out[w * h + cw * ch + k]);
      }
    }
}

TEST(VideoEncode, BlackWhiteAndDitherContract) {
  const int w = 64, h = 64;
  std::vector<float> grey(std::size_t(w) * h * 3, 0.3f);
  std::vector<std::uint8_t> plain(output_frame_bytes(OutputLayout::yuv420p, w, h, 3, 1)), dith(plain.size()),
      again(plain.size());
  ASSERT_TRUE(cpu::encode_yuv420(view_of(grey, w, h), OutputLayout::yuv420p, 0.0, false, plain.data(), plain.size()).ok());
  ASSERT_TRUE(cpu::encode_yuv420(view_of(grey, w, h), OutputLayout::yuv420p, 0.0, true, dith.data(), dith.size()).ok());
  ASSERT_TRUE(cpu::encode_yuv420(view_of(grey, w, h), OutputLayout::yuv420p, 0.0, true, again.data(), again.size()).ok());
  EXPECT_EQ(dith, again);  // deterministic
  const double exact_y = 16 + 219 * core::bt709_oetf(0.3);
  double sum = 0;
  int changed = 0;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const unsigned d = dith[std::size_t(y) * w + x];
      EXPECT_LE(std::abs(int(d) - int(plain[std::size_t(y) * w + x])), 1);
      changed += d != plain[std::size_t(y) * w + x];
      sum += d;
      // Y' takes field 0 of the pixel's hash, as the RGB outputs' red channel does.
      EXPECT_EQ(d, core::quantise_code8(float(exact_y), 16.0f, 235.0f, true, core::dither_noise(x, y, 0)));
    }
  EXPECT_GT(changed, w * h / 10);
  EXPECT_NEAR(sum / (w * h), exact_y, 0.05);  // unbiased on a flat field
  // Chroma takes fields 1 and 2 of the block's top-left pixel hash around neutral 128.
  const int cw = w / 2;
  for (int by = 0; by < h / 2; ++by)
    for (int bx = 0; bx < cw; ++bx) {
      EXPECT_EQ(dith[std::size_t(w * h + by * cw + bx)],
                core::quantise_code8(128.0f, 16.0f, 240.0f, true, core::dither_noise(2 * bx, 2 * by, 1)));
      EXPECT_EQ(dith[std::size_t(w * h + cw * (h / 2) + by * cw + bx)],
                core::quantise_code8(128.0f, 16.0f, 240.0f, true, core::dither_noise(2 * bx, 2 * by, 2)));
    }
  // Black and white stay exact under dither; out-of-range inputs are clamped.
  std::vector<float> bw = {0.0f, 0.0f, 0.0f, 1.0f, 1.0f, 1.0f, -3.0f, -1.0f, 0.0f, 7.0f, 2.0f, 1.5f};
  std::vector<std::uint8_t> o(output_frame_bytes(OutputLayout::nv12, 4, 1, 3, 1));
  ASSERT_TRUE(cpu::encode_yuv420(view_of(bw, 4, 1), OutputLayout::nv12, 0.0, true, o.data(), o.size()).ok());
  EXPECT_EQ(o[0], 16);
  EXPECT_EQ(o[1], 235);
  EXPECT_EQ(o[2], 16);
  EXPECT_EQ(o[3], 235);
}

TEST(VideoEncode, RejectsBadArguments) {
  std::vector<float> rgb(12, 0.5f);
  std::vector<std::uint8_t> out(output_frame_bytes(OutputLayout::yuv420p, 2, 2, 3, 1));
  EXPECT_FALSE(cpu::encode_yuv420(view_of(rgb, 2, 2), OutputLayout::interleaved, 0.0, false, out.data(), out.size()).ok());
  EXPECT_FALSE(cpu::encode_yuv420(view_of(rgb, 2, 2), OutputLayout::yuv420p, 0.0, false, out.data(), out.size() - 1).ok());
  EXPECT_FALSE(cpu::encode_yuv420(view_of(rgb, 2, 2), OutputLayout::yuv420p, -1.0, false, out.data(), out.size()).ok());
  ImageView bytes = view_of(rgb, 2, 2);
  bytes.type = PixelType::u8;
  EXPECT_FALSE(cpu::encode_yuv420(bytes, OutputLayout::yuv420p, 0.0, false, out.data(), out.size()).ok());
  EXPECT_FALSE(cpu::encode_yuv420(view_of(rgb, 0, 2), OutputLayout::yuv420p, 0.0, false, out.data(), out.size()).ok());
}

TEST(VideoTonemapFrame, EqualsDecodeToneMapEncodeByHand) {
  const int w = 5, h = 3;
  std::vector<std::uint16_t> p010;
  for (int i = 0; i < w * h; ++i) p010.push_back(std::uint16_t((64 + (i * 61) % 877) << 6));
  for (int i = 0; i < 3 * 2; ++i) {
    p010.push_back(std::uint16_t((400 + 37 * i) << 6));
    p010.push_back(std::uint16_t((600 - 29 * i) << 6));
  }
  const FramePlanes planes = packed_planes(InputFormat::p010, p010.data(), w, h);
  InputColour c;
  c.transfer = Transfer::pq;
  c.primaries = Primaries::bt2020;
  auto params = prepare_params("reinhard", {{"dither", "1"}});
  ASSERT_TRUE(params.ok()) << params.status().message();

  Image scene;
  ASSERT_TRUE(cpu::decode_frame(planes, InputFormat::p010, c, w, h, scene).ok());
  Image display(w, h, 3);
  FrameStats by_hand;
  ASSERT_TRUE(cpu::tone_map(scene.view(), *params, display.view(), &by_hand).ok());
  std::vector<std::uint8_t> want(output_frame_bytes(OutputLayout::nv12, w, h, 3, 1));
  ASSERT_TRUE(cpu::encode_yuv420(display.view(), OutputLayout::nv12, 0.0, true, want.data(), want.size()).ok());

  std::vector<std::uint8_t> got;
  FrameStats stats;
  ASSERT_TRUE(cpu::tone_map_frame(planes, InputFormat::p010, c, w, h, *params, OutputLayout::nv12, OutputFormat{}, got,
                                  &stats).ok());
  EXPECT_EQ(got, want);
  EXPECT_EQ(stats.log_average, by_hand.log_average);
  EXPECT_EQ(stats.max_luminance, by_hand.max_luminance);

  // Interleaved: the frame as cpu::tone_map writes it for the requested format.
  OutputImage rgba8;
  rgba8.allocate(w, h, 4, PixelType::u8);
  ASSERT_TRUE(cpu::tone_map(scene.view(), *params, rgba8.view()).ok());
  ASSERT_TRUE(cpu::tone_map_frame(planes, InputFormat::p010, c, w, h, *params, OutputLayout::interleaved,
                                  OutputFormat{PixelType::u8, 4}, got).ok());
  EXPECT_EQ(got, rgba8.bytes);

  // Bad float samples are counted in the frame's statistics.
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> rgb = {nan, 0.5f, 0.5f, 0.2f, -1.0f, 0.1f, 0.3f, 0.3f, 0.3f};
  ASSERT_TRUE(cpu::tone_map_frame(packed_planes(InputFormat::rgb_f32, rgb.data(), 3, 1), InputFormat::rgb_f32,
                                  InputColour{}, 3, 1, *params, OutputLayout::yuv420p, OutputFormat{}, got, &stats).ok());
  EXPECT_EQ(got.size(), output_frame_bytes(OutputLayout::yuv420p, 3, 1, 3, 1));
  EXPECT_EQ(stats.nan_count, 1u);
  EXPECT_EQ(stats.negative_count, 1u);
  // Errors pass through.
  EXPECT_FALSE(cpu::tone_map_frame(FramePlanes{}, InputFormat::p010, c, w, h, *params, OutputLayout::nv12,
                                   OutputFormat{}, got).ok());
}
