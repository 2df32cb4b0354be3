// End-to-end tests of the tonekit CLI (TONEKIT_CLI): exit codes (0 ok, 1 bad input or usage,
// 2 runtime failure), one-line errors, no partial outputs after failures, every output
// format, batch patterns, and help texts generated from the operator registry.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tonekit/io.hpp"
#include "unit/test_files.hpp"
#include "tonekit/operators.hpp"
#include "tonekit/synth.hpp"
#include "tonekit/tonemap.hpp"

namespace fs = std::filesystem;
using namespace tonekit;

namespace {

using tonekit::test::listing;
using tonekit::test::slurp;

struct RunResult {
  int code = -1;
  std::string out, err;
  int err_lines() const {
    int n = 0;
    for (char c : err) n += c == '\n';
    return n;
  }
};

// Runs of whitespace (line wraps and indents) as single spaces.
std::string squeeze(const std::string& s) {
  std::string out;
  for (char c : s) {
    const bool space = c == ' ' || c == '\n' || c == '\t';
    if (space && !out.empty() && out.back() == ' ') continue;
    out += space ? ' ' : c;
  }
  return out;
}

class Cli : public ::testing::Test {
 protected:
  // One small scene shared by every test, written once by the CLI itself.
  static void SetUpTestSuite() {
    shared_ = fs::temp_directory_path() / ("tonekit_cli_shared_" + std::to_string(getpid()));
    fs::remove_all(shared_);
    fs::create_directories(shared_);
    const std::string cmd = std::string("'") + TONEKIT_CLI + "' synth night-drive '" + (shared_ / "scene.exr").string() +
                            "' --size 96x54 --bits 32";
    ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  }
  static void TearDownTestSuite() { fs::remove_all(shared_); }

  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() / ("tonekit_cli_" + std::to_string(getpid()) + "_" + info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    fs::copy_file(shared_ / "scene.exr", dir_ / "in.exr");
  }
  void TearDown() override {
    if (!HasFailure()) fs::remove_all(dir_);
  }

  // Runs the CLI in the test's folder with `args` (shell syntax).
  RunResult run(const std::string& args) {
    const std::string cmd = "cd '" + dir_.string() + "' && '" + TONEKIT_CLI + "' " + args + " > stdout.txt 2> stderr.txt";
    RunResult r;
    const int status = std::system(cmd.c_str());
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.out = slurp(dir_ / "stdout.txt");
    r.err = slurp(dir_ / "stderr.txt");
    fs::remove(dir_ / "stdout.txt");
    fs::remove(dir_ / "stderr.txt");
    return r;
  }

  // A failed run: the exit code, one "tonekit: error:" line naming `mention`, and the folder
  // unchanged (no output, no temporary left behind).
  // map in.exr to cpu.pfm and gpu.pfm with `args` on each backend, read back (same size).
  void map_on_cpu_and_cuda(const std::string& args, Image& cpu, Image& gpu) {
    ASSERT_EQ(run("map in.exr cpu.pfm --backend cpu" + args).code, 0);
    ASSERT_EQ(run("map in.exr gpu.pfm --backend cuda" + args).code, 0);
    auto c = io::read_image((dir_ / "cpu.pfm").string());
    auto g = io::read_image((dir_ / "gpu.pfm").string());
    ASSERT_TRUE(c.ok() && g.ok());
    ASSERT_EQ(c->pixels.size(), g->pixels.size());
    cpu = std::move(*c);
    gpu = std::move(*g);
  }

  void expect_failure(const std::string& args, int code, const std::string& mention) {
    const auto before = listing(dir_);
    const RunResult r = run(args);
    EXPECT_EQ(r.code, code) << args << "\n" << r.err;
    EXPECT_EQ(r.err_lines(), 1) << args << "\n" << r.err;
    EXPECT_EQ(r.err.rfind("tonekit: error: ", 0), 0u) << r.err;
    EXPECT_NE(r.err.find(mention), std::string::npos) << "'" << mention << "' not in: " << r.err;
    EXPECT_EQ(listing(dir_), before) << args << " left files behind";
  }

