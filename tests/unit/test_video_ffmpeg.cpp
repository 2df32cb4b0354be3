// The CPU video conversions against Debian ffmpeg's zscale (libzimg) on the same frames (issue 14
// item 4): 10-bit Y'CbCr 4:2:0 -> R'G'B' within one 10-bit code, PQ / HLG BT.2020 -> linear BT.709, and
// linear RGB -> 8-bit yuv420p / NV12 within one 8-bit code. zimg rejects odd 4:2:0 sizes, so these
// use even ones; test_video_decode / test_video_encode cover odd sizes by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "core/colour.hpp"
#include "core/video_colour.hpp"
#include "cpu/video_decode.hpp"
#include "cpu/video_encode.hpp"
#include "video_ffmpeg.hpp"

using namespace tonekit;

namespace {

#define SKIP_WITHOUT_FFMPEG()                                                         \
  if (const std::string why = test::ffmpeg_zscale_missing(); !why.empty()) {          \
    std::printf("skipping: %s\n", why.c_str());                                      \
    GTEST_SKIP() << why;                                                              \
  }

// Random 10-bit codes over the whole limited (or full) range in a P010 or yuv420p10 frame, packed;
// chroma within `chroma_spread` codes of neutral when it is >= 0.
std::vector<std::uint8_t> random_yuv10(InputFormat f, int w, int h, bool full, std::uint32_t seed,
                                       int chroma_spread = -1) {
  const int cw = (w + 1) / 2, ch = (h + 1) / 2;
  const unsigned ylo = full ? 0 : 64, yn = full ? 1024 : 877;
  const unsigned spread = static_cast<unsigned>(chroma_spread);
  const unsigned clo = chroma_spread >= 0 ? 512 - spread : (full ? 0 : 64);
  const unsigned cn = chroma_spread >= 0 ? 2 * spread + 1 : (full ? 1024 : 897);
  std::vector<std::uint16_t> s;
  for (int i = 0; i < w * h; ++i) s.push_back(std::uint16_t(ylo + core::hash32(seed++) % yn));
  for (int i = 0; i < 2 * cw * ch; ++i) s.push_back(std::uint16_t(clo + core::hash32(seed++) % cn));
  if (f == InputFormat::p010) {
    // Interleave Cb, Cr and move the codes to the high bits.
    std::vector<std::uint16_t> p(s.begin(), s.begin() + w * h);
    for (int i = 0; i < cw * ch; ++i) {
      p.push_back(s[w * h + i]);
      p.push_back(s[w * h + cw * ch + i]);
    }
    for (auto& v : p) v = std::uint16_t(v << 6);
    s = p;
  }
  std::vector<std::uint8_t> bytes(s.size() * 2);
  std::memcpy(bytes.data(), s.data(), bytes.size());
  return bytes;
}

// gbrpf32le planes (G, B, R) -> interleaved RGB.
std::vector<float> from_gbrp(const std::vector<std::uint8_t>& bytes, int w, int h) {
  const std::size_t n = std::size_t(w) * h;
  EXPECT_EQ(bytes.size(), 12 * n);
  std::vector<float> planes(3 * n), rgb(3 * n);
  if (bytes.size() != 12 * n) return rgb;
  std::memcpy(planes.data(), bytes.data(), bytes.size());
  for (std::size_t i = 0; i < n; ++i) {
    rgb[3 * i + 0] = planes[2 * n + i];
    rgb[3 * i + 1] = planes[i];
    rgb[3 * i + 2] = planes[n + i];
  }
  return rgb;
}

}  // namespace

