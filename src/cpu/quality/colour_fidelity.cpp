// Colour fidelity of a tone-mapped image to its HDR source, independent of the tone curve: each
// HDR pixel is scaled to the luminance of the output pixel (display-linear, sRGB decoded), so
// the two share their lightness and CIEDE2000 measures only what the operator did to chroma and
// hue (saturation control, channel clipping, colour reconstruction C_out = L_d (C_in / L_w)^s).
// The per-pixel maths is quality/colour_maths.hpp (colour_terms), shared with the GPU
// (src/cuda/quality/colour_gpu.cu); here it runs vectorised over runs of pixels (colour_batch.cpp).
#include <algorithm>
#include <limits>
#include <cmath>
#include <vector>

#include "cpu/parallel.hpp"
#include "cpu/quality/colour_batch.hpp"
#include "cpu/quality/planes.hpp"
#include "tonekit/quality.hpp"

namespace tonekit::quality {

Result<ColourFidelity> colour_fidelity(const Image& hdr, const OutputImage& ldr) {
  if (Status s = check_pair(hdr, ldr); !s.ok()) return s;
  // The display-linear value of every code, once (sRGB decoding of the code on the 0..255 scale).
  const std::vector<double> shown_linear = detail::shown_linear_table(ldr.type);

  // Per row band: the differences of its pixels (NaN where the source is black) and the hue sums.
  const std::size_t n = static_cast<std::size_t>(hdr.width) * hdr.height;
  std::vector<double> differences(n);
  const int bands = cpu::band_count(hdr.height);
  std::vector<double> hue_sums(bands, 0.0);
  std::vector<std::size_t> hue_counts(bands, 0);
  cpu::parallel_rows(hdr.height, [&](int band, int y0, int y1) {
    // Runs of pixels through the vectorised maths (colour_batch.cpp), structure of arrays.
    constexpr int kRun = 256;
    enum { kSrcR, kSrcG, kSrcB, kShownR, kShownG, kShownB, kDe, kShift, kCounted, kCompared, kArrays };
    std::vector<double> buf(static_cast<std::size_t>(kArrays) * kRun);
    auto arr = [&](int which) { return buf.data() + static_cast<std::size_t>(which) * kRun; };
    const std::size_t end = static_cast<std::size_t>(y1) * hdr.width;
    for (std::size_t i0 = static_cast<std::size_t>(y0) * hdr.width; i0 < end; i0 += kRun) {
      const int n = static_cast<int>(std::min<std::size_t>(kRun, end - i0));
      for (int k = 0; k < n; ++k)
        for (int c = 0; c < 3; ++c) {
          arr(kSrcR + c)[k] = detail::hdr_value(hdr, i0 + k, c);
          arr(kShownR + c)[k] = shown_linear[detail::ldr_raw_code(ldr, i0 + k, c)];
        }
      detail::colour_terms_batch(arr(kSrcR), arr(kSrcG), arr(kSrcB), arr(kShownR), arr(kShownG), arr(kShownB), n,
                                 arr(kDe), arr(kShift), arr(kCounted), arr(kCompared));
      for (int k = 0; k < n; ++k) {
        if (arr(kCompared)[k] == 0.0) {  // black in the source: no chromaticity to keep
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
