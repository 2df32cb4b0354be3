// The fast PFM and Radiance paths give bit-identical pixels to the readers they replaced:
// PFM read in place from the file (read_pfm_file) against the in-memory reader and a plain
// per-float decode written here; Radiance's tabulated conversion against hashes of the old
// per-pixel double conversion on the real images of ../shared/hdr.
#include <gtest/gtest.h>
#include <unistd.h>

#include <bit>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "../../src/io/readers.hpp"
#include "tonekit/io.hpp"
#include "unit/test_files.hpp"

namespace fs = std::filesystem;
using tonekit::Image;
namespace io = tonekit::io;

namespace {

struct TempDir {
  fs::path path = fs::temp_directory_path() / ("tonekit_fast_readers_" + std::to_string(getpid()));
  TempDir() { fs::create_directories(path); }
  ~TempDir() { fs::remove_all(path); }
};

// FNV-1a over the float bits, in pixel order.
std::uint64_t pixel_hash(const Image& image) {
  std::uint64_t h = 1469598103934665603ull;
  for (float f : image.pixels) {
    const auto bits = std::bit_cast<std::uint32_t>(f);
    for (int i = 0; i < 4; ++i) {
      h ^= (bits >> (8 * i)) & 0xffu;
      h *= 1099511628211ull;
    }
  }
  return h;
}

// A PFM file by hand: `channels` 3 or 1, either byte order, rows bottom-up, `header_pad`
// extra whitespace bytes inside the header, `trailing` bytes after the pixels.
std::string make_pfm(const std::vector<float>& values, int width, int height, int channels, bool little_endian,
                     std::size_t header_pad = 0, std::size_t trailing = 0) {
  std::string out = channels == 3 ? "PF" : "Pf";
  out += std::string(1 + header_pad, '\n');
  out += std::to_string(width) + " " + std::to_string(height) + "\n" + (little_endian ? "-1.0" : "1.0") + "\n";
  const std::size_t row = static_cast<std::size_t>(width) * channels;
  for (int y = height - 1; y >= 0; --y)
    for (std::size_t i = 0; i < row; ++i) {
      auto bits = std::bit_cast<std::uint32_t>(values[static_cast<std::size_t>(y) * row + i]);
      if (little_endian != (std::endian::native == std::endian::little)) bits = __builtin_bswap32(bits);
      char b[4];
      std::memcpy(b, &bits, 4);
      out.append(b, 4);
    }
  return out + std::string(trailing, 'x');
}

// Values that include NaN, infinities, negatives and denormals: the readers pass them through.
std::vector<float> test_values(std::size_t n) {
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = std::bit_cast<float>(static_cast<std::uint32_t>(i * 2654435761u));
  return v;
}

void write_bytes(const fs::path& path, const std::string& bytes) { std::ofstream(path, std::ios::binary) << bytes; }

TEST(IoFastReaders, PfmFromFileMatchesMemoryReaderAndPlainDecode) {
  TempDir dir;
  const int width = 37, height = 23;
  for (int channels : {3, 1})
    for (bool little : {true, false})
      for (std::size_t pad : {std::size_t{0}, std::size_t{70000}})  // 70000: header longer than the 64 KiB prefix
        for (std::size_t trailing : {std::size_t{0}, std::size_t{5}}) {
          const auto values = test_values(static_cast<std::size_t>(width) * height * channels);
          const std::string bytes = make_pfm(values, width, height, channels, little, pad, trailing);
          const fs::path path = dir.path / "v.pfm";
          write_bytes(path, bytes);
          auto from_file = io::read_image(path.string());
          auto from_memory = io::read_pfm_memory(path.string(), reinterpret_cast<const std::uint8_t*>(bytes.data()),
                                                 bytes.size());
          ASSERT_TRUE(from_file.ok()) << from_file.status().message();
          ASSERT_TRUE(from_memory.ok()) << from_memory.status().message();
          ASSERT_EQ(from_file->pixels.size(), static_cast<std::size_t>(width) * height * 3);
          const std::string label = "channels " + std::to_string(channels) + (little ? " LE" : " BE") + " pad " +
                                    std::to_string(pad) + " trailing " + std::to_string(trailing);
          for (int y = 0; y < height; ++y)
            for (int x = 0; x < width; ++x)
              for (int c = 0; c < 3; ++c) {
                const float expected = values[(static_cast<std::size_t>(y) * width + x) * channels + (channels == 3 ? c : 0)];
                const std::size_t i = (static_cast<std::size_t>(y) * width + x) * 3 + c;
                ASSERT_EQ(std::bit_cast<std::uint32_t>(from_file->pixels[i]), std::bit_cast<std::uint32_t>(expected)) << label;
                ASSERT_EQ(std::bit_cast<std::uint32_t>(from_memory->pixels[i]), std::bit_cast<std::uint32_t>(expected)) << label;
              }
          EXPECT_EQ(from_file->meta.notes, from_memory->meta.notes) << label;
        }
}

TEST(IoFastReaders, PfmFromFileKeepsTheMemoryReadersErrors) {
  TempDir dir;
  const auto values = test_values(8 * 4 * 3);
  const std::string whole = make_pfm(values, 8, 4, 3, true);
  for (const std::string& bytes : {whole.substr(0, whole.size() - 1), std::string("PF\n8 4\nabc\n"),
                                   std::string("PF\n0 4\n-1\n"), std::string("PF\n8 4\n0\n")}) {
    const fs::path path = dir.path / "bad.pfm";
    write_bytes(path, bytes);
    auto from_file = io::read_image(path.string());
    auto from_memory = io::read_pfm_memory(path.string(), reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
    ASSERT_FALSE(from_file.ok());
    ASSERT_FALSE(from_memory.ok());
    EXPECT_EQ(from_file.status().message(), from_memory.status().message());
    EXPECT_EQ(from_file.status().code(), from_memory.status().code());
  }
}

TEST(IoFastReaders, PfmRoundTripOfRealImages) {
  SKIP_WITHOUT_SHARED_HDR();
  const fs::path shared = tonekit::test::shared_hdr();
  TempDir dir;
  int checked = 0;
  for (const char* name : {"Desk.exr", "StillLife.exr", "city.hdr", "mpi_atrium_3.hdr"}) {
    if (!fs::exists(shared / name)) continue;
    auto original = io::read_image((shared / name).string());
    ASSERT_TRUE(original.ok()) << original.status().message();
    Image rgb(original->width, original->height, 3);  // PFM holds RGB: alpha dropped
    for (std::size_t p = 0; p < rgb.pixels.size() / 3; ++p)
      for (int c = 0; c < 3; ++c) rgb.pixels[p * 3 + c] = original->pixels[p * original->channels + c];
    const std::string path = (dir.path / "r.pfm").string();
    ASSERT_TRUE(io::write_pfm(path, rgb).ok());
    auto back = io::read_image(path);
    ASSERT_TRUE(back.ok()) << back.status().message();
    EXPECT_EQ(pixel_hash(*back), pixel_hash(rgb)) << name;
    ++checked;
  }
  EXPECT_GT(checked, 0);
}

// Hashes of read_image() on each Radiance file with the per-pixel double conversion this
// branch replaced (commit d9d3eb8's src/io/rgbe_reader.cpp), and each file's size.
TEST(IoFastReaders, RadianceTableGivesTheOldConversionsBits) {
  SKIP_WITHOUT_SHARED_HDR();
  const fs::path shared = tonekit::test::shared_hdr();
  struct Expected {
    const char* file;
    std::uintmax_t bytes;
    std::uint64_t hash;
  };
  const Expected expected[] = {
      {"blouberg_sunrise_2_1k.hdr", 1539084, 0xcf1a159d27295cb9ull}, {"city.hdr", 1540678, 0x66b7528677175950ull},
      {"dawn.hdr", 1475077, 0xcae60de6498b8759ull},                  {"lobby.hdr", 1524050, 0x3919dacbf9ad50fbull},
      {"moonless_golf_1k.hdr", 1672754, 0x062528619afadea2ull},      {"mpi_atrium_3.hdr", 2236327, 0x7a344842064afe6full},
      {"night.hdr", 1745132, 0x3d614e63f07010f9ull},                 {"spruit_sunrise_1k.hdr", 1500948, 0x6b6e626a5b8ce506ull},
      {"warehouse.hdr", 1672140, 0xb67682316d96d50eull},
  };
  int checked = 0;
  for (const Expected& e : expected) {
    const fs::path path = shared / e.file;
    std::error_code ec;
    if (fs::file_size(path, ec) != e.bytes) {
      std::printf("skipped %s: absent or not the manifest's file\n", e.file);
      continue;
    }
    auto image = io::read_image(path.string());
    ASSERT_TRUE(image.ok()) << image.status().message();
    EXPECT_EQ(pixel_hash(*image), e.hash) << e.file;
    ++checked;
  }
  EXPECT_GT(checked, 0);
}

}  // namespace
