// Radiance RGBE writer: "#?RADIANCE" header, FORMAT=32-bit_rle_rgbe, "-Y H +X W", new-style RLE
// scanlines (flat ones where Radiance allows no RLE: widths below 8 or above 32767), as Radiance's
// fwritecolrs() does.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <new>
#include <string>
#include <vector>

#include "input_checks.hpp"
#include "tonekit/io.hpp"

namespace tonekit::io {
namespace {

constexpr int kMinRleWidth = 8;
constexpr int kMaxRleWidth = 0x7fff;
// A run shorter than this costs more as a run than as part of a literal (Radiance's MINRUN).
constexpr int kMinRun = 4;
constexpr int kMaxRun = 127;
constexpr int kMaxLiteral = 128;

// Float RGB to RGBE with a shared exponent e such that the largest channel lies in
// [2^(e-1), 2^e): mantissa = floor(value * 2^(8 - e)), exact because the scale is a power of
// two. Read back as (m + 0.5) * 2^(e - 8) the error is at most half a step, 1/256 of the
// largest channel. RGBE holds no negatives or NaN (written as 0) and nothing at or above 2^127
// (clamped there).
void encode_pixel(const float* rgb, int channels, std::uint8_t* out) {
  double v[3];
  for (int c = 0; c < 3; ++c) {
    const double x = rgb[channels == 1 ? 0 : c];
    v[c] = (std::isnan(x) || x < 0.0) ? 0.0 : std::min(x, std::ldexp(255.0 / 256.0, 127));
  }
  const double largest = std::max({v[0], v[1], v[2]});
  int exponent = 0;
  std::frexp(largest, &exponent);
  if (largest <= 0.0 || exponent < -127) {
    std::memset(out, 0, 4);
    return;
  }
  const double scale = std::ldexp(1.0, 8 - exponent);
  for (int c = 0; c < 3; ++c) out[c] = static_cast<std::uint8_t>(std::floor(v[c] * scale));
  out[3] = static_cast<std::uint8_t>(exponent + 128);
}

int run_length(const std::uint8_t* component, int x, int width) {
  int length = 1;
  while (x + length < width && length < kMaxRun && component[(x + length) * 4] == component[x * 4]) ++length;
  return length;
}

// One component (every 4th byte from `component`) as runs and literals.
void encode_component(const std::uint8_t* component, int width, std::string& out) {
  int x = 0;
  while (x < width) {
    const int run = run_length(component, x, width);
    if (run >= kMinRun) {
      out += static_cast<char>(128 + run);
      out += static_cast<char>(component[x * 4]);
      x += run;
      continue;
    }
    const int start = x;
    while (x < width && x - start < kMaxLiteral && (x == start || run_length(component, x, width) < kMinRun)) ++x;
    out += static_cast<char>(x - start);
    for (int i = start; i < x; ++i) out += static_cast<char>(component[i * 4]);
  }
}

}  // namespace

Status write_hdr(const std::string& path, const Image& image) {
  if (Status status = check_writable(path, image); !status.ok()) return status;
  try {
    std::string out = "#?RADIANCE\n# Written by tonekit\nFORMAT=32-bit_rle_rgbe\n\n-Y " + std::to_string(image.height) +
                      " +X " + std::to_string(image.width) + "\n";
    const int width = image.width;
    std::vector<std::uint8_t> scanline(static_cast<std::size_t>(width) * 4);
    const bool rle = width >= kMinRleWidth && width <= kMaxRleWidth;
    for (int y = 0; y < image.height; ++y) {
      const float* row = image.row(y);
      for (int x = 0; x < width; ++x) encode_pixel(row + x * image.channels, image.channels, &scanline[x * 4]);
      if (!rle) {
        out.append(reinterpret_cast<const char*>(scanline.data()), scanline.size());
        continue;
      }
      out += '\x02';
      out += '\x02';
      out += static_cast<char>(width >> 8);
      out += static_cast<char>(width & 0xff);
      for (int component = 0; component < 4; ++component) encode_component(scanline.data() + component, width, out);
    }
    return write_file_atomically(path, out);
  } catch (const std::bad_alloc&) {
    return Status(StatusCode::out_of_memory, path + ": out of memory while encoding Radiance HDR");
  }
}

}  // namespace tonekit::io
