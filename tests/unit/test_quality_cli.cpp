// End-to-end tests of `tonekit quality` (apps/cmd_quality.cpp): the table and the JSON agree with
// the library, PU21 for same-range pairs, and bad input gives exit code 1, one error line and no
// standard output.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "tonekit/io.hpp"
#include "tonekit/quality.hpp"
#include "tonekit/tonemap.hpp"
#include "unit/cli_runner.hpp"
#include "unit/quality_fixtures.hpp"

namespace fs = std::filesystem;
using namespace tonekit;

namespace {

class QualityCli : public ::testing::Test {
 protected:
  void SetUp() override {
  TONEKIT_SKIP_WITHOUT_FFTW();
    dir_ = test::fresh_test_dir("tonekit_quality_cli");
    ASSERT_EQ(run("synth sunset in.exr --size 200x170 --bits 32").code, 0);
    ASSERT_EQ(run("map in.exr out.png --op drago --backend cpu").code, 0);
  }
  void TearDown() override {
    if (!HasFailure()) fs::remove_all(dir_);
  }
  test::CliResult run(const std::string& args) { return test::run_tonekit(dir_, args); }
  void expect_input_error(const std::string& args, const std::string& mention) {
    const test::CliResult r = run(args);
    EXPECT_EQ(r.code, 1) << args << "\n" << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
    EXPECT_EQ(r.err.rfind("tonekit: error: ", 0), 0u) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find(mention), std::string::npos) << "'" << mention << "' not in " << r.err;
  }
  fs::path dir_;
};

// The number after "key": in a one-line JSON object.
double json_value(const std::string& json, const std::string& key) {
  const std::size_t at = json.find("\"" + key + "\": ");
  if (at == std::string::npos) return -1e300;
  return std::stod(json.substr(at + key.size() + 4));
}

}  // namespace

TEST_F(QualityCli, TableAndJsonMatchTheLibrary) {
  auto hdr = io::read_image((dir_ / "in.exr").string());
  auto ldr = io::read_png((dir_ / "out.png").string());
  ASSERT_TRUE(hdr.ok() && ldr.ok());
  auto expected = quality::assess(*hdr, *ldr);
  ASSERT_TRUE(expected.ok());

  const test::CliResult table = run("quality in.exr out.png");
  ASSERT_EQ(table.code, 0) << table.err;
  for (const char* word : {"TMQI", "FSITM", "CIEDE2000", "S per scale"})
    EXPECT_NE(table.out.find(word), std::string::npos) << word << " missing:\n" << table.out;
  char q[32];
  std::snprintf(q, sizeof q, "Q %.4f", expected->tmqi.q);
  EXPECT_NE(table.out.find(q), std::string::npos) << q << " not in\n" << table.out;

  const test::CliResult json = run("quality in.exr out.png --json");
  ASSERT_EQ(json.code, 0) << json.err;
  EXPECT_EQ(json.out.front(), '{');
  EXPECT_NEAR(json_value(json.out, "q"), expected->tmqi.q, 1e-9);
  EXPECT_NEAR(json_value(json.out, "n"), expected->tmqi.n, 1e-9);
  EXPECT_NEAR(json_value(json.out, "mean"), expected->fsitm.mean, 1e-9);
  EXPECT_NEAR(json_value(json.out, "delta_e2000_p95"), expected->colour.delta_e2000_p95, 1e-8);
}

TEST_F(QualityCli, SameRangePairsUsePu21) {
  const test::CliResult hdr = run("quality in.exr in.exr --json");
  ASSERT_EQ(hdr.code, 0) << hdr.err;
  EXPECT_NE(hdr.out.find("\"psnr\": null"), std::string::npos) << hdr.out;  // identical: infinite PSNR
  EXPECT_NEAR(json_value(hdr.out, "ssim"), 1.0, 1e-9);
  ASSERT_EQ(run("map in.exr other.png --op log --backend cpu").code, 0);
  const test::CliResult ldr = run("quality other.png out.png --json");
  ASSERT_EQ(ldr.code, 0) << ldr.err;
  EXPECT_GT(json_value(ldr.out, "psnr"), 0.0);
  EXPECT_LT(json_value(ldr.out, "ssim"), 1.0);
}

TEST_F(QualityCli, BadInputsFailWithOneLine) {
  expect_input_error("quality in.exr missing.png", "missing.png");
  expect_input_error("quality out.png in.exr", "HDR source first");
  ASSERT_EQ(run("synth sunset small.exr --size 160x170").code, 0);
  ASSERT_EQ(run("map small.exr small.png --backend cpu").code, 0);
  expect_input_error("quality small.exr small.png", "161");
  expect_input_error("quality in.exr small.png", "differ in size");
  expect_input_error("quality in.exr", "inputs");
}

TEST_F(QualityCli, MapAutoChoosesAndReports) {
  const test::CliResult r = run("map in.exr auto.png --op drago --set bias=0.6 --auto --backend cpu");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(fs::exists(dir_ / "auto.png"));
  EXPECT_EQ(r.err.rfind("tonekit: auto: in.exr: drago bias=", 0), 0u) << r.err;
  EXPECT_NE(r.err.find("(from 0.6)"), std::string::npos) << r.err;  // --set is the starting point
  ASSERT_EQ(run("synth sunset small.exr --size 160x170").code, 0);
  const test::CliResult small = run("map small.exr small.png --auto --backend cpu");
  EXPECT_EQ(small.code, 1) << small.err;
  EXPECT_NE(small.err.find("161"), std::string::npos) << small.err;
  EXPECT_FALSE(fs::exists(dir_ / "small.png"));
}

