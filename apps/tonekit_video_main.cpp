// tonekit-video: the `tonekit video` verb as its own program (`tonekit video ARGS` runs it; see
// cmd_video_launch.cpp for why it is separate). Its options and its work: cmd_video.cpp.
#include <CLI/CLI.hpp>

#include "cli_main.hpp"

int main(int argc, char** argv) {
  using namespace tonekit;
  cli::WaitForCudaStart wait_for_cuda;
  CLI::App app{"Tone map a video file (any container and codec FFmpeg reads) into an SDR one", "tonekit video"};
  int exit_code = cli::kExitOk;
  cli::configure_video_command(app, exit_code);
  return cli::parse_and_run(app, argc, argv, exit_code);
}
