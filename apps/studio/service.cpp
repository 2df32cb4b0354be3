#include "service.hpp"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "../cli_common.hpp"
#include "analysis.hpp"
#include "downscale.hpp"
#include "tonekit/auto_params.hpp"
#include "tonekit/io.hpp"
#include "tonekit/quality.hpp"

namespace tonekit::studio {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// A request field that must be an integer when present.
Result<std::int64_t> int_field(const json& body, const char* name, std::int64_t fallback, std::int64_t lo, std::int64_t hi) {
  auto it = body.find(name);
  if (it == body.end() || it->is_null()) return fallback;
  if (!it->is_number_integer()) return invalid_argument(std::string("\"") + name + "\" must be an integer");
  const std::int64_t v = it->get<std::int64_t>();
  if (v < lo || v > hi)
    return invalid_argument(std::string("\"") + name + "\" = " + std::to_string(v) + " is outside [" +
                            std::to_string(lo) + ", " + std::to_string(hi) + "]");
  return v;
}

json param_json(const ParamDesc& p) {
  return {{"name", p.name}, {"default", p.default_value}, {"min", p.min_value},
          {"max", p.max_value}, {"help", p.help}, {"integer", p.integer}};
}

// RGBA8 (the page's ImageData layout) or PNG of a region of `image`.
Result<std::string> encode_region(const OutputImage& image, int x, int y, int w, int h, bool png) {
  OutputImage region;
  const OutputImage* src = &image;
  if (x != 0 || y != 0 || w != image.width || h != image.height) {
    region.allocate(w, h, image.channels, image.type);
    const std::size_t px = static_cast<std::size_t>(image.channels) * bytes_per_channel(image.type);
    for (int r = 0; r < h; ++r)
      std::memcpy(region.bytes.data() + static_cast<std::size_t>(r) * w * px,
                  image.bytes.data() + (static_cast<std::size_t>(y + r) * image.width + x) * px, w * px);
    src = &region;
  }
  if (png) return io::encode_png(*src);
  return std::string(reinterpret_cast<const char*>(src->bytes.data()), src->bytes.size());
}

Status check_frame(const ImageEntry& entry, long long frame) {
  if (frame < entry.frame_count) return {};
  return invalid_argument("frame " + std::to_string(frame) + " is outside " + entry.name + "'s " +
                          std::to_string(entry.frame_count) + " frame" + (entry.frame_count == 1 ? "" : "s") +
                          " (0 to " + std::to_string(entry.frame_count - 1) + ")");
}

}  // namespace

