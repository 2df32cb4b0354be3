// tonekit quality A B [--json] [--backend cpu|cuda|auto]: objective scores of a tone-mapped image against its source.
//   HDR LDR   TMQI (Q, S, N, per-scale S, m, d), FSITM (per channel, mean), colour fidelity
//   HDR HDR   PSNR and SSIM on PU21-encoded luminance (pixel values taken as cd/m^2)
//   LDR LDR   PSNR and SSIM on PU21 values of both shown on a 100 cd/m^2 sRGB display
// HDR: .exr, .hdr, .pic, .pfm; LDR: .png (8 or 16 bit, code values as stored).
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "cli_common.hpp"
#include "quality_format.hpp"
#include "tonekit/quality.hpp"
#include "tonekit/quality_cuda.hpp"

namespace tonekit::cli {
namespace {

struct QualityOptions {
  std::vector<std::string> inputs;
  bool json = false;
  std::string backend = "cpu";
};

// --backend cuda (or auto with a GPU), HDR LDR: all three metrics on the GPU (quality::GpuQuality;
// TMQI within 1e-9 relative, FSITM within 1e-4, colour fidelity within 1e-9 of the CPU:
// tests/gpu/test_gpu_quality.cpp).
Result<quality::QualityReport> assess_on_gpu(const Image& hdr, const OutputImage& ldr) {
  if (Status s = quality::check_pair(hdr, ldr); !s.ok()) return s;
  auto gpu = quality::GpuQuality::create();
  if (!gpu.ok()) return gpu.status();
  auto scores = (*gpu)->score(hdr, ldr, quality::GpuMetrics::all);
  if (!scores.ok()) return scores.status();
  return quality::QualityReport{scores->tmqi, scores->fsitm, scores->colour};
}

bool is_png(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return ext == ".png";
}

void print_pu21(const QualityOptions& o, const quality::Pu21Scores& s, const char* kind, double seconds) {
  if (o.json) {
    std::printf("{\"a\": %s, \"b\": %s, \"kind\": \"%s\", \"pu21\": {\"psnr\": %s, \"ssim\": %s}, \"seconds\": %s}\n",
                json_string(o.inputs[0]).c_str(), json_string(o.inputs[1]).c_str(), kind, json_number(s.psnr).c_str(),
                json_number(s.ssim).c_str(), json_number(seconds).c_str());
  } else {
    std::printf("%s against %s (%s, PU21 banding_glare)\n", o.inputs[0].c_str(), o.inputs[1].c_str(), kind);
    if (std::isinf(s.psnr)) std::printf("PU21     PSNR inf dB (identical)   SSIM %.4f\n", s.ssim);
    else std::printf("PU21     PSNR %.2f dB   SSIM %.4f\n", s.psnr, s.ssim);
  }
}

int run_quality(const QualityOptions& o) {
  using clock = std::chrono::steady_clock;
  const std::string& a = o.inputs[0];
  const std::string& b = o.inputs[1];
  if (is_png(a) && is_png(b)) {
    auto x = io::read_png(a);
    if (!x.ok()) return report(x.status());
    auto y = io::read_png(b);
    if (!y.ok()) return report(y.status());
    const auto start = clock::now();
    auto s = quality::pu21_compare(*x, *y);
    if (!s.ok()) return report(s.status());
    print_pu21(o, *s, "display", std::chrono::duration<double>(clock::now() - start).count());
    return kExitOk;
  }
  if (is_png(a)) return report(invalid_argument("quality takes the HDR source first: tonekit quality HDR LDR"));
  auto hdr = io::read_image(a);
  if (!hdr.ok()) return report(hdr.status());
  if (!is_png(b)) {
    auto other = io::read_image(b);
    if (!other.ok()) return report(other.status());
    const auto start = clock::now();
    auto s = quality::pu21_compare(*hdr, *other);
    if (!s.ok()) return report(s.status());
    print_pu21(o, *s, "hdr", std::chrono::duration<double>(clock::now() - start).count());
    return kExitOk;
  }
  auto ldr = io::read_png(b);
  if (!ldr.ok()) return report(ldr.status());
  auto backend = resolve_backend(o.backend);
  if (!backend.ok()) return report(backend.status());
  const auto start = clock::now();
  bool on_gpu = *backend == Backend::cuda;
  Result<quality::QualityReport> r = on_gpu ? assess_on_gpu(*hdr, *ldr) : quality::assess(*hdr, *ldr);
  // auto: a GPU that cannot score (no cuFFT, out of memory) leaves the answer to the CPU; input
  // errors are the same on both and are reported.
  if (!r.ok() && on_gpu && o.backend == "auto" && !r.status().is_input_error()) {
    on_gpu = false;
    r = quality::assess(*hdr, *ldr);
  }
  if (!r.ok()) return report(r.status());
  const double seconds = std::chrono::duration<double>(clock::now() - start).count();
  if (o.json) {
    std::printf("{\"hdr\": %s, \"ldr\": %s, \"width\": %d, \"height\": %d, %s, \"seconds\": %s%s}\n",
                json_string(a).c_str(), json_string(b).c_str(), hdr->width, hdr->height,
                quality_json_members(*r).c_str(), json_number(seconds).c_str(), on_gpu ? ", \"backend\": \"cuda\"" : "");
  } else {
    std::printf("%s (HDR) against %s (%d-bit), %d x %d\n", a.c_str(), b.c_str(), ldr->type == PixelType::u16 ? 16 : 8,
                hdr->width, hdr->height);
    std::printf("%s", quality_table(*r).c_str());
    std::printf(on_gpu ? "time     %.2f s (CUDA)\n" : "time     %.2f s (CPU)\n", seconds);
  }
  return kExitOk;
}

}  // namespace

void add_quality_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<QualityOptions>();
  CLI::App* cmd = app.add_subcommand(
      "quality", "Objective scores: HDR LDR (TMQI, FSITM, colour fidelity), or PU21 PSNR/SSIM of two HDR or two LDR images");
  cmd->add_option("inputs", o->inputs, "HDR (.exr/.hdr/.pfm) then tone-mapped .png; or two HDR, or two .png")
      ->required()
      ->expected(2);
  cmd->add_flag("--json", o->json, "print one JSON object instead of the table");
  cmd->add_option("--backend", o->backend,
                  "HDR LDR pairs: the three metrics on cpu (the reference), cuda, or auto (cuda when a GPU is present)")
      ->capture_default_str();
  cmd->footer(
      "\nTMQI: Yeganeh & Wang 2013; FSITM: Nafchi et al. 2015; colour: CIEDE2000 at matched lightness; "
      "PU21: Mantiuk & Azimi 2021 (banding_glare). Images need at least 161 pixels on each side.");
  cmd->callback([o, &exit_code] { exit_code = run_quality(*o); });
}

}  // namespace tonekit::cli
