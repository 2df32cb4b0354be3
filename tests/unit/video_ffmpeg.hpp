// Runs Debian's ffmpeg (zscale, libzimg) on raw frames for the video conversion tests: the frame is
// written to a temporary file, converted with `-vf <filter>` and read back. Tests GTEST_SKIP with
// the reason when ffmpeg or its zscale filter is missing.
#pragma once
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <unistd.h>
#include <vector>

namespace tonekit::test {

// Empty when usable, else why not.
inline std::string ffmpeg_zscale_missing() {
  static const std::string reason = [] {
    if (std::system("ffmpeg -hide_banner -version > /dev/null 2>&1") != 0)
      return std::string("ffmpeg is not installed (make deps installs it)");
    if (std::system("ffmpeg -hide_banner -h filter=zscale 2>/dev/null | grep -q chromalin") != 0)
      return std::string("this ffmpeg has no zscale filter (libzimg)");
    return std::string();
  }();
  return reason;
}

// ffmpeg -f rawvideo -pix_fmt in_fmt -s WxH -i <input> -vf filter -f rawvideo -pix_fmt out_fmt <output>.
// Returns false (with a test failure naming the command) when ffmpeg fails.
inline bool ffmpeg_convert(const std::vector<std::uint8_t>& input, const char* in_fmt, int w, int h,
                           const std::string& filter, const char* out_fmt, std::vector<std::uint8_t>& output) {
  const std::string base = ::testing::TempDir() + "tonekit_video_" + std::to_string(::getpid()) + "_";
  const std::string in_path = base + "in.raw", out_path = base + "out.raw", log_path = base + "log.txt";
  std::ofstream(in_path, std::ios::binary).write(reinterpret_cast<const char*>(input.data()),
                                                  static_cast<std::streamsize>(input.size()));
  const std::string cmd = "ffmpeg -nostdin -v error -y -f rawvideo -pix_fmt " + std::string(in_fmt) + " -s " +
                          std::to_string(w) + "x" + std::to_string(h) + " -i " + in_path + " -vf '" + filter +
                          "' -f rawvideo -pix_fmt " + out_fmt + " " + out_path + " 2> " + log_path;
  const int rc = std::system(cmd.c_str());
  std::ifstream out(out_path, std::ios::binary);
  output.assign(std::istreambuf_iterator<char>(out), std::istreambuf_iterator<char>());
  std::ifstream log(log_path);
  const std::string log_text((std::istreambuf_iterator<char>(log)), std::istreambuf_iterator<char>());
  std::remove(in_path.c_str());
  std::remove(out_path.c_str());
  std::remove(log_path.c_str());
  EXPECT_EQ(rc, 0) << cmd << "\n" << log_text;
  return rc == 0;
}

}  // namespace tonekit::test
