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

namespace tonekit::cli {
namespace {

struct QualityOptions {
  std::vector<std::string> inputs;
  bool json = false;
  std::string backend = "cpu";
};

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
  if (auto checked = resolve_backend(o.backend); !checked.ok()) return report(checked.status());
  const auto start = clock::now();
  // HDR LDR on the backend asked for, by the library's rule (the GPU: quality::GpuQuality, TMQI
  // within 1e-9 relative, FSITM within 1e-4, colour fidelity within 1e-9 of the CPU:
  // tests/gpu/test_gpu_quality.cpp).
  Backend ran_on = Backend::cpu;
  Result<quality::QualityReport> r = quality::assess(*hdr, *ldr, *parse_backend(o.backend), &ran_on);
  if (!r.ok()) return report(r.status());
  const bool on_gpu = ran_on == Backend::cuda;
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
