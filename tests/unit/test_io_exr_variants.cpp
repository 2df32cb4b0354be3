// The OpenEXR reader on files written here with the OpenEXR library itself: every compression,
// half/float/uint channels, tiled and mip-mapped, luminance/chroma, multi-part, data window
// unlike the display window, missing channels.
#include <gtest/gtest.h>

#include <Imath/half.h>
#include <OpenEXR/ImfChannelList.h>
#include <OpenEXR/ImfFrameBuffer.h>
#include <OpenEXR/ImfHeader.h>
#include <OpenEXR/ImfMultiPartOutputFile.h>
#include <OpenEXR/ImfOutputFile.h>
#include <OpenEXR/ImfOutputPart.h>
#include <OpenEXR/ImfPartType.h>
#include <OpenEXR/ImfRgbaFile.h>
#include <OpenEXR/ImfTiledOutputFile.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "../../src/io/readers.hpp"
#include "tonekit/io.hpp"

namespace fs = std::filesystem;
namespace io = tonekit::io;

namespace {

class TempDir {
 public:
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "tonekit_io_exr_XXXXXX").string();
    path_ = mkdtemp(pattern.data());
  }
  ~TempDir() { fs::remove_all(path_); }
  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  fs::path path_;
};

// A smooth, half-representable value for channel `c` at absolute pixel (x, y).
float sample(int x, int y, int c) {
  return static_cast<float>(half(0.05f + 0.9f * std::sin(0.11f * x + 0.07f * y + c) * std::sin(0.11f * x + 0.07f * y + c) +
                                 static_cast<float>(c) * 0.25f));
}

struct ChannelSpec {
  std::string name;
  Imf::PixelType type = Imf::HALF;
  int sampling = 1;
};

// Storage for one channel's values in the type the file holds.
struct ChannelData {
  std::vector<half> halves;
  std::vector<float> floats;
  std::vector<unsigned> uints;
};

// Fills the frame buffer for `window` with sample() values (channel index = position in specs;
// uint channels hold 1000 * x + y).
void fill_frame_buffer(const Imath::Box2i& window, const std::vector<ChannelSpec>& specs, std::vector<ChannelData>& data,
                       Imf::FrameBuffer& frame_buffer) {
  const int width = window.max.x - window.min.x + 1;
  const int height = window.max.y - window.min.y + 1;
  data.resize(specs.size());
  for (std::size_t c = 0; c < specs.size(); ++c) {
    const std::size_t count = static_cast<std::size_t>(width) * height;
    char* base = nullptr;
    std::size_t bytes = 0;
    switch (specs[c].type) {
      case Imf::HALF: data[c].halves.resize(count); base = reinterpret_cast<char*>(data[c].halves.data()); bytes = 2; break;
      case Imf::FLOAT: data[c].floats.resize(count); base = reinterpret_cast<char*>(data[c].floats.data()); bytes = 4; break;
      default: data[c].uints.resize(count); base = reinterpret_cast<char*>(data[c].uints.data()); bytes = 4; break;
    }
    for (int y = 0; y < height; ++y)
      for (int x = 0; x < width; ++x) {
        const std::size_t i = static_cast<std::size_t>(y) * width + x;
        const int ax = x + window.min.x, ay = y + window.min.y;
        if (specs[c].type == Imf::HALF) data[c].halves[i] = sample(ax, ay, static_cast<int>(c));
        if (specs[c].type == Imf::FLOAT) data[c].floats[i] = sample(ax, ay, static_cast<int>(c)) + 1e-6f * x;
        if (specs[c].type == Imf::UINT) data[c].uints[i] = static_cast<unsigned>(1000 * ax + ay);
      }
    frame_buffer.insert(specs[c].name, Imf::Slice::Make(specs[c].type, base, window, bytes, bytes * width,
                                                         specs[c].sampling, specs[c].sampling));
  }
}

void write_scanline_exr(const std::string& path, const Imf::Header& header_in, const std::vector<ChannelSpec>& specs,
                        std::vector<ChannelData>& data) {
  Imf::Header header = header_in;
  for (const auto& spec : specs) header.channels().insert(spec.name, Imf::Channel(spec.type, spec.sampling, spec.sampling));
  Imf::FrameBuffer frame_buffer;
  fill_frame_buffer(header.dataWindow(), specs, data, frame_buffer);
  Imf::OutputFile file(path.c_str(), header);
  file.setFrameBuffer(frame_buffer);
  file.writePixels(header.dataWindow().max.y - header.dataWindow().min.y + 1);
}

