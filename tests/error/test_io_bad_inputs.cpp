// Must-fail inputs for the image readers (the OpenImageIO testsuite / Halide error-test idea):
// every file in tests/bad_inputs, made by make_bad_inputs.py, and a few made at test time must
// give a non-ok Status that counts as the user's input error, with a one-line message that
// starts with the path. Also truncations of valid files at many lengths.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "../../src/io/readers.hpp"
#include "tonekit/io.hpp"

namespace fs = std::filesystem;
using tonekit::Image;
using tonekit::Result;
using tonekit::Status;

namespace {

fs::path bad_inputs_dir() { return fs::path(TONEKIT_SOURCE_DIR) / "tests" / "bad_inputs"; }

std::vector<fs::path> bad_input_files() {
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(bad_inputs_dir())) {
    const auto extension = entry.path().extension();
    if (entry.is_regular_file() && extension != ".py" && extension != ".md") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

void expect_input_error(const Status& status, const std::string& path) {
  EXPECT_FALSE(status.ok()) << path;
  EXPECT_TRUE(status.is_input_error()) << path << " -> code " << static_cast<int>(status.code()) << ": "
                                       << status.message();
  EXPECT_EQ(status.message().rfind(path, 0), 0u) << "message does not start with the path: " << status.message();
  EXPECT_EQ(status.message().find('\n'), std::string::npos) << "message spans lines: " << status.message();
}

class TempDir {
 public:
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "tonekit_io_bad_XXXXXX").string();
    path_ = mkdtemp(pattern.data());
  }
  ~TempDir() { fs::remove_all(path_); }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

void write_bytes(const fs::path& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

std::string read_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

Image gradient_image(int width, int height) {
  Image image(width, height, 3);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x)
      for (int c = 0; c < 3; ++c) image.row(y)[x * 3 + c] = static_cast<float>((x * 3 + y * 7 + c) % 50) * 0.37f;
  return image;
}

}  // namespace

TEST(IoBadInputs, FolderHoldsTheExpectedCases) {
  const auto files = bad_input_files();
  EXPECT_GE(files.size(), 30u);
  std::uintmax_t total = 0;
  for (const auto& file : files) total += fs::file_size(file);
  EXPECT_LT(total, 100u * 1024u) << "keep tests/bad_inputs small";
}

TEST(IoBadInputs, EveryFileIsRejectedAsInputError) {
  for (const auto& file : bad_input_files()) {
    const std::string path = file.string();
    SCOPED_TRACE(path);
    auto image = tonekit::io::read_image(path);
    expect_input_error(image.status(), path);
    // The header-only probe may accept a file whose pixel data is broken, but must not crash and
    // must fail the same way when it does fail.
    auto meta = tonekit::io::probe_image(path);
    if (!meta.ok()) expect_input_error(meta.status(), path);
  }
}

TEST(IoBadInputs, MessagesNameTheProblem) {
  const std::map<std::string, std::string> expected = {
      {"empty.exr", "empty file"},
      {"wrong_magic.exr", "not an OpenEXR, Radiance HDR or PFM file"},
      {"wrong_magic.pfm", "not an OpenEXR, Radiance HDR or PFM file"},
      {"huge_dims.exr", "dimensions 2147483647x2147483647 out of range"},
      {"huge_dims.hdr", "dimensions 2147483648x2147483648 out of range"},
      {"huge_dims.pfm", "dimensions 2147483648x1 out of range"},
      {"zero_dims.hdr", "dimensions 0x0 out of range"},
      {"zero_dims.pfm", "dimensions 0x4 out of range"},
      {"negative_dims.pfm", "dimensions -4x4 out of range"},
      {"claims_more.exr", "truncated OpenEXR file"},
      {"claims_more.hdr", "header claims 1000x1000 pixels"},
      {"claims_more.pfm", "truncated PFM pixel data"},
      {"truncated.pfm", "truncated PFM pixel data"},
      {"truncated.hdr", "truncated Radiance pixel data"},
      {"truncated_header.hdr", "truncated Radiance header"},
      {"nonnumeric_scale.pfm", "PFM scale 'abc' is not a number"},
      {"bad_orientation.hdr", "orientation '+Y 8 +X 16' is not supported"},
      {"xyze.hdr", "32-bit_rle_xyze"},
      {"huge_attribute.exr", "attribute 'comments' claims"},
      {"rle_overrun.hdr", "run overruns"},
  };
  for (const auto& [name, fragment] : expected) {
    const std::string path = (bad_inputs_dir() / name).string();
    auto image = tonekit::io::read_image(path);
    ASSERT_FALSE(image.ok()) << path;
    EXPECT_NE(image.status().message().find(fragment), std::string::npos)
        << path << ": expected '" << fragment << "' in: " << image.status().message();
  }
}

