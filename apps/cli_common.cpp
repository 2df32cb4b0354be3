#include "cli_common.hpp"

#include <unistd.h>

#include <CLI/CLI.hpp>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <filesystem>

namespace tonekit::cli {

int exit_code_for(const Status& status) {
  if (status.ok()) return kExitOk;
  return status.is_input_error() ? kExitInput : kExitRuntime;
}

static std::string one_line(std::string text) {
  std::replace(text.begin(), text.end(), '\n', ' ');
  std::replace(text.begin(), text.end(), '\r', ' ');
  return text;
}

int report(const Status& status) {
  std::fprintf(stderr, "tonekit: error: %s\n", one_line(status.message()).c_str());
  return exit_code_for(status);
}

void warn(const std::string& message) { std::fprintf(stderr, "tonekit: warning: %s\n", one_line(message).c_str()); }

std::string format_number(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

static std::string param_line(const ParamDesc& p, const char* indent) {
  char range[96], buf[512];
  std::snprintf(range, sizeof range, "[%g, %g]", p.min_value, p.max_value);
  std::snprintf(buf, sizeof buf, "%s%-12s default %-6s range %-16s %s%s\n", indent, p.name,
                format_number(p.default_value).c_str(), range, p.integer ? "(whole) " : "", p.help);
  return buf;
}

std::string operators_help() {
  std::string s = "Operators (--op ID, parameters with --set NAME=VALUE; `tonekit ops` for equations and papers):\n";
  for (const OperatorDesc* op : all_operators()) {
    s += "  " + std::string(op->id) + ": " + op->title +
         (op->locality == Locality::local ? " [local]\n" : " [global]\n");
    for (const ParamDesc& p : op->params) s += param_line(p, "      ");
  }
  s += "  common parameters (every operator):\n";
  for (const ParamDesc& p : common_params()) s += param_line(p, "      ");
  return s;
}

// Wraps text at `width` columns with `indent` in front of every line.
static std::string wrap(const std::string& text, std::size_t width, const std::string& indent) {
  std::string out, line;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find(' ', pos);
    if (end == std::string::npos) end = text.size();
    std::string word = text.substr(pos, end - pos);
    if (!line.empty() && indent.size() + line.size() + 1 + word.size() > width) {
      out += indent + line + "\n";
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
    pos = end + 1;
  }
  if (!line.empty()) out += indent + line + "\n";
  return out;
}

std::string operator_details(const OperatorDesc& op) {
  std::string s = std::string(op.id) + " - " + op.title + (op.locality == Locality::local ? " [local]\n" : " [global]\n");
  s += wrap(std::string("Citation: ") + op.citation, 100, "    ");
  s += wrap(op.description, 100, "    ");
  s += "    parameters:\n";
  if (op.params.empty()) s += "      (none of its own)\n";
  for (const ParamDesc& p : op.params) s += param_line(p, "      ");
  return s;
}

std::string common_params_details() {
  std::string s = "common parameters (every operator takes these too):\n";
  for (const ParamDesc& p : common_params()) s += param_line(p, "      ");
  return s;
}

namespace {
Status no_cuda_device() {
  return Status{StatusCode::no_device,
                "--backend cuda: no CUDA device available (or a build without CUDA); use --backend cpu or auto"};
}
}  // namespace

Result<Backend> resolve_backend(std::string_view text) {
  auto parsed = parse_backend(text);
  if (!parsed.ok()) return parsed.status();
  if (*parsed == Backend::cuda && !cuda_available()) return no_cuda_device();
  if (*parsed != Backend::automatic) return *parsed;
  return cuda_available() ? Backend::cuda : Backend::cpu;
}

Result<Backend> begin_backend(std::string_view text) {
  auto parsed = parse_backend(text);
  if (!parsed.ok()) return parsed.status();
  if (*parsed == Backend::cpu) return Backend::cpu;
  start_cuda_in_background();
  // Finished at once only where there is nothing to start (no device node, no CUDA build).
  if (cuda_start_finished() && !cuda_available()) {
    if (*parsed == Backend::cuda) return no_cuda_device();
    return Backend::cpu;
  }
  return *parsed;
}

Result<std::vector<int>> parse_devices(std::string_view text, Backend backend) {
  if (backend != Backend::cuda) return invalid_argument("--devices needs the cuda backend (--backend cuda or auto with a GPU)");
  const int count = cuda_device_count();
  std::vector<int> devices;
  std::size_t a = 0;
  for (;;) {
    const std::size_t b = text.find(',', a);
    const std::string_view item = text.substr(a, b == std::string_view::npos ? std::string_view::npos : b - a);
    int d = 0;
    const auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), d);
    if (item.empty() || ec != std::errc() || end != item.data() + item.size() || d < 0)
      return invalid_argument("--devices expects CUDA device numbers separated by commas (e.g. 0,1), got '" +
                              std::string(text) + "'");
    if (d >= count)
      return invalid_argument("--devices: CUDA device " + std::to_string(d) + " does not exist (" + std::to_string(count) +
                              " present)");
    if (std::find(devices.begin(), devices.end(), d) != devices.end())
      return invalid_argument("--devices: device " + std::to_string(d) + " is listed twice");
    devices.push_back(d);
    if (b == std::string_view::npos) break;
    a = b + 1;
  }
  return devices;
}

