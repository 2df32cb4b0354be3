// Where the renderer's tone-mapped frames go: a PNG sequence (out/night.%04d.png) and/or a y4m
// stream ('-' for stdout: pipe into ffmpeg for an MP4). RGBA8 rows as GL stores them (bottom
// row first) in, top row first out.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "tonekit/status.hpp"

namespace night_drive {

class FrameOutput {
 public:
  FrameOutput() = default;
  ~FrameOutput();
  FrameOutput(const FrameOutput&) = delete;
  FrameOutput& operator=(const FrameOutput&) = delete;
  tonekit::Status open(const std::string& png_pattern, const std::string& y4m_path, int width, int height, int fps);
  bool active() const { return !png_.empty() || !y4m_.empty(); }
  // One frame of width x height RGBA8 pixels, bottom row first (glGetTextureImage's order).
  tonekit::Status write(const std::vector<std::uint8_t>& rgba_bottom_up, int frame_index);
  tonekit::Status close();

 private:
  // The y4m bytes, with write(2) (each frame reaches a pipe whole, no stdio buffer); the file is
  // created at the first write.
  tonekit::Status write_y4m(const void* data, std::size_t n);
  std::string png_prefix_, png_suffix_;  // around the frame number of the PNG pattern
  int png_pad_ = 0;                      // its %0Nd digits
  std::string png_, y4m_;
  int width_ = 0, height_ = 0;
  int fps_ = 30;
  int fd_ = -1;
  bool owns_fd_ = false;
  std::vector<std::uint8_t> yuv_;
};

}  // namespace night_drive