TEST(IoBadInputs, UnsupportedOrientationIsUnsupportedNotCorrupt) {
  const std::string path = (bad_inputs_dir() / "bad_orientation.hdr").string();
  EXPECT_EQ(tonekit::io::read_image(path).status().code(), tonekit::StatusCode::unsupported);
}

TEST(IoBadInputs, DirectoryGivenAsFile) {
  TempDir dir;
  const fs::path directory = dir.path() / "looks_like.exr";
  fs::create_directory(directory);
  auto image = tonekit::io::read_image(directory.string());
  expect_input_error(image.status(), directory.string());
  EXPECT_NE(image.status().message().find("directory"), std::string::npos) << image.status().message();
  expect_input_error(tonekit::io::probe_image(directory.string()).status(), directory.string());
}

TEST(IoBadInputs, MissingFile) {
  TempDir dir;
  const std::string path = (dir.path() / "no_such_file.hdr").string();
  expect_input_error(tonekit::io::read_image(path).status(), path);
  expect_input_error(tonekit::io::probe_image(path).status(), path);
}

// Every proper prefix of a valid file must fail as an input error: returning the pixels that
// happen to be complete would hide the damage.
TEST(IoBadInputs, TruncatedValidFilesFailAtEveryLength) {
  TempDir dir;
  const Image image = gradient_image(37, 23);
  struct Case {
    std::string name;
    Status (*write)(const std::string&, const Image&);
  };
  const Case cases[] = {
      {"valid.exr", [](const std::string& p, const Image& i) { return tonekit::io::write_exr(p, i, true); }},
      {"valid.hdr", [](const std::string& p, const Image& i) { return tonekit::io::write_hdr(p, i); }},
      {"valid.pfm", [](const std::string& p, const Image& i) { return tonekit::io::write_pfm(p, i); }},
  };
  for (const auto& test_case : cases) {
    const fs::path valid = dir.path() / test_case.name;
    ASSERT_TRUE(test_case.write(valid.string(), image).ok());
    const std::string bytes = read_bytes(valid);
    ASSERT_TRUE(tonekit::io::read_image(valid.string()).ok()) << valid;
    const fs::path cut = dir.path() / ("cut_" + test_case.name);
    const std::size_t step = std::max<std::size_t>(1, bytes.size() / 97);
    for (std::size_t length = 0; length < bytes.size(); length += step) {
      write_bytes(cut, bytes.substr(0, length));
      SCOPED_TRACE(test_case.name + " cut to " + std::to_string(length) + " of " + std::to_string(bytes.size()));
      expect_input_error(tonekit::io::read_image(cut.string()).status(), cut.string());
    }
  }
}

// Random byte flips in valid files: any result is fine except a crash, a hang or an error that
// is not the input's fault. (The fuzzers in tests/fuzz do this at scale.)
TEST(IoBadInputs, CorruptedValidFilesNeverCrash) {
  TempDir dir;
  const Image image = gradient_image(40, 30);
  ASSERT_TRUE(tonekit::io::write_exr((dir.path() / "v.exr").string(), image, false).ok());
  ASSERT_TRUE(tonekit::io::write_hdr((dir.path() / "v.hdr").string(), image).ok());
  ASSERT_TRUE(tonekit::io::write_pfm((dir.path() / "v.pfm").string(), image).ok());
  std::mt19937 random(12345);
  for (const char* name : {"v.exr", "v.hdr", "v.pfm"}) {
    const std::string bytes = read_bytes(dir.path() / name);
    for (int trial = 0; trial < 200; ++trial) {
      std::string corrupted = bytes;
      const int flips = 1 + trial % 4;
      for (int i = 0; i < flips; ++i)
        corrupted[random() % corrupted.size()] = static_cast<char>(random() & 0xff);
      const auto* data = reinterpret_cast<const std::uint8_t*>(corrupted.data());
      const std::string label = std::string(name) + "#" + std::to_string(trial);
      Result<Image> result = Status();
      switch (tonekit::io::detect_format(data, corrupted.size())) {
        case tonekit::io::FileFormat::exr: result = tonekit::io::read_exr_memory(label, data, corrupted.size()); break;
        case tonekit::io::FileFormat::rgbe: result = tonekit::io::read_rgbe_memory(label, data, corrupted.size()); break;
        case tonekit::io::FileFormat::pfm: result = tonekit::io::read_pfm_memory(label, data, corrupted.size()); break;
        case tonekit::io::FileFormat::unknown: continue;
      }
      if (!result.ok()) {
        EXPECT_TRUE(result.status().is_input_error()) << label << ": " << result.status().message();
        EXPECT_EQ(result.status().message().rfind(label, 0), 0u) << result.status().message();
      } else {
        EXPECT_EQ(result->pixels.size(), static_cast<std::size_t>(result->width) * result->height * result->channels);
      }
    }
  }
}