// zscale options: filter=bilinear with chromalin=topleft is zimg's bilinear resampling between
// co-sited samples (edge replicated), the operation video.hpp states; matrixin / rangein as the
// frame says; no transfer or primaries given, so the output is the R'G'B' signal. Full-range P010
// goes to ffmpeg as the same codes in yuv420p10le: zimg reads P010 as 16-bit samples and scales
// full range by 65535 rather than 1023 (BT.2100 Table 9 at n = 10), up to 1.7 codes apart.
TEST(VideoFfmpeg, YuvToRgbSignalWithinOneTenBitCode) {
  SKIP_WITHOUT_FFMPEG();
  int compared = 0;
  for (InputFormat fmt : {InputFormat::p010, InputFormat::yuv420p10})
    for (auto [w, h] : {std::pair{16, 8}, {6, 4}, {2, 2}})
      for (bool bt2020 : {true, false})
        for (bool full : {false, true}) {
          const auto frame = random_yuv10(fmt, w, h, full, std::uint32_t(w * 7 + h + full + 2 * bt2020));
          InputColour c;
          c.matrix = bt2020 ? YuvMatrix::bt2020_ncl : YuvMatrix::bt709;
          c.range = full ? YuvRange::full : YuvRange::limited;
          Image mine;
          ASSERT_TRUE(cpu::decode_signal(packed_planes(fmt, frame.data(), w, h), fmt, c, w, h, mine).ok());
          const std::string filter = std::string("zscale=filter=bilinear:chromalin=topleft:matrixin=") +
                                     (bt2020 ? "2020_ncl" : "709") + ":rangein=" + (full ? "full" : "limited");
          std::vector<std::uint8_t> out;
          const bool as_p010 = fmt == InputFormat::p010 && !full;
          const auto input = fmt == InputFormat::p010 && full ? random_yuv10(InputFormat::yuv420p10, w, h, full,
                                                                             std::uint32_t(w * 7 + h + full + 2 * bt2020))
                                                              : frame;
          ASSERT_TRUE(test::ffmpeg_convert(input, as_p010 ? "p010le" : "yuv420p10le", w, h, filter, "gbrpf32le", out));
          const std::vector<float> theirs = from_gbrp(out, w, h);
          double worst = 0;
          for (std::size_t i = 0; i < theirs.size(); ++i) worst = std::max(worst, double(std::fabs(mine.pixels[i] - theirs[i])));
          EXPECT_LE(worst * 1023.0, 1.0) << filter << " " << input_format_name(fmt) << " " << w << "x" << h;
          compared += int(theirs.size());
        }
  EXPECT_GT(compared, 0);
}

// PQ and HLG BT.2020 -> scene-linear BT.709: zscale with transfer=linear and npl=203 puts 203 cd/m^2
// at 1.0, as reference_white does. For HLG zimg applies the OOTF of a 1000 cd/m^2 display (gamma
// 1.2, our default hlg_peak) but per channel (E^1.2 on R, G and B) where BT.2100 Table 5 scales by
// the luminance (Y_S^0.2 E): the two agree on neutral colours only, so HLG uses a neutral frame (grey
// levels at random codes). Only pixels whose R'G'B' stays in [0, 1] are compared (we clamp
// the signal; zimg extends the curves past 1): those zimg leaves in gamut per channel, the others
// (where our gamut policy acts and zimg keeps negatives) for luminance; both within one 10-bit PQ
// code of the light (a perceptual yardstick: about 1 % of luminance in mid-tones).
TEST(VideoFfmpeg, PqAndHlgBt2020ToLinearBt709) {
  SKIP_WITHOUT_FFMPEG();
  const int w = 16, h = 8;
  for (auto [transfer, zimg_name] : {std::pair{Transfer::pq, "smpte2084"}, {Transfer::hlg, "arib-std-b67"}}) {
    const bool pq = transfer == Transfer::pq;
    const auto frame = random_yuv10(InputFormat::yuv420p10, w, h, false, 99, pq ? 120 : 0);
    InputColour c;
    c.transfer = transfer;
    c.primaries = Primaries::bt2020;
    Image mine, signal;
    const FramePlanes planes = packed_planes(InputFormat::yuv420p10, frame.data(), w, h);
    ASSERT_TRUE(cpu::decode_signal(planes, InputFormat::yuv420p10, c, w, h, signal).ok());
    ASSERT_TRUE(cpu::decode_frame(planes, InputFormat::yuv420p10, c, w, h, mine).ok());
    std::vector<std::uint8_t> out;
    ASSERT_TRUE(test::ffmpeg_convert(frame, "yuv420p10le", w, h,
                                     std::string("zscale=filter=bilinear:chromalin=topleft:matrixin=2020_ncl:"
                                                 "rangein=limited:primariesin=2020:transfer=linear:primaries=709:"
                                                 "npl=203:transferin=") + zimg_name,
                                     "gbrpf32le", out));
    const std::vector<float> theirs = from_gbrp(out, w, h);
    auto code = [](double scene) { return core::pq_inverse_eotf(203.0 * scene); };
    int in_gamut = 0, out_of_gamut = 0;
    for (int i = 0; i < w * h; ++i) {
      const float* t = &theirs[3 * i];
      const float* m = &mine.pixels[3 * i];
      const float* s = &signal.pixels[3 * i];
      if (std::min(s[0], std::min(s[1], s[2])) < 0 || std::max(s[0], std::max(s[1], s[2])) > 1) continue;
      if (std::min(t[0], std::min(t[1], t[2])) >= 0) {
        ++in_gamut;
        for (int k = 0; k < 3; ++k) EXPECT_NEAR(code(m[k]), code(t[k]), 1.0 / 1023) << zimg_name << " " << i;
      } else {
        ++out_of_gamut;
      }
      const double yt = core::luminance(double(t[0]), double(t[1]), double(t[2]));
      EXPECT_NEAR(code(core::luminance(m[0], m[1], m[2])), code(yt), 1.0 / 1023) << zimg_name << " " << i;
    }
    EXPECT_GT(in_gamut, 10);
    if (pq) EXPECT_GT(out_of_gamut, 10);
    std::printf("%s: compared %d in-gamut and %d out-of-gamut pixels of %d\n", zimg_name, in_gamut, out_of_gamut,
                w * h);
  }
}

