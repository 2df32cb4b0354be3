// Raw frames and y4m from stdin or a file. y4m is recognised by its first bytes, so `-` works
// for both; raw frames need --input-format and --size since they carry no header.
#include <cstring>

#include "stream/frame_io.hpp"
#include "stream/sequence_pattern.hpp"

namespace tonekit::stream {
namespace {

constexpr std::string_view kY4mMagic = "YUV4MPEG2 ";

std::string frame_count_text(long long n) { return std::to_string(n) + (n == 1 ? " frame" : " frames"); }

// A truncated frame: what came, what was expected, and that everything before it went out.
Status truncated(const std::string& name, long long index, std::size_t got, std::size_t want) {
  return bad_input(name + ": truncated frame " + std::to_string(index) + " (" + std::to_string(got) + " of " +
                   std::to_string(want) + " bytes); the " + frame_count_text(index) + " before it were written");
}

class RawSource final : public FrameSource {
 public:
  RawSource(std::unique_ptr<InputStream> in, InputFormat format, int width, int height, bool zero_copy)
      : in_(std::move(in)), zero_copy_(zero_copy) {
    info_.kind = "raw";
    info_.format = format;
    info_.width = width;
    info_.height = height;
    bytes_ = frame_bytes(format, width, height);
    if (in_->file_size() >= 0) info_.frame_count = in_->file_size() / static_cast<long long>(bytes_);
  }
  Result<bool> next(Frame& frame) override {
    frame.view = nullptr;
    if (zero_copy_) {
      std::size_t got = 0;
      auto v = in_->view(bytes_, got);
      if (!v.ok()) return v.status();
      if (*v) {
        if (got == 0) return false;
        if (got < bytes_) return truncated(in_->name(), frame.index, got, bytes_);
        frame.view = *v;
        return true;
      }
    }
    frame.bytes.resize(bytes_);
    auto got = in_->read(frame.bytes.data(), bytes_);
    if (!got.ok()) return got.status();
    if (*got == 0) return false;
    if (*got < bytes_) return truncated(in_->name(), frame.index, *got, bytes_);
    return true;
  }
  std::size_t buffer_bytes() const override { return zero_copy_ && in_->file_size() >= 0 ? 0 : bytes_; }

 private:
  std::unique_ptr<InputStream> in_;
  bool zero_copy_ = false;
  std::size_t bytes_ = 0;
};

class Y4mSource final : public FrameSource {
 public:
  Y4mSource(std::unique_ptr<InputStream> in, const Y4mHeader& h, std::size_t header_bytes, bool zero_copy)
      : in_(std::move(in)), header_(h), zero_copy_(zero_copy) {
    info_.kind = "y4m";
    info_.format = InputFormat::yuv420p10;  // 8-bit streams are widened to 10 bits as they are read
    info_.width = h.width;
    info_.height = h.height;
    info_.fps = h.fps;
    if (h.range_known) info_.range = h.range;
    const long long per_frame = static_cast<long long>(h.frame_bytes()) + 6;  // "FRAME\n"
    if (in_->file_size() >= 0) info_.frame_count = (in_->file_size() - static_cast<long long>(header_bytes)) / per_frame;
  }
  Result<bool> next(Frame& frame) override {
    frame.view = nullptr;
    std::string line;
    auto more = in_->read_line(line, 256);
    if (!more.ok()) {
      if (more.status().code() == StatusCode::bad_input)
        return bad_input(in_->name() + ": truncated y4m frame header for frame " + std::to_string(frame.index) +
                         "; the " + frame_count_text(frame.index) + " before it were written");
      return more.status();
    }
    if (!*more) return false;
    if (Status s = check_y4m_frame_line(line, frame.index); !s.ok()) return Status{s.code(), in_->name() + ": " + s.message()};
    const std::size_t want = header_.frame_bytes();
    const std::size_t out_bytes = frame_bytes(InputFormat::yuv420p10, header_.width, header_.height);
    if (zero_copy_ && header_.bit_depth > 8) {
      std::size_t got = 0;
      auto v = in_->view(want, got);
      if (!v.ok()) return v.status();
      if (*v) {
        if (got < want) return truncated(in_->name(), frame.index, got, want);
        frame.view = *v;
        return true;
      }
    }
    frame.bytes.resize(out_bytes);
    if (header_.bit_depth > 8) {
      auto got = in_->read(frame.bytes.data(), want);
      if (!got.ok()) return got.status();
      if (*got < want) return truncated(in_->name(), frame.index, *got, want);
      return true;
    }
    // 8 bits: read into the upper half of the buffer, then widen in place from the front (each
    // 16-bit word lands at or before the byte it came from, so nothing is overwritten unread).
    std::uint8_t* narrow = frame.bytes.data() + (out_bytes - want);
    auto got = in_->read(narrow, want);
    if (!got.ok()) return got.status();
    if (*got < want) return truncated(in_->name(), frame.index, *got, want);
    widen(narrow, want, frame.bytes.data());
    return true;
  }
  std::size_t buffer_bytes() const override {
    if (zero_copy_ && header_.bit_depth > 8 && in_->file_size() >= 0) return 0;  // views into the file
    return frame_bytes(InputFormat::yuv420p10, header_.width, header_.height);
  }

