// The OpenEXR fast path (src/io/exr_fast_reader.cpp: OpenEXRCore + ISA-L inflate) against the
// OpenEXR C++ library's own reads of the same files, byte for byte: half and float channels,
// alpha or not, extra channels, ZIP (16-line chunks, a partial last one) and ZIPS, data windows
// off the origin, decreasing line order, every 16-bit pattern (NaN, Inf, denormals), one and
// several threads. Files it must leave to the C++ reader (other compressions, tiles, parts,
// uint or missing channels) and damaged ones come back false, never half-read.
#include <gtest/gtest.h>

#include <Imath/half.h>
#include <OpenEXR/ImfChannelList.h>
#include <OpenEXR/ImfFrameBuffer.h>
#include <OpenEXR/ImfHeader.h>
#include <OpenEXR/ImfInputFile.h>
#include <OpenEXR/ImfMultiPartOutputFile.h>
#include <OpenEXR/ImfOutputFile.h>
#include <OpenEXR/ImfOutputPart.h>
#include <OpenEXR/ImfPartType.h>
#include <OpenEXR/ImfThreading.h>
#include <OpenEXR/ImfTiledOutputFile.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "../../src/io/exr_fast_reader.hpp"
#include "tonekit/io.hpp"
#include "unit/test_files.hpp"

namespace fs = std::filesystem;
namespace io = tonekit::io;
using tonekit::PixelType;

namespace {

class TempDir {
 public:
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "tonekit_exr_fast_XXXXXX").string();
    path_ = mkdtemp(pattern.data());
  }
  ~TempDir() { fs::remove_all(path_); }
  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  fs::path path_;
};

struct Channel {
  const char* name;
  Imf::PixelType type;
};

struct Spec {
  int width = 37, height = 41;
  int min_x = 0, min_y = 0;
  Imf::Compression compression = Imf::ZIP_COMPRESSION;
  Imf::LineOrder order = Imf::INCREASING_Y;
  std::vector<Channel> channels = {{"R", Imf::HALF}, {"G", Imf::HALF}, {"B", Imf::HALF}};
  unsigned seed = 1;
  bool smooth = false;  // a gradient (deflates: every chunk compressed) instead of random patterns
};

// Writes a scanline file: half channels hold random 16-bit patterns (NaN, Inf and denormals
// included), float channels random values over many octaves and signs.
void write_file(const std::string& path, const Spec& s) {
  Imf::Header header(s.width, s.height);
  header.dataWindow() = Imath::Box2i({s.min_x, s.min_y}, {s.min_x + s.width - 1, s.min_y + s.height - 1});
  header.displayWindow() = header.dataWindow();
  header.compression() = s.compression;
  header.lineOrder() = s.order;
  for (const Channel& c : s.channels) header.channels().insert(c.name, Imf::Channel(c.type));
  std::mt19937 rng(s.seed);
  const std::size_t n = static_cast<std::size_t>(s.width) * s.height;
  std::vector<std::vector<std::uint32_t>> planes(s.channels.size(), std::vector<std::uint32_t>(n));
  Imf::FrameBuffer fb;
  for (std::size_t c = 0; c < s.channels.size(); ++c) {
    for (auto& v : planes[c]) {
      if (s.smooth) {
        const std::size_t i = static_cast<std::size_t>(&v - planes[c].data());
        const float f = 0.01f * static_cast<float>(i % static_cast<std::size_t>(s.width)) + 0.1f * static_cast<float>(c);
        v = s.channels[c].type == Imf::HALF ? half(f).bits() : 0;
        if (s.channels[c].type != Imf::HALF) std::memcpy(&v, &f, 4);
      } else if (s.channels[c].type == Imf::HALF) {
        v = rng() & 0xFFFFu;
      } else {
        const float f = std::ldexp(static_cast<float>(rng() % 100000) / 1e5f, static_cast<int>(rng() % 60) - 30) *
                        ((rng() & 1) ? -1.0f : 1.0f);
        std::memcpy(&v, &f, 4);
      }
    }
    if (s.channels[c].type == Imf::HALF) {  // halves packed two bytes apart
      auto* h = reinterpret_cast<std::uint16_t*>(planes[c].data());
      for (std::size_t i = 0; i < n; ++i) h[i] = static_cast<std::uint16_t>(planes[c][i]);
    }
    const std::size_t bytes = s.channels[c].type == Imf::HALF ? 2 : 4;
    fb.insert(s.channels[c].name, Imf::Slice::Make(s.channels[c].type, planes[c].data(), header.dataWindow(), bytes,
                                                   bytes * static_cast<std::size_t>(s.width)));
  }
  Imf::OutputFile file(path.c_str(), header);
  file.setFrameBuffer(fb);
  file.writePixels(s.height);
}