const std::vector<ChannelSpec> kRgbHalf = {{"B"}, {"G"}, {"R"}};

// Value the reader must return for R, G, B given the spec order B, G, R.
float expected_rgb(int x, int y, int rgb_channel) { return sample(x, y, 2 - rgb_channel); }

}  // namespace

TEST(IoExrVariants, EveryCompressionReads) {
  TempDir dir;
  const struct {
    Imf::Compression compression;
    const char* name;
    bool lossless;
  } cases[] = {
      {Imf::NO_COMPRESSION, "none", true}, {Imf::RLE_COMPRESSION, "RLE", true},     {Imf::ZIPS_COMPRESSION, "ZIPS", true},
      {Imf::ZIP_COMPRESSION, "ZIP", true}, {Imf::PIZ_COMPRESSION, "PIZ", true},     {Imf::PXR24_COMPRESSION, "PXR24", true},
      {Imf::B44_COMPRESSION, "B44", false}, {Imf::B44A_COMPRESSION, "B44A", false}, {Imf::DWAA_COMPRESSION, "DWAA", false},
      {Imf::DWAB_COMPRESSION, "DWAB", false},
  };
  const int width = 67, height = 45;
  for (const auto& test_case : cases) {
    SCOPED_TRACE(test_case.name);
    Imf::Header header(width, height);
    header.compression() = test_case.compression;
    std::vector<ChannelData> data;
    const std::string path = dir.file(std::string(test_case.name) + ".exr");
    write_scanline_exr(path, header, kRgbHalf, data);
    auto image = io::read_image(path);
    ASSERT_TRUE(image.ok()) << image.status().message();
    EXPECT_EQ(image->meta.compression, test_case.name);
    EXPECT_EQ(image->meta.source_pixel_type, "half");
    EXPECT_EQ(image->meta.source_channels, "B,G,R");
    ASSERT_EQ(image->channels, 3);
    double worst = 0;
    for (int y = 0; y < height; ++y)
      for (int x = 0; x < width; ++x)
        for (int c = 0; c < 3; ++c)
          worst = std::max(worst, std::fabs(static_cast<double>(image->row(y)[x * 3 + c]) - expected_rgb(x, y, c)));
    if (test_case.lossless) {
      EXPECT_EQ(worst, 0.0);  // PXR24 is lossless for half
    } else {
      EXPECT_LT(worst, 0.05);
    }
  }
}

TEST(IoExrVariants, FloatAndUintChannelsKeepFloatPrecision) {
  TempDir dir;
  const int width = 40, height = 30;
  std::vector<ChannelData> data;
  write_scanline_exr(dir.file("mixed.exr"), Imf::Header(width, height), {{"B", Imf::FLOAT}, {"G", Imf::UINT}, {"R", Imf::HALF}},
                     data);
  auto image = io::read_image(dir.file("mixed.exr"));
  ASSERT_TRUE(image.ok()) << image.status().message();
  EXPECT_EQ(image->meta.source_pixel_type, "float,uint,half");
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      const std::size_t i = static_cast<std::size_t>(y) * width + x;
      const float* pixel = image->row(y) + x * 3;
      ASSERT_EQ(pixel[0], static_cast<float>(data[2].halves[i]));
      ASSERT_EQ(pixel[1], static_cast<float>(data[1].uints[i]));
      ASSERT_EQ(pixel[2], data[0].floats[i]) << "float channel must not pass through half";
    }
}