  static fs::path shared_;
  fs::path dir_;
};
fs::path Cli::shared_;

}  // namespace

TEST_F(Cli, SynthWritesAFileInfoCanRead) {
  for (const synth::SceneInfo& s : synth::all_scenes()) {
    const std::string out = std::string(s.id) + ".exr";
    ASSERT_EQ(run("synth " + std::string(s.id) + " " + out + " --size 40x30").code, 0) << s.id;
    const RunResult info = run("info " + out);
    EXPECT_EQ(info.code, 0) << info.err;
    EXPECT_NE(info.out.find("40 x 30"), std::string::npos) << info.out;
    EXPECT_NE(info.out.find("OpenEXR"), std::string::npos) << info.out;
    EXPECT_NE(info.out.find("dynamic range"), std::string::npos) << info.out;
    EXPECT_NE(info.out.find("robust peak:"), std::string::npos) << info.out;
    EXPECT_NE(info.out.find("0 NaN, 0 Inf, 0 negative"), std::string::npos) << info.out;
  }
  for (const char* ext : {"hdr", "pfm"}) {
    ASSERT_EQ(run(std::string("synth sunset s.") + ext + " --size 17x9").code, 0) << ext;
    auto img = io::read_image((dir_ / (std::string("s.") + ext)).string());
    ASSERT_TRUE(img.ok()) << img.status().message();
    EXPECT_EQ(img->width, 17);
    EXPECT_EQ(img->height, 9);
  }
  const RunResult list = run("synth --list");
  EXPECT_EQ(list.code, 0);
  for (const synth::SceneInfo& s : synth::all_scenes()) EXPECT_NE(list.out.find(s.id), std::string::npos) << s.id;
}

TEST_F(Cli, SynthRejectsBadRequests) {
  expect_failure("synth no-such-scene x.exr", 1, "no-such-scene");
  expect_failure("synth night-drive x.exr --size 0x10", 1, "out of range");
  expect_failure("synth night-drive x.exr --size 7681x100", 1, "out of range");
  expect_failure("synth night-drive x.exr --size 7680x4321", 1, "out of range");
  expect_failure("synth night-drive x.exr --size 12by4", 1, "WxH");
  expect_failure("synth night-drive x.png", 1, "HDR files");
  expect_failure("synth night-drive", 1, "NAME and OUT");
}

TEST_F(Cli, MapWritesEveryFormat) {
  ASSERT_EQ(run("map in.exr out.png").code, 0);
  ASSERT_EQ(run("map in.exr out16.png --bits 16").code, 0);
  ASSERT_EQ(run("map in.exr out.jpg --op drago").code, 0);
  ASSERT_EQ(run("map in.exr out.exr --op log").code, 0);
  ASSERT_EQ(run("map in.exr out32.exr --bits 32").code, 0);
  ASSERT_EQ(run("map in.exr out.hdr --op linear").code, 0);
  ASSERT_EQ(run("map in.exr out.pfm --op histeq --backend cpu").code, 0);

  const std::string png = slurp(dir_ / "out.png"), png16 = slurp(dir_ / "out16.png");
  ASSERT_GT(png.size(), 33u);
  EXPECT_EQ(png.substr(1, 3), "PNG");
  EXPECT_EQ(static_cast<int>(png[24]), 8) << "IHDR bit depth";
  ASSERT_GT(png16.size(), 33u);
  EXPECT_EQ(static_cast<int>(png16[24]), 16) << "IHDR bit depth";
  const std::string jpg = slurp(dir_ / "out.jpg");
  ASSERT_GT(jpg.size(), 2u);
  EXPECT_EQ(static_cast<unsigned char>(jpg[0]), 0xFF);
  EXPECT_EQ(static_cast<unsigned char>(jpg[1]), 0xD8);
  // HDR outputs hold the tone-mapped linear [0, 1] values.
  for (const char* name : {"out.exr", "out32.exr", "out.hdr", "out.pfm"}) {
    auto img = io::read_image((dir_ / name).string());
    ASSERT_TRUE(img.ok()) << name << ": " << img.status().message();
    EXPECT_EQ(img->width, 96);
    EXPECT_EQ(img->height, 54);
    float lo = 1e30f, hi = -1e30f;
    for (float v : img->pixels) lo = std::min(lo, v), hi = std::max(hi, v);
    EXPECT_GE(lo, 0.0f) << name;
    EXPECT_LE(hi, 1.0f + 1.0f / 128.0f) << name << ": RGBE keeps 8 bits of mantissa";
    EXPECT_GT(hi, 0.5f) << name;
  }
  // Parameters reach the operator: a different key gives a different image.
  ASSERT_EQ(run("map in.exr k.png --set key=0.05").code, 0);
  EXPECT_NE(slurp(dir_ / "k.png"), png);
  EXPECT_EQ(run("map in.exr k2.png --op reinhard --set key=0.05 --set saturation=0.8 --backend auto").code, 0);
}