Result<RenderRequest> parse_render_request(const json& body) {
  if (!body.is_object()) return invalid_argument("expected a JSON object");
  RenderRequest r;
  auto image = int_field(body, "image", -1, 0, 1 << 20);
  if (!image.ok()) return image.status();
  if (*image < 0) return invalid_argument("\"image\" (an id from /api/images) is required");
  r.image = static_cast<int>(*image);
  json preset = json::object();
  for (const char* key : {"operator", "params", "glare", "night"})
    if (body.contains(key)) preset[key] = body[key];
  auto parsed = preset_from_json(preset);
  if (!parsed.ok()) return parsed.status();
  r.preset = std::move(*parsed);
  auto params = preset_params(r.preset);
  if (!params.ok()) return params.status();
  r.params = std::move(*params);
  auto width = int_field(body, "width", 1024, 1, kMaxImageSide);
  if (!width.ok()) return width.status();
  r.width = static_cast<int>(*width);
  if (auto full = body.find("full"); full != body.end()) {
    if (!full->is_boolean()) return invalid_argument("\"full\" must be true or false");
    r.full = full->get<bool>();
  }
  if (auto crop = body.find("crop"); crop != body.end() && !crop->is_null()) {
    if (!crop->is_object()) return invalid_argument("\"crop\" must be {x, y, w, h}");
    auto x = int_field(*crop, "x", 0, 0, kMaxImageSide), y = int_field(*crop, "y", 0, 0, kMaxImageSide);
    auto w = int_field(*crop, "w", 1, 1, kMaxImageSide), h = int_field(*crop, "h", 1, 1, kMaxImageSide);
    for (auto* f : {&x, &y, &w, &h})
      if (!f->ok()) return f->status();
    r.crop_x = static_cast<int>(*x), r.crop_y = static_cast<int>(*y);
    r.crop_w = static_cast<int>(*w), r.crop_h = static_cast<int>(*h);
  }
  if (auto format = body.find("format"); format != body.end()) {
    if (!format->is_string() || (*format != "rgba" && *format != "png"))
      return invalid_argument("\"format\" must be \"rgba\" or \"png\"");
    r.png = *format == "png";
  }
  if (auto view = body.find("view"); view != body.end()) {
    if (!view->is_string() || view->get<std::string>().size() > 128)
      return invalid_argument("\"view\" must be a string of at most 128 characters");
    r.view = view->get<std::string>();
  }
  auto seq = int_field(body, "seq", 0, 0, std::int64_t{1} << 52);
  if (!seq.ok()) return seq.status();
  r.seq = *seq;
  // The frame's upper bound depends on the image: checked when rendering.
  auto frame = int_field(body, "frame", 0, 0, std::int64_t{1} << 40);
  if (!frame.ok()) return frame.status();
  r.frame = *frame;
  if (auto fps = body.find("fps"); fps != body.end() && !fps->is_null()) {
    if (!fps->is_number() || fps->get<double>() <= 0 || fps->get<double>() > 1000)
      return invalid_argument("\"fps\" must be a number in (0, 1000]");
    r.fps = fps->get<double>();
  }
  if (auto t = body.find("temporal"); t != body.end() && !t->is_null()) {
    if (!t->is_object()) return invalid_argument("\"temporal\" must be {on, tau_brighten, tau_darken, cut_low, cut_high}");
    // The registry's validator, with the registry's messages: the page holds no ranges of its own.
    std::vector<std::pair<std::string, std::string>> settings;
    bool on = false;
    for (auto it = t->begin(); it != t->end(); ++it) {
      if (it.key() == "on") {
        if (!it->is_boolean()) return invalid_argument("\"temporal.on\" must be true or false");
        on = it->get<bool>();
      } else if (it->is_number()) {
        char text[64];
        std::snprintf(text, sizeof text, "%.17g", it->get<double>());
        settings.emplace_back(it.key(), text);
      } else {
        settings.emplace_back(it.key(), it->is_string() ? it->get<std::string>() : it->dump());
      }
    }
    auto params = prepare_temporal(settings);
    if (!params.ok()) return params.status();
    if (on) r.temporal = *params;
  }
  return r;
}

StudioService::StudioService(PathGuard roots, Backend backend, std::string export_dir)
    : renderer_(backend), library_(std::move(roots)), export_dir_(std::move(export_dir)) {}

Result<ImageEntry*> StudioService::entry(int id) const {
  ImageEntry* e = library_.find(id);
  if (!e) return Status(StatusCode::invalid_argument, "no image with id " + std::to_string(id));
  return e;
}

Result<RenderReply> StudioService::render(const RenderRequest& request) {
  auto e = entry(request.image);
  if (!e.ok()) return e.status();
  ImageEntry& entry = **e;
  std::lock_guard lock(entry.mutex);
  RenderReply reply;
  if (Status s = check_frame(entry, request.frame); !s.ok()) return s;
  if (request.fps) entry.fps = *request.fps;
  const auto t0 = std::chrono::steady_clock::now();
  auto scene = request.full ? library_.full_image(entry, request.frame)
                            : library_.preview(entry, request.width, request.frame);
  if (!scene.ok()) return scene.status();
  reply.prepare_ms = ms_since(t0);
  const Image& image = **scene;
  // The key of the look: the preset text (exact values) and the frame size.
  const std::string key = preset_json(request.params, request.preset.glare, request.preset.night) + std::to_string(image.width);
  std::string& cached_key = request.full ? entry.full_key : entry.preview_key;
  OutputImage& out = request.full ? entry.full_render : entry.preview_render;
  // With temporal adaptation the output depends on the frames before: never from the cache.
  reply.cached = !request.temporal && cached_key == key;
  if (!reply.cached) {
    cached_key.clear();
    std::optional<TemporalState> state;
    if (request.temporal) state = temporal_state(request, entry);
    // The step from the last frame of this view: one frame forward advances by 1/fps; a seek, a
    // jump or another image reset the state (temporal_state), so dt only matters when it is the
    // next frame.
    Renderer::Temporal step;
    if (state) step = {&*state, *request.temporal, 1.0 / entry.fps};
    // RGBA8: the page's ImageData layout, so the page copies the bytes without converting.
    Status s = renderer_.render(image, request.params, request.preset.glare, request.preset.night, {PixelType::u8, 4}, out, &reply.stats,
                                &reply.timings, state ? &step : nullptr);
    if (!s.ok()) return s;
    if (state) {
      std::lock_guard l(temporal_mutex_);
      temporal_[request.view].state = *state;
    } else {
      cached_key = key;
      std::lock_guard l(temporal_mutex_);
      temporal_.erase(request.view);  // off: the next "on" starts cold
    }
  }
  reply.source_width = image.width;
  reply.source_height = image.height;
  int x = 0, y = 0, w = image.width, h = image.height;
  if (request.full && request.crop_w > 0) {
    x = std::min(request.crop_x, image.width - 1);
    y = std::min(request.crop_y, image.height - 1);
    w = std::min(request.crop_w, image.width - x);
    h = std::min(request.crop_h, image.height - y);
  }
  const auto e0 = std::chrono::steady_clock::now();
  auto body = encode_region(out, x, y, w, h, request.png);
  if (!body.ok()) return body.status();
  reply.encode_ms = ms_since(e0);
  reply.body = std::move(*body);
  reply.width = w;
  reply.height = h;
  return reply;
}

