// A program using an installed tonekit (tests/install_consumer): tone maps a synthetic HDR ramp
// with every registered operator through the public host API on the CPU backend and checks the
// result; with CONSUMER_IO it also writes a PNG and reads it back through tonekit::io.
// Prints one line and exits 0 when everything holds, else names the failure and exits 1.
#include <tonekit/tonemap.hpp>
#include <tonekit/version.hpp>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>

#ifdef CONSUMER_IO
#include <tonekit/io.hpp>
#endif

namespace {

// Mean green code of column x over every row (the output is dithered: one code of noise a pixel).
double column_green(const tonekit::OutputImage& img, int x) {
  double sum = 0.0;
  for (int y = 0; y < img.height; ++y) sum += img.bytes[(static_cast<std::size_t>(y) * img.width + x) * 3 + 1];
  return sum / img.height;
}

int fail(const std::string& what) {
  std::fprintf(stderr, "install_consumer: %s\n", what.c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace tonekit;
#ifdef EXPECTED_VERSION
  // The header installed with the package is the package's version.
  if (std::strcmp(TONEKIT_VERSION_STRING, EXPECTED_VERSION) != 0)
    return fail(std::string("version.hpp says ") + TONEKIT_VERSION_STRING + ", the package " + EXPECTED_VERSION);
#endif
  // 96x64 RGB: luminance from 1e-3 to 1e3 along x (log steps), a tint along y.
  const int w = 96, h = 64;
  Image hdr(w, h, 3);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const float l = std::pow(10.0f, -3.0f + 6.0f * static_cast<float>(x) / (w - 1));
      float* p = hdr.row(y) + x * 3;
      p[0] = l;
      p[1] = l * (0.8f + 0.2f * static_cast<float>(y) / (h - 1));
      p[2] = l * 0.6f;
    }

  int mapped = 0;
  OutputImage reinhard_out;
  for (const OperatorDesc* op : all_operators()) {
    Result<Params> params = prepare_params(op->id);
    if (!params.ok()) return fail(std::string(op->id) + ": prepare_params: " + params.status().message());
    OutputImage out;
    FrameStats stats;
    const Status s = tone_map(hdr, params.value(), OutputFormat{PixelType::u8, 3}, Backend::cpu, out, &stats);
    if (!s.ok()) return fail(std::string(op->id) + ": tone_map: " + s.message());
    if (out.width != w || out.height != h || out.channels != 3 || out.bytes.size() != static_cast<std::size_t>(w) * h * 3)
      return fail(std::string(op->id) + ": output is not 96x64 RGB u8");
    if (stats.pixel_count != static_cast<std::uint64_t>(w) * h || !(stats.max_luminance > 100.0))
      return fail(std::string(op->id) + ": frame statistics are off");
    // The ramp's bright end brighter than its dark end.
    if (!(column_green(out, 0) + 20.0 < column_green(out, w - 1)))
      return fail(std::string(op->id) + ": the ramp is not brighter at its bright end");
    if (std::string(op->id) == "reinhard") reinhard_out = out;
    ++mapped;
  }
  if (mapped == 0) return fail("no operators registered");
  if (reinhard_out.bytes.empty()) return fail("no reinhard operator");
  // Reinhard's global curve is monotonic: the ramp never gets darker to the right (beyond the
  // dither's noise in a column's mean).
  for (int x = 1; x < w; ++x)
    if (column_green(reinhard_out, x) < column_green(reinhard_out, x - 1) - 0.5)
      return fail("reinhard: not monotonic along the ramp at x = " + std::to_string(x));

#ifdef CONSUMER_IO
  const std::string png = std::string(argc > 1 ? argv[1] : ".") + "/install_consumer.png";
  if (Status s = io::write_png(png, reinhard_out); !s.ok()) return fail("write_png: " + s.message());
  Result<OutputImage> back = io::read_png(png);
  if (!back.ok()) return fail("read_png: " + back.status().message());
  if (back.value().bytes != reinhard_out.bytes) return fail("the PNG read back differs from what was written");
#endif
  (void)argc;
  (void)argv;
  std::printf("install_consumer: tonekit %s, %d operators mapped on the CPU%s\n", TONEKIT_VERSION_STRING, mapped,
#ifdef CONSUMER_IO
              ", PNG written and read back"
#else
              ""
#endif
  );
  return 0;
}
