// The studio's HTTP server (cpp-httplib): the page's files and the JSON API of StudioService.
//   GET  /                      the page (embedded at build time)       GET /static/NAME
//   GET  /api/operators         registry: operators, common params, glare settings
//   GET  /api/status            backend, GPU memory in use ("n/a": null), limits
//   GET  /api/images            the served images;  GET /api/images/ID/thumbnail (PNG)
//   POST /api/images/open       {"path"} a file inside the served roots
//   POST /api/upload?name=N     the file's bytes (at most max_upload_bytes)
//   POST /api/render            {image, operator, params, glare, width | full+crop, format, view, seq,
//                                frame, fps, temporal: {on, tau_brighten, ...} (sequences)}
//                               -> RGBA8 or PNG; X-Tonekit-Width/-Height/-Timings, Server-Timing
//   POST /api/histogram         same body -> log10 luminance histogram and the measured curve
//   POST /api/quality           render body -> TMQI {q, s, n, s_per_scale}, FSITM {mean, channel} and colour
//                               fidelity {delta_e2000_mean, delta_e2000_p95, hue_shift_mean_deg, chromatic_pixels}
//                               of the preview-size view, with the ms (400 below 161 px a side)
//   POST /api/auto              render body -> auto_params from its operator/params: the chosen
//                               {params}, start and chosen scores, searched names, ms
//   GET  /api/probe?image=&x=&y= HDR RGB and luminance at a full-resolution pixel
//   POST /api/preset            a preset's JSON -> validated and completed with the defaults
//   POST /api/export            {..render fields, format png|jpeg|exr, name} -> file + preset sidecar
//   GET  /api/exports/FILE      a file exported in this session
// Errors: {"error": message} with 400 (bad request, registry message), 404, 409 (stale render,
// not rendered), 413 (too large), 500.
#pragma once
#include <cstddef>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "tonekit/status.hpp"
#include "tonekit/tonemap.hpp"

namespace httplib {
class Server;
}

namespace tonekit::studio {

class StudioService;
class RequestGate;

struct StudioOptions {
  std::vector<std::string> paths;     // files or folders served
  std::string host = "127.0.0.1";
  int port = 0;                       // 0: any free port
  Backend backend = Backend::cpu;     // resolved (not automatic)
  std::string export_dir = "studio-exports";
  std::size_t max_upload_bytes = std::size_t{256} << 20;  // 256 MiB
  std::size_t max_request_bytes = std::size_t{1} << 20;   // JSON bodies
};

class StudioServer {
 public:
  static Result<std::unique_ptr<StudioServer>> create(const StudioOptions& options);
  ~StudioServer();
  // Binds and serves on a background thread; the bound port (options.port or a free one).
  Result<int> start();
  void stop();
  // Blocks until stop() (from another thread or a signal).
  void wait();
  int port() const { return port_; }

 private:
  StudioServer() = default;
  void add_routes();
  StudioOptions options_;
  std::unique_ptr<StudioService> service_;
  std::unique_ptr<RequestGate> gate_;
  std::unique_ptr<httplib::Server> http_;
  std::thread thread_;
  int port_ = 0;
};

}  // namespace tonekit::studio