// --auto --backend cuda: the search on the GPU (GpuAutoParams), reported as the CPU's is plus
// where it ran. Without a device, one clear error and no output, as for any cuda run; an unknown
// operator is named before any backend starts.
TEST_F(QualityCli, MapAutoOnCuda) {
  const test::CliResult unknown = run("map in.exr x.png --op no-such-op --auto --backend cuda");
  EXPECT_EQ(unknown.code, 1) << unknown.err;
  EXPECT_NE(unknown.err.find("no-such-op"), std::string::npos) << unknown.err;
  const test::CliResult r = run("map in.exr gpu.png --op drago --set bias=0.6 --auto --backend cuda");
  if (!cuda_available()) {
    EXPECT_EQ(r.code, 2) << r.err;
    EXPECT_NE(r.err.find("cuda"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(dir_ / "gpu.png"));
    GTEST_SKIP() << "no CUDA device (or a build without CUDA): the GPU search is not run";
  }
  if (r.code != 0 && r.err.find("cuFFT") != std::string::npos)
    GTEST_SKIP() << "the GPU search needs cuFFT on the library path: " << r.err;
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(fs::exists(dir_ / "gpu.png"));
  EXPECT_EQ(r.err.rfind("tonekit: auto: in.exr: drago bias=", 0), 0u) << r.err;
  EXPECT_NE(r.err.find("(from 0.6)"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(" on cuda ("), std::string::npos) << r.err;
  ASSERT_EQ(run("synth sunset small.exr --size 160x170").code, 0);
  const test::CliResult too_small = run("map small.exr small.png --auto --backend cuda");
  EXPECT_EQ(too_small.code, 1) << too_small.err;
  EXPECT_NE(too_small.err.find("161"), std::string::npos) << too_small.err;
  EXPECT_FALSE(fs::exists(dir_ / "small.png"));
}

// quality --backend cuda: all three metrics on the GPU (GpuQuality), the CPU's JSON within the GPU
// tests' tolerances (tests/gpu/test_gpu_quality.cpp: TMQI 1e-9 relative, FSITM 1e-4, colour
// 1e-9 (1 + value)) plus "backend": "cuda". Without a device, one clear error and no output.
TEST_F(QualityCli, QualityOnCuda) {
  const test::CliResult r = run("quality in.exr out.png --json --backend cuda");
  if (!cuda_available()) {
    EXPECT_EQ(r.code, 2) << r.err;
    EXPECT_NE(r.err.find("cuda"), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
    GTEST_SKIP() << "no CUDA device (or a build without CUDA): the GPU metrics are not run";
  }
  if (r.code != 0 && r.err.find("cuFFT") != std::string::npos)
    GTEST_SKIP() << "FSITM on the GPU needs cuFFT on the library path: " << r.err;
  ASSERT_EQ(r.code, 0) << r.err;
  auto hdr = io::read_image((dir_ / "in.exr").string());
  auto ldr = io::read_png((dir_ / "out.png").string());
  ASSERT_TRUE(hdr.ok() && ldr.ok());
  auto expected = quality::assess(*hdr, *ldr);
  ASSERT_TRUE(expected.ok());
  EXPECT_NE(r.out.find("\"backend\": \"cuda\""), std::string::npos) << r.out;
  EXPECT_NEAR(json_value(r.out, "q"), expected->tmqi.q, 1e-9 * expected->tmqi.q);
  EXPECT_NEAR(json_value(r.out, "mean"), expected->fsitm.mean, 1e-4);
  const quality::ColourFidelity& c = expected->colour;
  EXPECT_NEAR(json_value(r.out, "delta_e2000_mean"), c.delta_e2000_mean, 1e-9 * (1.0 + c.delta_e2000_mean));
  EXPECT_NEAR(json_value(r.out, "delta_e2000_p95"), c.delta_e2000_p95, 1e-9 * (1.0 + c.delta_e2000_p95));
  EXPECT_NEAR(json_value(r.out, "hue_shift_mean_deg"), c.hue_shift_mean_deg, 1e-9 * (1.0 + c.hue_shift_mean_deg));
  const test::CliResult table = run("quality in.exr out.png --backend cuda");
  ASSERT_EQ(table.code, 0) << table.err;
  EXPECT_NE(table.out.find("(CUDA)"), std::string::npos) << table.out;
}

TEST_F(QualityCli, SixteenBitPngsReadOnTheEightBitScale) {
  ASSERT_EQ(run("map in.exr out16.png --op drago --bits 16 --backend cpu").code, 0);
  auto ldr16 = io::read_png((dir_ / "out16.png").string());
  ASSERT_TRUE(ldr16.ok());
  EXPECT_EQ(ldr16->type, PixelType::u16);
  const test::CliResult eight = run("quality in.exr out.png --json"), sixteen = run("quality in.exr out16.png --json");
  ASSERT_EQ(eight.code, 0);
  ASSERT_EQ(sixteen.code, 0) << sixteen.err;
  // The same mapping at 16 bits: m on the 0..255 scale, scores within the 8-bit rounding.
  EXPECT_NEAR(json_value(sixteen.out, "m"), json_value(eight.out, "m"), 1.0);
  EXPECT_NEAR(json_value(sixteen.out, "q"), json_value(eight.out, "q"), 0.01);
}
