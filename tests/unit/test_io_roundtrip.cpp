// Writers and readers against each other: float formats exact, EXR half exact for values half
// can hold, Radiance RGBE within its precision (half a mantissa step: 1/256 of the pixel's
// largest channel), PNG and JPEG read back with libpng/libjpeg directly. Also the atomic-write
// behaviour and the choice of reader by magic bytes.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdio>
#include <jpeglib.h>
#include <png.h>
#include <zlib.h>
#include <sys/stat.h>

#include <Imath/half.h>

#include <cmath>
#include <csetjmp>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "../../src/io/png_encoding.hpp"
#include "../../src/io/readers.hpp"
#include "tonekit/io.hpp"

namespace fs = std::filesystem;
using tonekit::Image;
using tonekit::OutputImage;
using tonekit::PixelType;
namespace io = tonekit::io;

namespace {

class TempDir {
 public:
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "tonekit_io_rt_XXXXXX").string();
    path_ = mkdtemp(pattern.data());
  }
  ~TempDir() { fs::remove_all(path_); }
  std::string file(const std::string& name) const { return (path_ / name).string(); }
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& entry : fs::directory_iterator(path_)) out.push_back(entry.path().filename().string());
    return out;
  }

 private:
  fs::path path_;
};

// Values over ~40 stops, negatives and exact zeros, different per channel.
Image hdr_test_image(int width, int height, int channels) {
  Image image(width, height, channels);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x)
      for (int c = 0; c < channels; ++c) {
        const int k = x * 7 + y * 13 + c * 5;
        float v = std::ldexp(1.0f + static_cast<float>(k % 97) / 97.0f, k % 40 - 20);
        if (k % 23 == 0) v = 0.0f;
        if (c == 3) v = static_cast<float>(k % 11) / 10.0f;  // alpha in [0, 1]
        image.row(y)[x * channels + c] = v;
      }
  return image;
}

Image rounded_to_half(Image image) {
  for (float& v : image.pixels) v = static_cast<float>(half(v));
  return image;
}

void expect_same_pixels(const Image& expected, const Image& actual) {
  ASSERT_EQ(expected.width, actual.width);
  ASSERT_EQ(expected.height, actual.height);
  ASSERT_EQ(expected.channels, actual.channels);
  for (std::size_t i = 0; i < expected.pixels.size(); ++i)
    ASSERT_EQ(expected.pixels[i], actual.pixels[i]) << "value " << i;
}

OutputImage display_image(int width, int height, int channels, PixelType type) {
  OutputImage image;
  image.allocate(width, height, channels, type);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x)
      for (int c = 0; c < channels; ++c) {
        const std::size_t i = (static_cast<std::size_t>(y) * width + x) * channels + c;
        // Smooth gradients so JPEG reproduces them closely.
        const int value8 = (x * 2 + y + c * 30) % 256;
        if (type == PixelType::u8) {
          image.bytes[i] = static_cast<std::uint8_t>(value8);
        } else {
          const std::uint16_t value16 = static_cast<std::uint16_t>(value8 * 257 + (x % 7));
          std::memcpy(image.bytes.data() + i * 2, &value16, 2);
        }
      }
  return image;
}

struct DecodedPng {
  int width = 0, height = 0, channels = 0, bit_depth = 0;
  std::vector<std::uint8_t> bytes;  // 16-bit samples in host order
};

DecodedPng read_png(const std::string& path) {
  DecodedPng out;
  FILE* file = std::fopen(path.c_str(), "rb");
  if (file == nullptr) return out;
  png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
  png_infop info = png_create_info_struct(png);
  if (setjmp(png_jmpbuf(png))) {
    png_destroy_read_struct(&png, &info, nullptr);
    std::fclose(file);
    out.width = -1;
    return out;
  }
  png_init_io(png, file);
  png_read_info(png, info);
  out.width = static_cast<int>(png_get_image_width(png, info));
  out.height = static_cast<int>(png_get_image_height(png, info));
  out.channels = png_get_channels(png, info);
  out.bit_depth = png_get_bit_depth(png, info);
  if (out.bit_depth == 16 && std::endian::native == std::endian::little) png_set_swap(png);
  const std::size_t row_bytes = png_get_rowbytes(png, info);
  out.bytes.resize(row_bytes * out.height);
  std::vector<png_bytep> rows(out.height);
  for (int y = 0; y < out.height; ++y) rows[y] = out.bytes.data() + y * row_bytes;
  png_read_image(png, rows.data());
  png_read_end(png, nullptr);
  png_destroy_read_struct(&png, &info, nullptr);
  std::fclose(file);
  return out;
}