TEST(IoExrVariants, TiledAndMipMappedReadLevelZero) {
  TempDir dir;
  const int width = 100, height = 70;
  for (Imf::LevelMode mode : {Imf::ONE_LEVEL, Imf::MIPMAP_LEVELS, Imf::RIPMAP_LEVELS}) {
    SCOPED_TRACE(static_cast<int>(mode));
    Imf::Header header(width, height);
    header.setTileDescription(Imf::TileDescription(32, 16, mode, Imf::ROUND_UP));
    for (const auto& spec : kRgbHalf) header.channels().insert(spec.name, Imf::Channel(Imf::HALF));
    const std::string path = dir.file("tiled.exr");
    {
      Imf::TiledOutputFile file(path.c_str(), header);
      for (int ly = 0; ly < file.numYLevels(); ++ly)
        for (int lx = 0; lx < file.numXLevels(); ++lx) {
          if (mode == Imf::MIPMAP_LEVELS && lx != ly) continue;
          const Imath::Box2i window = file.dataWindowForLevel(lx, ly);
          std::vector<ChannelData> data;
          Imf::FrameBuffer frame_buffer;
          fill_frame_buffer(window, kRgbHalf, data, frame_buffer);
          file.setFrameBuffer(frame_buffer);
          file.writeTiles(0, file.numXTiles(lx) - 1, 0, file.numYTiles(ly) - 1, lx, ly);
        }
    }
    auto image = io::read_image(path);
    ASSERT_TRUE(image.ok()) << image.status().message();
    EXPECT_TRUE(image->meta.tiled);
    ASSERT_EQ(image->width, width);
    ASSERT_EQ(image->height, height);
    for (int y = 0; y < height; ++y)
      for (int x = 0; x < width; ++x)
        for (int c = 0; c < 3; ++c) ASSERT_EQ(image->row(y)[x * 3 + c], expected_rgb(x, y, c));
    const bool noted = !image->meta.notes.empty() && image->meta.notes.back().find("level 0") != std::string::npos;
    EXPECT_EQ(noted, mode != Imf::ONE_LEVEL);
    auto probe = io::probe_image(path);
    ASSERT_TRUE(probe.ok());
    EXPECT_TRUE(probe->tiled);
  }
}

TEST(IoExrVariants, LuminanceChromaConvertsToRgb) {
  TempDir dir;
  const int width = 48, height = 32;
  const Imf::Rgba colour(0.6f, 0.3f, 0.1f, 1.0f);
  for (Imf::RgbaChannels channels : {Imf::WRITE_YC, Imf::WRITE_YCA, Imf::WRITE_Y}) {
    const std::string path = dir.file("yc.exr");
    {
      std::vector<Imf::Rgba> pixels(width * height, colour);
      Imf::RgbaOutputFile file(path.c_str(), width, height, channels);
      file.setFrameBuffer(pixels.data(), 1, width);
      file.writePixels(height);
    }
    auto image = io::read_image(path);
    ASSERT_TRUE(image.ok()) << image.status().message();
    ASSERT_EQ(image->channels, channels == Imf::WRITE_YCA ? 4 : 3);
    const float* pixel = image->row(height / 2) + (width / 2) * image->channels;
    if (channels == Imf::WRITE_Y) {
      // Grey: Y (Rec. 709 weights) replicated.
      const float luminance = 0.2126f * 0.6f + 0.7152f * 0.3f + 0.0722f * 0.1f;
      for (int c = 0; c < 3; ++c) EXPECT_NEAR(pixel[c], luminance, 0.002f);
      EXPECT_EQ(image->meta.source_channels, "Y");
    } else {
      EXPECT_NEAR(pixel[0], 0.6f, 0.01f);
      EXPECT_NEAR(pixel[1], 0.3f, 0.01f);
      EXPECT_NEAR(pixel[2], 0.1f, 0.01f);
      EXPECT_NE(image->meta.source_channels.find("RY"), std::string::npos);
      EXPECT_NE(image->meta.notes.back().find("luminance/chroma"), std::string::npos);
    }
  }
}

TEST(IoExrVariants, MultiPartReadsFirstPart) {
  TempDir dir;
  const int width = 20, height = 10;
  const std::string path = dir.file("multi.exr");
  std::vector<Imf::Header> headers(2, Imf::Header(width, height));
  headers[0].setName("beauty");
  headers[0].setType(Imf::SCANLINEIMAGE);
  for (const auto& spec : kRgbHalf) headers[0].channels().insert(spec.name, Imf::Channel(Imf::HALF));
  headers[1].setName("depth");
  headers[1].setType(Imf::SCANLINEIMAGE);
  headers[1].channels().insert("Z", Imf::Channel(Imf::FLOAT));
  {
    Imf::MultiPartOutputFile file(path.c_str(), headers.data(), 2);
    std::vector<ChannelData> data0, data1;
    Imf::FrameBuffer buffer0, buffer1;
    fill_frame_buffer(headers[0].dataWindow(), kRgbHalf, data0, buffer0);
    fill_frame_buffer(headers[1].dataWindow(), {{"Z", Imf::FLOAT}}, data1, buffer1);
    Imf::OutputPart part0(file, 0), part1(file, 1);
    part0.setFrameBuffer(buffer0);
    part0.writePixels(height);
    part1.setFrameBuffer(buffer1);
    part1.writePixels(height);
  }
  auto image = io::read_image(path);
  ASSERT_TRUE(image.ok()) << image.status().message();
  EXPECT_EQ(image->row(3)[5 * 3 + 0], expected_rgb(5, 3, 0));
  bool noted = false;
  for (const auto& note : image->meta.notes) noted |= note.find("multi-part") != std::string::npos;
  EXPECT_TRUE(noted);
}