// `--backend auto` maps a small job (a global operator, no glare or --auto, up to 8 megapixels a
// CPU core, at most 256 files) on the CPU without starting CUDA, and --summary says so; one
// image more, a local operator or glare go to the GPU when one works (else the CPU, unlabelled).
TEST_F(Cli, AutoBackendKeepsSmallJobsOnTheCpu) {
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  const int side = cores <= 32 ? 1024 : 2048;
  const long fit = static_cast<long>(8e6 * cores / (static_cast<double>(side) * side));
  ASSERT_LT(fit + 1, 256) << "the file cap would decide first";
  fs::create_directories(dir_ / "many");
  ASSERT_EQ(run("synth night-drive many/a0.exr --size " + std::to_string(side) + "x" + std::to_string(side)).code, 0);
  for (long i = 1; i < fit; ++i) fs::copy_file(dir_ / "many/a0.exr", dir_ / ("many/a" + std::to_string(i) + ".exr"));
  const std::string small = "cpu: auto, a small job";
  RunResult r = run("map many -o out/{name}.png --summary");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find(small), std::string::npos) << fit << " images of " << side << "^2 on " << cores << " cores: " << r.err;
  fs::copy_file(dir_ / "many/a0.exr", dir_ / "many/b.exr");
  r = run("map many -o out/{name}.png --summary");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err.find(small), std::string::npos) << fit + 1 << " images: " << r.err;
  EXPECT_NE(r.err.find(cuda_available() ? "images/s, cuda)" : "images/s, cpu)"), std::string::npos) << r.err;

  r = run("map in.exr one.png --summary");
  EXPECT_NE(r.err.find(small), std::string::npos) << r.err;
  for (const char* args : {" --op reinhard-sat", " --glare 0.1", " --backend cpu"}) {
    r = run(std::string("map in.exr one.png --summary") + args);
    ASSERT_EQ(r.code, 0) << args << ": " << r.err;
    EXPECT_EQ(r.err.find(small), std::string::npos) << args << ": " << r.err;
  }
}

TEST_F(Cli, MapUsageErrorsExitOneWithOneLine) {
  expect_failure("map in.exr out.png --op nope", 1, "unknown operator 'nope'");
  expect_failure("map in.exr out.png --set nope=1", 1, "no parameter 'nope'");
  expect_failure("map in.exr out.png --set key=5", 1, "out of range");
  expect_failure("map in.exr out.png --set key=abc", 1, "not a number");
  expect_failure("map in.exr out.png --set key", 1, "NAME=VALUE");
  expect_failure("map in.exr out.png --backend gpu", 1, "unknown backend");
  expect_failure("map in.exr out.xyz", 1, "output format");
  expect_failure("map in.exr out.jpg --bits 16", 1, "--bits 16");
  expect_failure("map in.exr out.png --bits 12", 1, "--bits 12");
  expect_failure("map in.exr", 1, "IN and OUT");
  expect_failure("map in.exr a.png b.png", 1, "-o PATTERN");
  expect_failure("map in.exr in.exr", 1, "overwrite");
  expect_failure("map in.exr out.png --no-such-flag", 1, "no-such-flag");
}