struct DecodedJpeg {
  int width = 0, height = 0, channels = 0;
  std::vector<std::uint8_t> bytes;
};

struct JpegErrors {
  jpeg_error_mgr base;
  std::jmp_buf jump;
};

DecodedJpeg read_jpeg(const std::string& path) {
  DecodedJpeg out;
  FILE* file = std::fopen(path.c_str(), "rb");
  if (file == nullptr) return out;
  jpeg_decompress_struct info{};
  JpegErrors errors{};
  info.err = jpeg_std_error(&errors.base);
  errors.base.error_exit = [](j_common_ptr common) { std::longjmp(reinterpret_cast<JpegErrors*>(common->err)->jump, 1); };
  if (setjmp(errors.jump)) {
    jpeg_destroy_decompress(&info);
    std::fclose(file);
    out.width = -1;
    return out;
  }
  jpeg_create_decompress(&info);
  jpeg_stdio_src(&info, file);
  jpeg_read_header(&info, TRUE);
  jpeg_start_decompress(&info);
  out.width = static_cast<int>(info.output_width);
  out.height = static_cast<int>(info.output_height);
  out.channels = info.output_components;
  out.bytes.resize(static_cast<std::size_t>(out.width) * out.height * out.channels);
  while (info.output_scanline < info.output_height) {
    JSAMPROW row = out.bytes.data() + static_cast<std::size_t>(info.output_scanline) * out.width * out.channels;
    jpeg_read_scanlines(&info, &row, 1);
  }
  jpeg_finish_decompress(&info);
  jpeg_destroy_decompress(&info);
  std::fclose(file);
  return out;
}

}  // namespace

TEST(IoRoundTrip, ExrFloatIsExact) {
  TempDir dir;
  for (int channels : {1, 3, 4}) {
    const Image image = hdr_test_image(61, 37, channels);
    const std::string path = dir.file("float" + std::to_string(channels) + ".exr");
    ASSERT_TRUE(io::write_exr(path, image, /*half=*/false).ok());
    auto read = io::read_image(path);
    ASSERT_TRUE(read.ok()) << read.status().message();
    EXPECT_EQ(read->meta.format, "OpenEXR");
    EXPECT_EQ(read->meta.compression, "ZIP");
    EXPECT_EQ(read->meta.source_pixel_type, "float");
    if (channels == 1) {
      // Grey files (Y only) come back as RGB, still in float.
      ASSERT_EQ(read->channels, 3);
      for (std::size_t i = 0; i < image.pixels.size(); ++i)
        for (int c = 0; c < 3; ++c) ASSERT_EQ(image.pixels[i], read->pixels[i * 3 + c]) << i;
    } else {
      expect_same_pixels(image, read.value());
    }
  }
}

TEST(IoRoundTrip, ExrHalfIsExactForHalfValues) {
  TempDir dir;
  for (int channels : {3, 4}) {
    const Image image = rounded_to_half(hdr_test_image(45, 29, channels));
    const std::string path = dir.file("half.exr");
    ASSERT_TRUE(io::write_exr(path, image, /*half=*/true).ok());
    auto read = io::read_image(path);
    ASSERT_TRUE(read.ok()) << read.status().message();
    EXPECT_EQ(read->meta.source_pixel_type, "half");
    EXPECT_EQ(read->meta.source_channels, channels == 4 ? "A,B,G,R" : "B,G,R");
    expect_same_pixels(image, read.value());
  }
}

