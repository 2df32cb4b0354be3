// tonekit-video: the `tonekit video` verb as its own program (`tonekit video ARGS` runs it; see
// verb_programs.cpp for why it is separate). Its options and its work: cmd_video.cpp.
#include "cli_main.hpp"

int main(int argc, char** argv) {
  return tonekit::cli::verb_program_main(
      argc, argv, "Tone map a video file (any container and codec FFmpeg reads) into an SDR one", "tonekit video",
      tonekit::cli::configure_video_command);
}
