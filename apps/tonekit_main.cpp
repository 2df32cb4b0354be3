// tonekit: HDR tone mapping from the command line. Verbs live one per file (cmd_*.cpp); the
// operator lists in the help texts are generated from the registry.
// Exit codes: 0 success, 1 bad input or usage, 2 runtime failure; errors are one line on stderr.
#include <CLI/CLI.hpp>
#include <string>

#include "cli_main.hpp"
#include "tonekit/synth.hpp"
#include "tonekit/tonemap.hpp"
#include "tonekit/version.hpp"

int main(int argc, char** argv) {
  using namespace tonekit;
  cli::use_four_cuda_work_queues();
  cli::WaitForCudaStart wait_for_cuda;
  CLI::App app{"tonekit: HDR tone mapping on the CPU or a CUDA GPU.", "tonekit"};
  app.require_subcommand(0, 1);
  app.fallthrough(false);
  // --version: the version header's (include/tonekit/version.hpp) and the backends built in.
#ifdef TONEKIT_HAS_CUDA
  app.set_version_flag("--version", std::string("tonekit ") + TONEKIT_VERSION_STRING + " (CPU and CUDA backends)");
#else
  app.set_version_flag("--version", std::string("tonekit ") + TONEKIT_VERSION_STRING + " (CPU backend)");
#endif
  std::string scenes = "Synthetic scenes (tonekit synth NAME OUT):\n";
  for (const synth::SceneInfo& s : synth::all_scenes()) scenes += "  " + std::string(s.id) + "\n";
  app.footer("\n" + cli::operators_help() + "\n" + scenes +
             "\nExit codes: 0 success, 1 bad input or usage, 2 runtime failure.");

  int exit_code = cli::kExitOk;
  cli::add_map_command(app, exit_code);
  cli::add_info_command(app, exit_code);
  cli::add_ops_command(app, exit_code);
  cli::add_synth_command(app, exit_code);
  cli::add_demo_command(app, exit_code);
  cli::add_blur_command(app, exit_code);
  cli::add_studio_command(app, exit_code);
  cli::add_quality_command(app, exit_code);
  cli::add_compare_command(app, exit_code);
  cli::add_stream_command(app, exit_code);
  cli::add_lut_command(app, exit_code);
  cli::add_video_command(app, exit_code);

  return cli::parse_and_run(
      app, argc, argv, exit_code,
      "no command given (map, info, ops, synth, demo, blur, stream, video, studio, quality, compare; see tonekit --help)");
}
