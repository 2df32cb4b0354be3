// Codec speeds for docs/performance.md (Stills): read_image() of each file given (MB/s of file and
// of decoded float pixels), then the PNG encoder's size/time table over levels, filters and
// strategies on the tone-mapped (reinhard, dithered and not) first file. Median of RUNS runs;
// the page cache is warm (the first run is discarded), as in a batch.
// Usage: bench_codecs RUNS FILE...
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "io/png_encoding.hpp"
#include "tonekit/io.hpp"
#include "tonekit/operators.hpp"
#include "tonekit/tonemap.hpp"

namespace {

using Clock = std::chrono::steady_clock;

template <class F>
double median_seconds(int runs, F&& f) {
  f();  // warm-up: page cache, allocator, thread pools
  std::vector<double> t;
  for (int i = 0; i < runs; ++i) {
    const auto t0 = Clock::now();
    f();
    t.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  using namespace tonekit;
  if (argc < 3) {
    std::fprintf(stderr, "usage: bench_codecs RUNS FILE...\n");
    return 1;
  }
  const int runs = std::max(1, std::atoi(argv[1]));
  std::printf("| read | file MB | s | file MB/s | decoded MB/s |\n|---|---|---|---|---|\n");
  for (int i = 2; i < argc; ++i) {
    const double file_mb = static_cast<double>(std::filesystem::file_size(argv[i])) / 1e6;
    double decoded_mb = 0;
    const double s = median_seconds(runs, [&] {
      auto image = io::read_image(argv[i]);
      if (!image.ok()) {
        std::fprintf(stderr, "%s\n", image.status().message().c_str());
        std::exit(1);
      }
      decoded_mb = static_cast<double>(image->pixels.size() * sizeof(float)) / 1e6;
    });
    std::printf("| %s | %.1f | %.3f | %.0f | %.0f |\n", std::filesystem::path(argv[i]).filename().c_str(), file_mb, s,
                file_mb / s, decoded_mb / s);
  }

  auto image = io::read_image(argv[2]);
  if (!image.ok()) return 1;
  struct Case {
    const char* name;
    io::PngEncoding encoding;
  };
  std::vector<Case> cases;
  for (int level = 0; level <= 9; ++level)
    if (level <= 2 || level == 4 || level == 6 || level == 9)
      cases.push_back({"--png-level", io::png_encoding_for_level(level)});
  cases.push_back({"level 1, Paeth, default strategy (libpng, before)", {1, Z_DEFAULT_STRATEGY, io::PngFilter::paeth, 0}});
  cases.push_back({"level 1, Sub, Huffman only", {1, Z_HUFFMAN_ONLY, io::PngFilter::sub, 0}});
  cases.push_back({"level 1, Sub, RLE", {1, Z_RLE, io::PngFilter::sub, 0}});
  cases.push_back({"level 1, Paeth, RLE", {1, Z_RLE, io::PngFilter::paeth, 0}});
  cases.push_back({"level 1, Up, RLE", {1, Z_RLE, io::PngFilter::up, 0}});
  for (int hist_bits : {0, 1, 2, 4, 8}) {
    static std::string names[16];
    names[hist_bits] = "ISA-L level 1, Sub, hist_bits " + std::to_string(hist_bits);
    io::PngEncoding e = io::png_encoding_for_level(1);
    e.isal_hist_bits = hist_bits;
    cases.push_back({names[hist_bits].c_str(), e});
  }
  for (int level : {0, 2, 3}) {
    static const char* names[4] = {"ISA-L level 0, Sub", "", "ISA-L level 2, Sub", "ISA-L level 3, Sub"};
    io::PngEncoding e = io::png_encoding_for_level(1);
    e.level = level;
    e.isal_hist_bits = 0;
    cases.push_back({names[level], e});
  }
  std::printf("\n| PNG encode | dither | level | s (all cores) | s (1 thread) | MB |\n|---|---|---|---|---|---|\n");
  for (const bool dither : {true, false}) {
    auto params = prepare_params("reinhard", {{"dither", dither ? "1" : "0"}});
    OutputImage out;
    if (!params.ok() || !tone_map(*image, *params, {PixelType::u8, 3}, Backend::cpu, out).ok()) return 1;
    for (const Case& c : cases) {
      std::size_t bytes = 0;
      io::PngEncoding one = c.encoding;
      one.threads = 1;
      const int n = c.encoding.level >= 6 ? 1 : runs;
      const double all = median_seconds(n, [&] { bytes = io::encode_png(out, c.encoding).size(); });
      const double single = median_seconds(n, [&] { io::encode_png(out, one); });
      std::printf("| %s | %s | %d | %.3f | %.3f | %.2f |\n", c.name, dither ? "on" : "off", c.encoding.level, all, single,
                  static_cast<double>(bytes) / 1e6);
    }
  }
  return 0;
}
