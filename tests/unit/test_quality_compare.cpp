// End-to-end tests of `tonekit compare` (apps/cmd_compare.cpp): the report holds every operator
// (defaults and auto) and every peer (run for real where installed, else marked missing), failing
// and NaN-producing peers are shown as such, and bad input leaves the previous report untouched.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "tonekit/operators.hpp"
#include "tonekit/tonemap.hpp"
#include "tonekit/synth.hpp"
#include "unit/cli_runner.hpp"
#include "unit/quality_fixtures.hpp"

namespace fs = std::filesystem;
using namespace tonekit;

namespace {

std::string slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

// The JSON object of one cell of scores.json (one per line), or "" when absent.
std::string cell(const std::string& json, const std::string& image, const std::string& method) {
  const std::string key = "{\"image\": \"" + image + "\", \"method\": \"" + method + "\"";
  const std::size_t at = json.find(key);
  return at == std::string::npos ? std::string() : json.substr(at, json.find('\n', at) - at);
}

bool installed(const std::string& probe) { return std::system(("(" + probe + ") > /dev/null 2>&1").c_str()) == 0; }

class CompareCli : public ::testing::Test {
 protected:
  void SetUp() override {
  TONEKIT_SKIP_WITHOUT_FFTW();
    dir_ = test::fresh_test_dir("tonekit_compare_cli");
    ASSERT_EQ(run("synth window-interior room.exr --size 200x170 --bits 32").code, 0);
  }
  void TearDown() override {
    if (!HasFailure()) fs::remove_all(dir_);
  }
  test::CliResult run(const std::string& args) { return test::run_tonekit(dir_, args); }
  // Nothing named report.tmp-* or report.old-* is left beside the report.
  void expect_no_leftovers() {
    for (const auto& e : fs::directory_iterator(dir_))
      EXPECT_EQ(e.path().filename().string().find("report."), std::string::npos) << e.path();
  }
  fs::path dir_;
};

}  // namespace

TEST_F(CompareCli, ReportHoldsEveryOperatorAndPeer) {
  const test::CliResult r = run("compare room.exr --out report --backend cpu --budget 0.3");
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string html = slurp(dir_ / "report" / "index.html");
  const std::string json = slurp(dir_ / "report" / "scores.json");
  EXPECT_NE(html.find("<svg"), std::string::npos);
  EXPECT_NE(html.find("class=\"scores\""), std::string::npos);
  EXPECT_NE(html.find("<script>"), std::string::npos);
  for (const OperatorDesc* op : all_operators()) {
    for (const std::string method : {std::string(op->id), std::string(op->id) + " auto"}) {
      const std::string c = cell(json, "room", method);
      ASSERT_FALSE(c.empty()) << method;
      EXPECT_NE(c.find("\"status\": \"ok\""), std::string::npos) << c;
      EXPECT_NE(c.find("\"tmqi\""), std::string::npos) << c;  // scored
      EXPECT_NE(c.find("\"reversals_percent\""), std::string::npos) << c;  // halos measured around the edges
      EXPECT_NE(c.find("\"command\": \"tonekit map 'inputs/room.pfm'"), std::string::npos) << c;
    }
    EXPECT_TRUE(fs::exists(dir_ / "report" / "images" / "room" / (std::string(op->id) + ".png"))) << op->id;
  }
  // Auto cells carry the chosen values, so the command reproduces the image exactly.
  EXPECT_NE(cell(json, "room", "reinhard auto").find("--set key="), std::string::npos);
  struct PeerFamily {
    const char* method;
    const char* probe;
  };
  for (const PeerFamily& p : {PeerFamily{"pfstmo drago03", "command -v pfsinpfm && command -v pfstmo_drago03"},
                              PeerFamily{"opencv mantiuk", "/usr/bin/python3 -c 'import cv2'"},
                              PeerFamily{"ffmpeg hable", "ffmpeg -hide_banner -filters | grep -q zscale"}}) {
    const std::string c = cell(json, "room", p.method);
    ASSERT_FALSE(c.empty()) << p.method;
    const bool present = installed(p.probe);
    EXPECT_NE(c.find(present ? "\"status\": \"ok\"" : "\"status\": \"missing\""), std::string::npos) << c;
    EXPECT_NE(html.find(p.method), std::string::npos);
  }
  EXPECT_NE(r.out.find("report: "), std::string::npos);
  expect_no_leftovers();
}

