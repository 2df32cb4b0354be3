// End-to-end tests of `tonekit blur` (apps/cmd_blur.cpp): --list from the registry, a blur to
// PFM, exit codes 1 and no output for bad usage. Skipped where the CLI is not built (TONEKIT_IO
// off) or the verb is not registered yet.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include "tonekit/blur.hpp"

namespace fs = std::filesystem;

namespace {

struct CliRun {
  int code = -1;
  std::string out;
};

CliRun run_cli(const std::string& args) {
  CliRun r;
  const std::string cmd = std::string(TONEKIT_CLI) + " " + args + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  const int status = pclose(p);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

bool blur_verb_available() {
  return fs::exists(TONEKIT_CLI) && run_cli("blur --list").code == 0;
}

}  // namespace

TEST(BlurCli, ListsEveryMethodAndBlursToPfm) {
  if (!blur_verb_available()) GTEST_SKIP() << "tonekit blur not built or not registered";
  const CliRun list = run_cli("blur --list");
  for (const tonekit::BlurMethodDesc* m : tonekit::all_blur_methods())
    EXPECT_NE(list.out.find(std::string(m->id) + ":"), std::string::npos) << m->id;

  const fs::path dir = fs::temp_directory_path() / ("tonekit_blur_cli_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string in = (dir / "in.pfm").string(), out = (dir / "out.pfm").string();
  ASSERT_EQ(run_cli("synth checker-hdr " + in + " --size 64x48").code, 0);
  const CliRun ok = run_cli("blur " + in + " " + out + " --method spreading --sigma 3");
  EXPECT_EQ(ok.code, 0) << ok.out;
  EXPECT_NE(ok.out.find("radius=7"), std::string::npos) << ok.out;  // the plan, on stderr
  EXPECT_EQ(fs::file_size(out), fs::file_size(in));                  // same size and format

  const std::string bad = (dir / "bad.pfm").string();
  EXPECT_EQ(run_cli("blur " + in + " " + bad + " --method nope --sigma 3").code, 1);
  EXPECT_EQ(run_cli("blur " + in + " " + bad + " --method separable --sigma 3 --set bogus=1").code, 1);
  EXPECT_EQ(run_cli("blur " + in + " " + bad + " --method separable").code, 1);  // no sigma
  EXPECT_EQ(run_cli("blur " + in + " " + (dir / "x.png").string() + " --sigma 2").code, 1);
  EXPECT_FALSE(fs::exists(bad));
  EXPECT_FALSE(fs::exists(dir / "x.png"));
  fs::remove_all(dir);
}
