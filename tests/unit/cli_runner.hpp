// Runs the tonekit CLI (TONEKIT_CLI) for end-to-end tests: exit code, stdout and stderr apart.
#pragma once
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace tonekit::test {

struct CliResult {
  int code = -1;
  std::string out, err;
};

// `args` in shell syntax, run from folder `dir`.
inline CliResult run_tonekit(const std::filesystem::path& dir, const std::string& args) {
  const std::filesystem::path out = dir / ".cli_stdout", err = dir / ".cli_stderr";
  const std::string cmd = "cd '" + dir.string() + "' && '" + TONEKIT_CLI + "' " + args + " > '" + out.string() +
                          "' 2> '" + err.string() + "'";
  CliResult r;
  const int status = std::system(cmd.c_str());
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  auto slurp = [](const std::filesystem::path& p) {
    std::ifstream f(p, std::ios::binary);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
  };
  r.out = slurp(out);
  r.err = slurp(err);
  std::filesystem::remove(out);
  std::filesystem::remove(err);
  return r;
}

// A fresh empty folder under the temporary directory, named after the running test.
inline std::filesystem::path fresh_test_dir(const std::string& prefix) {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  const std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                    (prefix + "_" + std::to_string(::getpid()) + "_" + info->name());
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

}  // namespace tonekit::test
