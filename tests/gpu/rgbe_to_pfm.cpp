// Radiance RGBE (.hdr) -> little-endian PFM, for the GPU tests' real images
// (scripts/build_gpu_bundle.sh). Reads "-Y h +X w" files, flat or new-style RLE scanlines.
// Usage: tonekit_rgbe_to_pfm in.hdr out.pfm [max_width]  (max_width: box-downsample by 2 until
// the width fits, to keep the carried images small)
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

static bool read_scanline(FILE* f, int w, unsigned char* out) {  // out: w * 4 bytes RGBE
  int c0 = std::fgetc(f), c1 = std::fgetc(f), c2 = std::fgetc(f), c3 = std::fgetc(f);
  if (c3 == EOF) return false;
  if (c0 != 2 || c1 != 2 || (c2 & 0x80) || w < 8 || w > 32767) {  // flat
    out[0] = c0; out[1] = c1; out[2] = c2; out[3] = c3;
    return std::fread(out + 4, 4, w - 1, f) == static_cast<std::size_t>(w - 1);
  }
  if (((c2 << 8) | c3) != w) return false;
  std::vector<unsigned char> ch(w);
  for (int k = 0; k < 4; ++k) {
    int x = 0;
    while (x < w) {
      int n = std::fgetc(f);
      if (n == EOF) return false;
      if (n > 128) {
        n -= 128;
        int v = std::fgetc(f);
        if (v == EOF || x + n > w) return false;
        std::memset(&ch[x], v, n);
        x += n;
      } else {
        if (n == 0 || x + n > w || std::fread(&ch[x], 1, n, f) != static_cast<std::size_t>(n)) return false;
        x += n;
      }
    }
    for (int i = 0; i < w; ++i) out[i * 4 + k] = ch[i];
  }
  return true;
}

int main(int argc, char** argv) {
  if (argc < 3) { std::fprintf(stderr, "usage: %s in.hdr out.pfm [max_width]\n", argv[0]); return 1; }
  FILE* f = std::fopen(argv[1], "rb");
  if (!f) { std::perror(argv[1]); return 1; }
  char line[512];
  int w = 0, h = 0;
  while (std::fgets(line, sizeof line, f)) {
    if (std::sscanf(line, "-Y %d +X %d", &h, &w) == 2) break;
  }
  if (w <= 0 || h <= 0) { std::fprintf(stderr, "%s: unsupported header\n", argv[1]); return 1; }
  std::vector<float> img(static_cast<std::size_t>(w) * h * 3);
  std::vector<unsigned char> sl(static_cast<std::size_t>(w) * 4);
  for (int y = 0; y < h; ++y) {
    if (!read_scanline(f, w, sl.data())) { std::fprintf(stderr, "%s: truncated at row %d\n", argv[1], y); return 1; }
    for (int x = 0; x < w; ++x) {
      const unsigned char* p = &sl[x * 4];
      const float s = p[3] ? std::ldexp(1.0f, p[3] - 136) : 0.0f;
      for (int k = 0; k < 3; ++k) img[(static_cast<std::size_t>(y) * w + x) * 3 + k] = (p[k] + 0.5f) * s * (p[3] ? 1.0f : 0.0f);
    }
  }
  std::fclose(f);
  const int max_w = argc > 3 ? std::atoi(argv[3]) : 0;
  while (max_w > 0 && w > max_w && h > 1) {
    const int nw = w / 2, nh = h / 2;
    std::vector<float> d(static_cast<std::size_t>(nw) * nh * 3);
    for (int y = 0; y < nh; ++y)
      for (int x = 0; x < nw; ++x)
        for (int k = 0; k < 3; ++k)
          d[(static_cast<std::size_t>(y) * nw + x) * 3 + k] =
              0.25f * (img[((2 * y) * static_cast<std::size_t>(w) + 2 * x) * 3 + k] + img[((2 * y) * static_cast<std::size_t>(w) + 2 * x + 1) * 3 + k] +
                       img[((2 * y + 1) * static_cast<std::size_t>(w) + 2 * x) * 3 + k] + img[((2 * y + 1) * static_cast<std::size_t>(w) + 2 * x + 1) * 3 + k]);
    img.swap(d);
    w = nw;
    h = nh;
  }
  FILE* o = std::fopen(argv[2], "wb");
  if (!o) { std::perror(argv[2]); return 1; }
  std::fprintf(o, "PF\n%d %d\n-1.0\n", w, h);
  for (int y = h - 1; y >= 0; --y) std::fwrite(&img[static_cast<std::size_t>(y) * w * 3], sizeof(float), static_cast<std::size_t>(w) * 3, o);
  std::fclose(o);
  std::printf("%s: %dx%d\n", argv[2], w, h);
  return 0;
}
