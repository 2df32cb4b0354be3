// tonekit studio: a browser studio for live tone mapping (issue 16). Serves the page and its API
// (apps/studio/server.hpp) on loopback until interrupted; prints the URL.
#include <CLI/CLI.hpp>
#include <cstdio>

#include "cli_common.hpp"
#include "studio/server.hpp"

namespace tonekit::cli {
namespace {

struct StudioCliOptions {
  std::vector<std::string> paths;
  std::string host = "127.0.0.1";
  int port = 0;
  std::string backend = "auto";
  std::string export_dir = "studio-exports";
  int max_upload_mb = 256;
};

int run_studio(const StudioCliOptions& o) {
  auto backend = resolve_backend(o.backend);
  if (!backend.ok()) return report(backend.status());
  if (o.host != "127.0.0.1" && o.host != "localhost" && o.host != "::1")
    warn("--host " + o.host + ": the studio is reachable from other machines; it has no authentication, and "
         "anyone who can reach it can read the served images and write exports");
  studio::StudioOptions options;
  options.paths = o.paths;
  options.host = o.host;
  options.port = o.port;
  options.backend = *backend;
  options.export_dir = o.export_dir;
  options.max_upload_bytes = static_cast<std::size_t>(o.max_upload_mb) << 20;
  auto server = studio::StudioServer::create(options);
  if (!server.ok()) return report(server.status());
  auto port = (*server)->start();
  if (!port.ok()) return report(port.status());
  const std::string shown_host = o.host.find(':') != std::string::npos ? "[" + o.host + "]" : o.host;
  std::printf("tonekit studio: http://%s:%d/  (backend %s, exports to %s, uploads up to %d MiB; Ctrl-C stops)\n",
              shown_host.c_str(), *port, backend_name(*backend), o.export_dir.c_str(), o.max_upload_mb);
  std::fflush(stdout);
  (*server)->wait();
  return kExitOk;
}

}  // namespace

void configure_studio_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<StudioCliOptions>();
  CLI::App* cmd = &app;
  cmd->add_option("paths", o->paths, "HDR files, folders or image sequence patterns (shot.%04d.exr) to serve (only these are readable)")->required();
  cmd->add_option("--port", o->port, "port (0: any free one)")->check(CLI::Range(0, 65535))->capture_default_str();
  cmd->add_option("--host", o->host, "address to listen on; anything but loopback prints a warning")->capture_default_str();
  cmd->add_option("--backend", o->backend, "cpu, cuda or auto (cuda when a GPU is present)")->capture_default_str();
  cmd->add_option("--export-dir", o->export_dir, "folder for exported images and their preset sidecars")
      ->capture_default_str();
  cmd->add_option("--max-upload-mb", o->max_upload_mb, "largest dropped file accepted, MiB")
      ->check(CLI::Range(1, 4096))
      ->capture_default_str();
  cmd->callback([o, &exit_code] { exit_code = run_studio(*o); });
}

}  // namespace tonekit::cli
