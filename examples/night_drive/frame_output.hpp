// Where the renderer's tone-mapped frames go: a PNG sequence (out/night.%04d.png) and/or a y4m
// stream ('-' for stdout: pipe into ffmpeg for an MP4). RGBA8 rows as GL stores them (bottom
// row first) in, top row first out.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "stream/fd_io.hpp"
#include "stream/sequence_pattern.hpp"
#include "tonekit/status.hpp"

namespace night_drive {

class FrameOutput {
 public:
  tonekit::Status open(const std::string& png_pattern, const std::string& y4m_path, int width, int height, int fps);
  bool active() const { return !png_.empty() || !y4m_.empty(); }
  // One frame of width x height RGBA8 pixels, bottom row first (glGetTextureImage's order).
  tonekit::Status write(const std::vector<std::uint8_t>& rgba_bottom_up, int frame_index);
  tonekit::Status close();

 private:
  std::string png_, y4m_;
  int width_ = 0, height_ = 0;
  tonekit::stream::OutputStream out_;
  std::vector<std::uint8_t> yuv_;
};

}  // namespace night_drive