TEST_F(Cli, MapBadInputsExitOne) {
  expect_failure("map missing.exr out.png", 1, "missing.exr");
  std::ofstream(dir_ / "garbage.exr", std::ios::binary) << std::string("\x76\x2f\x31\x01 this is not an OpenEXR file at all", 40);
  expect_failure("map garbage.exr out.png", 1, "garbage.exr");
  std::ofstream(dir_ / "empty.hdr", std::ios::binary) << "";
  expect_failure("map empty.hdr out.exr", 1, "empty.hdr");
  expect_failure("info garbage.exr", 1, "garbage.exr");
}

TEST_F(Cli, UnwritableOutputLeavesNothing) {
  std::ofstream(dir_ / "plain.txt") << "a file, not a folder\n";
  const auto before = listing(dir_);
  for (const char* out : {"no/such/folder/out.png", "plain.txt/out.png", "plain.txt/out.exr"}) {
    const RunResult r = run(std::string("map in.exr ") + out);
    EXPECT_NE(r.code, 0) << out;
    EXPECT_EQ(r.code, 2) << out << ": the operating system refused: a runtime failure\n" << r.err;
    EXPECT_EQ(r.err_lines(), 1) << r.err;
    EXPECT_EQ(r.err.rfind("tonekit: error: ", 0), 0u) << r.err;
  }
  EXPECT_EQ(listing(dir_), before);
  EXPECT_FALSE(fs::exists(dir_ / "no"));
}

TEST_F(Cli, CudaBackendWithoutDeviceFailsCleanly) {
  if (cuda_available()) {
    EXPECT_EQ(run("map in.exr out.png --backend cuda").code, 0);
    return;
  }
  expect_failure("map in.exr out.png --backend cuda", 2, "cuda");
}

// A half RGB(A) EXR goes to the GPU as half (io::read_half_rgba; no float widening, two thirds of
// the upload): the PNG keeps the file's channels (RGB stays RGB, RGBA stays RGBA) and agrees with
// the CPU's within one code. Skips the comparison without a GPU.
TEST_F(Cli, CudaBackendKeepsHalfExrsHalf) {
  for (const int channels : {3, 4}) {
    Image image(203, 117, channels);
    for (int y = 0; y < image.height; ++y)
      for (int x = 0; x < image.width; ++x)
        for (int c = 0; c < channels; ++c)
          image.row(y)[x * channels + c] = c == 3 ? 0.25f + 0.5f * float(x) / image.width
                                                  : std::exp2(0.1f * float(x % 97) - 5.0f + 0.05f * float(y) + float(c));
    ASSERT_TRUE(io::write_exr((dir_ / "half.exr").string(), image, true).ok());
    if (!cuda_available()) GTEST_SKIP() << "no CUDA device (or a build without CUDA): the half upload is not run";
    for (const char* op : {"reinhard", "reinhard-sat"}) {
      ASSERT_EQ(run(std::string("map half.exr gpu.png --backend cuda --op ") + op).code, 0) << op;
      ASSERT_EQ(run(std::string("map half.exr cpu.png --backend cpu --op ") + op).code, 0) << op;
      auto gpu = io::read_png((dir_ / "gpu.png").string());
      auto cpu = io::read_png((dir_ / "cpu.png").string());
      ASSERT_TRUE(gpu.ok() && cpu.ok());
      EXPECT_EQ(gpu->channels, channels) << op;
      ASSERT_EQ(gpu->bytes.size(), cpu->bytes.size()) << op;
      int worst = 0;
      for (std::size_t i = 0; i < gpu->bytes.size(); ++i) worst = std::max(worst, std::abs(int(gpu->bytes[i]) - int(cpu->bytes[i])));
      EXPECT_LE(worst, std::string(op) == "reinhard" ? 1 : 2) << op << " with " << channels << " channels";
    }
  }
}

