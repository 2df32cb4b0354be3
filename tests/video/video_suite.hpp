// The fixture the `tonekit video` suites share: a folder of the suite's own under the temporary
// directory (made by open_suite in SetUpTestSuite, removed after the suite) and one reason to
// skip every test of the suite (the stub `tonekit video`, a missing ffmpeg ...). Suite: the
// fixture itself (CRTP), so each suite has its own folder and reason.
#pragma once
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "video/video_clip.hpp"

namespace tonekit::test {

template <class Suite>
class VideoSuite : public ::testing::Test {
 protected:
  // Makes TMP/PREFIX_PID when TONEKIT_CLI's `tonekit video` is the real one; false (and skip_
  // says why) otherwise.
  static bool open_suite(const std::string& prefix) {
    skip_ = video_verb_missing(TONEKIT_CLI);
    if (!skip_.empty()) return false;
    dir_ = new fs::path(fs::temp_directory_path() / (prefix + "_" + std::to_string(::getpid())));
    fs::remove_all(*dir_);
    fs::create_directories(*dir_);
    return true;
  }
  static void TearDownTestSuite() {
    if (dir_) fs::remove_all(*dir_);
    delete dir_;
    dir_ = nullptr;
  }
  void SetUp() override {
    if (!skip_.empty()) GTEST_SKIP() << skip_;
  }
  static fs::path dir() { return *dir_; }

  static inline std::string skip_;
  static inline fs::path* dir_ = nullptr;
};

}  // namespace tonekit::test