TemporalState StudioService::temporal_state(const RenderRequest& request, const ImageEntry& entry) {
  std::lock_guard l(temporal_mutex_);
  ViewTemporal& v = temporal_[request.view];
  if (v.image == request.image && request.frame == v.frame) {
    v.state = v.before;  // the same frame again (a slider moved): folded in again from before it
  } else if (v.image == request.image && request.frame == v.frame + 1 && entry.is_sequence()) {
    v.before = v.state;  // playing on: the state carries over
  } else {
    v.before = TemporalState{};  // a seek or another image: adaptation starts from this frame
  }
  v.image = request.image;
  v.frame = request.frame;
  return v.before;
}

Result<json> StudioService::histogram(const RenderRequest& request, int bins) {
  RenderRequest preview = request;
  preview.full = false;
  auto rendered = render(preview);  // cached when the page just drew this preview
  if (!rendered.ok()) return rendered.status();
  ImageEntry& entry = *library_.find(request.image);
  std::lock_guard lock(entry.mutex);
  auto scene = library_.preview(entry, request.width, request.frame);
  if (!scene.ok()) return scene.status();
  LuminanceAnalysis a = analyse(**scene, entry.preview_render, bins);
  return json{{"log10_min", a.log10_min}, {"log10_max", a.log10_max}, {"counts", a.counts}, {"curve", a.curve},
              {"zero_pixels", a.zero_pixels}, {"curve_kind", "mean output value (display-encoded) per bin"},
              {"dynamic_range_stops", (a.log10_max - a.log10_min) * 3.3219280948873623}};
}

Result<std::shared_ptr<const Image>> StudioService::preview_scene(const RenderRequest& request, double* fps) {
  auto e = entry(request.image);
  if (!e.ok()) return e.status();
  std::lock_guard lock((*e)->mutex);
  if (fps) *fps = (*e)->fps;
  if (Status s = check_frame(**e, request.frame); !s.ok()) return s;
  // A shared pointer: the pixels stay valid after the lock is released, so the (slow) scoring
  // does not hold up renders of this image.
  return library_.preview(**e, request.width, request.frame);
}

