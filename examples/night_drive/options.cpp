#include "options.hpp"

#include <algorithm>
#include <charconv>
#include <cstdio>

namespace night_drive {

int report(const tonekit::Status& status) {
  std::string text = status.message();
  std::replace(text.begin(), text.end(), '\n', ' ');
  std::fprintf(stderr, "tonekit: error: %s\n", text.c_str());
  return status.ok() ? 0 : status.is_input_error() ? 1 : 2;
}

tonekit::Result<std::pair<int, int>> parse_size(std::string_view text) {
  auto bad = [&] { return tonekit::invalid_argument("--size expects WxH (e.g. 1920x1080), got '" + std::string(text) + "'"); };
  const std::size_t x = text.find_first_of("xX");
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

namespace {
tonekit::Result<std::vector<std::pair<std::string, std::string>>> split_settings(const std::vector<std::string>& settings) {
  std::vector<std::pair<std::string, std::string>> pairs;
  for (const std::string& s : settings) {
    auto kv = tonekit::parse_setting(s);
    if (!kv.ok()) return kv.status();
    pairs.push_back(*kv);
  }
  return pairs;
}
}  // namespace

tonekit::Result<tonekit::Params> params_from_settings(const std::string& op, const std::vector<std::string>& settings) {
  auto pairs = split_settings(settings);
  if (!pairs.ok()) return pairs.status();
  return tonekit::prepare_params(op, *pairs);
}

tonekit::Result<tonekit::NightParams> night_from_settings(bool off, const std::vector<std::string>& settings) {
  if (off) return tonekit::NightParams{};
  auto pairs = split_settings(settings);
  if (!pairs.ok()) return pairs.status();
  return tonekit::prepare_night(*pairs);
}

void add_glare_options(CLI::App* cmd, tonekit::GlareParams& glare) {
  cmd->add_option("--glare", glare.strength, "glare/bloom strength (0 = off): blurred bright-pass added to the scene")
      ->check(CLI::Range(0.0, 10.0))
      ->capture_default_str();
  cmd->add_option("--glare-threshold", glare.threshold, "glare bright-pass knee, in multiples of the log-average luminance")
      ->check(CLI::Range(0.0, 1e6))
      ->capture_default_str();
  cmd->add_option("--glare-radius", glare.radius, "glare core sigma as a fraction of the longer image side")
      ->check(CLI::Range(0.0, 0.5))
      ->capture_default_str();
}

}  // namespace night_drive
