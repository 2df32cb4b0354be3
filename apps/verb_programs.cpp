// Verbs that run in their own programs, built and installed beside tonekit: `tonekit video ARGS`
// runs tonekit-video ARGS (FFmpeg's libraries: libavcodec alone loads ~120 shared libraries) and
// `tonekit studio ARGS` runs tonekit-studio ARGS (the HTTP server's cpp-httplib, OpenSSL and
// Brotli). Loading those costs every start of a program that links them: ~100 and ~11 ms on a
// 2-core machine, against a whole 4K still's `tonekit map` of ~300 ms; only their own verb pays now.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "cli_common.hpp"

namespace tonekit::cli {
namespace {

int exec_program(const std::string& name, const std::string& verb, const std::vector<std::string>& args) {
  std::error_code ec;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  const std::filesystem::path program = (ec ? std::filesystem::path(".") : self.parent_path()) / name;
  std::vector<char*> argv;
  argv.push_back(const_cast<char*>(name.c_str()));
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::fflush(stdout);
  ::execv(program.c_str(), argv.data());
  const int error = errno;  // execv returns only when it failed
  return report(Status{StatusCode::runtime_error, "tonekit " + verb + ": cannot run " + program.string() + ": " +
                                                      std::strerror(error) + " (it is built and installed beside tonekit)"});
}

void add_program_verb(CLI::App& app, const std::string& verb, const std::string& description, const std::string& program,
                      int& exit_code) {
  CLI::App* cmd = app.add_subcommand(verb, description + " (tonekit " + verb + " --help)");
  cmd->set_help_flag();   // --help too goes to the program, which has the verb's options
  cmd->prefix_command();  // every argument after the verb, as given
  cmd->callback([cmd, verb, program, &exit_code] { exit_code = exec_program(program, verb, cmd->remaining()); });
}

}  // namespace

#if defined(TONEKIT_HAS_VIDEO_PROGRAM)
void add_video_command(CLI::App& app, int& exit_code) {
  add_program_verb(app, "video", "Tone map a video file (any container and codec FFmpeg reads) into an SDR one",
                   "tonekit-video", exit_code);
}
#endif

void add_studio_command(CLI::App& app, int& exit_code) {
  add_program_verb(app, "studio", "Browser studio: live tone mapping of HDR files (prints the URL)", "tonekit-studio",
                   exit_code);
}

}  // namespace tonekit::cli
