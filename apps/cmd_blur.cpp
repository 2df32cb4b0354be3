// tonekit blur: blurs an HDR image with one of the blur library's methods (src/cpu/blur) at a target
// Gaussian sigma; each method picks its own parameters to match it (printed on stderr), or takes
// them with --set NAME=VALUE. `--list` prints the registry: ids, citations, parameters with
// defaults and ranges. Writes HDR files (.exr, .hdr, .pfm): tone map them with `tonekit map`.
// --backend cpu|cuda|auto (as map): the CUDA BlurEngine, or the CPU reference.
#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>

#include "cli_common.hpp"
#include "tonekit/blur.hpp"

namespace tonekit::cli {
namespace {

struct BlurOptions {
  std::string input, output, method = "pyramid-quasi", backend = "auto";
  double sigma = 0.0;
  std::vector<std::string> settings;
  int bits = 0;
  bool list = false;
};

std::string blur_methods_help() {
  std::string s;
  for (const BlurMethodDesc* m : all_blur_methods()) {
    s += std::string(m->id) + ": " + m->title + " (" + m->citation + ")" + (m->any_kernel ? " [any kernel]" : "") +
         "\n  " + m->description + "\n";
    for (const ParamDesc& p : m->params)
      s += "  --set " + std::string(p.name) + "=" + format_number(p.default_value) + "  [" +
           format_number(p.min_value) + ", " + format_number(p.max_value) + "]" + (p.integer ? " integer" : "") +
           ": " + p.help + "\n";
  }
  return s;
}

int run_blur(const BlurOptions& o) {
  if (o.list) {
    std::printf("%s", blur_methods_help().c_str());
    return kExitOk;
  }
  if (o.input.empty() || o.output.empty()) return report(invalid_argument("blur needs IN and OUT (or --list)"));
  BlurSettings settings;
  for (const std::string& text : o.settings) {
    auto kv = parse_setting(text);
    if (!kv.ok()) return report(kv.status());
    settings.push_back(*kv);
  }
  auto plan = plan_blur(o.method, o.sigma, settings);
  if (!plan.ok()) return report(plan.status());
  if (auto checked = resolve_backend(o.backend); !checked.ok()) return report(checked.status());
  const io::OutputKind kind = io::output_kind_for(o.output);
  if (kind != io::OutputKind::exr && kind != io::OutputKind::hdr && kind != io::OutputKind::pfm)
    return report(invalid_argument(o.output + ": blur writes HDR files (.exr, .hdr, .pfm); tone map them with tonekit map"));
  if (o.bits != 0 && o.bits != 32 && !(kind == io::OutputKind::exr && o.bits == 16))
    return report(invalid_argument("--bits " + std::to_string(o.bits) + " is not available for ." +
                                   output_kind_name(kind) + " (exr: 16 or 32; hdr, pfm: 32)"));

  auto image = io::read_image(o.input);
  if (!image.ok()) return report(image.status());
  const auto t0 = std::chrono::steady_clock::now();
  Backend ran_on = Backend::cpu;
  auto blurred = blur(*image, *plan, *parse_backend(o.backend), &ran_on);
  if (!blurred.ok()) return report(blurred.status());
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  std::fprintf(stderr, "tonekit: blur %s sigma %s on %s: %s (%dx%d, %.1f ms)\n", plan->method->id,
               format_number(o.sigma).c_str(), backend_name(ran_on), plan->describe().c_str(),
               image->width, image->height, ms);
  Status status;
  if (kind == io::OutputKind::exr) status = io::write_exr(o.output, *blurred, o.bits != 32);
  else if (kind == io::OutputKind::hdr) status = io::write_hdr(o.output, *blurred);
  else status = io::write_pfm(o.output, *blurred);
  return status.ok() ? kExitOk : report(status);
}

}  // namespace

void add_blur_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<BlurOptions>();
  std::string ids;
  for (const BlurMethodDesc* m : all_blur_methods()) ids += (ids.empty() ? "" : ", ") + std::string(m->id);
  CLI::App* cmd = app.add_subcommand("blur", "Blur an HDR image with one of the blur methods at a target sigma");
  cmd->add_option("input", o->input, "input image (.exr, .hdr, .pfm)");
  cmd->add_option("output", o->output, "output file: .exr (half by default), .hdr or .pfm");
  cmd->add_option("--method,-m", o->method, "blur method: " + ids)->capture_default_str();
  cmd->add_option("--sigma,-s", o->sigma, "target Gaussian sigma in pixels (0 < sigma <= 1000; 0 only when "
                                          "every automatic parameter is set with --set)");
  cmd->add_option("--set", o->settings, "NAME=VALUE: set a method parameter explicitly (repeatable; see --list)");
  cmd->add_option("--bits", o->bits, "exr: 16 (half, default) or 32 (float)");
  cmd->add_option("--backend", o->backend, "cpu, cuda or auto (cuda when a GPU is present)")->capture_default_str();
  cmd->add_flag("--list", o->list, "list the methods with their parameters, defaults and ranges");
  cmd->footer("\nMethods:\n" + blur_methods_help());
  cmd->callback([o, &exit_code] { exit_code = run_blur(*o); });
}

}  // namespace tonekit::cli
