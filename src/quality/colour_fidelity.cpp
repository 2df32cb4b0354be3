// Colour fidelity of a tone-mapped image to its HDR source, independent of the tone curve: each
// HDR pixel is scaled to the luminance of the output pixel (display-linear, sRGB decoded), so
// the two share their lightness and CIEDE2000 measures only what the operator did to chroma and
// hue (saturation control, channel clipping, colour reconstruction C_out = L_d (C_in / L_w)^s).
#include <algorithm>
#include <cmath>
#include <numbers>
#include <vector>

#include "core/colour.hpp"
#include "quality/planes.hpp"
#include "tonekit/quality.hpp"

namespace tonekit::quality {
namespace {

// Hue is taken as defined where both colours have at least this chroma (C*ab): below it the
// angle of a near-grey is noise.
constexpr double kMinChromaForHue = 5.0;

double luminance709(const double rgb[3]) { return 0.2126 * rgb[0] + 0.7152 * rgb[1] + 0.0722 * rgb[2]; }

}  // namespace

Result<ColourFidelity> colour_fidelity(const Image& hdr, const OutputImage& ldr) {
  if (Status s = check_pair(hdr, ldr); !s.ok()) return s;
  const std::size_t n = static_cast<std::size_t>(hdr.width) * hdr.height;
  std::vector<double> differences;
  differences.reserve(n);
  double hue_sum = 0.0;
  ColourFidelity result;
  for (std::size_t i = 0; i < n; ++i) {
    double source[3], shown[3];
    for (int c = 0; c < 3; ++c) {
      const double v = hdr.pixels[i * hdr.channels + c];
      if (!std::isfinite(v)) return invalid_argument("the HDR image holds NaN or Inf values");
      source[c] = std::max(v, 0.0);
      shown[c] = core::decode_srgb(detail::ldr_code(ldr, i, c) / 255.0);
    }
    const double y_source = luminance709(source), y_shown = luminance709(shown);
    if (y_source <= 0.0) continue;  // black in the source: no chromaticity to keep
    const double scale = y_shown / y_source;
    const Lab want = lab_from_linear_rgb(source[0] * scale, source[1] * scale, source[2] * scale);
    const Lab got = lab_from_linear_rgb(shown[0], shown[1], shown[2]);
    differences.push_back(ciede2000(want, got));
    if (std::hypot(want.a, want.b) >= kMinChromaForHue && std::hypot(got.a, got.b) >= kMinChromaForHue) {
      double dh = std::abs(std::atan2(want.b, want.a) - std::atan2(got.b, got.a)) * 180.0 / std::numbers::pi;
      hue_sum += dh > 180.0 ? 360.0 - dh : dh;
      ++result.chromatic_pixels;
    }
  }
  if (differences.empty()) return result;  // an all-black source: nothing to compare
  double sum = 0.0;
  for (double d : differences) sum += d;
  result.delta_e2000_mean = sum / static_cast<double>(differences.size());
  const std::size_t k = static_cast<std::size_t>(std::ceil(0.95 * static_cast<double>(differences.size()))) - 1;
  std::nth_element(differences.begin(), differences.begin() + static_cast<std::ptrdiff_t>(k), differences.end());
  result.delta_e2000_p95 = differences[k];
  result.hue_shift_mean_deg = result.chromatic_pixels ? hue_sum / static_cast<double>(result.chromatic_pixels) : 0.0;
  return result;
}

Result<QualityReport> assess(const Image& hdr, const OutputImage& ldr) {
  QualityReport report;
  auto t = tmqi(hdr, ldr);
  if (!t.ok()) return t.status();
  report.tmqi = *t;
  auto f = fsitm(hdr, ldr);
  if (!f.ok()) return f.status();
  report.fsitm = *f;
  auto c = colour_fidelity(hdr, ldr);
  if (!c.ok()) return c.status();
  report.colour = *c;
  return report;
}

}  // namespace tonekit::quality