TEST(IoRoundTrip, ExrHalfRoundsToNearest) {
  TempDir dir;
  const Image image = hdr_test_image(16, 8, 3);
  ASSERT_TRUE(io::write_exr(dir.file("h.exr"), image, true).ok());
  auto read = io::read_image(dir.file("h.exr"));
  ASSERT_TRUE(read.ok());
  expect_same_pixels(rounded_to_half(image), read.value());
}

TEST(IoRoundTrip, PfmIsExact) {
  TempDir dir;
  const Image rgb = hdr_test_image(33, 17, 3);
  ASSERT_TRUE(io::write_pfm(dir.file("rgb.pfm"), rgb).ok());
  auto read = io::read_image(dir.file("rgb.pfm"));
  ASSERT_TRUE(read.ok()) << read.status().message();
  EXPECT_EQ(read->meta.format, "PFM");
  expect_same_pixels(rgb, read.value());

  // PFM has no alpha: RGBA is written as RGB.
  const Image rgba = hdr_test_image(5, 4, 4);
  ASSERT_TRUE(io::write_pfm(dir.file("rgba.pfm"), rgba).ok());
  auto read_rgba = io::read_image(dir.file("rgba.pfm"));
  ASSERT_TRUE(read_rgba.ok());
  ASSERT_EQ(read_rgba->channels, 3);
  for (int i = 0; i < 20; ++i)
    for (int c = 0; c < 3; ++c) EXPECT_EQ(read_rgba->pixels[i * 3 + c], rgba.pixels[i * 4 + c]);

  // Grey is written as "Pf" and read back expanded to RGB.
  const Image grey = hdr_test_image(6, 3, 1);
  ASSERT_TRUE(io::write_pfm(dir.file("grey.pfm"), grey).ok());
  auto read_grey = io::read_image(dir.file("grey.pfm"));
  ASSERT_TRUE(read_grey.ok());
  EXPECT_EQ(read_grey->meta.source_channels, "Y");
  for (std::size_t i = 0; i < grey.pixels.size(); ++i)
    for (int c = 0; c < 3; ++c) EXPECT_EQ(read_grey->pixels[i * 3 + c], grey.pixels[i]);
}

TEST(IoRoundTrip, PfmLayoutIsLittleEndianBottomUp) {
  TempDir dir;
  Image image(2, 2, 3);
  for (int i = 0; i < 12; ++i) image.pixels[i] = static_cast<float>(i);
  ASSERT_TRUE(io::write_pfm(dir.file("l.pfm"), image).ok());
  std::ifstream in(dir.file("l.pfm"), std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), {});
  const std::string header = "PF\n2 2\n-1.0\n";
  ASSERT_EQ(bytes.substr(0, header.size()), header);
  ASSERT_EQ(bytes.size(), header.size() + 48);
  float first = 0;
  std::memcpy(&first, bytes.data() + header.size(), 4);  // host is little-endian on our targets
  EXPECT_EQ(first, 6.0f) << "first stored row is the image's bottom row";

  // Big-endian files (positive scale) read too.
  std::string big = "PF\n1 1\n1.0\n";
  for (float v : {1.5f, -2.0f, 1e20f}) {
    std::uint32_t bits = std::bit_cast<std::uint32_t>(v);
    for (int shift = 24; shift >= 0; shift -= 8) big += static_cast<char>((bits >> shift) & 0xff);
  }
  auto read = io::read_pfm_memory("big.pfm", reinterpret_cast<const std::uint8_t*>(big.data()), big.size());
  ASSERT_TRUE(read.ok()) << read.status().message();
  EXPECT_EQ(read->pixels, (std::vector<float>{1.5f, -2.0f, 1e20f}));
}