Result<json> StudioService::quality(const RenderRequest& request) {
  const auto t0 = std::chrono::steady_clock::now();
  double fps = 24.0;
  auto scene = preview_scene(request, &fps);
  if (!scene.ok()) return scene.status();
  const Image& hdr = **scene;
  // Rendered into a local image rather than read from the entry's cached preview render: with
  // A and B on the same image that cache holds whichever view rendered last. With temporal
  // adaptation on, the view's state before this frame is used (as a re-render of the frame
  // shown would), read only: scoring must not move the view's adaptation.
  std::optional<TemporalState> state;
  Renderer::Temporal step;
  if (request.temporal) {
    {
      std::lock_guard l(temporal_mutex_);
      auto v = temporal_.find(request.view);
      const bool shown = v != temporal_.end() && v->second.image == request.image && v->second.frame == request.frame;
      state = shown ? v->second.before : TemporalState{};
    }
    step = {&*state, *request.temporal, 1.0 / fps};  // a copy of the view's state: scoring leaves it alone
  }
  OutputImage out;
  RenderTimings timings;
  if (Status s = renderer_.render(hdr, request.params, request.preset.glare, request.preset.night, {PixelType::u8, 3}, out, nullptr,
                                  &timings, state ? &step : nullptr);
      !s.ok())
    return s;
  const auto s0 = std::chrono::steady_clock::now();
  Backend scorer = Backend::cpu;
  auto scores = quality::assess(hdr, out, scoring_backend(), &scorer);
  if (!scores.ok()) return scores.status();
  const bool on_gpu = scorer == Backend::cuda;
  const quality::TmqiScore& tmqi = scores->tmqi;
  const quality::FsitmScore& fsitm = scores->fsitm;
  const quality::ColourFidelity& colour = scores->colour;
  return json{{"tmqi", {{"q", tmqi.q}, {"s", tmqi.s}, {"n", tmqi.n}, {"s_per_scale", tmqi.s_per_scale},
                        {"mean_luminance", tmqi.mean_luminance}, {"contrast", tmqi.contrast}}},
              {"fsitm", {{"mean", fsitm.mean}, {"channel", fsitm.channel}}},
              {"colour", {{"delta_e2000_mean", colour.delta_e2000_mean}, {"delta_e2000_p95", colour.delta_e2000_p95},
                          {"hue_shift_mean_deg", colour.hue_shift_mean_deg}, {"chromatic_pixels", colour.chromatic_pixels}}},
              {"width", hdr.width}, {"height", hdr.height}, {"render_ms", timings.total_ms},
              {"score_ms", ms_since(s0)}, {"ms", ms_since(t0)}, {"scorer", on_gpu ? "cuda" : "cpu"}};
}

Result<json> StudioService::auto_params(const RenderRequest& request) {
  const auto t0 = std::chrono::steady_clock::now();
  auto scene = preview_scene(request);
  if (!scene.ok()) return scene.status();
  auto result = tonekit::auto_params(**scene, request.params, AutoBudget{}, scoring_backend());
  if (!result.ok()) return result.status();
  json params = json::object();
  for (const auto& [name, value] : result->params.values()) params[name] = value;
  auto scores = [](const AutoScores& s) {
    return json{{"objective", s.objective}, {"tmqi", s.tmqi}, {"fsitm", s.fsitm}, {"delta_e2000", s.delta_e2000}};
  };
  return json{{"operator", result->params.op().id}, {"params", params}, {"searched", result->searched},
              {"start", scores(result->start)}, {"chosen", scores(result->chosen)},
              {"evaluations", result->evaluations}, {"search_seconds", result->seconds},
              {"proxy", {{"width", result->proxy_width}, {"height", result->proxy_height}}},
              {"searcher", backend_name(result->backend)}, {"ms", ms_since(t0)}};
}

Result<json> StudioService::probe(int image, int x, int y) {
  auto e = entry(image);
  if (!e.ok()) return e.status();
  std::lock_guard lock((*e)->mutex);
  auto full = library_.full_image(**e);
  if (!full.ok()) return full.status();
  const Image& im = **full;
  if (x < 0 || y < 0 || x >= im.width || y >= im.height)
    return invalid_argument("pixel (" + std::to_string(x) + ", " + std::to_string(y) + ") is outside the " +
                            std::to_string(im.width) + "x" + std::to_string(im.height) + " image");
  const float* p = im.row(y) + static_cast<std::size_t>(x) * im.channels;
  return json{{"x", x}, {"y", y}, {"rgb", {p[0], p[1], p[2]}}, {"luminance", luminance(p)}};
}

Result<std::string> StudioService::thumbnail(int image) {
  auto e = entry(image);
  if (!e.ok()) return e.status();
  {
    std::lock_guard lock((*e)->mutex);
    if (!(*e)->thumbnail_png.empty()) return (*e)->thumbnail_png;
  }
  RenderRequest r;
  r.image = image;
  auto params = prepare_params("reinhard");
  r.params = *params;
  r.width = 160;
  std::lock_guard lock((*e)->mutex);
  // Decoded for the thumbnail only, not cached: a strip of thumbnails must not push the images
  // being edited out of the library's cache.
  std::shared_ptr<const Image> source = (*e)->full;
  if (!source) {
    auto image = io::read_image((*e)->frame_path(0));
    if (!image.ok()) return image.status();
    source = std::make_shared<const Image>(std::move(*image));
  }
  Image small = downscale_to_width(*source, 160);
  OutputImage out;
  if (Status s = renderer_.render(small, r.params, {}, {}, {PixelType::u8, 3}, out, nullptr, nullptr); !s.ok()) return s;
  auto png = io::encode_png(out);
  if (!png.ok()) return png.status();
  (*e)->thumbnail_png = *png;
  return *png;
}