Result<std::pair<int, int>> parse_size(std::string_view text) {
  auto bad = [&] { return invalid_argument("--size expects WxH (e.g. 1920x1080), got '" + std::string(text) + "'"); };
  std::size_t x = text.find_first_of("xX");
  if (x == std::string_view::npos) return bad();
  auto number = [](std::string_view t, int& v) {
    if (t.empty() || t.size() > 9) return false;
    auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    return ec == std::errc() && ptr == t.data() + t.size();
  };
  int w = 0, h = 0;
  if (!number(text.substr(0, x), w) || !number(text.substr(x + 1), h)) return bad();
  return std::make_pair(w, h);
}

const char* output_kind_name(io::OutputKind kind) {
  switch (kind) {
    case io::OutputKind::png: return "png";
    case io::OutputKind::jpeg: return "jpg";
    case io::OutputKind::exr: return "exr";
    case io::OutputKind::hdr: return "hdr";
    case io::OutputKind::pfm: return "pfm";
    case io::OutputKind::unknown: break;
  }
  return "?";
}

Result<OutputSpec> output_spec_for(const std::string& path, int bits, int input_channels) {
  OutputSpec spec;
  spec.kind = io::output_kind_for(path);
  const int channels = input_channels == 4 ? 4 : 3;
  auto bad_bits = [&](const char* allowed) {
    return invalid_argument("--bits " + std::to_string(bits) + " is not available for ." +
                            output_kind_name(spec.kind) + " output (" + allowed + ")");
  };
  switch (spec.kind) {
    case io::OutputKind::png:
      if (bits != 0 && bits != 8 && bits != 16) return bad_bits("png: 8 or 16");
      spec.format = {bits == 16 ? PixelType::u16 : PixelType::u8, channels};
      break;
    case io::OutputKind::jpeg:
      if (bits != 0 && bits != 8) return bad_bits("jpg: 8");
      spec.format = {PixelType::u8, 3};
      break;
    case io::OutputKind::exr:
      if (bits != 0 && bits != 16 && bits != 32) return bad_bits("exr: 16 for half, 32 for float");
      spec.format = {PixelType::f32, channels};
      spec.exr_half = bits != 32;
      break;
    case io::OutputKind::hdr:
    case io::OutputKind::pfm:
      if (bits != 0 && bits != 32) return bad_bits("hdr and pfm: 32 (float)");
      spec.format = {PixelType::f32, 3};
      break;
    case io::OutputKind::unknown:
      return invalid_argument("cannot tell the output format from '" + path +
                              "': use .png, .jpg, .exr, .hdr or .pfm");
  }
  return spec;
}

