#include "stream/y4m.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <vector>

#include "tonekit/image.hpp"

namespace tonekit::stream {
namespace {

bool parse_int(std::string_view t, int& v) {
  if (t.empty() || t.size() > 9) return false;
  auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  return ec == std::errc() && ptr == t.data() + t.size();
}

// "n:d" with n, d >= 0 (0:0 means unknown in y4m).
bool parse_ratio(std::string_view t, int& n, int& d) {
  std::size_t colon = t.find(':');
  return colon != std::string_view::npos && parse_int(t.substr(0, colon), n) && parse_int(t.substr(colon + 1), d);
}

}  // namespace

Result<Rational> parse_rate(std::string_view text) {
  auto bad = [&] {
    return invalid_argument("--fps expects a positive rate such as 30, 29.97 or 30000/1001, got '" + std::string(text) + "'");
  };
  std::size_t sep = text.find_first_of("/:");
  if (sep != std::string_view::npos) {
    int n = 0, d = 0;
    if (!parse_int(text.substr(0, sep), n) || !parse_int(text.substr(sep + 1), d) || n <= 0 || d <= 0) return bad();
    return Rational{n, d};
  }
  double v = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || ptr != text.data() + text.size() || !(v > 0) || v > 1000) return bad();
  // Whole rates stay whole; the NTSC family (29.97, 59.94, 23.976) becomes n*1000/1001.
  if (std::fabs(v - std::round(v)) < 1e-9) return Rational{static_cast<int>(std::round(v)), 1};
  double ntsc = v * 1001.0 / 1000.0;
  if (std::fabs(ntsc - std::round(ntsc)) < 0.01) return Rational{static_cast<int>(std::round(ntsc)) * 1000, 1001};
  return Rational{static_cast<int>(std::round(v * 1000.0)), 1000};
}

std::size_t Y4mHeader::frame_bytes() const {
  const std::size_t sample = bit_depth > 8 ? 2 : 1;
  const std::size_t w = static_cast<std::size_t>(width), h = static_cast<std::size_t>(height);
  const std::size_t cw = (w + 1) / 2, ch = (h + 1) / 2;
  return sample * (w * h + 2 * cw * ch);
}

Result<Y4mHeader> parse_y4m_header(std::string_view line) {
  constexpr std::string_view kMagic = "YUV4MPEG2";
  if (line.substr(0, kMagic.size()) != kMagic)
    return bad_input("not a YUV4MPEG2 stream (the header must start with 'YUV4MPEG2 ')");
  Y4mHeader h;
  bool have_w = false, have_h = false;
  std::size_t pos = kMagic.size();
  while (pos < line.size()) {
    if (line[pos] == ' ') {
      ++pos;
      continue;
    }
    std::size_t end = line.find(' ', pos);
    if (end == std::string_view::npos) end = line.size();
    const std::string_view tag = line.substr(pos, end - pos);
    const std::string_view value = tag.substr(1);
    auto bad_tag = [&](const std::string& why) {
      return bad_input("y4m header: tag '" + std::string(tag) + "': " + why);
    };
    switch (tag[0]) {
      case 'W':
        if (!parse_int(value, h.width) || h.width < 1 || h.width > kMaxImageSide) return bad_tag("width must be 1.." + std::to_string(kMaxImageSide));
        have_w = true;
        break;
      case 'H':
        if (!parse_int(value, h.height) || h.height < 1 || h.height > kMaxImageSide) return bad_tag("height must be 1.." + std::to_string(kMaxImageSide));
        have_h = true;
        break;
      case 'F':
        if (!parse_ratio(value, h.fps.num, h.fps.den) || h.fps.num <= 0 || h.fps.den <= 0)
          return bad_tag("frame rate must be N:D with N, D > 0");
        break;
      case 'A': {
        int n = 0, d = 0;
        if (!parse_ratio(value, n, d)) return bad_tag("pixel aspect must be N:D");
        if (n > 0 && d > 0) h.aspect = {n, d};
        break;
      }
      case 'I':
        if (value == "p" || value == "?") break;
        if (value == "t" || value == "b" || value == "m")
          return bad_input("y4m header: interlaced stream (I" + std::string(value) +
                           "): tonekit stream takes progressive frames only; deinterlace first (e.g. ffmpeg -vf bwdif)");
        return bad_tag("interlacing must be p, t, b, m or ?");
      case 'C':
        if (value == "420" || value == "420jpeg" || value == "420mpeg2" || value == "420paldv") {
          h.bit_depth = 8;
        } else if (value == "420p10") {
          h.bit_depth = 10;
        } else {
          return bad_tag("unsupported chroma layout: tonekit stream reads 4:2:0 at 8 bits (C420, C420jpeg, "
                         "C420mpeg2, C420paldv) or 10 bits (C420p10); convert with ffmpeg -pix_fmt yuv420p10le");
        }
        h.chroma = std::string(value);
        break;
      case 'X':
        if (value == "COLORRANGE=FULL") h.range_known = true, h.range = YuvRange::full;
        else if (value == "COLORRANGE=LIMITED") h.range_known = true, h.range = YuvRange::limited;
        break;
      default:
        return bad_tag("unknown tag (known: W, H, F, I, A, C, X)");
    }
    pos = end;
  }
  if (!have_w || !have_h) return bad_input("y4m header: the W (width) and H (height) tags are required");
  if (std::int64_t{h.width} * h.height > kMaxImagePixels)
    return bad_input("y4m header: " + std::to_string(h.width) + "x" + std::to_string(h.height) + " is too large");
  return h;
}

std::string format_y4m_header(int width, int height, Rational fps, int bit_depth, YuvRange range) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "YUV4MPEG2 W%d H%d F%d:%d Ip A1:1 %s XCOLORRANGE=%s\n", width, height, fps.num,
                fps.den, bit_depth > 8 ? "C420p10 XYSCSS=420P10" : "C420jpeg XYSCSS=420JPEG",
                range == YuvRange::full ? "FULL" : "LIMITED");
  return buf;
}

Status check_y4m_frame_line(std::string_view line, long long frame_index) {
  if (line.substr(0, 5) != "FRAME" || (line.size() > 5 && line[5] != ' '))
    return bad_input("y4m frame " + std::to_string(frame_index) + ": expected a 'FRAME' line, found '" +
                     std::string(line.substr(0, 16)) + "' (corrupt stream or wrong frame size)");
  return {};
}

}  // namespace tonekit::stream
