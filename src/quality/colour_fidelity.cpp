// Colour fidelity of a tone-mapped image to its HDR source, independent of the tone curve: each
// HDR pixel is scaled to the luminance of the output pixel (display-linear, sRGB decoded), so
// the two share their lightness and CIEDE2000 measures only what the operator did to chroma and
// hue (saturation control, channel clipping, colour reconstruction C_out = L_d (C_in / L_w)^s).
#include <algorithm>
#include <array>
#include <limits>
#include <cmath>
#include <numbers>
#include <vector>

#include "core/colour.hpp"
#include "cpu/parallel.hpp"
#include "quality/colour_batch.hpp"
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
  // sRGB decoding of the 256 8-bit codes, once.
  std::array<double, 256> decoded{};
  for (int i = 0; i < 256; ++i) decoded[i] = core::decode_srgb(i / 255.0);
  auto shown_value = [&](std::size_t pixel, int c) {
    return ldr.type == PixelType::u8 ? decoded[ldr.bytes[pixel * ldr.channels + c]]
                                     : core::decode_srgb(detail::ldr_code(ldr, pixel, c) / 255.0);
  };

  // Per row band: the differences of its pixels (NaN where the source is black) and the hue sums.
  const std::size_t n = static_cast<std::size_t>(hdr.width) * hdr.height;
  std::vector<double> differences(n);
  const int bands = cpu::band_count(hdr.height);
  std::vector<double> hue_sums(bands, 0.0);
  std::vector<std::size_t> hue_counts(bands, 0);
  cpu::parallel_rows(hdr.height, [&](int band, int y0, int y1) {
    // Runs of pixels through the vectorised maths (colour_batch.cpp), structure of arrays.
    constexpr int kRun = 256;
    enum { kSrcR, kSrcG, kSrcB, kShownR, kShownG, kShownB, kWantL, kWantA, kWantB, kGotL, kGotA, kGotB, kDe, kShift,
           kCounted, kArrays };
    std::vector<double> buf(static_cast<std::size_t>(kArrays) * kRun);
    auto arr = [&](int which) { return buf.data() + static_cast<std::size_t>(which) * kRun; };
    bool valid[kRun];
    const std::size_t end = static_cast<std::size_t>(y1) * hdr.width;
    for (std::size_t i0 = static_cast<std::size_t>(y0) * hdr.width; i0 < end; i0 += kRun) {
      const int n = static_cast<int>(std::min<std::size_t>(kRun, end - i0));
      for (int k = 0; k < n; ++k) {
        double source[3], shown[3];
        for (int c = 0; c < 3; ++c) {
          source[c] = detail::hdr_value(hdr, i0 + k, c);
          shown[c] = shown_value(i0 + k, c);
        }
        const double y_source = luminance709(source), y_shown = luminance709(shown);
        valid[k] = y_source > 0.0;  // black in the source: no chromaticity to keep
        const double scale = valid[k] ? y_shown / y_source : 0.0;
        arr(kSrcR)[k] = source[0] * scale;
        arr(kSrcG)[k] = source[1] * scale;
        arr(kSrcB)[k] = source[2] * scale;
        arr(kShownR)[k] = shown[0];
        arr(kShownG)[k] = shown[1];
        arr(kShownB)[k] = shown[2];
      }
      detail::lab_batch(arr(kSrcR), arr(kSrcG), arr(kSrcB), n, arr(kWantL), arr(kWantA), arr(kWantB));
      detail::lab_batch(arr(kShownR), arr(kShownG), arr(kShownB), n, arr(kGotL), arr(kGotA), arr(kGotB));
      detail::ciede2000_batch(arr(kWantL), arr(kWantA), arr(kWantB), arr(kGotL), arr(kGotA), arr(kGotB), n, arr(kDe));
      detail::hue_shift_batch(arr(kWantA), arr(kWantB), arr(kGotA), arr(kGotB), n, kMinChromaForHue, arr(kShift),
                              arr(kCounted));
      for (int k = 0; k < n; ++k) {
        if (!valid[k]) {
          differences[i0 + k] = std::numeric_limits<double>::quiet_NaN();
          continue;
        }
        differences[i0 + k] = arr(kDe)[k];
        hue_sums[band] += arr(kShift)[k];
        hue_counts[band] += arr(kCounted)[k] != 0.0;
      }
    }
  });
  differences.erase(std::remove_if(differences.begin(), differences.end(), [](double d) { return std::isnan(d); }),
                    differences.end());
  ColourFidelity result;
  double hue_sum = 0.0;
  for (int b = 0; b < bands; ++b) {
    hue_sum += hue_sums[b];
    result.chromatic_pixels += hue_counts[b];
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
