// tonekit synth: writes one of the procedural HDR scenes (src/synth) as EXR, HDR or PFM.
#include <CLI/CLI.hpp>
#include <cstdio>

#include "cli_common.hpp"
#include "tonekit/synth.hpp"

namespace tonekit::cli {
namespace {

struct SynthOptions {
  std::string name, output;
  std::string size = "1920x1080";
  int bits = 0;
  bool list = false;
};

int run_synth(const SynthOptions& o) {
  if (o.list) {
    for (const synth::SceneInfo& s : synth::all_scenes()) std::printf("%-16s %s\n", s.id, s.description);
    return kExitOk;
  }
  if (o.name.empty() || o.output.empty()) return report(invalid_argument("synth needs NAME and OUT (or --list)"));
  if (!synth::find_scene(o.name)) return report(synth::render_scene(o.name, 1, 1).status());
  auto size = parse_size(o.size);
  if (!size.ok()) return report(size.status());
  if (Status s = synth::check_size(size->first, size->second); !s.ok()) return report(s);
  const io::OutputKind kind = io::output_kind_for(o.output);
  if (kind != io::OutputKind::exr && kind != io::OutputKind::hdr && kind != io::OutputKind::pfm)
    return report(invalid_argument(o.output + ": synth writes HDR files (.exr, .hdr, .pfm); "
                                   "tone map them with tonekit map"));
  if (o.bits != 0 && o.bits != 32 && !(kind == io::OutputKind::exr && o.bits == 16))
    return report(invalid_argument("--bits " + std::to_string(o.bits) + " is not available for ." +
                                   output_kind_name(kind) + " (exr: 16 or 32; hdr, pfm: 32)"));

  auto image = synth::render_scene(o.name, size->first, size->second);
  if (!image.ok()) return report(image.status());
  Status status;
  if (kind == io::OutputKind::exr) status = io::write_exr(o.output, *image, o.bits != 32);
  else if (kind == io::OutputKind::hdr) status = io::write_hdr(o.output, *image);
  else status = io::write_pfm(o.output, *image);
  return status.ok() ? kExitOk : report(status);
}

}  // namespace

void add_synth_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<SynthOptions>();
  std::string names;
  for (const synth::SceneInfo& s : synth::all_scenes()) names += "  " + std::string(s.id) + ": " + s.description + "\n";
  CLI::App* cmd = app.add_subcommand("synth", "Write a procedural HDR test scene");
  cmd->add_option("name", o->name, "scene id (see below or --list)");
  cmd->add_option("output", o->output, "output file: .exr (half by default), .hdr or .pfm");
  cmd->add_option("--size", o->size, "WxH, each side 1..7680, at most 7680x4320 pixels")->capture_default_str();
  cmd->add_option("--bits", o->bits, "exr: 16 (half, default) or 32 (float)");
  cmd->add_flag("--list", o->list, "list the scenes");
  cmd->footer("\nScenes:\n" + names);
  cmd->callback([o, &exit_code] { exit_code = run_synth(*o); });
}

}  // namespace tonekit::cli
