// Images shared by the quality tests: issue 17's validation vector (a log ramp with a sine
// texture and its global Reinhard + gamma 2.2 mapping), built in float64 exactly as the issue
// states it so that the 8-bit rounding of the LDR matches the published values.
#pragma once
#include <cmath>
#include <numbers>

#include "tonekit/image.hpp"
#include "tonekit/quality.hpp"

namespace tonekit::test {

struct QualityPair {
  Image hdr;
  OutputImage ldr;
};

inline double validation_luminance(int x, int y, int width) {
  const double pi = std::numbers::pi;
  return std::pow(10.0, 4.0 * x / (width - 1) - 2.0) * (1.0 + 0.5 * std::sin(2 * pi * x / 13) * std::sin(2 * pi * y / 17)) +
         0.001 * y;
}

// H = 300, W = 400 in the issue; other sizes for the scaling and size tests.
inline QualityPair validation_pair(int width = 400, int height = 300) {
  QualityPair p;
  p.hdr = Image(width, height, 3);
  p.ldr.allocate(width, height, 3, PixelType::u8);
  double log_sum = 0.0;
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) log_sum += std::log(validation_luminance(x, y, width) + 1e-6);
  const double log_average = std::exp(log_sum / (static_cast<double>(width) * height));
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      const double l = validation_luminance(x, y, width);
      const double lw = 0.18 * l / log_average;
      const double code = std::round(255.0 * std::pow(lw / (1.0 + lw), 1.0 / 2.2));
      const std::size_t i = (static_cast<std::size_t>(y) * width + x) * 3;
      for (int c = 0; c < 3; ++c) {
        p.hdr.pixels[i + c] = static_cast<float>(l);
        p.ldr.bytes[i + c] = static_cast<std::uint8_t>(code);
      }
    }
  return p;
}

// FSITM (and so assess, auto_params and compare's scores) needs the double-precision FFTW,
// which is optional in the build (GPU test hosts may lack it).
inline bool fsitm_available() {
  static const bool available = [] {
    const QualityPair p = validation_pair(161, 161);
    return quality::fsitm(p.hdr, p.ldr).status().code() != StatusCode::unsupported;
  }();
  return available;
}

}  // namespace tonekit::test

#define TONEKIT_SKIP_WITHOUT_FFTW() \
  if (!tonekit::test::fsitm_available()) GTEST_SKIP() << "FSITM needs FFTW (double precision); this build has none"
