// tonekit lut: a global operator's map for fixed statistics as a .cube 3D LUT (make_lut3d), for
// PQ, HLG or linear input; with linear input a 1D shaper .cube beside it (OUT with .shaper.cube).
// Applying it with FFmpeg's lut3d (after lut1d with the shaper, for linear input) reproduces
// `tonekit stream` on the same frames (tests/stream/lut_ffmpeg.sh measures by how much).
#include <CLI/CLI.hpp>
#include <cstdio>
#include <string>

#include "cli_common.hpp"
#include "tonekit/io.hpp"

namespace tonekit::cli {
namespace {

struct LutOptions {
  std::string output;
  std::string op = "bt2390";
  std::vector<std::string> settings;
  std::string transfer = "pq", primaries = "bt2020", gamut = "clip";
  double reference_white = 203.0, hlg_peak = 1000.0;
  int size = 65;
  std::string stats_from;   // an image whose statistics the curve reads
  double peak = 0.0;        // or: L_max in cd/m^2
  double average = 0.0;     // and the log-average in cd/m^2 (default: peak / 100)
};

std::string cube_text(const std::string& title, const char* size_key, int size, double domain_max,
                      const std::vector<float>& values, int per_line) {
  std::string s = "TITLE \"" + title + "\"\n";
  char line[128];
  std::snprintf(line, sizeof line, "%s %d\nDOMAIN_MIN 0 0 0\nDOMAIN_MAX %.9g %.9g %.9g\n", size_key, size, domain_max,
                domain_max, domain_max);
  s += line;
  for (std::size_t i = 0; i < values.size(); i += per_line) {
    if (per_line == 3) std::snprintf(line, sizeof line, "%.7f %.7f %.7f\n", values[i], values[i + 1], values[i + 2]);
    else std::snprintf(line, sizeof line, "%.7f %.7f %.7f\n", values[i], values[i], values[i]);
    s += line;
  }
  return s;
}

int run_lut(const LutOptions& o) {
  auto params = params_from_settings(o.op, o.settings);
  if (!params.ok()) return report(params.status());
  InputColour colour;
  auto t = parse_transfer(o.transfer);
  if (!t.ok()) return report(t.status());
  auto p = parse_primaries(o.primaries);
  if (!p.ok()) return report(p.status());
  auto g = parse_gamut_mapping(o.gamut);
  if (!g.ok()) return report(g.status());
  colour.transfer = *t;
  colour.primaries = *p;
  colour.gamut = *g;
  colour.reference_white = o.reference_white;
  colour.hlg_peak = o.hlg_peak;
  FrameStats stats;
  if (!o.stats_from.empty()) {
    auto image = io::read_image(o.stats_from);
    if (!image.ok()) return report(image.status());
    stats = cpu::compute_stats(image->view());
    if (params->has("peak_percentile") && params->get("peak_percentile") < 100.0)
      stats.peak_luminance = cpu::robust_peak(image->view(), stats, params->get("peak_percentile"));
  } else {
    if (!(o.peak > 0))
      return report(invalid_argument("tonekit lut needs the statistics: --stats-from IMAGE, or --peak CD_M2 [--average CD_M2]"));
    stats.max_luminance = o.peak / o.reference_white;  // scene-linear, as the stream's curves see it
    stats.log_average = (o.average > 0 ? o.average : o.peak / 100.0) / o.reference_white;
    stats.min_positive_luminance = 1e-4 * stats.log_average;
  }
  Lut3d lut;
  if (Status s = make_lut3d(*params, stats, colour, o.size, lut); !s.ok()) return report(s);
  const std::string title = std::string("tonekit ") + params->op().id + " " + transfer_name(colour.transfer) + " " +
                            primaries_name(colour.primaries);
  if (!lut.shaper.empty()) {
    std::string shaper_path = o.output;
    const std::size_t dot = shaper_path.rfind(".cube");
    shaper_path = (dot == std::string::npos ? shaper_path : shaper_path.substr(0, dot)) + ".shaper.cube";
    if (Status s = io::write_file_atomically(shaper_path, cube_text(title + " shaper", "LUT_1D_SIZE", static_cast<int>(lut.shaper.size()),
                                                     lut.shaper_max, lut.shaper, 1));
        !s.ok())
      return report(s);
    std::fprintf(stderr, "tonekit: shaper (apply first, FFmpeg lut1d): %s\n", shaper_path.c_str());
  }
  if (Status s = io::write_file_atomically(o.output, cube_text(title, "LUT_3D_SIZE", lut.size, 1.0, lut.rgb, 3)); !s.ok()) return report(s);
  return kExitOk;
}

}  // namespace

void add_lut_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<LutOptions>();
  CLI::App* cmd = app.add_subcommand(
      "lut", "Write a global operator's map for fixed statistics as a .cube 3D LUT (FFmpeg lut3d, Resolve, OCIO)");
  cmd->add_option("output", o->output, "the .cube file (linear input: OUT.shaper.cube beside it, a 1D shaper)")->required();
  cmd->add_option("--op", o->op, "a global operator id (tonekit ops)")->capture_default_str();
  cmd->add_option("--set", o->settings, "operator parameter NAME=VALUE (repeatable)")->allow_extra_args(false);
  cmd->add_option("--transfer", o->transfer, "the input signal: pq, hlg or linear")->capture_default_str();
  cmd->add_option("--primaries", o->primaries, "the input's primaries: bt2020 or bt709")->capture_default_str();
  cmd->add_option("--gamut", o->gamut, "BT.2020 -> BT.709 gamut mapping: clip, desaturate or perceptual")->capture_default_str();
  cmd->add_option("--reference-white", o->reference_white, "cd/m^2 that becomes scene 1.0 (as tonekit stream)")->capture_default_str();
  cmd->add_option("--hlg-peak", o->hlg_peak, "nominal peak of the HLG OOTF, cd/m^2")->capture_default_str();
  cmd->add_option("--size", o->size, "lattice points per axis (2-129)")->capture_default_str();
  cmd->add_option("--stats-from", o->stats_from, "measure the statistics from this image (scene-linear: EXR, HDR, PFM)");
  cmd->add_option("--peak", o->peak, "or give them: the frame's peak in cd/m^2 (L_max)");
  cmd->add_option("--average", o->average, "and its log-average in cd/m^2 (default: peak / 100)");
  cmd->footer("\nThe output is R'G'B' with the BT.709 OETF (or v^(1/gamma) with --set gamma=G), what tonekit stream "
              "encodes for yuv420p/nv12. FFmpeg: -vf format=gbrpf32le,lut3d=file=OUT.cube:interp=tetrahedral,format=yuv420p "
              "(with lut1d=file=OUT.shaper.cube first for linear input).\n\n" + operators_help());
  cmd->callback([o, &exit_code] { exit_code = run_lut(*o); });
}

}  // namespace tonekit::cli