TEST(IoRoundTrip, HdrWithinRgbePrecision) {
  TempDir dir;
  // Widths around the new-style RLE limits (8 and 32767) and a flat 1-pixel one.
  for (int width : {1, 7, 8, 9, 130, 300, 32768}) {
    const int height = width > 1000 ? 2 : 11;
    Image image = hdr_test_image(width, height, 3);
    // Runs for the RLE encoder: a constant band and a black band.
    for (int x = 0; x < width / 3; ++x)
      for (int c = 0; c < 3; ++c) image.row(0)[x * 3 + c] = x < width / 6 ? 2.5f : 0.0f;
    const std::string path = dir.file(std::to_string(width) + "_wide.hdr");
    ASSERT_TRUE(io::write_hdr(path, image).ok());
    auto read = io::read_image(path);
    ASSERT_TRUE(read.ok()) << read.status().message();
    EXPECT_EQ(read->meta.format, "Radiance RGBE");
    EXPECT_EQ(read->meta.compression, width >= 8 && width <= 32767 ? "RLE" : "none");
    ASSERT_EQ(read->width, width);
    ASSERT_EQ(read->height, height);
    for (int y = 0; y < height; ++y)
      for (int x = 0; x < width; ++x) {
        const float* in = image.row(y) + x * 3;
        const float* out = read->row(y) + x * 3;
        const float largest = std::max({in[0], in[1], in[2]});
        for (int c = 0; c < 3; ++c)
          ASSERT_LE(std::fabs(out[c] - in[c]), largest / 256.0f * 1.0001f)
              << "width " << width << " pixel " << x << "," << y << " channel " << c;
      }
  }
}

TEST(IoRoundTrip, HdrClampsWhatRgbeCannotHold) {
  TempDir dir;
  Image image(3, 1, 3);
  image.pixels = {-1.0f, NAN, 0.5f, INFINITY, 1.0f, 1.0f, 1e-40f, 0.0f, 0.0f};
  ASSERT_TRUE(io::write_hdr(dir.file("c.hdr"), image).ok());
  auto read = io::read_image(dir.file("c.hdr"));
  ASSERT_TRUE(read.ok());
  // Negative and NaN are written as mantissa 0, which reads back as half a step.
  EXPECT_LE(read->pixels[0], 0.5f / 256);
  EXPECT_LE(read->pixels[1], 0.5f / 256);
  EXPECT_NEAR(read->pixels[2], 0.5f, 0.5f / 256);
  EXPECT_TRUE(std::isfinite(read->pixels[3]));
  EXPECT_GT(read->pixels[3], 1e38f);
  EXPECT_EQ(read->pixels[6], 0.0f);
}

// Radiance's colr_color(): (mantissa + 0.5) * 2^(exponent - 136); exponent 0 is black; the
// EXPOSURE header lines multiply and are divided out.
TEST(IoRoundTrip, HdrDecodesRadianceConvention) {
  std::string file = "#?RADIANCE\nFORMAT=32-bit_rle_rgbe\nEXPOSURE=2\nEXPOSURE=0.25\n\n-Y 1 +X 3\n";
  const std::uint8_t pixels[] = {128, 64, 0, 129, 255, 1, 0, 0, 10, 20, 30, 136};
  file.append(reinterpret_cast<const char*>(pixels), sizeof pixels);
  auto read = io::read_rgbe_memory("mem.hdr", reinterpret_cast<const std::uint8_t*>(file.data()), file.size());
  ASSERT_TRUE(read.ok()) << read.status().message();
  EXPECT_DOUBLE_EQ(read->meta.exposure, 0.5);
  EXPECT_EQ(read->meta.compression, "none");
  const double exposure = 0.5;
  const std::vector<float> expected = {
      static_cast<float>(128.5 / 128 / exposure), static_cast<float>(64.5 / 128 / exposure), static_cast<float>(0.5 / 128 / exposure),
      0.0f, 0.0f, 0.0f,
      static_cast<float>(10.5 / exposure), static_cast<float>(20.5 / exposure), static_cast<float>(30.5 / exposure)};
  EXPECT_EQ(read->pixels, expected);
  ASSERT_FALSE(read->meta.notes.empty());
}

