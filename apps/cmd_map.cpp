// tonekit map: tone map one file (IN OUT) or many (IN... or a folder, with -o PATTERN).
// Every check that can fail on what the user gave (operator, parameters, backend, output
// formats, pattern collisions) runs before the first file is read, and writers go through a
// temporary file + rename, so a failed run never leaves a partial output behind.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <set>
#include <system_error>
#include <thread>

#include "auto_select.hpp"
#include "batch_pipeline.hpp"
#include "cli_common.hpp"
#include "preset.hpp"
#include "tonekit/blur.hpp"

namespace tonekit::cli {
namespace {

namespace fs = std::filesystem;

struct MapOptions {
  std::vector<std::string> paths;
  std::string pattern;
  std::string op = "reinhard";
  std::vector<std::string> settings;
  std::string backend = "auto";
  int bits = 0;
  int quality = 92;
  int png_level = io::kDefaultPngLevel;
  GlareParams glare;  // strength 0: off
  NightOptions night;  // --night, --night-*
  std::string preset;
  bool automatic = false;  // --auto (apps/auto_select.cpp)
  std::string devices;     // --devices 0,1: images spread over these GPUs
  bool summary = false;    // --summary: the run's rate and where its time went
  int decoders = 0;        // --decoders: decoding threads (0: from the core count)
  int in_flight = 0;       // --in-flight: images alive at once (0: from the core count)
  int encoders = 0;        // --encoders: encoding threads (0: from the core count)
  std::string primaries = "bt709";  // --primaries: the inputs' primaries
  std::string gamut = "clip";       // --gamut: BT.2020 -> BT.709 gamut mapping
};

bool is_hdr_file(const fs::path& p) {
  std::string ext = p.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return ext == ".exr" || ext == ".hdr" || ext == ".pic" || ext == ".pfm" || ext == ".rgbe";
}

// Expands folders into their HDR files (sorted, not recursive).
Result<std::vector<std::string>> expand_inputs(const std::vector<std::string>& paths) {
  std::vector<std::string> files;
  for (const std::string& path : paths) {
    std::error_code ec;
    if (fs::is_directory(path, ec)) {
      std::vector<std::string> found;
      for (const fs::directory_entry& e : fs::directory_iterator(path, ec))
        if (e.is_regular_file(ec) && is_hdr_file(e.path())) found.push_back(e.path().string());
      if (ec) return bad_input(path + ": cannot list the folder: " + ec.message());
      if (found.empty()) return bad_input(path + ": no .exr, .hdr, .pic or .pfm files in this folder");
      std::sort(found.begin(), found.end());
      files.insert(files.end(), found.begin(), found.end());
    } else {
      files.push_back(path);
    }
  }
  return files;
}

// PATTERN placeholders: {name} the input's stem, {ext} its extension without the dot (for
// a.exr next to a.hdr), {op} the operator id, {backend}, {index} (1-based, zero-padded to 4).
// A pattern that is an existing folder or ends in '/' means FOLDER/{name}.png.
Result<std::string> expand_pattern(const std::string& pattern, const std::string& input, const std::string& op,
                                   const std::string& backend, int index) {
  std::string out;
  for (std::size_t i = 0; i < pattern.size();) {
    if (pattern[i] == '{') {
      std::size_t close = pattern.find('}', i);
      if (close == std::string::npos) return invalid_argument("-o pattern '" + pattern + "': unclosed '{'");
      std::string key = pattern.substr(i + 1, close - i - 1);
      if (key == "name") out += file_stem(input);
      else if (key == "ext") {
        std::string ext = fs::path(input).extension().string();
        out += ext.empty() ? ext : ext.substr(1);
      } else if (key == "op") out += op;
      else if (key == "backend") out += backend;
      else if (key == "index") {
        char buf[16];
        std::snprintf(buf, sizeof buf, "%04d", index);
        out += buf;
      } else {
        return invalid_argument("-o pattern '" + pattern + "': unknown placeholder {" + key +
                                "} (known: {name}, {ext}, {op}, {backend}, {index})");
      }
      i = close + 1;
    } else {
      out += pattern[i++];
    }
  }
  return out;
}

// `--backend auto` maps a small job on the CPU without starting CUDA: on a GPU host CUDA's
// start-up and teardown (0.3-0.5 s) cost more than the CPU takes for a few images with a global
// operator. Measured on a 16-core GPU host (docs/performance.md, Stills): one 4K half
// EXR -> PNG, whole process, 0.11 s on the cpu backend and 0.40 s on cuda; batches of 100,
// 23 images/s on cpu and 33 on cuda. The two cross near 22 4K images, 11 megapixels a core; the
// limit keeps to 8 (about one 4K image a core), so that slower cores stay on the side where the
// CPU wins. A decision on the job's size, the operator and the machine's core count, not a race
// with the start-up: the same command on the same machine always maps on the same backend.
// Local operators, glare, night vision and --auto (many candidate maps an image) keep to the GPU.
constexpr double kAutoCpuPixelsPerCore = 8e6;
constexpr std::size_t kAutoCpuMaxFiles = 256;  // more files than this: not probed, the GPU

bool auto_prefers_cpu(const std::vector<BatchJob>& jobs, const Params& params, const MapOptions& o) {
  if (o.automatic || o.glare.strength > 0 || night_requested(o.night) || !o.devices.empty()) return false;
  if (params.op().locality != Locality::global || jobs.size() > kAutoCpuMaxFiles) return false;
  const double limit = kAutoCpuPixelsPerCore * std::max(1u, std::thread::hardware_concurrency());
  double pixels = 0;
  for (const BatchJob& job : jobs) {
    // A file that cannot be probed fails in the batch with its own message, on either backend.
    if (auto meta = io::probe_image(job.input); meta.ok())
      pixels += static_cast<double>(meta->width) * static_cast<double>(meta->height);
    if (pixels > limit) return false;
  }
  return true;
}

bool same_file(const std::string& a, const std::string& b) {
  std::error_code ec;
  return fs::exists(b, ec) && fs::equivalent(a, b, ec);
}

int run_map(const MapOptions& o) {
  // 1. What the user asked for, checked before touching any file.
  std::vector<std::pair<std::string, std::string>> settings;
  for (const std::string& s : o.settings) {
    auto kv = parse_setting(s);
    if (!kv.ok()) return report(kv.status());
    settings.push_back(*kv);
  }
  auto params = prepare_params(o.op, settings);
  if (!params.ok()) return report(params.status());
  auto requested = parse_backend(o.backend);
  if (!requested.ok()) return report(requested.status());
  if (o.quality < 1 || o.quality > 100) return report(invalid_argument("--jpeg-quality must be in [1, 100]"));
  if (o.png_level < 0 || o.png_level > 9) return report(invalid_argument("--png-level must be in [0, 9]"));

  // 2. The jobs: IN OUT, or inputs and -o PATTERN.
  std::vector<BatchJob> jobs;
  bool batch = !o.pattern.empty();
  if (!batch) {
    if (o.paths.size() != 2)
      return report(invalid_argument(o.paths.size() < 2 ? "map needs IN and OUT (or inputs and -o PATTERN)"
                                                        : "several inputs need -o PATTERN (e.g. -o out/{name}_{op}.png)"));
    std::error_code ec;
    if (fs::is_directory(o.paths[0], ec))
      return report(invalid_argument(o.paths[0] + " is a folder: use tonekit map FOLDER -o PATTERN"));
    jobs.push_back({o.paths[0], o.paths[1]});
  } else {
    auto inputs = expand_inputs(o.paths);
    if (!inputs.ok()) return report(inputs.status());
    std::string pattern = o.pattern;
    std::error_code ec;
    if (pattern.back() == '/' || fs::is_directory(pattern, ec))
      pattern = (fs::path(pattern) / "{name}.png").string();
    if (inputs->size() > 1 && pattern.find("{name}") == std::string::npos && pattern.find("{index}") == std::string::npos)
      return report(invalid_argument("-o pattern '" + pattern + "' needs {name} or {index} for several inputs"));
    std::map<std::string, std::string> taken;
    int index = 0;
    for (const std::string& in : *inputs) {
      auto out = expand_pattern(pattern, in, o.op, o.backend, ++index);
      if (!out.ok()) return report(out.status());
      if (auto [it, fresh] = taken.emplace(*out, in); !fresh)
        return report(invalid_argument(in + " and " + it->second + " would both be written to " + *out));
      jobs.push_back({in, *out});
    }
  }
  for (const BatchJob& j : jobs) {
    auto spec = output_spec_for(j.output, o.bits, 3);
    if (!spec.ok()) return report(spec.status());
    if (same_file(j.input, j.output)) return report(invalid_argument(j.output + ": would overwrite its own input"));
  }

  // 3. The backend. CUDA starts in the background, while the first files decode; `auto` is
  // settled by the batch pipeline (glare and mapping of an image always on one backend), or here
  // for a small job (auto_prefers_cpu). Without a device node, `cuda` fails here at once; a
  // driver that fails to start fails each image with its reason.
  const bool small_job = *requested == Backend::automatic && auto_prefers_cpu(jobs, *params, o);
  auto resolved = small_job ? Result<Backend>(Backend::cpu) : begin_backend(o.backend);
  if (!resolved.ok()) return report(resolved.status());
  Backend backend = *resolved;
  if (backend == Backend::automatic && !o.devices.empty()) {
    auto checked = resolve_backend(o.backend);
    if (!checked.ok()) return report(checked.status());
    backend = *checked;
  }
  std::vector<int> devices;
  if (!o.devices.empty()) {
    auto parsed = parse_devices(o.devices, backend);
    if (!parsed.ok()) return report(parsed.status());
    devices = *parsed;
  }

  // 4. Read, map, write (apps/batch_pipeline.cpp). In batch mode a failing file is reported
  // and the rest go on; the summary line counts both.
  BatchSettings run;
  run.params = &*params;
  run.backend = backend;
  run.bits = o.bits;
  run.jpeg_quality = o.quality;
  run.png_level = o.png_level;
  run.glare = o.glare;
  if (auto night = night_from_options(o.night); night.ok()) run.night = *night;
  else return report(night.status());
  {
    auto primaries = parse_primaries(o.primaries);
    if (!primaries.ok()) return report(primaries.status());
    auto gamut = parse_gamut_mapping(o.gamut);
    if (!gamut.ok()) return report(gamut.status());
    run.input_bt2020 = *primaries == Primaries::bt2020;
    run.gamut = *gamut;
  }
  run.create_folders = batch;
  run.progress = batch;
  run.devices = devices;
  run.decode_workers = o.decoders;
  run.max_in_flight = o.in_flight;
  run.encode_workers = o.encoders;
  if (o.automatic) {  // --auto (apps/auto_select.cpp): searched on the backend the image is mapped on
    auto selector = std::make_shared<AutoSelector>(backend);
    run.choose_params = [selector](const Image& image, Params& params, const std::string& input) {
      return selector->choose(image, params, input);
    };
  }
  const BatchResult result = run_batch(jobs, run);
  if (batch && result.failed > 0)
    std::fprintf(stderr, "tonekit: %d written, %d failed\n", result.written, result.failed);
  if (o.summary && !jobs.empty()) {
    const double n = static_cast<double>(jobs.size());
    std::fprintf(stderr,
                 "tonekit: %zu images in %.3f s (%.2f images/s, %s); per image: decode %.1f ms (%d decoders), map %.1f "
                 "ms, encode and write %.1f ms (%d encoders)\n",
                 jobs.size(), result.seconds, result.seconds > 0 ? n / result.seconds : 0.0,
                 backend == Backend::cpu ? (small_job ? "cpu: auto, a small job" : "cpu")
                                         : (backend == Backend::cuda || cuda_available() ? "cuda" : "cpu"),
                 1e3 * result.decode_seconds / n, result.decoders, 1e3 * result.map_seconds / n,
                 1e3 * result.write_seconds / n, result.encoders);
  }
  return result.exit_code;
}

}  // namespace

void add_map_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<MapOptions>();
  CLI::App* cmd = app.add_subcommand("map", "Tone map HDR images to PNG, JPEG, EXR, HDR or PFM");
  cmd->add_option("paths", o->paths, "IN OUT, or inputs (files or folders) with -o PATTERN")->required();
  cmd->add_option("-o,--output", o->pattern,
                  "output pattern for several inputs or a folder: {name} input stem, {ext} input extension, "
                  "{op} operator, {backend}, {index}; the extension picks the format (e.g. out/{name}_{op}.png)");
  cmd->add_option("--op", o->op, "operator id (see below)")->capture_default_str();
  cmd->add_option("--set", o->settings, "operator parameter NAME=VALUE (repeatable)")->allow_extra_args(false);
  cmd->add_option("--backend", o->backend,
                  "cpu, cuda or auto: cuda when a GPU works (its start-up, 0.3-0.5 s, runs while the first files "
                  "decode), except for a small job (a global operator, no glare or --auto, up to 8 megapixels a "
                  "CPU core: about one 4K image a core), which the CPU finishes before CUDA would start")
      ->capture_default_str();
  cmd->add_option("--devices", o->devices,
                  "CUDA devices to spread the images over, e.g. 0,1 (one mapping thread per GPU; backend cuda)");
  cmd->add_option("--bits", o->bits,
                  "bits per channel: png 8|16 (8), jpg 8, exr 16 half|32 float (16), hdr/pfm 32");
  cmd->add_flag("--auto", o->automatic,
                "choose the operator's parameters per image: (TMQI + FSITM)/2 - 0.005 CIEDE2000, within the "
                "registered ranges, <= 2 s on a proxy (searched on the GPU with the cuda backend)");
  cmd->add_option("--jpeg-quality,--quality", o->quality, "JPEG quality 1-100")->capture_default_str();
  cmd->add_flag("--summary", o->summary,
                "one line on stderr at the end: images per second and the time each stage took per image");
  cmd->add_option("--decoders", o->decoders, "decoding threads (0: from the core count)")
      ->check(CLI::Range(0, 64))
      ->capture_default_str();
  cmd->add_option("--encoders", o->encoders, "encoding threads (0: from the core count)")
      ->check(CLI::Range(0, 64))
      ->capture_default_str();
  cmd->add_option("--in-flight", o->in_flight, "images held at once, decoded to written (0: from the core count)")
      ->check(CLI::Range(0, 64))
      ->capture_default_str();
  cmd->add_option("--png-level", o->png_level,
                  "PNG level 0-9: 0 stores, 1 (ISA-L) deflates fastest, 2-9 (zlib) smaller and slower, 9 smallest (README: the size/time table)")
      ->capture_default_str();
  cmd->add_option("--primaries", o->primaries,
                  "the inputs' primaries: bt709, or bt2020 (converted to BT.709 with --gamut before mapping)")
      ->capture_default_str();
  cmd->add_option("--gamut", o->gamut,
                  "BT.2020 -> BT.709 gamut mapping: clip (out-of-gamut colours onto the boundary), desaturate "
                  "(softly towards the luminance), perceptual (chroma soft-clipped in ICtCp, hue kept)")
      ->capture_default_str();
  cmd->add_option("--glare", o->glare.strength,
                  "glare/bloom strength (0 = off): blurred bright-pass added to the scene before mapping")
      ->check(CLI::Range(0.0, 10.0))
      ->capture_default_str();
  cmd->add_option("--glare-threshold", o->glare.threshold,
                  "glare bright-pass knee, in multiples of the frame's log-average luminance")
      ->check(CLI::Range(0.0, 1e6))
      ->capture_default_str();
  cmd->add_option("--glare-radius", o->glare.radius, "glare core sigma as a fraction of the longer image side")
      ->check(CLI::Range(0.0, 0.5))
      ->capture_default_str();
  add_night_options(cmd, o->night);
  cmd->footer("\nOutputs: .png/.jpg get the display transfer (sRGB unless gamma is set); .exr/.hdr/.pfm hold "
              "the tone-mapped linear [0,1] values.\n\n" + operators_help());
  cmd->add_option("--preset", o->preset,
                  "JSON preset (operator, params, glare, night) as tonekit studio saves it; --op, --set, --glare* "
                  "and --night* given beside it override it");
  cmd->callback([o, cmd, &exit_code] {
    // The preset fills what the command line left unset: --set values come after its params.
    if (!o->preset.empty()) {
      auto preset = load_preset(o->preset);
      if (!preset.ok()) return void(exit_code = report(preset.status()));
      if (cmd->count("--op") == 0) o->op = preset->op;
      std::vector<std::string> settings;
      for (const auto& [name, value] : preset->settings) settings.push_back(name + "=" + value);
      settings.insert(settings.end(), o->settings.begin(), o->settings.end());
      o->settings = settings;
      if (cmd->count("--glare") == 0) o->glare.strength = preset->glare.strength;
      if (cmd->count("--glare-threshold") == 0) o->glare.threshold = preset->glare.threshold;
      if (cmd->count("--glare-radius") == 0) o->glare.radius = preset->glare.radius;
      // The preset's night vision unless the command line sets any of it (its values as --night-* flags).
      if (preset->night.on && !night_requested(o->night)) {
        o->night.on = true;
        o->night.blur = preset->night.blur_method;
        for (const auto& [name, value] : preset->night.values()) o->night.values[name] = number_text(value);
      }
    }
    exit_code = run_map(*o);
  });
}

}  // namespace tonekit::cli
