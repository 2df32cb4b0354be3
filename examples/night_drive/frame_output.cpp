#include "frame_output.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>

#include "tonekit/io.hpp"

namespace night_drive {
namespace {

// "out/night.%04d.png" -> prefix, suffix and digits around its one %d or %0Nd field ("%%" is a
// literal '%'), as `tonekit stream` reads sequence patterns.
bool split_pattern(const std::string& text, std::string& prefix, std::string& suffix, int& pad) {
  int fields = 0;
  std::string* side = &prefix;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '%') {
      *side += text[i];
      continue;
    }
    if (i + 1 < text.size() && text[i + 1] == '%') {
      *side += '%';
      ++i;
      continue;
    }
    std::size_t j = i + 1;
    const bool zero = j < text.size() && text[j] == '0';
    pad = 0;
    while (j < text.size() && text[j] >= '0' && text[j] <= '9' && j - i <= 3) pad = pad * 10 + (text[j++] - '0');
    if (j >= text.size() || text[j] != 'd' || (pad > 0 && !zero) || pad > 12 || ++fields > 1) return false;
    side = &suffix;
    i = j;
  }
  return fields == 1;
}

}  // namespace

FrameOutput::~FrameOutput() {
  if (owns_fd_) ::close(fd_);
}

tonekit::Status FrameOutput::open(const std::string& png_pattern, const std::string& y4m_path, int width, int height,
                                  int fps) {
  png_ = png_pattern;
  y4m_ = y4m_path;
  width_ = width;
  height_ = height;
  fps_ = fps;
  if (!png_.empty() && !split_pattern(png_, png_prefix_, png_suffix_, png_pad_))
    return tonekit::invalid_argument("--png needs a %d pattern, e.g. out/night.%04d.png");
  if (!y4m_.empty()) {
    if (width % 2 || height % 2) return tonekit::invalid_argument("y4m 4:2:0 output needs an even width and height");
    std::signal(SIGPIPE, SIG_IGN);  // a closed pipe downstream is an error line, not a killed process
    // C420jpeg: centre-sited chroma, the mean of each 2x2 block (as `tonekit stream` writes it).
    char header[160];
    const int n = std::snprintf(header, sizeof header,
                                "YUV4MPEG2 W%d H%d F%d:1 Ip A1:1 C420jpeg XYSCSS=420JPEG XCOLORRANGE=LIMITED\n", width,
                                height, fps);
    if (tonekit::Status s = write_y4m(header, static_cast<std::size_t>(n)); !s.ok()) return s;
  }
  return {};
}

tonekit::Status FrameOutput::write_y4m(const void* data, std::size_t n) {
  const std::string name = y4m_ == "-" ? "stdout" : y4m_;
  if (fd_ < 0) {
    if (y4m_ == "-") {
      fd_ = STDOUT_FILENO;
    } else {
      fd_ = ::open(y4m_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
      if (fd_ < 0) return tonekit::io_error(name + ": cannot create: " + std::strerror(errno));
      owns_fd_ = true;
    }
  }
  const auto* p = static_cast<const std::uint8_t*>(data);
  while (n > 0) {
    const ssize_t w = ::write(fd_, p, n);
    if (w < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      if (errno == EPIPE) return tonekit::io_error(name + ": the reader closed the pipe");
      return tonekit::io_error(name + ": write failed: " + std::strerror(errno));
    }
    p += w;
    n -= static_cast<std::size_t>(w);
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
    char digits[32];
    std::snprintf(digits, sizeof digits, "%0*d", png_pad_, frame_index);
    if (tonekit::Status s = tonekit::io::write_png(png_prefix_ + digits + png_suffix_, img); !s.ok()) return s;
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
    tonekit::Status s = write_y4m("FRAME\n", 6);
    if (s.ok()) s = write_y4m(yuv_.data(), yuv_.size());
    if (!s.ok()) return s;
  }
  return {};
}

tonekit::Status FrameOutput::close() {
  if (!owns_fd_) return {};
  const int fd = fd_;
  fd_ = -1;
  owns_fd_ = false;
  if (::close(fd) != 0) return tonekit::io_error(y4m_ + ": write failed: " + std::strerror(errno));
  return {};
}

}  // namespace night_drive