TEST(IoExrVariants, DataWindowIsReturnedAndNoted) {
  TempDir dir;
  Imf::Header header(Imath::Box2i({0, 0}, {99, 99}), Imath::Box2i({-3, 5}, {36, 24}));
  std::vector<ChannelData> data;
  write_scanline_exr(dir.file("window.exr"), header, kRgbHalf, data);
  auto image = io::read_image(dir.file("window.exr"));
  ASSERT_TRUE(image.ok()) << image.status().message();
  ASSERT_EQ(image->width, 40);
  ASSERT_EQ(image->height, 20);
  // Pixel (0, 0) of the result is absolute pixel (-3, 5).
  EXPECT_EQ(image->row(0)[0], expected_rgb(-3, 5, 0));
  EXPECT_EQ(image->row(19)[39 * 3 + 2], expected_rgb(36, 24, 2));
  ASSERT_FALSE(image->meta.notes.empty());
  EXPECT_NE(image->meta.notes[0].find("data window"), std::string::npos);
}

TEST(IoExrVariants, MissingChannelsAreFilled) {
  TempDir dir;
  std::vector<ChannelData> data;
  write_scanline_exr(dir.file("rg.exr"), Imf::Header(8, 4), {{"G"}, {"R"}}, data);
  auto rg = io::read_image(dir.file("rg.exr"));
  ASSERT_TRUE(rg.ok()) << rg.status().message();
  ASSERT_EQ(rg->channels, 3);
  EXPECT_EQ(rg->pixels[2], 0.0f) << "missing blue reads as 0";

  write_scanline_exr(dir.file("ba.exr"), Imf::Header(8, 4), {{"A"}, {"B"}}, data);
  auto ba = io::read_image(dir.file("ba.exr"));
  ASSERT_TRUE(ba.ok()) << ba.status().message();
  ASSERT_EQ(ba->channels, 4);
  EXPECT_EQ(ba->pixels[0], 0.0f);
  EXPECT_EQ(ba->pixels[2], sample(0, 0, 1));
}

TEST(IoExrVariants, UnusableLayoutsAreUnsupported) {
  TempDir dir;
  std::vector<ChannelData> data;
  write_scanline_exr(dir.file("z.exr"), Imf::Header(8, 4), {{"Z", Imf::FLOAT}}, data);
  auto z = io::read_image(dir.file("z.exr"));
  EXPECT_EQ(z.status().code(), tonekit::StatusCode::unsupported);
  EXPECT_NE(z.status().message().find("channels: Z"), std::string::npos) << z.status().message();

  write_scanline_exr(dir.file("sub.exr"), Imf::Header(8, 4), {{"B", Imf::HALF, 2}, {"G"}, {"R"}}, data);
  auto sub = io::read_image(dir.file("sub.exr"));
  EXPECT_EQ(sub.status().code(), tonekit::StatusCode::unsupported) << sub.status().message();
}

TEST(IoExrVariants, MemoryAndFileReadersAgree) {
  TempDir dir;
  Imf::Header header(33, 21);
  header.compression() = Imf::PIZ_COMPRESSION;
  std::vector<ChannelData> data;
  write_scanline_exr(dir.file("m.exr"), header, kRgbHalf, data);
  std::ifstream in(dir.file("m.exr"), std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), {});
  auto from_memory = io::read_exr_memory("m.exr", reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
  auto from_file = io::read_image(dir.file("m.exr"));
  ASSERT_TRUE(from_memory.ok() && from_file.ok());
  EXPECT_EQ(from_memory->pixels, from_file->pixels);
}
