// The readers on the real HDR images in ../shared/hdr (listed in its MANIFEST.md; skipped with a
// message when the folder is absent): every image loads with the manifest's dimensions and
// layout, the quirks survive (NaN/Inf, luminance/chroma, tiles, mip levels, EXPOSURE), and our
// Radiance decode agrees with an independent decoder written here and with pfstools.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include <unistd.h>

#include "tonekit/io.hpp"
#include "unit/test_files.hpp"


namespace fs = std::filesystem;
using tonekit::Image;
namespace io = tonekit::io;

namespace {

using tonekit::test::shared_hdr;

struct ManifestEntry {
  std::string file;
  std::string layout;  // "OpenEXR PIZ HALF A,B,G,R tiled", "Radiance RGBE"
  int width = 0;
  int height = 0;
};

// Rows of the manifest's table: | file | format / compression / pixel type / channels | WxH | ...
std::vector<ManifestEntry> read_manifest() {
  std::ifstream in(shared_hdr() / "MANIFEST.md");
  const std::regex row(R"(^\|\s*([^|]+?\.(?:exr|hdr))\s*\|\s*([^|]*?)\s*\|\s*(\d+)x(\d+)\s*\|)");
  std::vector<ManifestEntry> entries;
  std::string line;
  std::smatch match;
  while (std::getline(in, line))
    if (std::regex_search(line, match, row))
      entries.push_back({match[1], match[2], std::stoi(match[3]), std::stoi(match[4])});
  return entries;
}

bool contains(const std::string& text, const std::string& fragment) { return text.find(fragment) != std::string::npos; }

bool any_note_contains(const Image& image, const std::string& fragment) {
  for (const auto& note : image.meta.notes)
    if (contains(note, fragment)) return true;
  return false;
}

Image read_or_fail(const std::string& name) {
  auto image = io::read_image((shared_hdr() / name).string());
  EXPECT_TRUE(image.ok()) << image.status().message();
  return image.ok() ? image.value() : Image();
}

std::string file_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// A second, deliberately plain Radiance decoder (header, new-style RLE or flat scanlines only),
// written from Ward's description in Graphics Gems II rather than from src/io/rgbe_reader.cpp.
Image independent_rgbe_decode(const std::string& bytes) {
  std::size_t pos = 0;
  double exposure = 1.0;
  for (;;) {
    const std::size_t end = bytes.find('\n', pos);
    const std::string line = bytes.substr(pos, end - pos);
    pos = end + 1;
    if (line.empty()) break;
    if (line.rfind("EXPOSURE=", 0) == 0) exposure *= std::atof(line.c_str() + 9);
  }
  const std::size_t end = bytes.find('\n', pos);
  int width = 0, height = 0;
  std::sscanf(bytes.substr(pos, end - pos).c_str(), "-Y %d +X %d", &height, &width);
  pos = end + 1;
  Image image(width, height, 3);
  std::vector<unsigned char> scanline(static_cast<std::size_t>(width) * 4);
  const auto* data = reinterpret_cast<const unsigned char*>(bytes.data());
  for (int y = 0; y < height; ++y) {
    if (data[pos] == 2 && data[pos + 1] == 2) {
      pos += 4;
      for (int c = 0; c < 4; ++c)
        for (int x = 0; x < width;) {
          int count = data[pos++];
          if (count > 128) {
            for (count -= 128; count > 0; --count) scanline[static_cast<std::size_t>(x++) * 4 + c] = data[pos];
            ++pos;
          } else {
            for (; count > 0; --count) scanline[static_cast<std::size_t>(x++) * 4 + c] = data[pos++];
          }
        }
    } else {
      std::copy(data + pos, data + pos + scanline.size(), scanline.begin());
      pos += scanline.size();
    }
    for (int x = 0; x < width; ++x) {
      const unsigned char* p = &scanline[static_cast<std::size_t>(x) * 4];
      for (int c = 0; c < 3; ++c)
        image.row(y)[x * 3 + c] = p[3] == 0 ? 0.0f : static_cast<float>((p[c] + 0.5) * std::ldexp(1.0, p[3] - 136) / exposure);
    }
  }
  return image;
}

std::vector<std::string> radiance_files() {
  std::vector<std::string> files;
  for (const auto& entry : read_manifest())
    if (contains(entry.layout, "Radiance")) files.push_back(entry.file);
  return files;
}

bool have_program(const char* name) {
  return std::system((std::string("command -v ") + name + " >/dev/null 2>&1").c_str()) == 0;
}

}  // namespace

