// tonekit synth: writes one of the procedural HDR scenes (src/cpu/synth) as EXR, HDR or PFM, or with
// --frames N a synthetic sequence: an HDR image sequence (shot.%04d.exr), or video frames as y4m
// (10-bit 4:2:0 PQ) or raw frames (PQ yuv420p10, or linear gbrpf32) to a file or stdout.
#include <CLI/CLI.hpp>
#include <cstdio>

#include "cli_common.hpp"
#include "stream/fd_io.hpp"
#include "stream/sequence_pattern.hpp"
#include "stream/y4m.hpp"
#include "tonekit/synth.hpp"

namespace tonekit::cli {
namespace {

struct SynthOptions {
  std::string name, output;
  std::string size = "1920x1080";
  int bits = 0;
  bool list = false;
  int frames = 0;
  std::string fps = "30";
  std::string transfer, primaries = "bt2020";
  int first = 1;
};

Status write_hdr_file(const std::string& path, io::OutputKind kind, const Image& image, int bits) {
  if (kind == io::OutputKind::exr) return io::write_exr(path, image, bits != 32);
  if (kind == io::OutputKind::hdr) return io::write_hdr(path, image);
  return io::write_pfm(path, image);
}

Status check_hdr_output(const std::string& path, io::OutputKind kind, int bits) {
  if (kind != io::OutputKind::exr && kind != io::OutputKind::hdr && kind != io::OutputKind::pfm)
    return invalid_argument(path + ": synth writes HDR files (.exr, .hdr, .pfm); tone map them with tonekit map");
  if (bits != 0 && bits != 32 && !(kind == io::OutputKind::exr && bits == 16))
    return invalid_argument("--bits " + std::to_string(bits) + " is not available for ." + output_kind_name(kind) +
                            " (exr: 16 or 32; hdr, pfm: 32)");
  return {};
}

// N frames of a sequence: HDR files by a %d pattern, else y4m (by extension) or raw frames.
int run_sequence(const SynthOptions& o, int width, int height) {
  if (!synth::find_sequence(o.name)) return report(synth::render_sequence_frame(o.name, 0, 1, 1, 1).status());
  auto rate = stream::parse_rate(o.fps);
  if (!rate.ok()) return report(rate.status());
  auto primaries = parse_primaries(o.primaries);
  if (!primaries.ok()) return report(primaries.status());
  const bool sequence = o.output != "-" && stream::is_sequence_pattern(o.output);
  const bool y4m = !sequence && o.output.size() > 4 && o.output.compare(o.output.size() - 4, 4, ".y4m") == 0;
  Transfer transfer = sequence ? Transfer::linear : Transfer::pq;
  if (!o.transfer.empty()) {
    auto t = parse_transfer(o.transfer);
    if (!t.ok()) return report(t.status());
    transfer = *t;
  }
  if (sequence) {
    const io::OutputKind kind = io::output_kind_for(o.output);
    if (Status s = check_hdr_output(o.output, kind, o.bits); !s.ok()) return report(s);
    if (transfer != Transfer::linear) return report(invalid_argument("image sequences hold linear light: drop --transfer"));
    const stream::SequencePattern pattern = *stream::parse_sequence_pattern(o.output);
    for (int i = 0; i < o.frames; ++i) {
      auto image = synth::render_sequence_frame(o.name, i, o.frames, width, height);
      if (!image.ok()) return report(image.status());
      if (Status s = write_hdr_file(pattern.path(o.first + i), kind, *image, o.bits); !s.ok()) return report(s);
    }
    return kExitOk;
  }
  if (transfer == Transfer::hlg) return report(invalid_argument("synth writes pq or linear video frames, not hlg"));
  if (y4m && transfer != Transfer::pq)
    return report(invalid_argument(o.output + ": y4m holds Y'CbCr, so PQ only; linear frames go raw (gbrpf32)"));
  if (io::output_kind_for(o.output) != io::OutputKind::unknown)
    return report(invalid_argument(o.output + ": an image output needs a %d sequence pattern (e.g. shot.%04d.exr)"));
  stream::ignore_sigpipe();
  stream::OutputStream out;
  out.set_target(o.output);
  if (y4m) {
    const std::string header = stream::format_y4m_header(width, height, *rate, 10, YuvRange::limited);
    if (Status s = out.write(header.data(), header.size()); !s.ok()) return report(s);
  }
  std::vector<std::uint8_t> bytes;
  for (int i = 0; i < o.frames; ++i) {
    auto image = synth::render_sequence_frame(o.name, i, o.frames, width, height);
    if (!image.ok()) return report(image.status());
    if (transfer == Transfer::pq) synth::encode_pq_yuv420p10(*image, *primaries, bytes);
    else synth::encode_gbrpf32(*image, bytes);
    Status s;
    if (y4m) s = out.write("FRAME\n", 6);
    if (s.ok()) s = out.write(bytes.data(), bytes.size());
    if (!s.ok()) {
      if (!out.downstream_closed()) return report(s);
      std::fprintf(stderr, "tonekit: output closed by its reader after %d frames; stopping\n", i);
      return kExitOk;
    }
  }
  Status s = out.close();
  return s.ok() ? kExitOk : report(s);
}

int run_synth(const SynthOptions& o) {
  if (o.list) {
    for (const synth::SceneInfo& s : synth::all_scenes()) std::printf("%-16s %s\n", s.id, s.description);
    for (const synth::SequenceInfo& s : synth::all_sequences())
      std::printf("%-16s (sequence, --frames N) %s\n", s.id, s.description);
    return kExitOk;
  }
  if (o.name.empty() || o.output.empty()) return report(invalid_argument("synth needs NAME and OUT (or --list)"));
  auto size = parse_size(o.size);
  if (!size.ok()) return report(size.status());
  if (Status s = synth::check_size(size->first, size->second); !s.ok()) return report(s);
  if (o.frames > 0) return run_sequence(o, size->first, size->second);
  if (o.output != "-" && stream::is_sequence_pattern(o.output))
    return report(invalid_argument(o.output + " is a sequence pattern: give --frames N"));
  if (!synth::find_scene(o.name)) return report(synth::render_scene(o.name, 1, 1).status());
  const io::OutputKind kind = io::output_kind_for(o.output);
  if (Status s = check_hdr_output(o.output, kind, o.bits); !s.ok()) return report(s);

  auto image = synth::render_scene(o.name, size->first, size->second);
  if (!image.ok()) return report(image.status());
  Status status = write_hdr_file(o.output, kind, *image, o.bits);
  return status.ok() ? kExitOk : report(status);
}

}  // namespace

void add_synth_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<SynthOptions>();
  std::string names;
  for (const synth::SceneInfo& s : synth::all_scenes()) names += "  " + std::string(s.id) + ": " + s.description + "\n";
  std::string sequences;
  for (const synth::SequenceInfo& s : synth::all_sequences())
    sequences += "  " + std::string(s.id) + ": " + s.description + "\n";
  CLI::App* cmd = app.add_subcommand("synth", "Write a procedural HDR test scene or sequence");
  cmd->add_option("name", o->name, "scene id, or sequence id with --frames (see below or --list)");
  cmd->add_option("output", o->output,
                  "output file: .exr (half by default), .hdr or .pfm; with --frames a pattern (shot.%04d.exr), "
                  "a .y4m file (10-bit PQ), or '-' / a file of raw frames");
  cmd->add_option("--size", o->size, "WxH, each side 1..7680, at most 7680x4320 pixels")->capture_default_str();
  cmd->add_option("--bits", o->bits, "exr: 16 (half, default) or 32 (float)");
  cmd->add_flag("--list", o->list, "list the scenes and sequences");
  cmd->add_option("--frames", o->frames, "write N frames of a sequence")->check(CLI::Range(1, 100000));
  cmd->add_option("--fps", o->fps, "sequence frame rate (y4m header)")->capture_default_str();
  cmd->add_option("--transfer", o->transfer,
                  "video frames: pq (default: yuv420p10, y4m C420p10) or linear (raw gbrpf32)");
  cmd->add_option("--primaries", o->primaries, "pq frames: bt2020 or bt709")->capture_default_str();
  cmd->add_option("--start", o->first, "image sequences: number of the first file")->capture_default_str();
  cmd->footer("\nScenes:\n" + names + "\nSequences (--frames N):\n" + sequences);
  cmd->callback([o, &exit_code] { exit_code = run_synth(*o); });
}

}  // namespace tonekit::cli
