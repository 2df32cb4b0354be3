// Presets: the JSON `tonekit map --preset` reads and the studio writes. What loads must map;
// every mistake is an invalid_argument naming the field.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "preset.hpp"

using namespace tonekit;

TEST(Preset, ParsesOperatorParamsAndGlare) {
  auto p = cli::parse_preset(R"({"operator": "reinhard", "params": {"key": 0.12, "auto_key": true},
                                 "glare": {"strength": 0.1, "radius": 0.02}})");
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(p->op, "reinhard");
  auto params = cli::preset_params(*p);
  ASSERT_TRUE(params.ok());
  EXPECT_EQ(params->get("key"), 0.12);
  EXPECT_EQ(params->get("auto_key"), 1.0);
  EXPECT_EQ(p->glare.strength, 0.1);
  EXPECT_EQ(p->glare.threshold, GlareParams{}.threshold);  // unset: the default
  EXPECT_EQ(p->glare.radius, 0.02);
}

TEST(Preset, WrittenPresetReadsBackToTheSameValues) {
  auto params = prepare_params("drago", {{"bias", "0.7123456789012345"}, {"saturation", "0.3"}});
  ASSERT_TRUE(params.ok());
  GlareParams glare;
  glare.strength = 0.25;
  auto back = cli::parse_preset(cli::preset_json(*params, glare));
  ASSERT_TRUE(back.ok()) << back.status().message();
  auto again = cli::preset_params(*back);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->values(), params->values());  // exact: shortest round-trip text
  EXPECT_EQ(back->glare.strength, 0.25);
}

TEST(Preset, MistakesAreInvalidArgumentsNamingTheField) {
  const std::pair<const char*, const char*> cases[] = {
      {"{", "not valid JSON"},
      {"[1, 2]", "expected a JSON object"},
      {R"({"operator": 3})", "\"operator\" must be a string"},
      {R"({"operator": "nope"})", "unknown operator 'nope'"},
      {R"({"operator": "reinhard", "params": {"key": 5}})", "out of range"},
      {R"({"operator": "reinhard", "params": {"key": "0.1"}})", "parameter 'key' must be a number"},
      {R"({"operator": "reinhard", "params": {"bias": 0.8}})", "bias"},
      {R"({"operator": "reinhard", "params": [1]})", "\"params\" must be an object"},
      {R"({"operator": "reinhard", "glare": {"strength": 20}})", "strength out of range"},
      {R"({"operator": "reinhard", "glare": {"sigma": 2}})", "unknown glare setting 'sigma'"},
      {R"({"operator": "reinhard", "extra": 1})", "unknown field 'extra'"},
  };
  for (const auto& [text, expected] : cases) {
    auto p = cli::parse_preset(text);
    ASSERT_FALSE(p.ok()) << text;
    EXPECT_EQ(p.status().code(), StatusCode::invalid_argument) << text;
    EXPECT_NE(p.status().message().find(expected), std::string::npos) << text << " -> " << p.status().message();
  }
  auto missing = cli::load_preset("/nonexistent/preset.json");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("/nonexistent/preset.json"), std::string::npos);
}

// `tonekit map --preset`: a bad preset stops before any output; --set beside it overrides it.
TEST(Preset, MapCommandReadsItAndOverridesIt) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("tonekit_preset_cli_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string cli = TONEKIT_CLI;
  auto run = [&](const std::string& args) {
    const int status = std::system((cli + " " + args + " 2>" + (dir / "err.txt").string()).c_str());
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  };
  ASSERT_EQ(run("synth gradient-ramp " + (dir / "in.pfm").string() + " --size 64x32"), 0);
  auto write = [&](const char* name, const char* text) {
    std::ofstream((dir / name).string()) << text;
    return (dir / name).string();
  };
  const std::string bad = write("bad.json", R"({"operator": "reinhard", "params": {"key": 9}})");
  EXPECT_EQ(run("map " + (dir / "in.pfm").string() + " " + (dir / "bad.png").string() + " --preset " + bad), 1);
  EXPECT_FALSE(fs::exists(dir / "bad.png"));
  const std::string good = write("good.json", R"({"operator": "reinhard", "params": {"key": 0.5}})");
  ASSERT_EQ(run("map " + (dir / "in.pfm").string() + " " + (dir / "a.png").string() + " --preset " + good + " --backend cpu"), 0);
  ASSERT_EQ(run("map " + (dir / "in.pfm").string() + " " + (dir / "b.png").string() + " --op reinhard --set key=0.5 --backend cpu"), 0);
  ASSERT_EQ(run("map " + (dir / "in.pfm").string() + " " + (dir / "c.png").string() + " --preset " + good +
                " --set key=0.1 --backend cpu"), 0);
  auto bytes = [](const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  EXPECT_EQ(bytes(dir / "a.png"), bytes(dir / "b.png"));  // the preset is the same as its flags
  EXPECT_NE(bytes(dir / "a.png"), bytes(dir / "c.png"));  // --set after it wins
  fs::remove_all(dir);
}

TEST(Preset, NightVisionRoundTripsAndIsValidated) {
  auto p = cli::parse_preset(R"({"operator": "reinhard", "night": {"acuity": 0.003, "blue_shift": 0.5, "blur": "gaussian"}})");
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_TRUE(p->night.on);
  EXPECT_EQ(p->night.get("acuity"), 0.003);
  EXPECT_EQ(p->night.get("photopic"), NightParams{}.get("photopic"));  // unset: the default
  EXPECT_EQ(p->night.blur_method, "gaussian");
  auto params = cli::preset_params(*p);
  ASSERT_TRUE(params.ok());
  auto back = cli::parse_preset(cli::preset_json(*params, p->glare, p->night));
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_TRUE(back->night.on);
  EXPECT_EQ(back->night.values(), p->night.values());
  EXPECT_EQ(back->night.blur_method, "gaussian");
  // Off: no "night" field written, none read.
  auto off = cli::parse_preset(cli::preset_json(*params, p->glare));
  ASSERT_TRUE(off.ok());
  EXPECT_FALSE(off->night.on);
  for (const char* bad : {R"({"night": {"strength": 2}})", R"({"night": {"nope": 1}})", R"({"night": 1})",
                          R"({"night": {"acuity": "x"}})", R"({"night": {"blur": "nope"}})"}) {
    auto r = cli::parse_preset(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.status().code(), StatusCode::invalid_argument) << bad;
    EXPECT_NE(r.status().message().find("night"), std::string::npos) << r.status().message();
  }
}
