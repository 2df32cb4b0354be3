// tonekit stream IN OUT: tone map a video stream or an image sequence frame by frame, with a
// reader, the mapper and a writer overlapped (apps/stream/pipeline.hpp). IN: "-" or a file of
// raw frames, y4m (recognised by its header), or an image sequence (shot.%04d.exr). OUT: "-" or a
// file of raw frames (yuv420p, nv12, rgb24, rgba), y4m, or an image sequence (.png, .jpg, .exr).
// Every check on the arguments and on the input's header runs before the first frame, and a
// file output is created only when its first frame is ready, so a usage error leaves nothing.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>
#include <optional>

#include "cli_common.hpp"
#include "stream/frame_io.hpp"
#include "stream/frame_mapper.hpp"
#include "stream/pipeline.hpp"
#include "stream/sequence_pattern.hpp"
#include "tonekit/temporal.hpp"

namespace tonekit::cli {
namespace {

namespace fs = std::filesystem;
using namespace tonekit::stream;

struct StreamOptions {
  std::string input, output;
  std::string input_format, size, fps, transfer, primaries, matrix, range, gamut;
  double reference_white = 203.0, hlg_peak = 1000.0;
  std::optional<long long> start;
  long long frames = -1;
  std::string output_format;
  std::string op = "reinhard";
  std::vector<std::string> settings;
  std::string backend = "auto";
  std::string devices;  // --devices 0,1: each frame split over these GPUs
  int quality = 92;
  GlareParams glare;
  cli::NightOptions night;  // --night, --night-*
  bool temporal = false;
  std::vector<std::string> temporal_settings;
  std::string temporal_log;
  bool exact = false;
  bool summary = false;
};

// The input's colour: flags first, then what the stream says (a y4m colour range), then
// defaults by layout: YUV and 16-bit RGB are taken as HDR10 (PQ, BT.2020), float as scene-linear
// BT.709 (what renderers and EXRs hold).
Result<InputColour> input_colour(const StreamOptions& o, const SourceInfo& info) {
  InputColour c;
  const bool video_like = is_yuv(info.format) || info.format == InputFormat::rgb48;
  c.transfer = video_like ? Transfer::pq : Transfer::linear;
  c.primaries = video_like ? Primaries::bt2020 : Primaries::bt709;
  if (!o.transfer.empty()) {
    auto t = parse_transfer(o.transfer);
    if (!t.ok()) return t.status();
    c.transfer = *t;
  }
  if (Status s = apply_primaries_flag(c, o.primaries); !s.ok()) return s;
  c.matrix = c.primaries == Primaries::bt2020 ? YuvMatrix::bt2020_ncl : YuvMatrix::bt709;
  if (!o.matrix.empty()) {
    auto m = parse_yuv_matrix(o.matrix);
    if (!m.ok()) return m.status();
    c.matrix = *m;
  }
  if (info.range) c.range = *info.range;
  if (!o.range.empty()) {
    auto r = parse_yuv_range(o.range);
    if (!r.ok()) return r.status();
    c.range = *r;
  }
  return finish_input_colour(c, o.gamut, o.reference_white, o.hlg_peak);
}

// Where and how to write: a %d pattern is an image sequence; else --output-format, else .y4m by
// extension, else raw yuv420p.
Result<SinkOptions> sink_options(const StreamOptions& o) {
  SinkOptions s;
  s.path = o.output;
  s.jpeg_quality = o.quality;
  if (o.output != "-" && is_sequence_pattern(o.output)) {
    if (!o.output_format.empty())
      return invalid_argument("--output-format does not apply to an image sequence (" + o.output +
                              "): its extension picks the format");
    s.kind = OutputKind::sequence;
    s.image_kind = io::output_kind_for(o.output);
    if (s.image_kind != io::OutputKind::png && s.image_kind != io::OutputKind::jpeg && s.image_kind != io::OutputKind::exr)
      return invalid_argument(o.output + ": image sequences are written as .png, .jpg or .exr");
    if (Status p = parse_sequence_pattern(o.output).status(); !p.ok()) return p;
    return s;
  }
  const io::OutputKind by_ext = io::output_kind_for(o.output);
  if (by_ext != io::OutputKind::unknown)
    return invalid_argument(o.output + ": an image output needs a %d sequence pattern (e.g. out.%04d." +
                            output_kind_name(by_ext) + ")");
  if (!o.output_format.empty()) {
    auto k = parse_output_kind(o.output_format);
    if (!k.ok()) return k.status();
    s.kind = *k;
  } else {
    const bool y4m_ext = o.output.size() > 4 && o.output.compare(o.output.size() - 4, 4, ".y4m") == 0;
    s.kind = y4m_ext ? OutputKind::y4m : OutputKind::yuv420p;
  }
  return s;
}

int finish_report(const StreamOutcome& r, const std::string& output) {
  if (r.downstream_closed) {
    std::fprintf(stderr, "tonekit: %s was closed by its reader after %lld frame%s; stopping\n", output.c_str(),
                 r.frames_written, r.frames_written == 1 ? "" : "s");
    return kExitOk;
  }
  if (!r.writer_status.ok()) return report(r.writer_status);
  if (!r.mapper_status.ok()) return report(r.mapper_status);
  if (!r.reader_status.ok()) return report(r.reader_status);
  return kExitOk;
}

int run_stream_command(const StreamOptions& o) {
  ignore_sigpipe();
  // 1. The arguments.
  auto params = params_from_settings(o.op, o.settings);
  if (!params.ok()) return report(params.status());
  // CUDA starts in the background while the input is opened and its first frames are read
  // (run_stream reads ahead while FrameMapper::start waits for it); `auto` is settled there.
  auto backend = begin_backend(o.backend);
  if (!backend.ok()) return report(backend.status());
  if (*backend == Backend::automatic && !o.devices.empty()) backend = resolve_backend(o.backend);
  if (!backend.ok()) return report(backend.status());
  std::vector<int> devices;
  if (!o.devices.empty()) {
    auto parsed = parse_devices(o.devices, *backend);
    if (!parsed.ok()) return report(parsed.status());
    devices = *parsed;
  }
  if (o.quality < 1 || o.quality > 100) return report(invalid_argument("--jpeg-quality must be in [1, 100]"));
  SourceOptions so;
  so.path = o.input;
  so.start = o.start;
  so.zero_copy = *backend == Backend::cpu;  // the device path stages frames in page-locked buffers
  if (!o.input_format.empty()) {
    auto f = parse_input_format(o.input_format);
    if (!f.ok()) return report(f.status());
    so.format = *f;
  }
  if (!o.size.empty()) {
    auto sz = parse_size(o.size);
    if (!sz.ok()) return report(sz.status());
    so.size = *sz;
  }
  std::optional<Rational> fps;
  if (!o.fps.empty()) {
    auto r = parse_rate(o.fps);
    if (!r.ok()) return report(r.status());
    fps = *r;
  }
  auto sink_setup = sink_options(o);
  if (!sink_setup.ok()) return report(sink_setup.status());
  if (o.input != "-" && o.output != "-") {
    std::error_code ec;
    if (fs::exists(o.output, ec) && fs::equivalent(o.input, o.output, ec))
      return report(invalid_argument(o.output + ": would overwrite its own input"));
  }

  // 2. The input's header (y4m) or first image (sequences): errors here leave no output.
  Cancel cancel;
  auto source = open_source(so, &cancel);
  if (!source.ok()) return report(source.status());
  const SourceInfo& info = (*source)->info();
  auto colour = input_colour(o, info);
  if (!colour.ok()) return report(colour.status());

  MapperSetup ms;
  ms.width = info.width;
  ms.height = info.height;
  ms.format = info.format;
  ms.colour = *colour;
  ms.params = *params;
  ms.backend = *backend;
  ms.devices = devices;
  ms.glare = o.glare;
  if (auto night = cli::night_from_options(o.night); night.ok()) ms.night = *night;
  else return cli::report(night.status());
  ms.out = sink_setup->kind;
  ms.image_kind = sink_setup->image_kind;
  const Rational rate = fps ? *fps : info.fps.value_or(Rational{30, 1});
  if (o.temporal || !o.temporal_settings.empty()) {
    std::vector<std::pair<std::string, std::string>> pairs;
    for (const std::string& t : o.temporal_settings) {
      auto kv = parse_setting(t);
      if (!kv.ok()) return report(kv.status());
      pairs.push_back(*kv);
    }
    auto tp = prepare_temporal(pairs);
    if (!tp.ok()) return report(tp.status());
    ms.temporal = *tp;
  }
  ms.frame_seconds = 1.0 / rate.value();
  ms.temporal_log = o.temporal_log;
  ms.exact = o.exact;
  auto mapper = FrameMapper::create(ms);
  if (!mapper.ok()) return report(mapper.status());

  SinkOptions sink_opts = *sink_setup;
  sink_opts.width = info.width;
  sink_opts.height = info.height;
  sink_opts.fps = rate;
  sink_opts.first_number = info.kind == "sequence" ? info.first_number : 1;
  std::unique_ptr<FrameSink> sink = make_sink(sink_opts);

  // 3. Read, map, write.
  const StreamOutcome outcome = run_stream(**source, **mapper, *sink, cancel, o.frames);
  if (o.summary)
    std::fprintf(stderr,
                 "tonekit: %lld frames in %.3f s (%.1f fps); backend %s started in %.3f s with %d frames read ahead\n",
                 outcome.frames_written, outcome.seconds,
                 outcome.seconds > 0 ? static_cast<double>(outcome.frames_written) / outcome.seconds : 0.0,
                 (*mapper)->backend_label(), outcome.start_seconds, outcome.read_ahead_frames);
  return finish_report(outcome, o.output == "-" ? "stdout" : o.output);
}

}  // namespace

void add_stream_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<StreamOptions>();
  CLI::App* cmd = app.add_subcommand("stream", "Tone map a video stream (raw frames, y4m) or an image sequence");
  cmd->add_option("input", o->input, "'-' (stdin), a file of raw frames or y4m, or a sequence such as shot.%04d.exr")->required();
  cmd->add_option("output", o->output,
                  "'-' (stdout), a file (raw frames, or y4m by its .y4m extension), or a sequence such as out.%04d.png")
      ->required();
  cmd->add_option("--input-format", o->input_format, "raw input layout: p010, yuv420p10, rgb48, gbrpf32, rgba_f16, rgb_f32, rgba_f32");
  cmd->add_option("--size", o->size, "raw input WxH");
  cmd->add_option("--fps", o->fps, "frame rate (30, 29.97, 30000/1001): y4m output header; default: the y4m input's, else 30");
  cmd->add_option("--transfer", o->transfer, "pq, hlg or linear (default: pq for YUV and rgb48, linear for float)");
  cmd->add_option("--primaries", o->primaries, "bt2020 or bt709 (default: bt2020 for YUV and rgb48, bt709 for float)");
  cmd->add_option("--gamut", o->gamut,
                  "BT.2020 -> BT.709 gamut mapping: clip (default: out-of-gamut colours onto the boundary), desaturate "
                  "(softly towards the luminance), perceptual (chroma soft-clipped in ICtCp, hue kept)");
  cmd->add_option("--matrix", o->matrix, "YUV matrix: bt2020nc or bt709 (default: from the primaries)");
  cmd->add_option("--range", o->range, "YUV range: limited (tv) or full (pc) (default: the y4m header's, else limited)");
  cmd->add_option("--reference-white", o->reference_white, "cd/m^2 that PQ/HLG map to scene 1.0 (BT.2408)")->capture_default_str();
  cmd->add_option("--hlg-peak", o->hlg_peak, "nominal peak of the HLG OOTF, cd/m^2")->capture_default_str();
  cmd->add_option("--start", o->start, "image sequence: first frame number (default: the lowest on disk)");
  cmd->add_option("--frames", o->frames, "stop after this many frames (default: all)")->check(CLI::NonNegativeNumber);
  cmd->add_option("--output-format", o->output_format, "raw output: yuv420p (default), nv12, rgb24, rgba, or y4m");
  cmd->add_option("--op", o->op, "operator id (see below)")->capture_default_str();
  cmd->add_option("--set", o->settings, "operator parameter NAME=VALUE (repeatable)")->allow_extra_args(false);
  cmd->add_option("--backend", o->backend, "cpu, cuda or auto (cuda when a GPU works)")->capture_default_str();
  cmd->add_option("--devices", o->devices,
                  "CUDA devices to split each frame over, e.g. 0,1 (bands of rows, one key per frame through NCCL; "
                  "float/half RGB(A) linear input, RGB/RGBA or image-sequence output)");
  cmd->add_option("--jpeg-quality", o->quality, "JPEG quality 1-100 (jpg sequences)")->capture_default_str();
  add_glare_options(cmd, o->glare);
  add_night_options(cmd, o->night);
  cmd->add_flag("--exact", o->exact,
                "CPU: the reference's transfer curves (powf) for 10-bit YUV -> yuv420p/nv12 too, instead of the "
                "fast path's tables (which stay within one 8-bit code of them)");
  cmd->add_flag("--summary", o->summary,
                "one line on stderr at the end: frames, seconds, fps, and how long the backend took to start "
                "(CUDA: driver and context) while the input was read ahead");
  cmd->add_flag("--temporal", o->temporal,
                "temporal adaptation: the key and peak follow the frames with time constants (one state for the "
                "whole stream, time step 1/fps; scene cuts reset it)");
  cmd->add_option("--temporal-set", o->temporal_settings, "temporal parameter NAME=VALUE (repeatable; implies --temporal)")
      ->allow_extra_args(false);
  cmd->add_option("--temporal-log", o->temporal_log,
                  "write a CSV of each frame's own and adapted log-average and peak (for plots and tests)");
  std::string temporal_help = "Temporal parameters (--temporal-set NAME=VALUE):\n";
  for (const ParamDesc& p : temporal_params())
    temporal_help += "  " + std::string(p.name) + "  default " + format_number(p.default_value) + "  range [" +
                     format_number(p.min_value) + ", " + format_number(p.max_value) + "]  " + p.help + "\n";
  cmd->footer("\nyuv420p, nv12 and y4m outputs are 8-bit BT.709 limited range; a progress line is drawn on stderr "
              "when it is a terminal.\n\n" + temporal_help + "\n" + operators_help());
  cmd->callback([o, &exit_code] { exit_code = run_stream_command(*o); });
}

}  // namespace tonekit::cli
