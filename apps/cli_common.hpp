// Pieces every verb shares: exit codes and the one-line error format, help text generated
// from the operator registry, WxH sizes, output formats chosen by extension, the progress bar.
#pragma once
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tonekit/blur.hpp"
#include "tonekit/image.hpp"
#include "tonekit/io.hpp"
#include "tonekit/night.hpp"
#include "tonekit/operators.hpp"
#include "tonekit/status.hpp"
#include "tonekit/tonemap.hpp"

namespace CLI {
class App;
}

namespace tonekit::cli {

// Exit codes: 0 success, 1 bad input or usage (Status::is_input_error), 2 runtime failure.
constexpr int kExitOk = 0;
constexpr int kExitInput = 1;
constexpr int kExitRuntime = 2;

int exit_code_for(const Status& status);
// Prints "tonekit: error: MESSAGE" (one line) on stderr and returns the exit code.
int report(const Status& status);
void warn(const std::string& message);

// Registry-generated help: a compact list (ids, titles, parameters with defaults and ranges)
// for --help footers, and the full description for `tonekit ops`.
std::string operators_help();
std::string operator_details(const OperatorDesc& op);
std::string common_params_details();
std::string format_number(double v);

// "WxH" -> (W, H); both positive integers.
Result<std::pair<int, int>> parse_size(std::string_view text);

// --backend cpu|cuda|auto resolved once per run: cuda without a usable device is a no_device
// error (one clear line), auto picks cuda when a device is present, else the CPU.
Result<Backend> resolve_backend(std::string_view text);
// The same without waiting for CUDA: starts its start-up in the background (the driver and the
// context take ~0.38 s on an H100 host) and returns cpu, cuda (not yet known to work: the first
// use reports a failed start) or automatic (a device node exists: decide once the start-up has
// answered, or race it). No device node or no CUDA build: cpu for auto, the no_device error
// for cuda, at once.
Result<Backend> begin_backend(std::string_view text);
// --devices LIST ("0,1,3"): distinct CUDA device ids that exist; needs the cuda backend.
Result<std::vector<int>> parse_devices(std::string_view text, Backend backend);

// What to write for an output path: its kind (from the extension), the tone-mapped format to
// ask for, and the EXR precision. `bits` 0 means the format's default.
struct OutputSpec {
  io::OutputKind kind = io::OutputKind::unknown;
  OutputFormat format;
  bool exr_half = true;
  int jpeg_quality = 92;
  int png_level = io::kDefaultPngLevel;
};
Result<OutputSpec> output_spec_for(const std::string& path, int bits, int input_channels);
const char* output_kind_name(io::OutputKind kind);
// Writes a tone-mapped image in the spec's format (temp file + rename: no partial output).
Status write_output(const std::string& path, const OutputSpec& spec, const OutputImage& image);

// The file's name without folder and last extension.
std::string file_stem(const std::string& path);

// A progress bar on stderr, drawn only when stderr is a terminal.
class Progress {
 public:
  explicit Progress(int total);
  ~Progress();
  void update(int done, const std::string& label);
  void finish();
  bool enabled() const { return enabled_; }

 private:
  int total_;
  bool enabled_;
  bool drawn_ = false;
};

// --glare, --glare-threshold and --glare-radius, as every verb that maps takes them.
void add_glare_options(CLI::App* cmd, GlareParams& glare);
// Night vision (tonekit/night.hpp): --night switches the stage on; --night-NAME VALUE, one flag
// per parameter of night_params() (underscores as dashes, help and range from the descriptor),
// also switches it on; --night-blur METHOD picks the acuity blur. Validated by prepare_night.
struct NightOptions {
  bool on = false;
  std::map<std::string, std::string> values;  // descriptor name -> the text given (empty: not given)
  std::string blur = "separable";
};
void add_night_options(CLI::App* cmd, NightOptions& night);
// Off (NightParams{}) unless --night or a --night-* flag was given.
Result<NightParams> night_from_options(const NightOptions& night);
bool night_requested(const NightOptions& night);
// --op ID with its --set NAME=VALUE list, validated by the registry (prepare_params).
Result<Params> params_from_settings(const std::string& op, const std::vector<std::string>& settings);

// Verbs: each adds its subcommand and sets `exit_code` when it runs.
void add_map_command(CLI::App& app, int& exit_code);
void add_info_command(CLI::App& app, int& exit_code);
void add_ops_command(CLI::App& app, int& exit_code);
void add_synth_command(CLI::App& app, int& exit_code);
void add_demo_command(CLI::App& app, int& exit_code);
void add_blur_command(CLI::App& app, int& exit_code);
void add_studio_command(CLI::App& app, int& exit_code);       // runs tonekit-studio (verb_programs.cpp)
void configure_studio_command(CLI::App& app, int& exit_code);  // cmd_studio.cpp: tonekit-studio's options
void add_quality_command(CLI::App& app, int& exit_code);
void add_compare_command(CLI::App& app, int& exit_code);
void add_stream_command(CLI::App& app, int& exit_code);
void add_lut_command(CLI::App& app, int& exit_code);
// `tonekit video` runs the program tonekit-video beside it (verb_programs.cpp; without FFmpeg's
// libraries cmd_video_absent.cpp says so); tonekit-video's own options: configure_video_command.
void add_video_command(CLI::App& app, int& exit_code);
void configure_video_command(CLI::App& app, int& exit_code);  // cmd_video.cpp

}  // namespace tonekit::cli
