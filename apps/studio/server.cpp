#include "server.hpp"

#include <httplib.h>

#include <charconv>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "request_gate.hpp"
#include "stream/sequence_pattern.hpp"
#include "service.hpp"
#include "web_assets.hpp"

namespace tonekit::studio {

using nlohmann::json;

namespace {

int http_status_for(const Status& s) {
  switch (s.code()) {
    case StatusCode::invalid_argument:
    case StatusCode::bad_input:
    case StatusCode::unsupported:
      return 400;
    case StatusCode::out_of_memory:
      return 507;
    default:
      return 500;
  }
}

void send_json(httplib::Response& res, const json& body, int status = 200) {
  res.status = status;
  res.set_content(body.dump(), "application/json");
}

void send_error(httplib::Response& res, int status, const std::string& message) {
  send_json(res, json{{"error", message}}, status);
}

void send_status(httplib::Response& res, const Status& s) { send_error(res, http_status_for(s), s.message()); }

// JSON request bodies: bounded far below the upload limit, parsed without exceptions.
Result<json> json_body(const httplib::Request& req, std::size_t limit) {
  if (req.body.size() > limit) return invalid_argument("request body over " + std::to_string(limit) + " bytes");
  json body = json::parse(req.body, nullptr, /*allow_exceptions=*/false);
  if (body.is_discarded()) return invalid_argument("request body is not valid JSON");
  return body;
}

Result<int> int_query(const httplib::Request& req, const char* name) {
  if (!req.has_param(name)) return invalid_argument(std::string("missing query parameter '") + name + "'");
  const std::string text = req.get_param_value(name);
  int v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc{} || end != text.data() + text.size())
    return invalid_argument(std::string("query parameter '") + name + "' must be an integer");
  return v;
}

}  // namespace

Result<std::unique_ptr<StudioServer>> StudioServer::create(const StudioOptions& options) {
  if (options.paths.empty()) return invalid_argument("studio needs at least one file or folder to serve");
  auto guard = PathGuard::create(options.paths);
  if (!guard.ok()) return guard.status();
  // A sequence pattern that names no unbroken run of frames is the user's error, said now
  // (the stream's own messages: no match, a gap) rather than as a missing entry on the page.
  for (const std::filesystem::path& root : guard->roots())
    if (guard->is_pattern(root)) {
      auto pattern = stream::parse_sequence_pattern(root.string());
      if (!pattern.ok()) return pattern.status();
      auto range = stream::scan_sequence(*pattern, std::nullopt);
      if (!range.ok()) return range.status();
    }
  std::unique_ptr<StudioServer> server(new StudioServer());
  server->options_ = options;
  server->service_ = std::make_unique<StudioService>(std::move(*guard), options.backend,
                                                     std::filesystem::absolute(options.export_dir).string());
  server->gate_ = std::make_unique<RequestGate>();
  server->http_ = std::make_unique<httplib::Server>();
  server->add_routes();
  return server;
}

StudioServer::~StudioServer() { stop(); }

Result<int> StudioServer::start() {
  const int port = options_.port == 0 ? http_->bind_to_any_port(options_.host)
                                      : (http_->bind_to_port(options_.host, options_.port) ? options_.port : -1);
  if (port <= 0)
    return io_error("cannot listen on " + options_.host + ":" + std::to_string(options_.port) +
                    " (in use, or not an address of this machine)");
  port_ = port;
  thread_ = std::thread([this] { http_->listen_after_bind(); });
  return port;
}

void StudioServer::stop() {
  if (http_) http_->stop();
  if (thread_.joinable()) thread_.join();
}

void StudioServer::wait() {
  if (thread_.joinable()) thread_.join();
}