// The folder holds 26 images plus MANIFEST.md; every image must be listed and every listed
// image present, so that the tests below cover all of them.
TEST(IoRealImages, ManifestListsEveryImage) {
  SKIP_WITHOUT_SHARED_HDR();
  const auto entries = read_manifest();
  EXPECT_GE(entries.size(), 26u);
  std::vector<std::string> listed, present;
  for (const auto& entry : entries) listed.push_back(entry.file);
  for (const auto& file : fs::directory_iterator(shared_hdr()))
    if (file.path().extension() == ".exr" || file.path().extension() == ".hdr") present.push_back(file.path().filename());
  std::sort(listed.begin(), listed.end());
  std::sort(present.begin(), present.end());
  EXPECT_EQ(listed, present);
}

TEST(IoRealImages, EveryImageLoadsWithManifestLayout) {
  SKIP_WITHOUT_SHARED_HDR();
  for (const auto& entry : read_manifest()) {
    SCOPED_TRACE(entry.file + " (" + entry.layout + ")");
    const std::string path = (shared_hdr() / entry.file).string();
    auto image = io::read_image(path);
    ASSERT_TRUE(image.ok()) << image.status().message();
    EXPECT_EQ(image->width, entry.width);
    EXPECT_EQ(image->height, entry.height);
    EXPECT_EQ(image->pixels.size(), static_cast<std::size_t>(entry.width) * entry.height * image->channels);
    auto probe = io::probe_image(path);
    ASSERT_TRUE(probe.ok()) << probe.status().message();
    EXPECT_EQ(probe->width, entry.width);
    EXPECT_EQ(probe->height, entry.height);
    EXPECT_EQ(probe->compression, image->meta.compression);
    EXPECT_EQ(probe->tiled, image->meta.tiled);
    if (contains(entry.layout, "OpenEXR")) {
      EXPECT_EQ(image->meta.format, "OpenEXR");
      // "OpenEXR PIZ HALF A,B,G,R tiled": compression, then channels.
      EXPECT_TRUE(contains(entry.layout, "OpenEXR " + image->meta.compression + " ")) << image->meta.compression;
      EXPECT_TRUE(contains(entry.layout, " " + image->meta.source_channels)) << image->meta.source_channels;
      EXPECT_EQ(image->meta.tiled, contains(entry.layout, "tiled"));
      EXPECT_EQ(image->channels, contains(entry.layout, ",A") || contains(entry.layout, "A,") ? 4 : 3);
    } else {
      EXPECT_EQ(image->meta.format, "Radiance RGBE");
      EXPECT_EQ(image->channels, 3);
    }
  }
}

TEST(IoRealImages, NanAndInfinitySurviveReading) {
  SKIP_WITHOUT_SHARED_HDR();
  const Image rings = read_or_fail("BrightRingsNanInf.exr");
  int non_finite_pixels = 0;
  float brightest = 0;
  for (std::size_t i = 0; i < rings.pixels.size(); i += 3) {
    const bool bad = !std::isfinite(rings.pixels[i]) || !std::isfinite(rings.pixels[i + 1]) || !std::isfinite(rings.pixels[i + 2]);
    non_finite_pixels += bad;
    if (!bad) brightest = std::max(brightest, rings.pixels[i]);
  }
  EXPECT_EQ(non_finite_pixels, 12);
  EXPECT_GT(brightest, 1000.0f);

  const Image all_halves = read_or_fail("AllHalfValues.exr");
  bool nan = false, plus_inf = false, minus_inf = false, negative = false, denormal = false;
  for (float v : all_halves.pixels) {
    nan |= std::isnan(v);
    plus_inf |= v == INFINITY;
    minus_inf |= v == -INFINITY;
    negative |= v < 0 && std::isfinite(v);
    denormal |= v > 0 && v < 6.1e-5f;
  }
  EXPECT_TRUE(nan && plus_inf && minus_inf && negative && denormal);
}

TEST(IoRealImages, LuminanceChromaImagesBecomeRgb) {
  SKIP_WITHOUT_SHARED_HDR();
  for (const char* name : {"CrissyField.exr", "MtTamNorth.exr", "StarField.exr"}) {
    SCOPED_TRACE(name);
    const Image image = read_or_fail(name);
    ASSERT_EQ(image.channels, 3);
    EXPECT_TRUE(any_note_contains(image, "luminance/chroma"));
    // Colour is reconstructed: R, G and B differ somewhere.
    bool coloured = false;
    for (std::size_t i = 0; i < image.pixels.size() && !coloured; i += 3)
      coloured = std::fabs(image.pixels[i] - image.pixels[i + 2]) > 0.01f * std::fabs(image.pixels[i]) + 1e-3f;
    EXPECT_TRUE(coloured);
  }
}