Status write_output(const std::string& path, const OutputSpec& spec, const OutputImage& image) {
  switch (spec.kind) {
    case io::OutputKind::png: return io::write_png(path, image, spec.png_level);
    case io::OutputKind::jpeg: return io::write_jpeg(path, image, spec.jpeg_quality);
    case io::OutputKind::exr:
    case io::OutputKind::hdr:
    case io::OutputKind::pfm: {
      if (image.type != PixelType::f32)
        return Status{StatusCode::runtime_error, "internal error: float output expected for " + path};
      Image linear(image.width, image.height, image.channels);
      std::memcpy(linear.pixels.data(), image.bytes.data(), linear.pixels.size() * sizeof(float));
      if (spec.kind == io::OutputKind::exr) return io::write_exr(path, linear, spec.exr_half);
      if (spec.kind == io::OutputKind::hdr) return io::write_hdr(path, linear);
      return io::write_pfm(path, linear);
    }
    case io::OutputKind::unknown: break;
  }
  return invalid_argument("unknown output format for '" + path + "'");
}

void add_glare_options(CLI::App* cmd, GlareParams& glare) {
  cmd->add_option("--glare", glare.strength,
                  "glare/bloom strength (0 = off): blurred bright-pass added to the scene before mapping")
      ->check(CLI::Range(0.0, 10.0))
      ->capture_default_str();
  cmd->add_option("--glare-threshold", glare.threshold,
                  "glare bright-pass knee, in multiples of the frame's log-average luminance")
      ->check(CLI::Range(0.0, 1e6))
      ->capture_default_str();
  cmd->add_option("--glare-radius", glare.radius, "glare core sigma as a fraction of the longer image side")
      ->check(CLI::Range(0.0, 0.5))
      ->capture_default_str();
}

void add_night_options(CLI::App* cmd, NightOptions& night) {
  cmd->add_flag("--night", night.on,
                "night vision before mapping: rod/cone blend by the adapting luminance, blue shift, acuity blur "
                "(identity above --night-photopic cd/m^2; tonekit/night.hpp has the model)");
  for (const ParamDesc& d : night_params()) {
    std::string flag = std::string("--night-") + d.name;
    std::replace(flag.begin(), flag.end(), '_', '-');
    char range[96];
    std::snprintf(range, sizeof range, " (default %g, %g..%g)", d.default_value, d.min_value, d.max_value);
    cmd->add_option(flag, night.values[d.name], std::string(d.help) + range);
  }
  cmd->add_option("--night-blur", night.blur, "night vision's acuity blur: a method of `tonekit blur --list`")
      ->capture_default_str();
}

bool night_requested(const NightOptions& night) {
  if (night.on || night.blur != "separable") return true;
  for (const auto& [name, text] : night.values)
    if (!text.empty()) return true;
  return false;
}

Result<NightParams> night_from_options(const NightOptions& night) {
  if (!night_requested(night)) return NightParams{};
  std::vector<std::pair<std::string, std::string>> settings;
  for (const auto& [name, text] : night.values)
    if (!text.empty()) settings.emplace_back(name, text);
  return prepare_night(settings, night.blur);
}

Result<Params> params_from_settings(const std::string& op, const std::vector<std::string>& settings) {
  std::vector<std::pair<std::string, std::string>> pairs;
  for (const std::string& s : settings) {
    auto kv = parse_setting(s);
    if (!kv.ok()) return kv.status();
    pairs.push_back(*kv);
  }
  return prepare_params(op, pairs);
}

std::string file_stem(const std::string& path) { return std::filesystem::path(path).stem().string(); }

Progress::Progress(int total) : total_(total), enabled_(isatty(STDERR_FILENO) == 1) {}

Progress::~Progress() { finish(); }

void Progress::update(int done, const std::string& label) {
  if (!enabled_ || total_ <= 0) return;
  constexpr int kWidth = 30;
  int filled = static_cast<int>(static_cast<long long>(kWidth) * done / total_);
  std::string bar(static_cast<std::size_t>(filled), '#');
  bar.append(static_cast<std::size_t>(kWidth - filled), '.');
  std::fprintf(stderr, "\r\033[K[%s] %d/%d %s", bar.c_str(), done, total_, label.substr(0, 60).c_str());
  std::fflush(stderr);
  drawn_ = true;
}

void Progress::finish() {
  if (drawn_) {
    std::fprintf(stderr, "\r\033[K");
    std::fflush(stderr);
    drawn_ = false;
  }
}

}  // namespace tonekit::cli
