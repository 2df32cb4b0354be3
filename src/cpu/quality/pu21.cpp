// PU21 (Mantiuk & Azimi, PCS 2021): a perceptually uniform encoding of absolute luminance that
// lets SDR metrics (PSNR, SSIM) compare HDR images; V(100 cd/m^2) ~ 256 so that it lines up with
// sRGB code values on a 100 cd/m^2 display. The encoding with the 'banding_glare' parameter set:
//   V(Y) = p7 ((p1 + p2 Y^p4) / (1 + p3 Y^p4))^p5 - p6),  Y clamped to [0.005, 10000] cd/m^2.
#include <algorithm>
#include <cmath>
#include <vector>

#include "core/colour.hpp"
#include "cpu/quality/planes.hpp"
#include "tonekit/blur.hpp"  // psnr, ssim
#include "tonekit/quality.hpp"

namespace tonekit::quality {
namespace {

constexpr double kP[7] = {0.353487901, 0.3734658629, 8.277049286e-05, 0.9062562627,
                          0.09150303166, 0.9099517204, 596.3148142};
// Display model for sRGB images: 100 cd/m^2 peak, 0.1 cd/m^2 black (contrast 1000:1).
constexpr double kDisplayPeak = 100.0, kDisplayBlack = 0.1;

Status check_same_size(int w1, int h1, int w2, int h2) {
  if (w1 != w2 || h1 != h2)
    return invalid_argument("images differ in size (" + std::to_string(w1) + "x" + std::to_string(h1) + " and " +
                            std::to_string(w2) + "x" + std::to_string(h2) + ")");
  if (w1 < 11 || h1 < 11) return invalid_argument("images smaller than SSIM's 11x11 window");
  return {};
}

Pu21Scores scores(const std::vector<float>& test, const std::vector<float>& reference, int width, int height) {
  const double peak = pu21_encode(100.0);
  return {psnr(test.data(), reference.data(), test.size(), peak),
          ssim(test.data(), reference.data(), width, height, peak)};
}

}  // namespace

double pu21_encode(double luminance) {
  const double y = std::clamp(luminance, 0.005, 10000.0);
  const double yp = std::pow(y, kP[3]);
  return kP[6] * (std::pow((kP[0] + kP[1] * yp) / (1.0 + kP[2] * yp), kP[4]) - kP[5]);
}

Result<Pu21Scores> pu21_compare(const Image& test, const Image& reference) {
  if (Status s = check_same_size(test.width, test.height, reference.width, reference.height); !s.ok()) return s;
  if (test.channels < 3 || reference.channels < 3) return invalid_argument("PU21 comparison needs RGB images");
  auto encode = [](const Image& image) {
    const std::vector<double> y = detail::hdr_luminance(image);
    std::vector<float> v(y.size());
    for (std::size_t i = 0; i < y.size(); ++i) v[i] = static_cast<float>(pu21_encode(y[i]));
    return v;
  };
  return scores(encode(test), encode(reference), test.width, test.height);
}

Result<Pu21Scores> pu21_compare(const OutputImage& test, const OutputImage& reference) {
  if (Status s = check_same_size(test.width, test.height, reference.width, reference.height); !s.ok()) return s;
  if (test.channels < 3 || reference.channels < 3) return invalid_argument("PU21 comparison needs RGB images");
  auto encode = [](const OutputImage& image) {
    const std::size_t n = static_cast<std::size_t>(image.width) * image.height;
    std::vector<float> v(n);
    for (std::size_t i = 0; i < n; ++i) {
      double y = 0.0;
      constexpr double kWeights[3] = {0.2126, 0.7152, 0.0722};
      for (int c = 0; c < 3; ++c) y += kWeights[c] * core::decode_srgb(detail::ldr_code(image, i, c) / 255.0);
      v[i] = static_cast<float>(pu21_encode(kDisplayBlack + (kDisplayPeak - kDisplayBlack) * y));
    }
    return v;
  };
  return scores(encode(test), encode(reference), test.width, test.height);
}

}  // namespace tonekit::quality
