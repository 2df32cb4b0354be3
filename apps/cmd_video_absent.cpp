// tonekit video in a build without FFmpeg's libraries (CMake found no libavformat, libavcodec,
// libavutil, libswscale, libswresample): the verb exists and says so.
#include <CLI/CLI.hpp>
#include <cstdio>

#include "cli_common.hpp"

namespace tonekit::cli {

void add_video_command(CLI::App& app, int& exit_code) {
  CLI::App* cmd = app.add_subcommand("video", "Tone map a video file (this build has no FFmpeg libraries)");
  cmd->allow_extras();
  cmd->callback([&exit_code] {
    std::fprintf(stderr,
                 "tonekit: error: tonekit video: this tonekit was built without FFmpeg's libraries (libavformat, "
                 "libavcodec, libavutil, libswscale, libswresample: install their -dev packages and configure again)\n");
    exit_code = kExitInput;
  });
}

}  // namespace tonekit::cli
