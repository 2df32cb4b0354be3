// `tonekit video --backend cuda` with NVDEC (FFmpeg's CUDA hwaccel): the decoded P010 surfaces
// go to the device mapper by their device pointers. On the HDR10 test clip (video_clip.hpp) the
// frames must equal those of the same run with software decoding (`--no-nvdec`: the same device
// mapper on the same decoded values, HEVC decoding being exact), and the CPU backend's within the
// GPU tolerance of docs/conventions.md (>= 99.99 % of samples equal, none more than 1 apart).
// Skips with the reason without a GPU, a CUDA build, NVDEC, or ffmpeg with libx265.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "unit/cli_runner.hpp"
#include "video/video_clip.hpp"

namespace fs = std::filesystem;
using namespace tonekit::test;

namespace {

// The output's frames as raw yuv420p (ffmpeg decodes the rawvideo NUT).
Bytes frames_of(const fs::path& dir, const std::string& nut) {
  const std::string raw = nut + ".yuv";
  if (std::system(("cd " + quoted(dir) + " && ffmpeg -nostdin -v error -y -i " + nut + " -f rawvideo -pix_fmt yuv420p " + raw)
                      .c_str()) != 0)
    return {};
  return slurp(dir / raw);
}

TEST(GpuVideo, NvdecFramesMappedOnTheDeviceEqualSoftwareDecode) {
  if (std::system("nvidia-smi -L > /dev/null 2>&1") != 0) GTEST_SKIP() << "no NVIDIA GPU (nvidia-smi -L fails)";
  if (std::string why = video_verb_missing(TONEKIT_CLI); !why.empty()) GTEST_SKIP() << why;
  const fs::path dir = fresh_test_dir("tonekit_gpu_video");
  if (std::string why = make_hdr10_clip(dir); !why.empty()) GTEST_SKIP() << why;

  const CliResult nvdec = run_tonekit(dir, "video hdr10.mkv nvdec.nut --codec rawvideo --backend cuda --summary");
  if (nvdec.code == 2 && nvdec.err.find("no CUDA device") != std::string::npos)
    GTEST_SKIP() << "tonekit has no CUDA backend here: " << nvdec.err;
  ASSERT_EQ(nvdec.code, 0) << nvdec.err;
  if (nvdec.err.find("warning: NVDEC:") != std::string::npos) GTEST_SKIP() << "no NVDEC: " << nvdec.err;
  EXPECT_NE(nvdec.err.find("(NVDEC, frames mapped on the device)"), std::string::npos) << nvdec.err;
  EXPECT_NE(nvdec.err.find("backend cuda"), std::string::npos) << nvdec.err;

  const CliResult soft = run_tonekit(dir, "video hdr10.mkv soft.nut --codec rawvideo --backend cuda --no-nvdec");
  ASSERT_EQ(soft.code, 0) << soft.err;
  const CliResult cpu = run_tonekit(dir, "video hdr10.mkv cpu.nut --codec rawvideo --backend cpu");
  ASSERT_EQ(cpu.code, 0) << cpu.err;
  const Bytes a = frames_of(dir, "nvdec.nut"), b = frames_of(dir, "soft.nut"), c = frames_of(dir, "cpu.nut");
  ASSERT_EQ(a.size(), std::size_t{128 * 72 * 3 / 2 * 12});
  ASSERT_EQ(b.size(), a.size());
  EXPECT_TRUE(a == b) << "NVDEC frames differ from software-decoded frames on the same device mapper";
  ASSERT_EQ(c.size(), a.size());
  std::size_t equal = 0, worst = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const std::size_t d = a[i] > c[i] ? a[i] - c[i] : c[i] - a[i];
    equal += d == 0;
    worst = std::max(worst, d);
  }
  EXPECT_LE(worst, 1u) << "GPU against the CPU reference";
  EXPECT_GE(static_cast<double>(equal) / a.size(), 0.9999);
  fs::remove_all(dir);
}

}  // namespace
