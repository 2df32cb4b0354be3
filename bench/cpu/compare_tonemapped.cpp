// Fidelity of two tone-mapped images (issue 4 section 5): SSIM (Wang et al. 2004) and mean
// absolute difference of their luminance, after clamping to [0, 1] and a 1/2.2 display gamma so
// that differences count about as they are seen. Prints "ssim mad" on one line.
// Usage: compare_tonemapped A B   (any format tonekit reads; PFM from pfsoutpfm works)
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "tonekit/blur.hpp"
#include "tonekit/io.hpp"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: compare_tonemapped A B\n");
    return 1;
  }
  auto a = tonekit::io::read_image(argv[1]);
  auto b = tonekit::io::read_image(argv[2]);
  for (const auto* r : {&a, &b})
    if (!r->ok()) {
      std::fprintf(stderr, "compare_tonemapped: %s\n", r->status().message().c_str());
      return 1;
    }
  if (a->width != b->width || a->height != b->height) {
    std::fprintf(stderr, "compare_tonemapped: sizes differ (%dx%d vs %dx%d)\n", a->width, a->height, b->width, b->height);
    return 1;
  }
  auto display = [](const tonekit::Image& img) {
    std::vector<float> l = tonekit::luminance_plane(img);
    for (float& v : l) v = std::pow(std::clamp(std::isfinite(v) ? v : 0.0f, 0.0f, 1.0f), 1.0f / 2.2f);
    return l;
  };
  const std::vector<float> la = display(*a), lb = display(*b);
  std::printf("%.4f %.4f\n", tonekit::ssim(la.data(), lb.data(), a->width, a->height, 1.0),
              tonekit::mean_abs_diff(la.data(), lb.data(), la.size()));
  return 0;
}