TEST_F(CompareCli, FailingAndNanPeersAreShownNotDropped) {
  // A pfstmo_drago03 that fails, and a python whose OpenCV "returns NaN" (exit status 3).
  fs::create_directories(dir_ / "fake");
  std::ofstream(dir_ / "fake" / "pfstmo_drago03") << "#!/bin/sh\necho 'drago03: simulated failure' >&2\nexit 1\n";
  std::ofstream(dir_ / "fake" / "python3") << "#!/bin/sh\ncase \"$2\" in *createTonemap*) exit 3;; esac\nexit 0\n";
  fs::permissions(dir_ / "fake" / "pfstmo_drago03", fs::perms::owner_all);
  fs::permissions(dir_ / "fake" / "python3", fs::perms::owner_all);
  const std::string env = "PATH='" + (dir_ / "fake").string() + "':\"$PATH\" TONEKIT_PYTHON='" +
                          (dir_ / "fake" / "python3").string() + "' ";
  const std::string cmd = "cd '" + dir_.string() + "' && " + env + "'" + TONEKIT_CLI +
                          "' compare room.exr --out report --backend cpu --no-auto > /dev/null 2>&1";
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  const std::string json = slurp(dir_ / "report" / "scores.json");
  if (installed("command -v pfsinpfm && command -v pfsgamma")) {
    const std::string c = cell(json, "room", "pfstmo drago03");
    EXPECT_NE(c.find("\"status\": \"failed\""), std::string::npos) << c;
    EXPECT_NE(c.find("simulated failure"), std::string::npos) << c;
  }
  const std::string cv = cell(json, "room", "opencv drago");
  EXPECT_NE(cv.find("\"status\": \"nan\""), std::string::npos) << cv;
}

TEST_F(CompareCli, SyntheticScenesWithoutPeers) {
  const test::CliResult r = run("compare --synth 170x170 --out report --backend cpu --no-peers --no-auto");
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string json = slurp(dir_ / "report" / "scores.json");
  for (const synth::SceneInfo& s : synth::all_scenes()) {
    EXPECT_FALSE(cell(json, s.id, "reinhard").empty()) << s.id;
    EXPECT_TRUE(cell(json, s.id, "pfstmo drago03").empty()) << s.id;  // --no-peers
    EXPECT_TRUE(cell(json, s.id, "reinhard auto").empty()) << s.id;   // --no-auto
  }
}

TEST_F(CompareCli, BadInputKeepsThePreviousReport) {
  fs::create_directories(dir_ / "report");
  std::ofstream(dir_ / "report" / "marker") << "previous";
  for (const std::string args : {"compare missing.exr --out report", "compare room.exr", "compare --out report",
                                 "compare room.exr --out report --synth 0x5", "compare room.exr --out report --budget 0"}) {
    const test::CliResult r = run(args);
    EXPECT_EQ(r.code, 1) << args << "\n" << r.err;
    EXPECT_EQ(r.err.rfind("tonekit: error: ", 0), 0u) << r.err;
    EXPECT_TRUE(fs::exists(dir_ / "report" / "marker")) << args;
  }
  expect_no_leftovers();
  // A successful run replaces the folder as a whole.
  ASSERT_EQ(run("compare room.exr --out report --backend cpu --no-peers --no-auto").code, 0);
  EXPECT_FALSE(fs::exists(dir_ / "report" / "marker"));
  EXPECT_TRUE(fs::exists(dir_ / "report" / "index.html"));
  expect_no_leftovers();
}

TEST_F(CompareCli, FoldersAreExpandedByContent) {
  fs::create_directories(dir_ / "shots");
  fs::copy_file(dir_ / "room.exr", dir_ / "shots" / "b.exr");
  ASSERT_EQ(run("synth sunset shots/a.pfm --size 170x170").code, 0);
  std::ofstream(dir_ / "shots" / "notes.txt") << "not an image";
  const test::CliResult r = run("compare shots --out report/ --backend cpu --no-peers --no-auto");
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string json = slurp(dir_ / "report" / "scores.json");
  EXPECT_FALSE(cell(json, "a", "drago").empty());
  EXPECT_FALSE(cell(json, "b", "drago").empty());
  EXPECT_EQ(json.find("notes"), std::string::npos);
  fs::create_directories(dir_ / "empty");
  EXPECT_EQ(run("compare empty --out report2").code, 1);
  EXPECT_FALSE(fs::exists(dir_ / "report2"));
}

// --backend cuda: the operators map on the GPU and the "auto" columns search there too (the
// search `map --auto --backend cuda` runs: AutoSelector). Without a GPU the run stops at once
// with a clear error (exit 2) and leaves no report; then the test skips.
TEST_F(CompareCli, AutoColumnsSearchOnTheGpuWithTheCudaBackend) {
  const test::CliResult r = run("compare room.exr --out gpu_report --backend cuda --no-peers --budget 1");
  if (!cuda_available()) {
    EXPECT_EQ(r.code, 2) << r.err;
    EXPECT_NE(r.err.find("cuda"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(dir_ / "gpu_report" / "index.html"));
    GTEST_SKIP() << "no CUDA device (or a build without CUDA): the GPU compare is not run";
  }
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string json = slurp(dir_ / "gpu_report" / "scores.json");
  for (const OperatorDesc* op : all_operators()) {
    const std::string c = cell(json, "room", std::string(op->id) + " auto");
    ASSERT_FALSE(c.empty()) << op->id;
    EXPECT_NE(c.find("\"status\": \"ok\""), std::string::npos) << c;
    EXPECT_NE(c.find("auto: J "), std::string::npos) << c;
    EXPECT_NE(c.find("--backend cuda"), std::string::npos) << c;
  }
}
