// tonekit video: runs the program tonekit-video, built and installed beside tonekit, with the
// same arguments. The verb lives in its own program because FFmpeg's libraries (libavcodec alone
// loads ~120 shared libraries) cost every start of a program that links them ~100 ms on a 2-core
// machine (a 4K still's whole `tonekit map` is ~350 ms); only tonekit-video pays it now.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "cli_common.hpp"

namespace tonekit::cli {
namespace {

constexpr const char* kVideoProgram = "tonekit-video";

int exec_video_program(const std::vector<std::string>& args) {
  std::error_code ec;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  const std::filesystem::path program = (ec ? std::filesystem::path(".") : self.parent_path()) / kVideoProgram;
  std::vector<char*> argv;
  argv.push_back(const_cast<char*>(kVideoProgram));
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::fflush(stdout);
  ::execv(program.c_str(), argv.data());
  const int error = errno;  // execv returns only when it failed
  return report(Status{StatusCode::runtime_error, "tonekit video: cannot run " + program.string() + ": " +
                                                      std::strerror(error) +
                                                      " (it is built and installed beside tonekit)"});
}

}  // namespace

void add_video_command(CLI::App& app, int& exit_code) {
  CLI::App* cmd = app.add_subcommand(
      "video", "Tone map a video file (any container and codec FFmpeg reads) into an SDR one (tonekit video --help)");
  cmd->set_help_flag();    // --help too goes to tonekit-video, which has the verb's options
  cmd->prefix_command();   // every argument after `video`, as given
  cmd->callback([cmd, &exit_code] { exit_code = exec_video_program(cmd->remaining()); });
}

}  // namespace tonekit::cli