// --devices spreads a batch over GPUs (one mapping thread per device): the files are the
// single-device run's; bad lists are usage errors with no output.
TEST_F(Cli, MapDevices) {
  expect_failure("map in.exr out.png --backend cpu --devices 0", 1, "cuda backend");
  if (!cuda_available()) {
    expect_failure("map in.exr out.png --devices 0", 1, "cuda backend");  // auto resolved to cpu
    return;
  }
  expect_failure("map in.exr out.png --backend cuda --devices 0,0", 1, "listed twice");
  expect_failure("map in.exr out.png --backend cuda --devices 99", 1, "does not exist");
  expect_failure("map in.exr out.png --backend cuda --devices 0,x", 1, "device numbers");
  std::string all = "0";
  for (int d = 1; d < cuda_device_count(); ++d) all += "," + std::to_string(d);
  std::string inputs;
  for (int i = 0; i < 5; ++i) {
    fs::copy_file(dir_ / "in.exr", dir_ / ("f" + std::to_string(i) + ".exr"));
    inputs += " f" + std::to_string(i) + ".exr";
  }
  ASSERT_EQ(run("map" + inputs + " -o one/{name}.png --backend cuda --op reinhard-sat").code, 0);
  const RunResult spread = run("map" + inputs + " -o many/{name}.png --backend cuda --op reinhard-sat --devices " + all);
  ASSERT_EQ(spread.code, 0) << spread.err;
  for (int i = 0; i < 5; ++i) {
    const std::string name = "f" + std::to_string(i) + ".png";
    const std::string a = slurp(dir_ / "one" / name), b = slurp(dir_ / "many" / name);
    EXPECT_FALSE(a.empty()) << name;
    EXPECT_TRUE(a == b) << name << " on devices " << all;
  }
}

// The glare runs on the mapping's backend (apply_glare on Backend::cuda for --backend cuda): without a
// device, one clear error and no output, as for any cuda run; with one, it agrees with the CPU.
TEST_F(Cli, CudaBackendGlare) {
  const std::string args = " --glare 0.5 --glare-radius 0.05 --op linear --set normalize=0 --set exposure=1e-4";
  if (!cuda_available()) {
    expect_failure("map in.exr out.pfm --backend cuda" + args, 2, "cuda");
    return;
  }
  Image cpu, gpu;
  ASSERT_NO_FATAL_FAILURE(map_on_cpu_and_cuda(args, cpu, gpu));
  double worst = 0.0;
  for (std::size_t i = 0; i < cpu.pixels.size(); ++i)
    worst = std::max(worst, std::fabs(static_cast<double>(cpu.pixels[i]) - gpu.pixels[i]));
  EXPECT_LT(worst, 1e-3) << "cuda and cpu glare + linear map differ";
}