TEST(IoRoundTrip, HdrOldStyleRunLengthPixels) {
  // Pixel 1,1,1,n repeats the previous pixel n times; a second run in a row shifts by 8 bits;
  // a run that starts a scanline repeats the previous scanline's last pixel.
  std::string file = "#?RGBE\n\n-Y 2 +X 300\n";
  const std::uint8_t data[] = {200, 100, 50, 128, 1, 1, 1, 43, 1, 1, 1, 1,  // 1 + 43 + (1 << 8)
                               1, 1, 1, 44, 1, 1, 1, 1};                     // 44 + (1 << 8)
  file.append(reinterpret_cast<const char*>(data), sizeof data);
  auto read = io::read_rgbe_memory("old.hdr", reinterpret_cast<const std::uint8_t*>(file.data()), file.size());
  ASSERT_TRUE(read.ok()) << read.status().message();
  EXPECT_EQ(read->meta.compression, "old-style RLE");
  for (int x = 0; x < 600; ++x) ASSERT_EQ(read->pixels[x * 3], static_cast<float>(200.5 / 256)) << x;
}

TEST(IoRoundTrip, PngEightAndSixteenBit) {
  TempDir dir;
  // 13 rows: one deflate strip; 301 rows: several (at least 64 rows each), joined into one
  // zlib stream that libpng must read back exactly; every --png-level.
  for (int height : {13, 301})
    for (int level = 0; level <= 9; ++level)
      for (PixelType type : {PixelType::u8, PixelType::u16})
        for (int channels : {1, 3, 4}) {
          if (height > 13 && level % 4 != 1 && level != 0) continue;  // levels 0, 1, 5, 9 on the tall image
          const OutputImage image = display_image(29, height, channels, type);
          const std::string path = dir.file("p.png");
          ASSERT_TRUE(io::write_png(path, image, level).ok());
          const DecodedPng png = read_png(path);
          EXPECT_EQ(png.width, 29);
          EXPECT_EQ(png.height, height);
          EXPECT_EQ(png.channels, channels);
          EXPECT_EQ(png.bit_depth, type == PixelType::u8 ? 8 : 16);
          EXPECT_EQ(png.bytes, image.bytes) << "channels " << channels << " level " << level << " height " << height;
        }
  EXPECT_FALSE(io::write_png(dir.file("bad.png"), display_image(4, 4, 3, PixelType::u8), 10).ok());
}

// Every filter and zlib strategy, and every ISA-L level with short and long look-backs, on 1 to
// 5 strips (deflated on as many threads): the strips' streams, Adler-32s and CRCs must join into
// one PNG that libpng reads back exactly (it checks the chunk CRCs, zlib the Adler-32).
TEST(IoRoundTrip, PngStripsFiltersAndStrategies) {
  TempDir dir;
  std::vector<io::PngEncoding> encodings;
  for (int strategy : {Z_DEFAULT_STRATEGY, Z_FILTERED, Z_RLE, Z_HUFFMAN_ONLY}) {
    io::PngEncoding e;
    e.strategy = strategy;
    encodings.push_back(e);
  }
  for (int level = 0; level <= 3; ++level)
    for (int hist_bits : {0, 1, 2, 8}) {
      io::PngEncoding e;
      e.deflater = io::Deflater::isal;
      e.level = level;
      e.isal_hist_bits = hist_bits;
      encodings.push_back(e);
    }
  for (const OutputImage& image : {display_image(37, 333, 3, PixelType::u8), display_image(19, 200, 4, PixelType::u16)})
    for (io::PngFilter filter : {io::PngFilter::none, io::PngFilter::sub, io::PngFilter::up, io::PngFilter::paeth})
      for (io::PngEncoding encoding : encodings)
        for (int threads = 1; threads <= 5; ++threads) {
          encoding.filter = filter;
          encoding.threads = threads;
          const std::string bytes = io::encode_png(image, encoding);
          ASSERT_FALSE(bytes.empty());
          ASSERT_TRUE(io::write_file_atomically(dir.file("s.png"), bytes).ok());
          const DecodedPng png = read_png(dir.file("s.png"));
          ASSERT_EQ(png.bytes, image.bytes)
              << "filter " << static_cast<int>(filter) << " deflater " << static_cast<int>(encoding.deflater) << " level "
              << encoding.level << " strategy " << encoding.strategy << " hist_bits " << encoding.isal_hist_bits
              << " threads " << threads;
        }
}