TEST(IoRealImages, TiledAndMipMappedImages) {
  SKIP_WITHOUT_SHARED_HDR();
  EXPECT_TRUE(read_or_fail("GoldenGate.exr").meta.tiled);
  for (const char* name : {"KernerEnvLatLong.exr", "StageEnvLatLong.exr"}) {
    const Image image = read_or_fail(name);
    EXPECT_TRUE(image.meta.tiled) << name;
    EXPECT_TRUE(any_note_contains(image, "mip-mapped")) << name;
  }
}

TEST(IoRealImages, PremultipliedAlphaIsKept) {
  SKIP_WITHOUT_SHARED_HDR();
  const Image candle = read_or_fail("CandleGlass.exr");
  ASSERT_EQ(candle.channels, 4);
  bool zero_alpha_with_colour = false;
  for (std::size_t i = 0; i < candle.pixels.size(); i += 4)
    zero_alpha_with_colour |= candle.pixels[i + 3] == 0.0f && candle.pixels[i] > 0.0f;
  EXPECT_TRUE(zero_alpha_with_colour);
}

TEST(IoRealImages, RadianceExposureIsDividedOut) {
  SKIP_WITHOUT_SHARED_HDR();
  const Image atrium = read_or_fail("mpi_atrium_3.hdr");
  EXPECT_NEAR(atrium.meta.exposure, 0.2549, 0.0005);
  EXPECT_TRUE(any_note_contains(atrium, "EXPOSURE"));
  EXPECT_DOUBLE_EQ(read_or_fail("city.hdr").meta.exposure, 1.0);
}

TEST(IoRealImages, RadianceMatchesIndependentDecoder) {
  SKIP_WITHOUT_SHARED_HDR();
  const auto files = radiance_files();
  ASSERT_GE(files.size(), 9u);
  for (const auto& name : files) {
    SCOPED_TRACE(name);
    const Image ours = read_or_fail(name);
    const Image theirs = independent_rgbe_decode(file_bytes(shared_hdr() / name));
    ASSERT_EQ(ours.width, theirs.width);
    ASSERT_EQ(ours.height, theirs.height);
    for (std::size_t i = 0; i < ours.pixels.size(); ++i)
      ASSERT_NEAR(ours.pixels[i], theirs.pixels[i], 1e-6f * std::fabs(theirs.pixels[i])) << "value " << i;
  }
}

// pfstools decodes RGBE as m * 2^(e - 136) / exposure (no + 0.5, see the manifest), so ours is
// larger by half a mantissa step: at most 1/256 of the pixel's largest channel. pfsoutpfm
// passes through XYZ, which adds float rounding (the 1e-4 term).
TEST(IoRealImages, RadianceAgreesWithPfstools) {
  SKIP_WITHOUT_SHARED_HDR();
  if (!have_program("pfsinrgbe") || !have_program("pfsoutpfm"))
    GTEST_SKIP() << "pfstools (pfsinrgbe, pfsoutpfm) not installed";
  const fs::path temp = fs::temp_directory_path() / ("tonekit_pfs_" + std::to_string(::getpid()) + ".pfm");
  for (const auto& name : radiance_files()) {
    SCOPED_TRACE(name);
    const std::string command =
        "pfsinrgbe '" + (shared_hdr() / name).string() + "' | pfsoutpfm '" + temp.string() + "' 2>/dev/null";
    ASSERT_EQ(std::system(command.c_str()), 0) << command;
    const Image ours = read_or_fail(name);
    auto pfs = io::read_image(temp.string());
    ASSERT_TRUE(pfs.ok()) << pfs.status().message();
    ASSERT_EQ(pfs->width, ours.width);
    ASSERT_EQ(pfs->height, ours.height);
    double worst = 0, mean_difference = 0;
    for (std::size_t i = 0; i < ours.pixels.size(); i += 3) {
      const float largest = std::max({ours.pixels[i], ours.pixels[i + 1], ours.pixels[i + 2]});
      if (largest <= 0) continue;
      for (int c = 0; c < 3; ++c) {
        const double difference = (ours.pixels[i + c] - pfs->pixels[i + c]) / largest;
        worst = std::max(worst, std::fabs(difference));
        mean_difference += difference;
      }
    }
    EXPECT_LE(worst, 1.0 / 256 + 1e-4);
    EXPECT_GT(mean_difference, 0.0) << "ours adds half a step, pfstools does not";
  }
  fs::remove(temp);
}