// map --night: on changes the picture; a --night-* flag alone switches it on; a fixed adaptation
// at or above the photopic threshold gives the bytes of the plain map (the identity); bad values
// are usage errors with night's own message; with a device, cuda agrees with the cpu.
TEST_F(Cli, NightVision) {
  ASSERT_EQ(run("map in.exr plain.png --backend cpu").code, 0);
  ASSERT_EQ(run("map in.exr night.png --backend cpu --night").code, 0);
  ASSERT_EQ(run("map in.exr blue.png --backend cpu --night-blue-shift 0.5").code, 0);
  ASSERT_EQ(run("map in.exr day.png --backend cpu --night --night-adaptation 10").code, 0);
  const std::string plain = slurp(dir_ / "plain.png");
  EXPECT_NE(slurp(dir_ / "night.png"), plain);
  EXPECT_NE(slurp(dir_ / "blue.png"), plain);
  EXPECT_NE(slurp(dir_ / "blue.png"), slurp(dir_ / "night.png"));
  EXPECT_EQ(slurp(dir_ / "day.png"), plain);
  expect_failure("map in.exr x.png --night-strength 2", 1, "night: parameter 'strength' = 2 is out of range [0, 1]");
  expect_failure("map in.exr x.png --night-acuity abc", 1, "not a number");
  expect_failure("map in.exr x.png --night --night-blur nope", 1, "unknown blur method 'nope'");
  expect_failure("map in.exr x.png --night-scotopic 0.5 --night-photopic 0.1", 1, "must be below photopic");
  if (!cuda_available()) {
    expect_failure("map in.exr out.pfm --backend cuda --night", 2, "cuda");
    return;
  }
  const std::string args = " --night --op linear --set normalize=0 --set exposure=10";
  Image cpu, gpu;
  ASSERT_NO_FATAL_FAILURE(map_on_cpu_and_cuda(args, cpu, gpu));
  for (std::size_t i = 0; i < cpu.pixels.size(); ++i)
    ASSERT_NEAR(gpu.pixels[i], cpu.pixels[i], 1e-4 * std::fabs(cpu.pixels[i]) + 1e-5) << "sample " << i;
}

// tonekit blur --backend: cpu always; cuda without a device is one clear error and no output;
// with one, the CUDA BlurEngine agrees with the CPU (RGB travels as RGBA); a bad name is a usage
// error; auto runs on whichever is there.
TEST_F(Cli, BlurBackends) {
  const std::string args = " --method separable --sigma 2.5";
  ASSERT_EQ(run("blur in.exr cpu.pfm --backend cpu" + args).code, 0);
  expect_failure("blur in.exr x.pfm --backend gpu" + args, 1, "gpu");
  const RunResult automatic = run("blur in.exr auto.pfm" + args);
  ASSERT_EQ(automatic.code, 0) << automatic.err;
  EXPECT_NE(automatic.err.find(cuda_available() ? "on cuda" : "on cpu"), std::string::npos) << automatic.err;
  if (!cuda_available()) {
    expect_failure("blur in.exr x.pfm --backend cuda" + args, 2, "cuda");
    return;
  }
  ASSERT_EQ(run("blur in.exr gpu.pfm --backend cuda" + args).code, 0);
  auto cpu = io::read_image((dir_ / "cpu.pfm").string());
  auto gpu = io::read_image((dir_ / "gpu.pfm").string());
  ASSERT_TRUE(cpu.ok() && gpu.ok());
  ASSERT_EQ(cpu->pixels.size(), gpu->pixels.size());
  double worst = 0.0, top = 0.0;
  for (std::size_t i = 0; i < cpu->pixels.size(); ++i) {
    worst = std::max(worst, std::fabs(static_cast<double>(cpu->pixels[i]) - gpu->pixels[i]));
    top = std::max(top, std::fabs(static_cast<double>(cpu->pixels[i])));
  }
  EXPECT_LE(worst, 1e-5 * top) << "cuda and cpu separable blur differ";
}