// Incompressible rows (random bytes, no filter) through ISA-L on 1 and 3 strips, and an
// out-of-range ISA-L setting refused (an empty result, which write_png reports).
TEST(IoRoundTrip, PngIsalIncompressibleAndBadSettings) {
  TempDir dir;
  OutputImage image;
  image.allocate(301, 200, 3, PixelType::u8);
  std::mt19937 rng(7);
  for (auto& b : image.bytes) b = static_cast<std::uint8_t>(rng());
  for (int threads : {1, 3}) {
    io::PngEncoding e = io::png_encoding_for_level(1);
    e.filter = io::PngFilter::none;
    e.threads = threads;
    const std::string bytes = io::encode_png(image, e);
    ASSERT_FALSE(bytes.empty());
    ASSERT_TRUE(io::write_file_atomically(dir.file("r.png"), bytes).ok());
    EXPECT_EQ(read_png(dir.file("r.png")).bytes, image.bytes) << threads << " threads";
  }
  io::PngEncoding bad = io::png_encoding_for_level(1);
  bad.level = 4;
  EXPECT_TRUE(io::encode_png(image, bad).empty());
  bad = io::png_encoding_for_level(1);
  bad.isal_hist_bits = 16;
  EXPECT_TRUE(io::encode_png(image, bad).empty());
}

TEST(IoRoundTrip, JpegReadsBackCloseAndDropsAlpha) {
  TempDir dir;
  for (int channels : {3, 4}) {
    const OutputImage image = display_image(64, 48, channels, PixelType::u8);
    const std::string path = dir.file("j.jpg");
    ASSERT_TRUE(io::write_jpeg(path, image, 95).ok());
    const DecodedJpeg jpeg = read_jpeg(path);
    ASSERT_EQ(jpeg.width, 64);
    ASSERT_EQ(jpeg.height, 48);
    ASSERT_EQ(jpeg.channels, 3);
    double error = 0;
    for (int i = 0; i < 64 * 48; ++i)
      for (int c = 0; c < 3; ++c) error += std::abs(jpeg.bytes[i * 3 + c] - image.bytes[i * channels + c]);
    EXPECT_LT(error / (64 * 48 * 3), 4.0) << "mean absolute error at quality 95";
  }
}

TEST(IoRoundTrip, DisplayWritersRejectWrongPixelTypes) {
  TempDir dir;
  const OutputImage sixteen = display_image(4, 4, 3, PixelType::u16);
  const auto jpeg = io::write_jpeg(dir.file("x.jpg"), sixteen);
  EXPECT_EQ(jpeg.code(), tonekit::StatusCode::invalid_argument);
  EXPECT_EQ(jpeg.message().rfind(dir.file("x.jpg"), 0), 0u);
  EXPECT_EQ(io::write_jpeg(dir.file("x.jpg"), display_image(4, 4, 3, PixelType::u8), 0).code(),
            tonekit::StatusCode::invalid_argument);
  OutputImage float_image;
  float_image.allocate(4, 4, 3, PixelType::f32);
  EXPECT_EQ(io::write_png(dir.file("x.png"), float_image).code(), tonekit::StatusCode::invalid_argument);
  OutputImage wrong_size = display_image(4, 4, 3, PixelType::u8);
  wrong_size.bytes.pop_back();
  EXPECT_EQ(io::write_png(dir.file("x.png"), wrong_size).code(), tonekit::StatusCode::invalid_argument);
  Image two_channels(4, 4, 2);
  EXPECT_EQ(io::write_exr(dir.file("x.exr"), two_channels).code(), tonekit::StatusCode::invalid_argument);
  EXPECT_TRUE(dir.names().empty()) << "a rejected write leaves no file";
}

