// tonekit info: what a file holds (format, size, channels, pixel type, compression) and its
// luminance statistics (min, max, log-average, dynamic range, the robust peak, NaN/Inf/negative
// counts).
#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>

#include "cli_common.hpp"
#include "tonekit/cpu_tone_mapper.hpp"

namespace tonekit::cli {
namespace {

struct InfoOptions {
  std::vector<std::string> inputs;
  bool cpu = false;
};

int print_info(const std::string& path) {
  auto image = io::read_image(path);
  if (!image.ok()) return report(image.status());
  const ImageMetadata& m = image->meta;
  const FrameStats st = cpu::compute_stats(image->view());
  std::printf("file:          %s\n", path.c_str());
  std::printf("format:        %s%s\n", m.format.c_str(), m.tiled ? " (tiled)" : "");
  std::printf("size:          %d x %d (%.2f Mpixel)\n", image->width, image->height,
              static_cast<double>(image->width) * image->height / 1e6);
  std::printf("channels:      %d%s%s%s\n", image->channels, m.source_channels.empty() ? "" : " (file: ",
              m.source_channels.c_str(), m.source_channels.empty() ? "" : ")");
  std::printf("pixel type:    %s\n", m.source_pixel_type.empty() ? "?" : m.source_pixel_type.c_str());
  std::printf("compression:   %s\n", m.compression.empty() ? "?" : m.compression.c_str());
  if (m.exposure != 1.0) std::printf("exposure:      %g (already divided out)\n", m.exposure);
  for (const std::string& note : m.notes) std::printf("note:          %s\n", note.c_str());
  std::printf("luminance:     min %.6g, min>0 %.6g, max %.6g, log-average %.6g\n", st.min_luminance,
              st.min_positive_luminance, st.max_luminance, st.log_average);
  const double stops = st.dynamic_range_stops();
  std::printf("dynamic range: %.2f stops (%.3g:1, max / smallest positive)\n", stops, std::exp2(stops));
  // What an operator's peak_percentile would take as L_max instead of the brightest pixel.
  const double peak = cpu::robust_peak(image->view(), st, cpu::kRobustPeakPercentile);
  if (peak > 0.0 && st.max_luminance > 0.0)
    std::printf("robust peak:   %.6g at %g %% of the non-black pixels; the brightest pixel is %.2f stops above it "
                "(--set peak_percentile=%g maps with it)\n",
                peak, cpu::kRobustPeakPercentile, std::log2(st.max_luminance / peak), cpu::kRobustPeakPercentile);
  std::printf("bad pixels:    %llu NaN, %llu Inf, %llu negative (of %llu)\n",
              static_cast<unsigned long long>(st.nan_count), static_cast<unsigned long long>(st.inf_count),
              static_cast<unsigned long long>(st.negative_count), static_cast<unsigned long long>(st.pixel_count));
  return kExitOk;
}

// One line for benchmark logs: the CPU model, its cores and the level the CPU loops run at.
int print_cpu() {
  std::string model = "unknown CPU";
  if (std::FILE* f = std::fopen("/proc/cpuinfo", "r")) {
    char line[512];
    while (std::fgets(line, sizeof line, f))
      if (std::strncmp(line, "model name", 10) == 0) {
        const char* colon = std::strchr(line, ':');
        model = colon ? colon + 1 : line;
        model.erase(0, model.find_first_not_of(" \t"));
        model.erase(model.find_last_not_of(" \t\n") + 1);
        break;
      }
    std::fclose(f);
  }
  std::printf("cpu: %s, %u threads, level %s (the CPU's best: %s)\n", model.c_str(), std::thread::hardware_concurrency(),
              cpu_isa_level(), cpu_isa_level_supported());
  return kExitOk;
}

int run_info(const InfoOptions& o) {
  if (o.cpu) return print_cpu();
  int worst = kExitOk;
  for (std::size_t i = 0; i < o.inputs.size(); ++i) {
    if (i) std::printf("\n");
    worst = std::max(worst, print_info(o.inputs[i]));
  }
  return worst;
}

}  // namespace

void add_info_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<InfoOptions>();
  CLI::App* cmd = app.add_subcommand("info", "Describe HDR files: format, size, pixel type, luminance statistics");
  cmd->add_option("inputs", o->inputs, "HDR files (.exr, .hdr, .pfm)");
  cmd->add_flag("--cpu", o->cpu,
                "print the CPU model and the x86-64 level the CPU backend runs at (TONEKIT_CPU_LEVEL=baseline|v3|v4 "
                "lowers it) instead");
  cmd->callback([o, &exit_code] {
    if (!o->cpu && o->inputs.empty()) throw CLI::RequiredError("inputs");
    exit_code = run_info(*o);
  });
}

}  // namespace tonekit::cli
