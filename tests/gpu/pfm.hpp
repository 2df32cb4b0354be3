// Minimal PFM (portable float map) reader for the GPU tests: the device machine has no image
// libraries, so real images travel as PFM (scripts/build_gpu_bundle.sh converts them).
#pragma once
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "tonekit/image.hpp"

namespace tonekit::test {

inline bool read_pfm(const std::string& path, Image& img) {
  FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return false;
  char magic[3] = {0};
  int w = 0, h = 0;
  double scale = 0;
  bool ok = std::fscanf(f, "%2s %d %d %lf", magic, &w, &h, &scale) == 4 && std::fgetc(f) != EOF;
  const int c = std::strcmp(magic, "PF") == 0 ? 3 : (std::strcmp(magic, "Pf") == 0 ? 1 : 0);
  ok = ok && c != 0 && scale < 0 && w > 0 && h > 0 && w <= kMaxImageSide && h <= kMaxImageSide;
  if (ok) {
    std::vector<float> raw(static_cast<std::size_t>(w) * h * c);
    ok = std::fread(raw.data(), sizeof(float), raw.size(), f) == raw.size();
    img = Image(w, h, 3);
    for (int y = 0; ok && y < h; ++y)  // PFM rows run bottom to top
      for (int x = 0; x < w; ++x)
        for (int k = 0; k < 3; ++k)
          img.row(h - 1 - y)[x * 3 + k] = raw[(static_cast<std::size_t>(y) * w + x) * c + (c == 3 ? k : 0)];
  }
  std::fclose(f);
  return ok;
}

}  // namespace tonekit::test
