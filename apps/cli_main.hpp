// The parse-and-run step both programs' main() share (tonekit, tonekit-video): CLI11's parse, its
// --help on stdout, every other failure as one "tonekit: error:" line and its exit code.
#pragma once
#include <CLI/CLI.hpp>
#include <cstdlib>
#include <exception>
#include <new>

#include "cli_common.hpp"
#include "tonekit/tonemap.hpp"

namespace tonekit::cli {

// Parses and runs `app` (its callbacks set exit_code); `no_command`, when given, is the error for
// a command line that names no subcommand.
inline int parse_and_run(CLI::App& app, int argc, char** argv, const int& exit_code, const char* no_command = nullptr) {
  try {
    app.parse(argc, argv);
    if (no_command != nullptr && app.get_subcommands().empty()) return report(invalid_argument(no_command));
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help: printed on stdout
    return report(invalid_argument(e.what()));
  } catch (const std::bad_alloc&) {
    return report(Status{StatusCode::out_of_memory, "out of memory"});
  } catch (const std::exception& e) {
    return report(Status{StatusCode::runtime_error, e.what()});
  }
  return exit_code;
}

// The CLI's GPU work keeps at most three streams busy per device (the stream and video commands'
// upload, compute and download), so four hardware work queues serve it as well as the driver's
// default eight, and CUDA's start and exit are shorter with fewer (H200 host: an empty CUDA
// process 0.33 -> 0.28 s). First thing in main(), before CUDA starts; a value the user set wins.
inline void use_four_cuda_work_queues() { ::setenv("CUDA_DEVICE_MAX_CONNECTIONS", "4", 0); }

// A CUDA start-up launched in the background (begin_backend) ends before the process does.
struct WaitForCudaStart {
  ~WaitForCudaStart() { wait_for_cuda_start(); }
};

// main() of a verb's own program (tonekit-video, tonekit-studio: verb_programs.cpp): `configure`
// adds the verb's options and its callback to the program's root command.
inline int verb_program_main(int argc, char** argv, const char* description, const char* name,
                             void (*configure)(CLI::App&, int&)) {
  use_four_cuda_work_queues();
  WaitForCudaStart wait_for_cuda;
  CLI::App app{description, name};
  int exit_code = kExitOk;
  configure(app, exit_code);
  return parse_and_run(app, argc, argv, exit_code);
}

}  // namespace tonekit::cli