// The C++ library's read into the fast path's layout: R, G, B (A) interleaved, absent alpha 1.
std::vector<std::uint8_t> reference(const std::string& path, PixelType type, int channels) {
  Imf::InputFile file(path.c_str());
  const Imath::Box2i window = file.header().dataWindow();
  const int width = window.max.x - window.min.x + 1, height = window.max.y - window.min.y + 1;
  const std::size_t element = type == PixelType::f16 ? 2 : 4;
  std::vector<std::uint8_t> out(static_cast<std::size_t>(width) * height * channels * element);
  Imf::FrameBuffer fb;
  const char* names[4] = {"R", "G", "B", "A"};
  for (int c = 0; c < channels; ++c)
    fb.insert(names[c], Imf::Slice::Make(type == PixelType::f16 ? Imf::HALF : Imf::FLOAT, out.data() + c * element, window,
                                         element * channels, element * channels * width, 1, 1, c == 3 ? 1.0 : 0.0));
  file.setFrameBuffer(fb);
  file.readPixels(window.min.y, window.max.y);
  return out;
}

bool fast(const std::string& path, PixelType type, int width, int height, int channels, std::vector<std::uint8_t>& out) {
  const std::string bytes = tonekit::test::slurp(path);
  out.assign(static_cast<std::size_t>(width) * height * channels * (type == PixelType::f16 ? 2 : 4), 0xAB);  // poisoned
  return io::read_exr_fast(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size(), type, width, height, channels,
                           out.data());
}

bool has_alpha(const Spec& s) {
  for (const Channel& c : s.channels)
    if (std::strcmp(c.name, "A") == 0) return true;
  return false;
}

std::vector<Spec> accepted_specs() {
  std::vector<Spec> specs;
  Spec s;
  specs.push_back(s);                                  // half RGB, ZIP, a partial last chunk
  s.compression = Imf::ZIPS_COMPRESSION, s.seed = 2;  // one line a chunk
  specs.push_back(s);
  s = Spec{};
  s.channels = {{"A", Imf::HALF}, {"B", Imf::HALF}, {"G", Imf::HALF}, {"R", Imf::HALF}}, s.seed = 3;
  specs.push_back(s);  // half RGBA: the layout OpenEXRCore 3.1.5's own unpacker gets wrong
  s.min_x = -5, s.min_y = 7, s.order = Imf::DECREASING_Y, s.seed = 4;
  specs.push_back(s);
  s = Spec{};
  s.channels = {{"R", Imf::FLOAT}, {"G", Imf::FLOAT}, {"B", Imf::FLOAT}}, s.width = 64, s.height = 17, s.seed = 5;
  specs.push_back(s);
  s.channels = {{"R", Imf::HALF}, {"G", Imf::FLOAT}, {"B", Imf::HALF}, {"A", Imf::FLOAT}, {"Z", Imf::FLOAT}}, s.seed = 6;
  specs.push_back(s);  // mixed types and a channel the output ignores
  s = Spec{};
  s.width = s.height = 1, s.seed = 7;
  specs.push_back(s);
  s = Spec{};
  s.width = 1021, s.height = 333, s.seed = 8;  // many chunks, for several threads
  s.channels = {{"B", Imf::HALF}, {"G", Imf::HALF}, {"R", Imf::HALF}, {"A", Imf::HALF}, {"depth", Imf::HALF}};
  specs.push_back(s);
  // Small deflated chunks around the predictor's 16-byte vectors (isal_undo_zip): one chunk of
  // 9 lines of 1, 3, 5 and 6 pixels (54, 162, 270 and 324 bytes: three vectors and a tail, ...).
  for (int width : {1, 3, 5, 6}) {
    s = Spec{};
    s.width = width, s.height = 9, s.smooth = true, s.seed = 20 + width;
    specs.push_back(s);
  }
  return specs;
}