namespace {

// R'G'B' signal constant over each 2x2 block and affine across blocks, a few codes of Cb / Cr per
// block: zimg's centre-sited chroma filter (bilinear widened to 4 taps, 1/8 3/8 3/8 1/8) and our 2x2
// mean then agree exactly inside the frame and within 1/8 of a block step at the edges (zimg
// replicates the edge), so the comparison checks matrix, range, rounding and plane layout. A small
// checkerboard varies Y' inside each block; both filters give it weight 1/2, so chroma is unmoved.
std::vector<float> block_affine_signal(int w, int h) {
  std::vector<float> rgb(std::size_t(w) * h * 3);
  const double slope_x[3] = {0.012, -0.008, 0.015}, slope_y[3] = {-0.01, 0.014, 0.006}, base[3] = {0.8, 0.3, 0.7};
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      for (int c = 0; c < 3; ++c)
        rgb[(std::size_t(y) * w + x) * 3 + c] =
            float(base[c] + slope_x[c] * (x / 2 - w / 4) + slope_y[c] * (y / 2 - h / 4) + 0.002 * c * ((x + y) % 2));
  return rgb;
}

std::vector<std::uint8_t> to_gbrp_bytes(const std::vector<float>& rgb, int w, int h) {
  const std::size_t n = std::size_t(w) * h;
  std::vector<float> planes(3 * n);
  for (std::size_t i = 0; i < n; ++i) {
    planes[i] = rgb[3 * i + 1];
    planes[n + i] = rgb[3 * i + 2];
    planes[2 * n + i] = rgb[3 * i];
  }
  std::vector<std::uint8_t> bytes(planes.size() * 4);
  std::memcpy(bytes.data(), planes.data(), bytes.size());
  return bytes;
}

void expect_within_one_code(const std::vector<std::uint8_t>& mine, const std::vector<std::uint8_t>& theirs,
                            const std::string& what) {
  ASSERT_EQ(mine.size(), theirs.size()) << what;
  int worst = 0, off = 0;
  for (std::size_t i = 0; i < mine.size(); ++i) {
    worst = std::max(worst, std::abs(int(mine[i]) - int(theirs[i])));
    off += mine[i] != theirs[i];
  }
  EXPECT_LE(worst, 1) << what;
  std::printf("%s: %d of %zu bytes differ from zscale (by 1)\n", what.c_str(), off, mine.size());
}

}  // namespace