TEST_F(Cli, OpsAndHelpComeFromTheRegistry) {
  const RunResult ops = run("ops");
  ASSERT_EQ(ops.code, 0) << ops.err;
  const RunResult help = run("--help");
  ASSERT_EQ(help.code, 0) << help.err;
  const RunResult map_help = run("map --help");
  ASSERT_EQ(map_help.code, 0) << map_help.err;
  for (const OperatorDesc* op : all_operators()) {
    EXPECT_NE(ops.out.find(op->id), std::string::npos) << op->id;
    EXPECT_NE(squeeze(ops.out).find(squeeze(op->citation)), std::string::npos) << op->id;
    EXPECT_NE(help.out.find(op->id), std::string::npos) << op->id;
    EXPECT_NE(map_help.out.find(op->id), std::string::npos) << op->id;
    for (const ParamDesc* p : all_params(*op)) {
      EXPECT_NE(ops.out.find(p->name), std::string::npos) << op->id << "." << p->name;
      EXPECT_NE(map_help.out.find(p->name), std::string::npos) << op->id << "." << p->name;
      EXPECT_NE(squeeze(ops.out).find(squeeze(p->help)), std::string::npos) << op->id << "." << p->name;
    }
  }
  std::string ids;
  for (const OperatorDesc* op : all_operators()) ids += std::string(op->id) + "\n";
  EXPECT_EQ(run("ops --ids").out, ids);
  const RunResult one = run("ops reinhard");
  EXPECT_EQ(one.code, 0);
  EXPECT_NE(one.out.find("Reinhard"), std::string::npos);
  expect_failure("ops nope", 1, "unknown operator");
  expect_failure("", 1, "no command");
  expect_failure("frobnicate", 1, "frobnicate");
}

TEST_F(Cli, BatchModeWithPattern) {
  fs::create_directories(dir_ / "in");
  fs::copy_file(dir_ / "in.exr", dir_ / "in" / "a.exr");
  ASSERT_EQ(run("synth gradient-ramp in/b.hdr --size 30x20").code, 0);
  ASSERT_EQ(run("synth checker-hdr in/c.pfm --size 30x20").code, 0);
  std::ofstream(dir_ / "in" / "notes.txt") << "not an image\n";

  RunResult r = run("map in -o 'out/{name}_{op}.png' --op drago");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err, "") << "no progress bar when stderr is not a terminal";
  EXPECT_TRUE(fs::exists(dir_ / "out" / "a_drago.png"));
  EXPECT_TRUE(fs::exists(dir_ / "out" / "b_drago.png"));
  EXPECT_TRUE(fs::exists(dir_ / "out" / "c_drago.png"));
  EXPECT_EQ(listing(dir_ / "out").size(), 3u);

  r = run("map in/a.exr in/b.hdr -o 'o2/{index}-{name}.jpg'");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(fs::exists(dir_ / "o2" / "0001-a.jpg"));
  EXPECT_TRUE(fs::exists(dir_ / "o2" / "0002-b.jpg"));

  r = run("map in/a.exr in/c.pfm -o 'o5/{name}.{ext}.{op}.exr' --op log");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(fs::exists(dir_ / "o5" / "a.exr.log.exr"));
  EXPECT_TRUE(fs::exists(dir_ / "o5" / "c.pfm.log.exr"));

  fs::create_directories(dir_ / "o3");
  r = run("map in/a.exr -o o3");  // a folder: o3/{name}.png
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(fs::exists(dir_ / "o3" / "a.png"));

  expect_failure("map in -o 'same.png'", 1, "{name}");
  expect_failure("map in -o 'x/{nam}.png'", 1, "{nam}");
  expect_failure("map in -o 'x/{name}.tiff'", 1, "output format");
  fs::create_directories(dir_ / "nothing");
  expect_failure("map nothing -o 'x/{name}.png'", 1, "no .exr");
  expect_failure("map in out.png", 1, "folder");

  // One bad file in a batch: reported, the others still written, exit 1.
  std::ofstream(dir_ / "in" / "d.exr", std::ios::binary) << "garbage";
  r = run("map in -o 'o4/{name}.png'");
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err_lines(), 2) << r.err;  // the failure, then the summary
  EXPECT_NE(r.err.find("d.exr"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("3 written, 1 failed"), std::string::npos) << r.err;
  EXPECT_TRUE(fs::exists(dir_ / "o4" / "a.png"));
  EXPECT_TRUE(fs::exists(dir_ / "o4" / "c.png"));
  EXPECT_FALSE(fs::exists(dir_ / "o4" / "d.png"));
}

