// tonekit-studio: the `tonekit studio` verb as its own program (`tonekit studio ARGS` runs it; see
// verb_programs.cpp for why it is separate). Its options and its work: cmd_studio.cpp.
#include "cli_main.hpp"

int main(int argc, char** argv) {
  return tonekit::cli::verb_program_main(argc, argv, "Browser studio: live tone mapping of HDR files (prints the URL)",
                                         "tonekit studio", tonekit::cli::configure_studio_command);
}
