#include "frame_output.hpp"

#include <cstring>

#include "stream/y4m.hpp"
#include "tonekit/io.hpp"

namespace night_drive {

tonekit::Status FrameOutput::open(const std::string& png_pattern, const std::string& y4m_path, int width, int height,
                                  int fps) {
  png_ = png_pattern;
  y4m_ = y4m_path;
  width_ = width;
  height_ = height;
  if (!png_.empty() && !tonekit::stream::is_sequence_pattern(png_))
    return tonekit::invalid_argument("--png needs a %d pattern, e.g. out/night.%04d.png");
  if (!y4m_.empty()) {
    if (width % 2 || height % 2) return tonekit::invalid_argument("y4m 4:2:0 output needs an even width and height");
    tonekit::stream::ignore_sigpipe();
    out_.set_target(y4m_);
    const std::string h = tonekit::stream::format_y4m_header(width, height, tonekit::stream::Rational{fps, 1}, 8,
                                                             tonekit::YuvRange::limited);
    if (tonekit::Status s = out_.write(h.data(), h.size()); !s.ok()) return s;
  }
  return {};
}

tonekit::Status FrameOutput::write(const std::vector<std::uint8_t>& rgba, int frame_index) {
  const int w = width_, h = height_;
  if (!png_.empty()) {
    tonekit::OutputImage img;
    img.allocate(w, h, 4, tonekit::PixelType::u8);
    for (int y = 0; y < h; ++y)
      std::memcpy(img.bytes.data() + std::size_t(y) * w * 4, rgba.data() + std::size_t(h - 1 - y) * w * 4, std::size_t(w) * 4);
    const auto pattern = tonekit::stream::parse_sequence_pattern(png_);
    if (!pattern.ok()) return pattern.status();
    if (tonekit::Status s = tonekit::io::write_png(pattern->path(frame_index), img); !s.ok()) return s;
  }
  if (!y4m_.empty()) {
    // BT.709 limited-range Y'CbCr of the sRGB-encoded bytes, chroma the mean of each 2x2 block
    // (C420jpeg, as `tonekit stream` writes it).
    yuv_.resize(std::size_t(w) * h * 3 / 2);
    std::uint8_t* Y = yuv_.data();
    std::uint8_t* U = Y + std::size_t(w) * h;
    std::uint8_t* V = U + std::size_t(w / 2) * (h / 2);
    auto px = [&](int x, int y) { return rgba.data() + (std::size_t(h - 1 - y) * w + x) * 4; };
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) {
        const std::uint8_t* p = px(x, y);
        const double l = 0.2126 * p[0] + 0.7152 * p[1] + 0.0722 * p[2];
        Y[std::size_t(y) * w + x] = static_cast<std::uint8_t>(16.0 + 219.0 * l / 255.0 + 0.5);
      }
    for (int y = 0; y < h / 2; ++y)
      for (int x = 0; x < w / 2; ++x) {
        double r = 0, g = 0, b = 0;
        for (int k = 0; k < 4; ++k) {
          const std::uint8_t* p = px(2 * x + (k & 1), 2 * y + (k >> 1));
          r += p[0] / 4.0, g += p[1] / 4.0, b += p[2] / 4.0;
        }
        const double l = 0.2126 * r + 0.7152 * g + 0.0722 * b;
        U[std::size_t(y) * (w / 2) + x] = static_cast<std::uint8_t>(128.0 + 224.0 * (b - l) / 1.8556 / 255.0 + 0.5);
        V[std::size_t(y) * (w / 2) + x] = static_cast<std::uint8_t>(128.0 + 224.0 * (r - l) / 1.5748 / 255.0 + 0.5);
      }
    tonekit::Status s = out_.write("FRAME\n", 6);
    if (s.ok()) s = out_.write(yuv_.data(), yuv_.size());
    if (!s.ok()) return s;
  }
  return {};
}

tonekit::Status FrameOutput::close() { return y4m_.empty() ? tonekit::Status{} : out_.close(); }

}  // namespace night_drive