// zscale's transfer "709" is the inverse of the BT.1886 EOTF (zimg is display-referred): v^(1/2.4),
// which is our `gamma` = 2.4 output. Options: matrix=709, range=limited, chromal=center (our 2x2
// mean is centre-sited), dither=none.
TEST(VideoFfmpeg, LinearRgbToYuv420WithGammaWithinOneCode) {
  SKIP_WITHOUT_FFMPEG();
  for (auto [w, h] : {std::pair{16, 8}, {10, 6}, {2, 2}})
    for (OutputLayout layout : {OutputLayout::yuv420p, OutputLayout::nv12}) {
      // Linear light whose v^(1/2.4) is the block-affine signal.
      std::vector<float> rgb = block_affine_signal(w, h);
      for (float& v : rgb) v = float(std::pow(double(v), 2.4));
      std::vector<std::uint8_t> mine(output_frame_bytes(layout, w, h, 3, 1)), theirs;
      const ImageView view{const_cast<float*>(rgb.data()), w, h, 3, PixelType::f32, 0, MemorySpace::host};
      ASSERT_TRUE(cpu::encode_yuv420(view, layout, 2.4, false, mine.data(), mine.size()).ok());
      ASSERT_TRUE(test::ffmpeg_convert(to_gbrp_bytes(rgb, w, h), "gbrpf32le", w, h,
                                       "zscale=filter=bilinear:transferin=linear:transfer=709:primariesin=709:"
                                       "primaries=709:matrix=709:range=limited:chromal=center:dither=none",
                                       "yuv420p", theirs));
      // ffmpeg's own NV12 goes through swscale after zscale (another chroma filter): NV12 is compared
      // as zscale's yuv420p planes interleaved.
      if (layout == OutputLayout::nv12) {
        const std::size_t n = std::size_t(w) * h, q = std::size_t(w / 2) * (h / 2);
        std::vector<std::uint8_t> nv(theirs.begin(), theirs.begin() + std::ptrdiff_t(n));
        for (std::size_t i = 0; i < q; ++i) {
          nv.push_back(theirs[n + i]);
          nv.push_back(theirs[n + q + i]);
        }
        theirs = nv;
      }
      expect_within_one_code(mine, theirs, std::string(output_layout_name(layout)) + " " + std::to_string(w) + "x" +
                                               std::to_string(h));
    }
}

// The BT.709 OETF path (gamma = 0): zimg has no scene-referred BT.709 OETF, so it is given the
// R'G'B' signal and does the matrix, range and chroma; ours starts from the linear values (the
// signal through the inverse of BT.709-6 item 1.2, written out here).
TEST(VideoFfmpeg, Bt709OetfPathMatrixAndChromaWithinOneCode) {
  SKIP_WITHOUT_FFMPEG();
  const int w = 12, h = 6;
  const std::vector<float> signal = block_affine_signal(w, h);
  std::vector<float> rgb(signal.size());
  for (std::size_t i = 0; i < rgb.size(); ++i) {
    const double v = signal[i];  // inverse of the OETF, all values above V = 0.081
    rgb[i] = float(std::pow((v + 0.099) / 1.099, 1.0 / 0.45));
  }
  std::vector<std::uint8_t> mine(output_frame_bytes(OutputLayout::yuv420p, w, h, 3, 1)), theirs;
  const ImageView view{const_cast<float*>(rgb.data()), w, h, 3, PixelType::f32, 0, MemorySpace::host};
  ASSERT_TRUE(cpu::encode_yuv420(view, OutputLayout::yuv420p, 0.0, false, mine.data(), mine.size()).ok());
  ASSERT_TRUE(test::ffmpeg_convert(to_gbrp_bytes(signal, w, h), "gbrpf32le", w, h,
                                   "zscale=filter=bilinear:matrix=709:range=limited:chromal=center:dither=none",
                                   "yuv420p", theirs));
  expect_within_one_code(mine, theirs, "yuv420p bt709 oetf");
}
