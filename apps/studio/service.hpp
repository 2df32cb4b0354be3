// What the studio does, apart from HTTP: render a view, analyse it, probe a pixel, export, with
// every input validated here (the registry for operators and values, PathGuard for files).
// Requests and answers are JSON objects; errors are Status values the server turns into 4xx/5xx.
#pragma once
#include <cstdint>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>

#include "../preset.hpp"
#include "image_library.hpp"
#include "renderer.hpp"
#include "tonekit/auto_params.hpp"
#include "tonekit/temporal.hpp"

namespace tonekit::studio {

using cli::parse_preset;
using cli::Preset;
using cli::preset_from_json;
using cli::preset_json;
using cli::preset_params;

struct RenderRequest {
  int image = -1;
  Preset preset;
  Params params;
  int width = 0;             // preview width (fitted by the page); 0 with full = true
  bool full = false;         // full resolution, cropped to `crop` (1:1 zoom)
  int crop_x = 0, crop_y = 0, crop_w = 0, crop_h = 0;
  bool png = false;          // PNG instead of raw RGBA bytes
  std::string view;          // client + view id for dropping stale requests ("" : never dropped)
  std::int64_t seq = 0;
  long long frame = 0;       // sequences: 0-based frame index (a still has the one frame 0)
  std::optional<double> fps; // sequences: playback rate, remembered for the sequence
  std::optional<TemporalParams> temporal;  // temporal adaptation on, with these parameters
};
// Parses and validates a render (or histogram, or export) request body.
Result<RenderRequest> parse_render_request(const nlohmann::json& body);

struct RenderReply {
  std::string body;          // RGBA8 rows, or a PNG
  int width = 0, height = 0; // of the body's image
  int source_width = 0, source_height = 0;  // the rendered frame (preview or full image)
  FrameStats stats;
  RenderTimings timings;
  double prepare_ms = 0.0;   // file read / downscale when not cached
  double encode_ms = 0.0;    // crop, copy or PNG encoding
  bool cached = false;       // the same look was rendered last time: only cropped/encoded now
};

class StudioService {
 public:
  StudioService(PathGuard roots, Backend backend, std::string export_dir);

  ImageLibrary& library() { return library_; }
  Backend backend() const { return renderer_.backend(); }
  const std::string& export_dir() const { return export_dir_; }

  Result<RenderReply> render(const RenderRequest& request);
  Result<nlohmann::json> histogram(const RenderRequest& request, int bins);
  // TMQI (Q, S, N, per scale) and FSITM of the view as the page shows it: the preview-size HDR
  // against its 8-bit render (glare and temporal state as the render applies them), with the ms.
  // An image below quality::kMinSide on a side: invalid_argument with the library's message.
  // With the cuda backend the scores come from the GPU ("scorer": "cuda"), by the library's rule
  // (scoring_backend) falling back to the CPU reference ("scorer": "cpu") when the GPU cannot score.
  Result<nlohmann::json> quality(const RenderRequest& request);
  // auto_params on the preview-size image from the request's operator and values, with the
  // library's own budget: the chosen values (every parameter of the operator), the start and
  // chosen scores and what was searched. With the cuda backend the search runs on the GPU
  // (the same search, "searcher": "cuda"), falling back to the CPU ("cpu") when the GPU cannot
  // search (scoring_backend).
  Result<nlohmann::json> auto_params(const RenderRequest& request);
  Result<nlohmann::json> probe(int image, int x, int y);
  Result<std::string> thumbnail(int image);
  // Writes NAME.png|jpg|exr and NAME.json (the preset) into the export folder.
  Result<nlohmann::json> export_image(const RenderRequest& request, const std::string& name, const std::string& format);
  // An exported file by its name, only among those this session wrote.
  Result<std::string> exported_path(const std::string& file_name) const;

 private:
  Result<ImageEntry*> entry(int id) const;
  // The request's preview-size scene (frame checked against the image's frame count), and the
  // sequence's playback rate in `fps`.
  Result<std::shared_ptr<const Image>> preview_scene(const RenderRequest& request, double* fps = nullptr);
  // The state to fold `request.frame` into, for the request's view (see render).
  TemporalState temporal_state(const RenderRequest& request, const ImageEntry& entry);
  // Temporal adaptation carried across the renders of one view (the page's A or B side).
  struct ViewTemporal {
    int image = -1;
    long long frame = -1;
    TemporalState before;  // the state before `frame` was folded in (a re-render of the same frame)
    TemporalState state;   // after it
  };
  // Where the scores and the search run: the renders' backend, cuda as `automatic` so that a GPU
  // that cannot score or search (no cuFFT) leaves them to the CPU (tonekit/tonemap.hpp's Backend).
  Backend scoring_backend() const { return backend() == Backend::cuda ? Backend::automatic : Backend::cpu; }
  Renderer renderer_;
  std::mutex temporal_mutex_;
  std::map<std::string, ViewTemporal> temporal_;
  ImageLibrary library_;
  std::string export_dir_;
  mutable std::mutex exports_mutex_;
  std::set<std::string> exports_;
};

// The JSON the page builds its controls from: operators with their parameters, the common
// parameters and the glare settings, all from the registries.
nlohmann::json registry_json();

}  // namespace tonekit::studio