TEST_F(Cli, DemoWritesContactSheetAndTimings) {
  fs::create_directories(dir_ / "extra");
  fs::copy_file(dir_ / "in.exr", dir_ / "extra" / "photo.exr");
  const RunResult r = run("demo --out d --size 48x27 --repeat 1 --scenes night-drive,gradient-ramp --images extra");
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string html = slurp(dir_ / "d" / "index.html");
  ASSERT_FALSE(html.empty());
  for (const char* image : {"night-drive", "gradient-ramp", "photo"}) {
    EXPECT_NE(r.out.find(image), std::string::npos) << image;
    EXPECT_NE(html.find(image), std::string::npos) << image;
    for (const OperatorDesc* op : all_operators()) {
      const std::string file = std::string(image) + "_" + op->id + ".png";
      EXPECT_TRUE(fs::exists(dir_ / "d" / file)) << file;
      EXPECT_TRUE(fs::exists(dir_ / "d" / "thumbs" / file)) << file;
      EXPECT_NE(html.find("thumbs/" + file), std::string::npos) << file;
    }
  }
  for (const OperatorDesc* op : all_operators()) EXPECT_NE(r.out.find(op->id), std::string::npos) << op->id;
  EXPECT_NE(html.find("ms</span>"), std::string::npos);
  expect_failure("demo --out d2 --scenes nope", 1, "nope");
  expect_failure("demo --out d2 --images no-such-folder", 1, "no-such-folder");
}

TEST_F(Cli, GlareBrightensAroundLightsAndValidates) {
  // A linear operator without normalisation, so the statistics (which glare raises) do not
  // rescale the result: the glare's added light shows as a larger sum.
  const std::string linear = " --backend cpu --op linear --set normalize=0 --set exposure=1e-4";
  ASSERT_EQ(run("map in.exr plain.pfm" + linear).code, 0);
  ASSERT_EQ(run("map in.exr glare.pfm --glare 0.5 --glare-radius 0.05" + linear).code, 0);
  auto plain = io::read_image((dir_ / "plain.pfm").string());
  auto glare = io::read_image((dir_ / "glare.pfm").string());
  ASSERT_TRUE(plain.ok() && glare.ok());
  double sum_plain = 0, sum_glare = 0;
  for (float v : plain->pixels) sum_plain += v;
  for (float v : glare->pixels) sum_glare += v;
  EXPECT_GT(sum_glare, sum_plain * 1.001) << "glare adds light around the bright sources";
  expect_failure("map in.exr out.png --glare 11", 1, "--glare");
  expect_failure("map in.exr out.png --glare-radius 0.9", 1, "--glare-radius");
}

TEST_F(Cli, BadPixelsAreSanitisedAndReported) {
  Image img(4, 2, 3);
  for (std::size_t i = 0; i < img.pixels.size(); ++i) img.pixels[i] = 0.5f + static_cast<float>(i);
  img.pixels[0] = std::numeric_limits<float>::quiet_NaN();
  img.pixels[4] = std::numeric_limits<float>::infinity();
  img.pixels[8] = -2.0f;
  ASSERT_TRUE(io::write_pfm((dir_ / "bad.pfm").string(), img).ok());
  const RunResult r = run("map bad.pfm out.pfm --backend cpu");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("tonekit: warning: bad.pfm: sanitised 1 NaN, 1 Inf and 1 negative pixels"), std::string::npos) << r.err;
  auto out = io::read_image((dir_ / "out.pfm").string());
  ASSERT_TRUE(out.ok()) << out.status().message();
  for (float v : out->pixels) EXPECT_TRUE(std::isfinite(v) && v >= 0.0f && v <= 1.0f) << v;
}