Result<json> StudioService::export_image(const RenderRequest& request, const std::string& name, const std::string& format) {
  if (name.empty() || name.size() > 100 || name.front() == '.' ||
      !std::all_of(name.begin(), name.end(), [](unsigned char c) { return std::isalnum(c) || c == '-' || c == '_' || c == '.'; }))
    return invalid_argument("export name '" + name + "': use 1-100 letters, digits, '-', '_' or '.' (not first)");
  const char* ext = format == "png" ? ".png" : format == "jpeg" ? ".jpg" : format == "exr" ? ".exr" : nullptr;
  if (!ext) return invalid_argument("export format must be png, jpeg or exr");
  auto e = entry(request.image);
  if (!e.ok()) return e.status();
  std::error_code ec;
  fs::create_directories(export_dir_, ec);
  if (ec) return io_error(export_dir_ + ": " + ec.message());
  const std::string file = name + ext, sidecar = name + ".json";
  const std::string path = (fs::path(export_dir_) / file).string();
  std::lock_guard lock((*e)->mutex);
  auto full = library_.full_image(**e, request.frame);
  if (!full.ok()) return full.status();
  // The CLI's own output spec and writer: the export is what `tonekit map --preset` writes.
  auto spec = cli::output_spec_for(path, 0, (*full)->channels);
  if (!spec.ok()) return spec.status();
  OutputImage out;
  RenderTimings timings;
  if (Status s = renderer_.render(**full, request.params, request.preset.glare, request.preset.night, spec->format, out, nullptr, &timings);
      !s.ok())
    return s;
  if (Status s = cli::write_output(path, *spec, out); !s.ok()) return s;
  const std::string preset = preset_json(request.params, request.preset.glare, request.preset.night);
  if (Status s = io::write_file_atomically((fs::path(export_dir_) / sidecar).string(), preset); !s.ok()) return s;
  {
    std::lock_guard l(exports_mutex_);
    exports_.insert(file);
    exports_.insert(sidecar);
  }
  return json{{"file", file}, {"sidecar", sidecar}, {"folder", export_dir_}, {"render_ms", timings.total_ms},
              {"preset", json::parse(preset)}};
}

Result<std::string> StudioService::exported_path(const std::string& file_name) const {
  std::lock_guard l(exports_mutex_);
  if (!exports_.count(file_name)) return invalid_argument(file_name + ": not exported in this session");
  return (fs::path(export_dir_) / file_name).string();
}

json registry_json() {
  json ops = json::array();
  for (const OperatorDesc* op : all_operators()) {
    json params = json::array();
    for (const ParamDesc& p : op->params) params.push_back(param_json(p));
    ops.push_back({{"id", op->id}, {"title", op->title}, {"citation", op->citation},
                   {"description", op->description}, {"local", op->locality == Locality::local},
                   {"params", params}});
  }
  json common = json::array();
  for (const ParamDesc& p : common_params()) common.push_back(param_json(p));
  // The glare settings as `tonekit map --glare*` takes them (GlareParams' defaults, the ranges
  // its validator and the CLI enforce).
  const GlareParams g;
  json glare = json::array({
      {{"name", "strength"}, {"default", g.strength}, {"min", 0.0}, {"max", 10.0}, {"integer", false},
       {"help", "glare/bloom strength (0 = off): blurred bright-pass added to the scene before mapping"}},
      {{"name", "threshold"}, {"default", g.threshold}, {"min", 0.0}, {"max", 1e6}, {"integer", false},
       {"help", "bright-pass knee, in multiples of the frame's log-average luminance"}},
      {{"name", "radius"}, {"default", g.radius}, {"min", 0.0}, {"max", 0.5}, {"integer", false},
       {"help", "glare core sigma as a fraction of the longer image side"}},
  });
  // Sequences: the temporal adaptation's registry (temporal_params()), as the operators' are.
  json temporal = json::array();
  for (const ParamDesc& p : temporal_params()) temporal.push_back(param_json(p));
  // Night vision: its registry (night_params()); the page adds the on/off toggle.
  json night = json::array();
  for (const ParamDesc& p : night_params()) night.push_back(param_json(p));
  return {{"operators", ops}, {"common", common}, {"glare", glare}, {"night", night}, {"temporal", temporal}};
}

}  // namespace tonekit::studio