TEST(IoRoundTrip, WritesAreAtomic) {
  TempDir dir;
  const std::string path = dir.file("out.pfm");
  ASSERT_TRUE(io::write_file_atomically(path, "old").ok());
  ASSERT_TRUE(io::write_pfm(path, hdr_test_image(3, 3, 3)).ok());
  EXPECT_EQ(dir.names(), std::vector<std::string>{"out.pfm"}) << "no temporary left behind";
  EXPECT_TRUE(io::read_image(path).ok());

  // Output files get the usual mode (0666 minus umask), not mkstemp's 0600.
  const mode_t mask = umask(022);
  umask(mask);
  struct stat info {};
  ASSERT_EQ(stat(path.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0666 & ~mask);

  // A folder that does not exist: io_error naming the path, nothing created.
  const std::string missing = dir.file("no_such_folder/out.exr");
  const auto status = io::write_exr(missing, hdr_test_image(3, 3, 3));
  EXPECT_EQ(status.code(), tonekit::StatusCode::io_error);
  EXPECT_EQ(status.message().rfind(missing, 0), 0u) << status.message();
  // Renaming over a directory fails and removes the temporary.
  fs::create_directory(dir.file("taken.hdr"));
  EXPECT_FALSE(io::write_hdr(dir.file("taken.hdr"), hdr_test_image(3, 3, 3)).ok());
  auto names = dir.names();
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"out.pfm", "taken.hdr"}));
}

TEST(IoRoundTrip, OutputKindFromExtension) {
  EXPECT_EQ(io::output_kind_for("a/b.PNG"), io::OutputKind::png);
  EXPECT_EQ(io::output_kind_for("x.jpg"), io::OutputKind::jpeg);
  EXPECT_EQ(io::output_kind_for("x.JPEG"), io::OutputKind::jpeg);
  EXPECT_EQ(io::output_kind_for("x.exr"), io::OutputKind::exr);
  EXPECT_EQ(io::output_kind_for("x.hdr"), io::OutputKind::hdr);
  EXPECT_EQ(io::output_kind_for("x.pic"), io::OutputKind::hdr);
  EXPECT_EQ(io::output_kind_for("x.pfm"), io::OutputKind::pfm);
  EXPECT_EQ(io::output_kind_for("x.tiff"), io::OutputKind::unknown);
  EXPECT_EQ(io::output_kind_for("dir.png/file"), io::OutputKind::unknown);
  EXPECT_EQ(io::output_kind_for("noext"), io::OutputKind::unknown);
}

TEST(IoRoundTrip, ReaderIsPickedByMagicNotExtension) {
  TempDir dir;
  const Image image = hdr_test_image(8, 8, 3);
  ASSERT_TRUE(io::write_exr(dir.file("really_exr.hdr"), image, false).ok());
  ASSERT_TRUE(io::write_pfm(dir.file("really_pfm.exr"), image).ok());
  ASSERT_TRUE(io::write_hdr(dir.file("really_hdr.pfm"), image).ok());
  EXPECT_EQ(io::read_image(dir.file("really_exr.hdr"))->meta.format, "OpenEXR");
  EXPECT_EQ(io::read_image(dir.file("really_pfm.exr"))->meta.format, "PFM");
  EXPECT_EQ(io::read_image(dir.file("really_hdr.pfm"))->meta.format, "Radiance RGBE");
}

TEST(IoRoundTrip, ProbeAgreesWithRead) {
  TempDir dir;
  const Image image = hdr_test_image(21, 9, 4);
  ASSERT_TRUE(io::write_exr(dir.file("p.exr"), image).ok());
  ASSERT_TRUE(io::write_hdr(dir.file("p.hdr"), image).ok());
  ASSERT_TRUE(io::write_pfm(dir.file("p.pfm"), image).ok());
  for (const char* name : {"p.exr", "p.hdr", "p.pfm"}) {
    auto probe = io::probe_image(dir.file(name));
    auto read = io::read_image(dir.file(name));
    ASSERT_TRUE(probe.ok()) << probe.status().message();
    ASSERT_TRUE(read.ok()) << read.status().message();
    EXPECT_EQ(probe->width, 21) << name;
    EXPECT_EQ(probe->height, 9) << name;
    EXPECT_EQ(probe->format, read->meta.format) << name;
    EXPECT_EQ(probe->compression, read->meta.compression) << name;
    EXPECT_EQ(probe->source_channels, read->meta.source_channels) << name;
    EXPECT_EQ(read->meta.width, 21);
  }
}