void StudioServer::add_routes() {
  httplib::Server& http = *http_;
  StudioService& service = *service_;
  RequestGate& gate = *gate_;
  const std::size_t request_limit = options_.max_request_bytes;
  const std::size_t upload_limit = options_.max_upload_bytes;
  const std::string backend = backend_name(options_.backend);

  // httplib answers 413 itself for bodies over this, before any handler runs.
  http.set_payload_max_length(upload_limit);
  // Everything but an upload is a small JSON body: refused from its Content-Length, unread.
  http.set_pre_routing_handler([request_limit](const httplib::Request& req, httplib::Response& res) {
    if (req.path != "/api/upload" && req.get_header_value<std::uint64_t>("Content-Length") > request_limit) {
      send_error(res, 413, "request body over " + std::to_string(request_limit) + " bytes");
      return httplib::Server::HandlerResponse::Handled;
    }
    return httplib::Server::HandlerResponse::Unhandled;
  });
  http.set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr ep) {
    std::string what = "internal error";
    try {
      if (ep) std::rethrow_exception(ep);
    } catch (const std::exception& e) {
      what = e.what();
    } catch (...) {
    }
    send_error(res, 500, what);
  });
  http.set_error_handler([](const httplib::Request&, httplib::Response& res) {
    if (res.body.empty()) {
      const int status = res.status;
      send_error(res, status, status == 413 ? "request too large" : status == 404 ? "not found" : "error");
    }
  });

  auto serve_asset = [](const std::string& name, httplib::Response& res) {
    const WebAsset* asset = find_web_asset(name);
    if (!asset) return send_error(res, 404, "not found");
    res.set_content(std::string(asset->bytes), std::string(asset->content_type).c_str());
    res.set_header("Cache-Control", "no-cache");
  };
  http.Get("/", [serve_asset](const httplib::Request&, httplib::Response& res) { serve_asset("index.html", res); });
  http.Get(R"(/static/([A-Za-z0-9_.-]+))",
           [serve_asset](const httplib::Request& req, httplib::Response& res) { serve_asset(req.matches[1], res); });

  http.Get("/api/operators", [](const httplib::Request&, httplib::Response& res) { send_json(res, registry_json()); });

  http.Get("/api/status", [backend, upload_limit, request_limit](const httplib::Request&, httplib::Response& res) {
    std::size_t used = 0, total = 0;
    json memory = nullptr;  // the page shows "n/a"
    if (cuda_memory_info(&used, &total)) memory = {{"used", used}, {"total", total}};
    send_json(res, {{"backend", backend}, {"cuda_available", cuda_available()}, {"gpu_memory", memory},
                    {"max_upload_bytes", upload_limit}, {"max_request_bytes", request_limit}});
  });

  http.Get("/api/images", [&service](const httplib::Request&, httplib::Response& res) {
    json list = json::array();
    for (ImageEntry* e : service.library().entries())
      list.push_back({{"id", e->id}, {"name", e->name}, {"width", e->width}, {"height", e->height},
                      {"uploaded", e->path.empty()}, {"sequence", e->is_sequence()},
                      {"frames", e->frame_count}, {"fps", e->fps}});
    send_json(res, {{"images", list}});
  });

  http.Get(R"(/api/images/(\d{1,7})/thumbnail)", [&service](const httplib::Request& req, httplib::Response& res) {
    auto png = service.thumbnail(std::stoi(req.matches[1]));
    if (!png.ok()) return send_status(res, png.status());
    res.set_content(*png, "image/png");
  });

  http.Post("/api/images/open", [&service, request_limit](const httplib::Request& req, httplib::Response& res) {
    auto body = json_body(req, request_limit);
    if (!body.ok()) return send_status(res, body.status());
    if (!body->is_object() || !body->contains("path") || !(*body)["path"].is_string())
      return send_error(res, 400, "expected {\"path\": \"FILE\"} (relative to the served folder, or absolute)");
    auto entry = service.library().open((*body)["path"].get<std::string>());
    if (!entry.ok()) return send_status(res, entry.status());
    send_json(res, {{"id", (*entry)->id}, {"name", (*entry)->name}, {"width", (*entry)->width}, {"height", (*entry)->height}});
  });

  http.Post("/api/upload", [&service](const httplib::Request& req, httplib::Response& res) {
    const std::string name = req.has_param("name") ? req.get_param_value("name") : "upload";
    if (name.size() > 255) return send_error(res, 400, "upload name over 255 characters");
    if (req.body.empty()) return send_error(res, 400, "empty upload");
    auto entry = service.library().add_upload(name, req.body);
    if (!entry.ok()) return send_status(res, entry.status());
    send_json(res, {{"id", (*entry)->id}, {"name", (*entry)->name}, {"width", (*entry)->width}, {"height", (*entry)->height}});
  });

  http.Post("/api/render", [&service, &gate, request_limit](const httplib::Request& req, httplib::Response& res) {
    const auto t0 = std::chrono::steady_clock::now();
    auto body = json_body(req, request_limit);
    if (!body.ok()) return send_status(res, body.status());
    auto request = parse_render_request(*body);
    if (!request.ok()) return send_status(res, request.status());
    // A newer request for this view already arrived: answer without rendering.
    if (!request->view.empty() && !gate.admit(request->view, request->seq))
      return send_error(res, 409, "stale render request (a newer one for this view arrived)");
    auto reply = service.render(*request);
    if (!reply.ok()) return send_status(res, reply.status());
    if (!request->view.empty() && !gate.is_newest(request->view, request->seq))
      return send_error(res, 409, "stale render request (overtaken while rendering)");
    const RenderTimings& t = reply->timings;
    const double server_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    json timings = {{"prepare", reply->prepare_ms}, {"glare", t.glare_ms}, {"night", t.night_ms}, {"stats", t.stats_ms}, {"map", t.map_ms},
                    {"encode", reply->encode_ms}, {"server", server_ms}, {"cached", reply->cached}};
    char server_timing[256];
    std::snprintf(server_timing, sizeof server_timing,
                  "prepare;dur=%.2f, glare;dur=%.2f, night;dur=%.2f, stats;dur=%.2f, map;dur=%.2f, encode;dur=%.2f, "
                  "server;dur=%.2f",
                  reply->prepare_ms, t.glare_ms, t.night_ms, t.stats_ms, t.map_ms, reply->encode_ms, server_ms);
    res.set_header("Server-Timing", server_timing);
    res.set_header("X-Tonekit-Timings", timings.dump());
    res.set_header("X-Tonekit-Width", std::to_string(reply->width));
    res.set_header("X-Tonekit-Height", std::to_string(reply->height));
    res.set_header("X-Tonekit-Source-Size", std::to_string(reply->source_width) + "x" + std::to_string(reply->source_height));
    res.set_header("X-Tonekit-Seq", std::to_string(request->seq));
    res.set_content(std::move(reply->body), request->png ? "image/png" : "application/octet-stream");
  });

  http.Post("/api/histogram", [&service, request_limit](const httplib::Request& req, httplib::Response& res) {
    auto body = json_body(req, request_limit);
    if (!body.ok()) return send_status(res, body.status());
    auto request = parse_render_request(*body);
    if (!request.ok()) return send_status(res, request.status());
    auto hist = service.histogram(*request, 128);
    if (!hist.ok()) return send_status(res, hist.status());
    send_json(res, *hist);
  });

  // Scores and automatic parameters take the render request's body; the work is the service's.
  for (const char* path : {"/api/quality", "/api/auto"}) {
    const bool scores = std::string(path) == "/api/quality";
    http.Post(path, [&service, request_limit, scores](const httplib::Request& req, httplib::Response& res) {
      auto body = json_body(req, request_limit);
      if (!body.ok()) return send_status(res, body.status());
      auto request = parse_render_request(*body);
      if (!request.ok()) return send_status(res, request.status());
      auto result = scores ? service.quality(*request) : service.auto_params(*request);
      if (!result.ok()) return send_status(res, result.status());
      send_json(res, *result);
    });
  }

  http.Get("/api/probe", [&service](const httplib::Request& req, httplib::Response& res) {
    auto image = int_query(req, "image"), x = int_query(req, "x"), y = int_query(req, "y");
    for (auto* q : {&image, &x, &y})
      if (!q->ok()) return send_status(res, q->status());
    auto probe = service.probe(*image, *x, *y);
    if (!probe.ok()) return send_status(res, probe.status());
    send_json(res, *probe);
  });

  http.Post("/api/preset", [request_limit](const httplib::Request& req, httplib::Response& res) {
    if (req.body.size() > request_limit) return send_error(res, 413, "preset over the request size limit");
    auto preset = parse_preset(req.body);
    if (!preset.ok()) return send_status(res, preset.status());
    auto params = preset_params(*preset);
    if (!params.ok()) return send_status(res, params.status());
    send_json(res, json::parse(preset_json(*params, preset->glare, preset->night)));
  });

  http.Post("/api/export", [&service, request_limit](const httplib::Request& req, httplib::Response& res) {
    auto body = json_body(req, request_limit);
    if (!body.ok()) return send_status(res, body.status());
    if (!body->is_object()) return send_error(res, 400, "expected a JSON object");
    for (const char* key : {"name", "format"})
      if (body->contains(key) && !(*body)[key].is_string())
        return send_error(res, 400, std::string("\"") + key + "\" must be a string");
    const std::string name = body->value("name", std::string("studio-export"));
    const std::string format = body->value("format", std::string("png"));
    json render_fields = *body;
    render_fields.erase("name");
    render_fields.erase("format");
    auto request = parse_render_request(render_fields);
    if (!request.ok()) return send_status(res, request.status());
    auto result = service.export_image(*request, name, format);
    if (!result.ok()) return send_status(res, result.status());
    send_json(res, *result);
  });

  http.Get(R"(/api/exports/([A-Za-z0-9_.-]+))", [&service](const httplib::Request& req, httplib::Response& res) {
    auto path = service.exported_path(req.matches[1]);
    if (!path.ok()) return send_error(res, 404, path.status().message());
    std::ifstream in(*path, std::ios::binary);
    if (!in) return send_error(res, 404, "export no longer on disk");
    std::ostringstream bytes;
    bytes << in.rdbuf();
    res.set_header("Content-Disposition", "attachment; filename=\"" + std::string(req.matches[1]) + "\"");
    res.set_content(bytes.str(), "application/octet-stream");
  });
}

}  // namespace tonekit::studio
