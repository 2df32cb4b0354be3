// io::read_half_rgba (issue 15: half EXRs stay half into the GPU path): a half RGB(A) OpenEXR read
// as half RGBA without widening, the same values read_image gives in float, alpha 1 where the
// file has none; float EXRs and other formats are `unsupported` (the caller reads them with
// read_image); damaged files fail as read_image's do. And the host tone_map of that half view
// gives the bytes of the float image's (CPU here; the CUDA backend in tests/gpu).
#include <gtest/gtest.h>
#include <unistd.h>

#include <OpenEXR/ImfRgbaFile.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "core/half.hpp"
#include "tonekit/io.hpp"
#include "tonekit/operators.hpp"
#include "tonekit/tonemap.hpp"

namespace fs = std::filesystem;
using namespace tonekit;

namespace {

class IoHalf : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("tonekit_io_half_" + std::to_string(getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    if (!HasFailure()) fs::remove_all(dir_);
  }
  std::string path(const char* name) const { return (dir_ / name).string(); }
  fs::path dir_;
};

// HDR values over many stops, some NaN / Inf / negative (kept as stored: the map sanitises).
Image scene(int w, int h, int channels, unsigned seed) {
  Image image(w, h, channels);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> stops(-12.0f, 12.0f), u(0.0f, 1.0f);
  for (std::size_t i = 0; i < image.pixels.size(); ++i) image.pixels[i] = std::exp2(stops(rng));
  if (channels == 4)
    for (std::size_t i = 3; i < image.pixels.size(); i += 4) image.pixels[i] = u(rng);
  image.pixels[5] = NAN;
  image.pixels[7] = INFINITY;
  image.pixels[10] = -2.0f;
  return image;
}

}  // namespace

TEST_F(IoHalf, HalfExrReadsAsHalfRgbaWithTheFloatReadersValues) {
  for (const int channels : {3, 4}) {
    const Image written = scene(37, 23, channels, 7 + channels);
    ASSERT_TRUE(io::write_exr(path("h.exr"), written, true).ok());
    auto half = io::read_half_rgba(path("h.exr"));
    ASSERT_TRUE(half.ok()) << half.status().message();
    auto full = io::read_image(path("h.exr"));
    ASSERT_TRUE(full.ok());
    EXPECT_EQ(half->file_channels, channels);
    const OutputImage& p = half->pixels;
    ASSERT_EQ(p.type, PixelType::f16);
    ASSERT_EQ(p.channels, 4);
    ASSERT_EQ(p.width, 37);
    ASSERT_EQ(p.height, 23);
    ASSERT_EQ(p.bytes.size(), std::size_t(37) * 23 * 4 * 2);
    const auto* h = reinterpret_cast<const std::uint16_t*>(p.bytes.data());
    for (std::size_t px = 0; px < std::size_t(37) * 23; ++px)
      for (int c = 0; c < 4; ++c) {
        const float got = core::half_to_float(h[px * 4 + c]);
        const float want = c < channels ? full->pixels[px * channels + c] : 1.0f;
        if (std::isnan(want)) EXPECT_TRUE(std::isnan(got)) << px;
        else EXPECT_EQ(got, want) << "pixel " << px << " channel " << c;
      }
  }
}

TEST_F(IoHalf, OtherFilesAreUnsupportedOrFailAsTheirReadersDo) {
  const Image image = scene(16, 9, 3, 3);
  ASSERT_TRUE(io::write_exr(path("f.exr"), image, false).ok());
  ASSERT_TRUE(io::write_pfm(path("i.pfm"), image).ok());
  for (const char* name : {"f.exr", "i.pfm"}) {
    auto r = io::read_half_rgba(path(name));
    ASSERT_FALSE(r.ok()) << name;
    EXPECT_EQ(r.status().code(), StatusCode::unsupported) << name << ": " << r.status().message();
  }
  // Damaged or unreadable: the same failure as read_image's (a caller falling back to read_image
  // on `unsupported` then reports that file's own error).
  const fs::path bad = fs::path(TONEKIT_SOURCE_DIR) / "tests/bad_inputs";
  for (const char* name : {"corrupt_zip.exr", "empty.exr", "bad_version.exr", "claims_more.exr"}) {
    auto half = io::read_half_rgba((bad / name).string());
    auto full = io::read_image((bad / name).string());
    ASSERT_FALSE(full.ok()) << name;
    if (half.ok()) {
      ADD_FAILURE() << name << " read as half";
      continue;
    }
    EXPECT_EQ(half.status().code(), full.status().code()) << name << ": " << half.status().message();
  }
  auto missing = io::read_half_rgba(path("missing.exr"));
  EXPECT_FALSE(missing.ok());
}