 private:
  // 8-bit codes to 10: limited range keeps its meaning with << 2 (16 -> 64, 235 -> 940); full
  // range scales 0..255 onto 0..1023.
  void widen(const std::uint8_t* src, std::size_t n, std::uint8_t* dst) const {
    const bool full = header_.range_known && header_.range == YuvRange::full;
    for (std::size_t i = 0; i < n; ++i) {
      const unsigned v = src[i];
      const unsigned w = full ? (v * 1023u + 127u) / 255u : v << 2;
      dst[2 * i] = static_cast<std::uint8_t>(w & 0xFF);
      dst[2 * i + 1] = static_cast<std::uint8_t>(w >> 8);
    }
  }

  std::unique_ptr<InputStream> in_;
  Y4mHeader header_;
  bool zero_copy_ = false;
};

}  // namespace

Result<std::unique_ptr<FrameSource>> open_source(const SourceOptions& o, const Cancel* cancel) {
  if (o.path != "-" && is_sequence_pattern(o.path)) return open_sequence_source(o.path, o.start);
  if (o.start) return invalid_argument("--start applies to image sequences (a %d pattern) only");
  auto in = std::make_unique<InputStream>();
  if (Status s = in->open(o.path, cancel); !s.ok()) return s;

  // Sniff the first bytes: a y4m header names itself.
  char head[kY4mMagic.size()];
  auto got = in->read(head, sizeof head);
  if (!got.ok()) return got.status();
  if (*got == sizeof head && std::string_view(head, sizeof head) == kY4mMagic) {
    in->unread(head, *got);
    std::string line;
    auto read = in->read_line(line, 4096);
    if (!read.ok()) return Status{StatusCode::bad_input, in->name() + ": " + read.status().message()};
    auto header = parse_y4m_header(line);
    if (!header.ok()) return Status{header.status().code(), in->name() + ": " + header.status().message()};
    if (o.size && (o.size->first != header->width || o.size->second != header->height))
      return invalid_argument(in->name() + ": --size " + std::to_string(o.size->first) + "x" + std::to_string(o.size->second) +
                              " contradicts the y4m header (" + std::to_string(header->width) + "x" +
                              std::to_string(header->height) + ")");
    if (o.format && *o.format != InputFormat::yuv420p10)
      return invalid_argument(in->name() + ": --input-format " + input_format_name(*o.format) +
                              " contradicts the y4m header (4:2:0 planar)");
    return std::unique_ptr<FrameSource>(std::make_unique<Y4mSource>(std::move(in), *header, line.size() + 1, o.zero_copy));
  }
  in->unread(head, *got);
  if (!o.format || !o.size)
    return invalid_argument(in->name() + ": not a y4m stream, so raw frames: give --input-format "
                            "(p010, yuv420p10, rgb48, gbrpf32, rgba_f16, ...) and --size WxH");
  const auto [w, h] = *o.size;
  if (w < 1 || h < 1 || w > kMaxImageSide || h > kMaxImageSide || std::int64_t{w} * h > kMaxImagePixels)
    return invalid_argument("--size " + std::to_string(w) + "x" + std::to_string(h) + " is out of range");
  return std::unique_ptr<FrameSource>(std::make_unique<RawSource>(std::move(in), *o.format, w, h, o.zero_copy));
}

}  // namespace tonekit::stream