class ExrFast : public ::testing::TestWithParam<int> {
 protected:
  void SetUp() override {
    saved_threads_ = Imf::globalThreadCount();
    Imf::setGlobalThreadCount(GetParam());
  }
  void TearDown() override { Imf::setGlobalThreadCount(saved_threads_); }
  int saved_threads_ = 0;
};

TEST_P(ExrFast, SameBytesAsTheOpenExrLibrary) {
  TempDir dir;
  int i = 0;
  for (const Spec& s : accepted_specs()) {
    const std::string path = dir.file("f" + std::to_string(i++) + ".exr");
    write_file(path, s);
    bool all_half = true;
    for (const Channel& c : s.channels) all_half = all_half && c.type == Imf::HALF;
    std::vector<std::uint8_t> got;
    const int channels = has_alpha(s) ? 4 : 3;
    ASSERT_TRUE(fast(path, PixelType::f32, s.width, s.height, channels, got)) << path;
    EXPECT_EQ(got, reference(path, PixelType::f32, channels)) << path << " as float";
    if (all_half) {
      ASSERT_TRUE(fast(path, PixelType::f16, s.width, s.height, 4, got)) << path;
      EXPECT_EQ(got, reference(path, PixelType::f16, 4)) << path << " as half RGBA";
      ASSERT_TRUE(fast(path, PixelType::f16, s.width, s.height, 3, got)) << path;
      EXPECT_EQ(got, reference(path, PixelType::f16, 3)) << path << " as half RGB";
    } else {
      EXPECT_FALSE(fast(path, PixelType::f16, s.width, s.height, 4, got)) << path << ": float channels are not half";
    }
    // The public readers take this path: the same values.
    auto image = io::read_image(path);
    ASSERT_TRUE(image.ok()) << image.status().message();
    const auto want = reference(path, PixelType::f32, channels);
    ASSERT_EQ(image->pixels.size() * 4, want.size());
    EXPECT_EQ(std::memcmp(image->pixels.data(), want.data(), want.size()), 0) << path;
  }
}

INSTANTIATE_TEST_SUITE_P(Threads, ExrFast, ::testing::Values(0, 1, 4));