// read_half_rgba into a buffer that held another image (the batch's decoders reuse them): the
// bytes of a fresh read, whatever was there, larger or smaller, RGB after RGBA (alpha refilled
// with 1), through the fast path (ZIP) and the C++ one (PIZ); a failed read leaves no image. And
// tone_map into a reused, poisoned output: the bytes of a fresh output.
TEST_F(IoHalf, ReadsIntoReusedBuffersAsIntoFreshOnes) {
  struct File {
    const char* name;
    int w, h, channels;
    Imf::Compression compression;
  };
  const File files[] = {{"a.exr", 64, 40, 4, Imf::ZIP_COMPRESSION},
                        {"b.exr", 64, 40, 3, Imf::ZIP_COMPRESSION},
                        {"c.exr", 17, 5, 3, Imf::PIZ_COMPRESSION},
                        {"d.exr", 90, 61, 4, Imf::ZIPS_COMPRESSION}};
  io::HalfImage reused;
  const Params params = prepare_params("reinhard").value();
  OutputImage out;
  for (const File& f : files) {
    {
      const Image image = scene(f.w, f.h, f.channels, 40 + f.w);
      std::vector<Imf::Rgba> rgba(static_cast<std::size_t>(f.w) * f.h);
      for (std::size_t i = 0; i < rgba.size(); ++i)
        rgba[i] = Imf::Rgba(image.pixels[i * f.channels], image.pixels[i * f.channels + 1], image.pixels[i * f.channels + 2],
                            f.channels == 4 ? image.pixels[i * f.channels + 3] : 1.0f);
      Imf::RgbaOutputFile file(path(f.name).c_str(), f.w, f.h, f.channels == 4 ? Imf::WRITE_RGBA : Imf::WRITE_RGB, 1.0f,
                               Imath::V2f(0, 0), 1.0f, Imf::INCREASING_Y, f.compression);
      file.setFrameBuffer(rgba.data(), 1, static_cast<std::size_t>(f.w));
      file.writePixels(f.h);
    }
    if (!reused.pixels.bytes.empty())  // poison what an earlier image left
      std::fill(reused.pixels.bytes.begin(), reused.pixels.bytes.end(), std::uint8_t{0xA5});
    ASSERT_TRUE(io::read_half_rgba(path(f.name), reused).ok()) << f.name;
    auto fresh = io::read_half_rgba(path(f.name));
    ASSERT_TRUE(fresh.ok()) << f.name;
    EXPECT_EQ(reused.file_channels, fresh->file_channels) << f.name;
    EXPECT_EQ(reused.pixels.width, f.w);
    EXPECT_EQ(reused.pixels.height, f.h);
    EXPECT_TRUE(reused.pixels.bytes == fresh->pixels.bytes) << f.name;
    std::fill(out.bytes.begin(), out.bytes.end(), std::uint8_t{0xA5});
    OutputImage fresh_out;
    ASSERT_TRUE(tone_map(reused.pixels.view(), params, {PixelType::u8, f.channels}, Backend::cpu, out).ok());
    ASSERT_TRUE(tone_map(fresh->pixels.view(), params, {PixelType::u8, f.channels}, Backend::cpu, fresh_out).ok());
    EXPECT_TRUE(out.bytes == fresh_out.bytes) << f.name;
  }
  EXPECT_FALSE(io::read_half_rgba(path("missing.exr"), reused).ok());
  EXPECT_TRUE(reused.pixels.bytes.empty()) << "a failed read leaves no image";
}

TEST_F(IoHalf, HalfViewMapsToTheFloatImagesBytes) {
  for (const int channels : {3, 4}) {
    const Image written = scene(64, 40, channels, 21);
    ASSERT_TRUE(io::write_exr(path("h.exr"), written, true).ok());
    auto half = io::read_half_rgba(path("h.exr"));
    auto full = io::read_image(path("h.exr"));
    ASSERT_TRUE(half.ok() && full.ok());
    for (const char* op : {"reinhard", "drago", "reinhard-sat"}) {
      Result<Params> params = prepare_params(op, {});
      ASSERT_TRUE(params.ok());
      const OutputFormat format{PixelType::u8, channels};
      OutputImage a, b;
      FrameStats sa, sb;
      ASSERT_TRUE(tone_map(half->pixels.view(), *params, format, Backend::cpu, a, &sa).ok()) << op;
      ASSERT_TRUE(tone_map(*full, *params, format, Backend::cpu, b, &sb).ok()) << op;
      EXPECT_TRUE(a.bytes == b.bytes) << op << " with " << channels << " channels";
      EXPECT_EQ(sa.nan_count, sb.nan_count);
      EXPECT_EQ(sa.inf_count, sb.inf_count);
      EXPECT_EQ(sa.log_average, sb.log_average) << op;
    }
  }
}