TEST(ExrFastRefuses, OtherKindsOfFileAndDamagedOnes) {
  TempDir dir;
  std::vector<std::uint8_t> out;
  auto refused = [&](const Spec& s, const std::string& why) {
    const std::string path = dir.file("r.exr");
    write_file(path, s);
    EXPECT_FALSE(fast(path, PixelType::f32, s.width, s.height, 3, out)) << why;
    const auto image = io::read_image(path);  // the C++ reader takes it
    EXPECT_TRUE(image.ok()) << why << ": " << image.status().message();
  };
  Spec s;
  for (Imf::Compression c : {Imf::NO_COMPRESSION, Imf::RLE_COMPRESSION, Imf::PIZ_COMPRESSION, Imf::PXR24_COMPRESSION,
                             Imf::B44_COMPRESSION, Imf::DWAA_COMPRESSION}) {
    s.compression = c;
    refused(s, "compression " + std::to_string(static_cast<int>(c)));
  }
  s = Spec{};
  s.channels = {{"R", Imf::UINT}, {"G", Imf::HALF}, {"B", Imf::HALF}};
  refused(s, "a uint channel");
  s.channels = {{"R", Imf::HALF}, {"G", Imf::HALF}};
  refused(s, "no B");
  s.channels = {{"Y", Imf::HALF}};
  refused(s, "grey");

  // Tiles and two parts.
  {
    Imf::Header header(40, 30);
    header.channels().insert("R", Imf::Channel(Imf::HALF));
    header.channels().insert("G", Imf::Channel(Imf::HALF));
    header.channels().insert("B", Imf::Channel(Imf::HALF));
    header.compression() = Imf::ZIP_COMPRESSION;
    header.setTileDescription(Imf::TileDescription(16, 16));
    std::vector<std::uint16_t> pixels(40 * 30 * 3, 0x3C00);
    Imf::FrameBuffer fb;
    for (int c = 0; c < 3; ++c)
      fb.insert(c == 0 ? "R" : (c == 1 ? "G" : "B"), Imf::Slice(Imf::HALF, reinterpret_cast<char*>(pixels.data() + c), 6, 240));
    {
      Imf::TiledOutputFile file(dir.file("t.exr").c_str(), header);
      file.setFrameBuffer(fb);
      file.writeTiles(0, file.numXTiles() - 1, 0, file.numYTiles() - 1);
    }
    EXPECT_FALSE(fast(dir.file("t.exr"), PixelType::f32, 40, 30, 3, out)) << "tiled";
    Imf::Header a(40, 30), b(40, 30);
    for (Imf::Header* h : {&a, &b}) {
      for (const char* n : {"R", "G", "B"}) h->channels().insert(n, Imf::Channel(Imf::HALF));
      h->compression() = Imf::ZIP_COMPRESSION;
      h->setType(Imf::SCANLINEIMAGE);
    }
    a.setName("one");
    b.setName("two");
    {
      Imf::MultiPartOutputFile file(dir.file("m.exr").c_str(), std::vector<Imf::Header>{a, b}.data(), 2);
      for (int p = 0; p < 2; ++p) {
        Imf::OutputPart part(file, p);
        Imf::FrameBuffer f2;
        for (int c = 0; c < 3; ++c)
          f2.insert(c == 0 ? "R" : (c == 1 ? "G" : "B"), Imf::Slice(Imf::HALF, reinterpret_cast<char*>(pixels.data() + c), 6, 240));
        part.setFrameBuffer(f2);
        part.writePixels(30);
      }
    }
    EXPECT_FALSE(fast(dir.file("m.exr"), PixelType::f32, 40, 30, 3, out)) << "two parts";
  }

  // A size that is not the file's; damaged deflated chunks (the C++ reader refuses them too); a
  // truncated file.
  s = Spec{};
  s.width = 200, s.height = 64, s.smooth = true;
  const std::string good = dir.file("good.exr");
  write_file(good, s);
  EXPECT_FALSE(fast(good, PixelType::f32, 199, 64, 3, out)) << "width not the file's";
  const std::string bytes = tonekit::test::slurp(good);
  out.assign(200 * 64 * 3 * sizeof(float), 0);
  for (std::size_t at : {bytes.size() / 2, bytes.size() - 40}) {
    std::string bad = bytes;
    for (std::size_t k = 0; k < 16; ++k) bad[at + k] = static_cast<char>(bad[at + k] ^ 0x5A);
    EXPECT_FALSE(io::read_exr_fast(reinterpret_cast<const std::uint8_t*>(bad.data()), bad.size(), PixelType::f32, 200, 64,
                                   3, out.data()))
        << "bytes flipped at " << at;
    const std::string path = dir.file("bad.exr");
    std::ofstream(path, std::ios::binary) << bad;
    EXPECT_FALSE(io::read_image(path).ok()) << "bytes flipped at " << at;
  }
  const std::string cut = bytes.substr(0, bytes.size() - 100);
  EXPECT_FALSE(io::read_exr_fast(reinterpret_cast<const std::uint8_t*>(cut.data()), cut.size(), PixelType::f32, 200, 64, 3,
                                 out.data()))
      << "truncated";
}

// The real images of ../shared/hdr that take the fast path read as the library reads them.
TEST(ExrFastRealImages, SameBytesAsTheOpenExrLibrary) {
  SKIP_WITHOUT_SHARED_HDR();
  int taken = 0;
  for (const auto& e : fs::directory_iterator(tonekit::test::shared_hdr())) {
    if (e.path().extension() != ".exr") continue;
    const std::string path = e.path().string();
    int width = 0, height = 0, channels = 3;
    try {
      Imf::InputFile file(path.c_str());
      const Imath::Box2i w = file.header().dataWindow();
      width = w.max.x - w.min.x + 1, height = w.max.y - w.min.y + 1;
      channels = file.header().channels().findChannel("A") ? 4 : 3;
    } catch (...) {
      continue;  // files the library itself refuses are the error tests' business
    }
    std::vector<std::uint8_t> got;
    if (!fast(path, PixelType::f32, width, height, channels, got)) continue;
    ++taken;
    EXPECT_EQ(got, reference(path, PixelType::f32, channels)) << path;
  }
  std::printf("%d real EXRs took the fast path\n", taken);
}

}  // namespace
