// The studio's HTTP API, end to end through httplib::Client against a server started in this
// process on an ephemeral port: good requests, bad JSON, unknown operators, out-of-range values,
// path traversal (../, absolute, symlinks, URL-encoded), upload limits, stale renders and
// several concurrent clients.
#include <gtest/gtest.h>
#include <httplib.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "api/cuda_entry.hpp"
#include "preset.hpp"
#include "studio/image_library.hpp"
#include "studio/service.hpp"
#include "studio/server.hpp"
#include "tonekit/io.hpp"
#include "tonekit/night.hpp"
#include "tonekit/quality.hpp"
#include "tonekit/synth.hpp"
#include "tonekit/temporal.hpp"

namespace fs = std::filesystem;
using nlohmann::json;
using namespace tonekit;

namespace {

constexpr std::size_t kUploadLimit = std::size_t{1} << 20;
constexpr std::size_t kRequestLimit = std::size_t{64} << 10;

std::string read_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

class StudioServerTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = fs::temp_directory_path() / ("tonekit_studio_" + std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "root" / "sub");
    fs::create_directories(dir_ / "outside");
    auto ramp = synth::render_scene("gradient-ramp", 96, 64);
    auto night = synth::render_scene("night-drive", 80, 48);
    ASSERT_TRUE(ramp.ok() && night.ok());
    ASSERT_TRUE(io::write_exr((dir_ / "root" / "a_ramp.exr").string(), *ramp).ok());
    ASSERT_TRUE(io::write_pfm((dir_ / "root" / "b_night.pfm").string(), *night).ok());
    ASSERT_TRUE(io::write_exr((dir_ / "root" / "sub" / "deeper.exr").string(), *night).ok());
    ASSERT_TRUE(io::write_exr((dir_ / "outside" / "secret.exr").string(), *night).ok());
    fs::create_symlink(dir_ / "outside" / "secret.exr", dir_ / "root" / "c_link.exr");
    fs::create_directory_symlink(dir_ / "outside", dir_ / "root" / "dirlink");
    studio::StudioOptions options;
    options.paths = {(dir_ / "root").string()};
    options.backend = Backend::cpu;
    options.export_dir = (dir_ / "exports").string();
    options.max_upload_bytes = kUploadLimit;
    options.max_request_bytes = kRequestLimit;
    auto server = studio::StudioServer::create(options);
    ASSERT_TRUE(server.ok()) << server.status().message();
    server_ = server->release();
    auto port = server_->start();
    ASSERT_TRUE(port.ok()) << port.status().message();
    port_ = *port;
  }
  static void TearDownTestSuite() {
    delete server_;
    fs::remove_all(dir_);
  }

  static httplib::Client client() {
    httplib::Client c("127.0.0.1", port_);
    c.set_url_encode(false);  // send the paths exactly as written (the traversal tests encode by hand)
    c.set_read_timeout(60, 0);
    return c;
  }
  static httplib::Result post(const std::string& path, const json& body) {
    return client().Post(path.c_str(), body.dump(), "application/json");
  }
  static std::string error_of(const httplib::Result& r) { return json::parse(r->body).value("error", ""); }

  static inline fs::path dir_;
  static inline studio::StudioServer* server_ = nullptr;
  static inline int port_ = 0;
};

json render_body(const std::string& op = "reinhard", json params = json::object()) {
  return {{"image", 0}, {"operator", op}, {"params", params}, {"width", 48}};
}

TEST_F(StudioServerTest, OperatorsComeFromTheRegistry) {
  auto r = client().Get("/api/operators");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200);
  json doc = json::parse(r->body);
  ASSERT_EQ(doc["operators"].size(), all_operators().size());
  for (std::size_t i = 0; i < all_operators().size(); ++i) {
    const OperatorDesc& op = *all_operators()[i];
    EXPECT_EQ(doc["operators"][i]["id"], op.id);
    ASSERT_EQ(doc["operators"][i]["params"].size(), op.params.size());
    for (std::size_t k = 0; k < op.params.size(); ++k) {
      EXPECT_EQ(doc["operators"][i]["params"][k]["name"], op.params[k].name);
      EXPECT_EQ(doc["operators"][i]["params"][k]["default"].get<double>(), op.params[k].default_value);
      EXPECT_EQ(doc["operators"][i]["params"][k]["max"].get<double>(), op.params[k].max_value);
      EXPECT_EQ(doc["operators"][i]["params"][k]["integer"].get<bool>(), op.params[k].integer);
    }
  }
  EXPECT_EQ(doc["common"].size(), common_params().size());
  EXPECT_EQ(doc["glare"].size(), 3u);
  ASSERT_EQ(doc["night"].size(), night_params().size());  // night vision's sliders: its descriptors
  for (std::size_t k = 0; k < night_params().size(); ++k) {
    EXPECT_EQ(doc["night"][k]["name"], night_params()[k].name);
    EXPECT_EQ(doc["night"][k]["default"].get<double>(), night_params()[k].default_value);
  }
}

TEST_F(StudioServerTest, StatusReportsBackendAndGpuMemory) {
  auto r = client().Get("/api/status");
  ASSERT_TRUE(r && r->status == 200);
  json doc = json::parse(r->body);
  EXPECT_EQ(doc["backend"], "cpu");
  EXPECT_EQ(doc["max_upload_bytes"].get<std::size_t>(), kUploadLimit);
  std::size_t used = 0, total = 0;
  const bool known = cuda_entry::device_memory_info(&used, &total);
  EXPECT_EQ(doc["gpu_memory"].is_null(), !known);
  if (!cuda_available()) EXPECT_FALSE(known);
}

TEST_F(StudioServerTest, ImagesListTheRootButNotSymlinksOutOfIt) {
  auto r = client().Get("/api/images");
  ASSERT_TRUE(r && r->status == 200);
  json images = json::parse(r->body)["images"];
  ASSERT_EQ(images.size(), 2u) << images.dump();
  EXPECT_EQ(images[0]["name"], "a_ramp.exr");
  EXPECT_EQ(images[0]["width"], 96);
  EXPECT_EQ(images[1]["name"], "b_night.pfm");
  auto thumb = client().Get("/api/images/0/thumbnail");
  ASSERT_TRUE(thumb && thumb->status == 200);
  EXPECT_EQ(thumb->body.substr(1, 3), "PNG");
  auto missing = client().Get("/api/images/99/thumbnail");
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->status, 400);
}

TEST_F(StudioServerTest, RenderReturnsRgbaWithTimingsAndPngOnRequest) {
  auto r = post("/api/render", render_body());
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  const int w = std::stoi(r->get_header_value("X-Tonekit-Width")), h = std::stoi(r->get_header_value("X-Tonekit-Height"));
  EXPECT_EQ(w, 48);
  EXPECT_EQ(h, 32);
  EXPECT_EQ(r->body.size(), static_cast<std::size_t>(w) * h * 4);
  json timings = json::parse(r->get_header_value("X-Tonekit-Timings"));
  for (const char* stage : {"prepare", "glare", "night", "stats", "map", "encode", "server"}) EXPECT_TRUE(timings.contains(stage)) << stage;
  EXPECT_NE(r->get_header_value("Server-Timing").find("map;dur="), std::string::npos);
  // Every alpha byte is opaque: the page draws the bytes as they come.
  for (std::size_t i = 3; i < r->body.size(); i += 4) ASSERT_EQ(static_cast<unsigned char>(r->body[i]), 255);

  json png = render_body();
  png["format"] = "png";
  auto p = post("/api/render", png);
  ASSERT_TRUE(p && p->status == 200);
  EXPECT_EQ(p->body.substr(1, 3), "PNG");

  // A different value renders different pixels; the same value again gives the same bytes.
  auto brighter = post("/api/render", render_body("reinhard", {{"key", 0.72}}));
  ASSERT_TRUE(brighter && brighter->status == 200);
  EXPECT_NE(brighter->body, r->body);
  auto again = post("/api/render", render_body());
  ASSERT_TRUE(again && again->status == 200);
  EXPECT_EQ(again->body, r->body);
  EXPECT_FALSE(json::parse(brighter->get_header_value("X-Tonekit-Timings"))["cached"].get<bool>());
  auto twice = post("/api/render", render_body());
  ASSERT_TRUE(twice && twice->status == 200);
  EXPECT_TRUE(json::parse(twice->get_header_value("X-Tonekit-Timings"))["cached"].get<bool>());
  EXPECT_EQ(twice->body, r->body);
}

TEST_F(StudioServerTest, FullResolutionCropIsACropOfTheFullRender) {
  json full = render_body();
  full["full"] = true;
  full["width"] = 96;
  auto whole = post("/api/render", full);
  ASSERT_TRUE(whole && whole->status == 200);
  full["crop"] = {{"x", 10}, {"y", 5}, {"w", 20}, {"h", 7}};
  auto crop = post("/api/render", full);
  ASSERT_TRUE(crop && crop->status == 200) << crop->body;
  ASSERT_EQ(crop->body.size(), 20u * 7u * 4u);
  for (int y = 0; y < 7; ++y)
    EXPECT_EQ(crop->body.substr(static_cast<std::size_t>(y) * 20 * 4, 20 * 4),
              whole->body.substr((static_cast<std::size_t>(y + 5) * 96 + 10) * 4, 20 * 4));
  // A crop past the edge is clipped to the image.
  full["crop"] = {{"x", 90}, {"y", 60}, {"w", 50}, {"h", 50}};
  auto edge = post("/api/render", full);
  ASSERT_TRUE(edge && edge->status == 200);
  EXPECT_EQ(edge->get_header_value("X-Tonekit-Width"), "6");
  EXPECT_EQ(edge->get_header_value("X-Tonekit-Height"), "4");
}

TEST_F(StudioServerTest, BadRequestsAreAnswered400WithTheRegistryMessage) {
  auto bad_json = client().Post("/api/render", "{\"image\": 0,", "application/json");
  ASSERT_TRUE(bad_json);
  EXPECT_EQ(bad_json->status, 400);
  EXPECT_NE(error_of(bad_json).find("not valid JSON"), std::string::npos);

  auto unknown = post("/api/render", render_body("no-such-op"));
  ASSERT_TRUE(unknown);
  EXPECT_EQ(unknown->status, 400);
  EXPECT_EQ(error_of(unknown), prepare_params("no-such-op").status().message());

  auto range = post("/api/render", render_body("reinhard", {{"key", 7.5}}));
  ASSERT_TRUE(range);
  EXPECT_EQ(range->status, 400);
  EXPECT_EQ(error_of(range), prepare_params("reinhard", {{"key", "7.5"}}).status().message());

  auto unknown_param = post("/api/render", render_body("reinhard", {{"phi", 8}}));
  ASSERT_TRUE(unknown_param);
  EXPECT_EQ(unknown_param->status, 400);
  EXPECT_EQ(error_of(unknown_param), prepare_params("reinhard", {{"phi", "8"}}).status().message());

  for (const json& body : {json{{"operator", "reinhard"}}, json{{"image", "0"}}, json{{"image", 0}, {"width", -5}},
                           json{{"image", 0}, {"params", {{"key", "0.2"}}}}, json{{"image", 0}, {"format", "bmp"}},
                           json{{"image", 0}, {"glare", {{"strength", 11}}}}, json{{"image", 0}, {"crop", 3}, {"full", true}},
                           json::array({1, 2}), json{{"image", 12345}}}) {
    auto r = post("/api/render", body);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 400) << body.dump();
    EXPECT_FALSE(error_of(r).empty()) << body.dump();
  }
  // Over the JSON limit (but under the upload limit): refused before the body is read.
  auto big = client().Post("/api/render", std::string(kRequestLimit + 1, ' '), "application/json");
  ASSERT_TRUE(big);
  EXPECT_EQ(big->status, 413);
  EXPECT_NE(error_of(big).find("request body over"), std::string::npos);
  // Far over it: the server answers 413 unread and closes, so the client may fail mid-send
  // instead of reading the answer; either way nothing was exported and the server still serves.
  auto huge = client().Post("/api/export", std::string(4 << 20, ' '), "application/json");
  if (huge) EXPECT_EQ(huge->status, 413);
  auto alive = client().Get("/api/status");
  ASSERT_TRUE(alive);
  EXPECT_EQ(alive->status, 200);
}

TEST_F(StudioServerTest, StaleRendersAreDroppedWithoutRendering) {
  json body = render_body();
  body["view"] = "client-1/a";
  body["seq"] = 5;
  auto first = post("/api/render", body);
  ASSERT_TRUE(first && first->status == 200);
  body["seq"] = 3;
  body["params"] = {{"key", 0.5}};
  auto stale = post("/api/render", body);
  ASSERT_TRUE(stale);
  EXPECT_EQ(stale->status, 409);
  EXPECT_TRUE(stale->body.find("stale") != std::string::npos);
  // Another view of the same client keeps its own numbering.
  body["view"] = "client-1/b";
  auto other = post("/api/render", body);
  ASSERT_TRUE(other && other->status == 200);
  body["view"] = "client-1/a";
  body["seq"] = 6;
  auto newer = post("/api/render", body);
  ASSERT_TRUE(newer && newer->status == 200);
}

TEST_F(StudioServerTest, FilesOutsideTheRootsAreRefused) {
  const std::string outside = (dir_ / "outside" / "secret.exr").string();
  for (const std::string& path :
       {std::string("../outside/secret.exr"), outside, std::string("c_link.exr"), std::string("dirlink/secret.exr"),
        std::string("sub/../../outside/secret.exr"), std::string("/etc/passwd"), std::string("sub/../../../../../etc/passwd"),
        (dir_ / "root" / ".." / "outside" / "secret.exr").string()}) {
    auto r = post("/api/images/open", {{"path", path}});
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 400) << path;
    EXPECT_NE(error_of(r).find("outside the served folders"), std::string::npos) << path << ": " << error_of(r);
  }
  // URL-encoded dots are not decoded again: a file by that literal name does not exist.
  auto encoded = post("/api/images/open", {{"path", "%2e%2e/outside/secret.exr"}});
  ASSERT_TRUE(encoded);
  EXPECT_EQ(encoded->status, 400);
  // Inside the root: a subfolder, and the same file by two spellings is one entry.
  auto inside = post("/api/images/open", {{"path", "sub/deeper.exr"}});
  ASSERT_TRUE(inside && inside->status == 200) << inside->body;
  auto same = post("/api/images/open", {{"path", (dir_ / "root" / "sub" / ".." / "sub" / "deeper.exr").string()}});
  ASSERT_TRUE(same && same->status == 200);
  EXPECT_EQ(json::parse(inside->body)["id"], json::parse(same->body)["id"]);
  auto missing = post("/api/images/open", {{"path", "nope.exr"}});
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->status, 400);
  EXPECT_NE(error_of(missing).find("no such file"), std::string::npos);

  // The page's files and the exports are looked up by exact name: no path reaches the disk.
  for (const char* url : {"/static/../server.cpp", "/static/..%2f..%2fCMakeLists.txt", "/static/%2e%2e/app.js",
                          "/static/..%2F..%2F..%2Fetc%2Fpasswd", "/api/exports/..%2fsecret.exr", "/api/exports/secret.exr",
                          "/../../etc/passwd", "/%2e%2e/%2e%2e/etc/passwd"}) {
    auto r = client().Get(url);
    ASSERT_TRUE(r) << url;
    EXPECT_EQ(r->status, 404) << url;
    EXPECT_EQ(r->body.find("EXR"), std::string::npos) << url;
  }
  auto page = client().Get("/");
  ASSERT_TRUE(page && page->status == 200);
  EXPECT_NE(page->body.find("tonekit studio"), std::string::npos);
  auto script = client().Get("/static/app.js");
  ASSERT_TRUE(script && script->status == 200);
  EXPECT_NE(script->get_header_value("Content-Type").find("javascript"), std::string::npos);
}

TEST_F(StudioServerTest, UploadsUseTheReadersAndTheSizeLimit) {
  const std::string pfm = read_bytes(dir_ / "root" / "b_night.pfm");
  ASSERT_LT(pfm.size(), kUploadLimit);
  auto ok = client().Post("/api/upload?name=dropped.pfm", pfm, "application/octet-stream");
  ASSERT_TRUE(ok);
  ASSERT_EQ(ok->status, 200) << ok->body;
  json entry = json::parse(ok->body);
  EXPECT_EQ(entry["width"], 80);
  json body = render_body();
  body["image"] = entry["id"];
  auto rendered = post("/api/render", body);
  ASSERT_TRUE(rendered && rendered->status == 200);

  auto garbage = client().Post("/api/upload?name=bad.exr", std::string(1000, 'x'), "application/octet-stream");
  ASSERT_TRUE(garbage);
  EXPECT_EQ(garbage->status, 400);
  EXPECT_NE(error_of(garbage).find("bad.exr"), std::string::npos) << error_of(garbage);
  const std::string truncated = pfm.substr(0, pfm.size() / 2);
  auto half = client().Post("/api/upload?name=half.pfm", truncated, "application/octet-stream");
  ASSERT_TRUE(half);
  EXPECT_EQ(half->status, 400);
  auto empty = client().Post("/api/upload?name=e.pfm", std::string(), "application/octet-stream");
  ASSERT_TRUE(empty);
  EXPECT_EQ(empty->status, 400);
  auto huge = client().Post("/api/upload?name=huge.exr", std::string(kUploadLimit + 1, 'x'), "application/octet-stream");
  ASSERT_TRUE(huge);
  EXPECT_EQ(huge->status, 413);
  // No temporary upload file is left behind.
  for (const auto& e : fs::directory_iterator(fs::temp_directory_path()))
    EXPECT_NE(e.path().filename().string().rfind("tonekit-studio-upload-", 0), 0u) << e.path();
}

TEST_F(StudioServerTest, ProbeHistogramAndPresets) {
  auto image = io::read_image((dir_ / "root" / "a_ramp.exr").string());
  ASSERT_TRUE(image.ok());
  auto probe = client().Get("/api/probe?image=0&x=50&y=20");
  ASSERT_TRUE(probe && probe->status == 200) << probe->body;
  json p = json::parse(probe->body);
  EXPECT_FLOAT_EQ(p["rgb"][1].get<float>(), image->row(20)[50 * image->channels + 1]);
  for (const char* bad : {"/api/probe?image=0&x=96&y=0", "/api/probe?image=0&x=-1&y=0", "/api/probe?image=0&x=a&y=0",
                          "/api/probe?image=0&y=0"}) {
    auto r = client().Get(bad);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 400) << bad;
  }

  auto hist = post("/api/histogram", render_body());
  ASSERT_TRUE(hist && hist->status == 200) << hist->body;
  json h = json::parse(hist->body);
  double sum = h["zero_pixels"].get<double>();
  for (double c : h["counts"]) sum += c;
  EXPECT_EQ(sum, 48.0 * 32.0);
  EXPECT_LT(h["log10_min"].get<double>(), h["log10_max"].get<double>());

  auto preset = client().Post("/api/preset", R"({"operator": "drago", "params": {"bias": 0.7}})", "application/json");
  ASSERT_TRUE(preset && preset->status == 200) << preset->body;
  json filled = json::parse(preset->body);
  EXPECT_EQ(filled["params"]["bias"].get<double>(), 0.7);
  EXPECT_TRUE(filled["params"].contains("ld_max"));  // defaults filled in
  for (const char* bad : {R"({"operator": "drago", "params": {"bias": 5}})", R"({"operator": "x"})", R"({"op": "drago"})",
                          R"([1])", "not json"}) {
    auto r = client().Post("/api/preset", bad, "application/json");
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 400) << bad;
  }
}

TEST_F(StudioServerTest, ExportWritesTheImageAndItsPreset) {
  json body = render_body("drago", {{"bias", 0.7}});
  body["glare"] = {{"strength", 0.2}, {"threshold", 10}, {"radius", 0.02}};
  body["night"] = {{"acuity", 0.02}, {"scene_cd_per_unit", 0.01}};
  body["name"] = "look";
  body["format"] = "png";
  auto r = post("/api/export", body);
  ASSERT_TRUE(r && r->status == 200) << r->body;
  const fs::path png = dir_ / "exports" / "look.png", sidecar = dir_ / "exports" / "look.json";
  ASSERT_TRUE(fs::exists(png) && fs::exists(sidecar));
  auto preset = cli::load_preset(sidecar.string());
  ASSERT_TRUE(preset.ok()) << preset.status().message();
  EXPECT_EQ(preset->op, "drago");
  EXPECT_EQ(preset->glare.strength, 0.2);
  EXPECT_TRUE(preset->night.on);
  EXPECT_EQ(preset->night.get("acuity"), 0.02);
  // The same rendering through the host API and the PNG writer gives the same bytes.
  auto image = io::read_image((dir_ / "root" / "a_ramp.exr").string());
  ASSERT_TRUE(image.ok());
  auto params = cli::preset_params(*preset);
  ASSERT_TRUE(params.ok());
  ASSERT_TRUE(apply_glare(*image, preset->glare).ok());
  ASSERT_TRUE(apply_night(*image, preset->night).ok());
  OutputImage out;
  ASSERT_TRUE(tone_map(*image, *params, {PixelType::u8, 3}, Backend::cpu, out).ok());
  EXPECT_EQ(read_bytes(png), *io::encode_png(out));
  auto download = client().Get("/api/exports/look.png");
  ASSERT_TRUE(download && download->status == 200);
  EXPECT_EQ(download->body, read_bytes(png));

  for (const auto& [name, format] : std::vector<std::pair<std::string, std::string>>{
           {"../escape", "png"}, {"/tmp/abs", "png"}, {".hidden", "png"}, {"ok", "bmp"}, {"a/b", "exr"}, {"", "png"}}) {
    json bad = body;
    bad["name"] = name;
    bad["format"] = format;
    auto e = post("/api/export", bad);
    ASSERT_TRUE(e);
    EXPECT_EQ(e->status, 400) << name << " " << format;
  }
  EXPECT_FALSE(fs::exists(dir_ / "escape.png"));
  EXPECT_FALSE(fs::exists(dir_ / "exports" / "ok.bmp"));
  json exr = body;
  exr["name"] = "look";
  exr["format"] = "exr";
  auto e = post("/api/export", exr);
  ASSERT_TRUE(e && e->status == 200) << e->body;
  EXPECT_TRUE(io::read_image((dir_ / "exports" / "look.exr").string()).ok());
}

TEST_F(StudioServerTest, ConcurrentClientsGetTheirOwnRenders) {
  // Reference bytes, rendered one at a time.
  const std::vector<double> keys = {0.05, 0.1, 0.2, 0.4};
  std::vector<std::string> expected;
  for (double k : keys) {
    json body = render_body("reinhard", {{"key", k}});
    body["image"] = 1;
    auto r = post("/api/render", body);
    ASSERT_TRUE(r && r->status == 200);
    expected.push_back(r->body);
  }
  std::vector<int> mismatches(8, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&, t] {
      httplib::Client c("127.0.0.1", port_);
      c.set_read_timeout(60, 0);
      for (int i = 0; i < 6; ++i) {
        const std::size_t k = static_cast<std::size_t>(t + i) % keys.size();
        json body = render_body("reinhard", {{"key", keys[k]}});
        body["image"] = t % 2 ? 1 : 0;
        body["view"] = "thread-" + std::to_string(t);
        body["seq"] = i;
        auto r = c.Post("/api/render", body.dump(), "application/json");
        if (!r || r->status != 200 || (t % 2 == 1 && r->body != expected[k])) ++mismatches[static_cast<std::size_t>(t)];
        auto listing = c.Get("/api/images");
        if (!listing || listing->status != 200) ++mismatches[static_cast<std::size_t>(t)];
      }
    });
  for (auto& th : threads) th.join();
  for (int t = 0; t < 8; ++t) EXPECT_EQ(mismatches[static_cast<std::size_t>(t)], 0) << "client " << t;
}

}  // namespace

namespace {

// The library keeps at most N files decoded: the least recently used is released and read
// again when asked for; uploads are never released.
TEST(ImageLibrary, ReleasesTheLeastRecentlyUsedDecodedImage) {
  const fs::path dir = fs::temp_directory_path() / ("tonekit_studio_lru_" + std::to_string(getpid()));
  fs::create_directories(dir);
  auto scene = synth::render_scene("checker-hdr", 32, 16);
  ASSERT_TRUE(scene.ok());
  for (const char* name : {"a.pfm", "b.pfm", "c.pfm"}) ASSERT_TRUE(io::write_pfm((dir / name).string(), *scene).ok());
  auto guard = studio::PathGuard::create({dir.string()});
  ASSERT_TRUE(guard.ok());
  studio::ImageLibrary library(std::move(*guard), 2);
  auto load = [&](int id) {
    studio::ImageEntry& e = *library.find(id);
    std::lock_guard lock(e.mutex);
    return library.full_image(e).ok();
  };
  ASSERT_TRUE(load(0) && load(1));
  EXPECT_EQ(library.decoded_count(), 2u);
  ASSERT_TRUE(load(0));  // a is now more recent than b
  ASSERT_TRUE(load(2));
  EXPECT_EQ(library.decoded_count(), 2u);
  EXPECT_TRUE(library.find(0)->decoded);
  EXPECT_FALSE(library.find(1)->decoded);
  ASSERT_TRUE(load(1));  // read again
  EXPECT_TRUE(library.find(1)->decoded);
  EXPECT_EQ(library.decoded_count(), 2u);
  auto upload = library.add_upload("up.pfm", [&] {
    std::ifstream in(dir / "a.pfm", std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }());
  ASSERT_TRUE(upload.ok()) << upload.status().message();
  ASSERT_TRUE(load(0) && load(2));
  EXPECT_TRUE((*upload)->decoded);

  // Thumbnails decode without caching: browsing the strip keeps the edited images decoded.
  auto guard2 = studio::PathGuard::create({dir.string()});
  ASSERT_TRUE(guard2.ok());
  studio::StudioService service(std::move(*guard2), Backend::cpu, (dir / "exports").string());
  auto thumb = service.thumbnail(1);
  ASSERT_TRUE(thumb.ok()) << thumb.status().message();
  EXPECT_EQ(thumb->substr(1, 3), "PNG");
  EXPECT_FALSE(service.library().find(1)->decoded);
  fs::remove_all(dir);
}

}  // namespace

// A CPU studio serving `paths` and exporting into DIR/exports, started on a free port.
void start_studio(const std::vector<std::string>& paths, const fs::path& dir, studio::StudioServer*& server_out,
                  int& port_out) {
  studio::StudioOptions options;
  options.paths = paths;
  options.backend = Backend::cpu;
  options.export_dir = (dir / "exports").string();
  auto server = studio::StudioServer::create(options);
  ASSERT_TRUE(server.ok()) << server.status().message();
  server_out = server->release();
  auto port = server_out->start();
  ASSERT_TRUE(port.ok()) << port.status().message();
  port_out = *port;
}

// Image sequences: a pattern given to the studio, and a folder of one numbered run, each open as
// one sequence item; frames, fps and temporal adaptation through the render request.
class StudioSequenceTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = fs::temp_directory_path() / ("tonekit_studio_seq_" + std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "shot");
    fs::create_directories(dir_ / "folder");
    const std::string cli = TONEKIT_CLI;
    for (const fs::path& folder : {dir_ / "shot", dir_ / "folder"}) {
      const std::string cmd = cli + " synth night-drive " + (folder / "f.%04d.exr").string() +
                              " --frames 6 --size 64x36 > /dev/null 2>&1";
      ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
    }
    start_studio({(dir_ / "shot" / "f.%04d.exr").string(), (dir_ / "folder").string()}, dir_, server_, port_);
  }
  static void TearDownTestSuite() {
    delete server_;
    fs::remove_all(dir_);
  }
  static httplib::Result post(const std::string& path, const json& body) {
    httplib::Client c("127.0.0.1", port_);
    c.set_read_timeout(60, 0);
    return c.Post(path.c_str(), body.dump(), "application/json");
  }
  // Frame `frame` of the sequence, rendered for `view` (its own temporal state).
  static std::string frame(long long index, const json& temporal = nullptr, const std::string& view = "v") {
    json body = {{"image", 0}, {"operator", "reinhard"}, {"width", 64}, {"frame", index}, {"view", view}};
    if (!temporal.is_null()) body["temporal"] = temporal;
    auto r = post("/api/render", body);
    EXPECT_TRUE(r);
    if (!r) return "";
    EXPECT_EQ(r->status, 200) << r->body;
    return r->body;
  }
  static inline fs::path dir_;
  static inline studio::StudioServer* server_ = nullptr;
  static inline int port_ = 0;
};

TEST_F(StudioSequenceTest, PatternAndNumberedFolderAreOneSequenceEachWithFrameCount) {
  httplib::Client c("127.0.0.1", port_);
  auto r = c.Get("/api/images");
  ASSERT_TRUE(r && r->status == 200);
  json images = json::parse(r->body)["images"];
  ASSERT_EQ(images.size(), 2u) << images.dump();
  for (const json& im : images) {
    EXPECT_EQ(im["name"], "f.%04d.exr");
    EXPECT_TRUE(im["sequence"].get<bool>());
    EXPECT_EQ(im["frames"], 6);
    EXPECT_EQ(im["fps"].get<double>(), 24.0);
    EXPECT_EQ(im["width"], 64);
    EXPECT_EQ(im["height"], 36);
  }
  auto ops = c.Get("/api/operators");
  ASSERT_TRUE(ops && ops->status == 200);
  json temporal = json::parse(ops->body)["temporal"];
  ASSERT_EQ(temporal.size(), temporal_params().size());
  for (std::size_t i = 0; i < temporal.size(); ++i) EXPECT_EQ(temporal[i]["name"], temporal_params()[i].name);
  auto thumb = c.Get("/api/images/1/thumbnail");
  ASSERT_TRUE(thumb && thumb->status == 200);
}

TEST_F(StudioSequenceTest, FramesRenderAndDifferOutOfRangeIs400) {
  const std::string f0 = frame(0, nullptr, ""), f5 = frame(5, nullptr, "");
  ASSERT_EQ(f0.size(), 64u * 36 * 4);
  EXPECT_NE(f0, f5);
  EXPECT_EQ(frame(0, nullptr, ""), f0);  // back to frame 0: the same pixels
  auto r = post("/api/render", {{"image", 0}, {"frame", 6}, {"width", 64}});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 400);
  EXPECT_NE(json::parse(r->body)["error"].get<std::string>().find("outside"), std::string::npos) << r->body;
  r = post("/api/render", {{"image", 0}, {"frame", -1}, {"width", 64}});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 400);
  r = post("/api/render", {{"image", 0}, {"frame", 1}, {"fps", 0}});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 400);
}

TEST_F(StudioSequenceTest, BadTemporalValuesAre400WithTheRegistryMessage) {
  auto expect_message = [](const json& temporal, const std::vector<std::pair<std::string, std::string>>& settings) {
    auto r = post("/api/render", {{"image", 0}, {"frame", 0}, {"temporal", temporal}});
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 400);
    auto expected = prepare_temporal(settings);
    ASSERT_FALSE(expected.ok());
    EXPECT_EQ(json::parse(r->body)["error"], expected.status().message()) << r->body;
  };
  expect_message({{"on", true}, {"tau_brighten", 100}}, {{"tau_brighten", "100"}});
  expect_message({{"on", true}, {"nonsense", 1}}, {{"nonsense", "1"}});
  expect_message({{"on", true}, {"cut_low", 6}, {"cut_high", 2}}, {{"cut_low", "6"}, {"cut_high", "2"}});
  auto r = post("/api/render", {{"image", 0}, {"temporal", {{"on", "yes"}}}});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 400);
}

TEST_F(StudioSequenceTest, TemporalStateCarriesAcrossFramesAndSeekingResets) {
  // Slow adaptation and no scene cuts, so the carried state shows in every frame.
  const json temporal = {{"on", true}, {"tau_brighten", 5}, {"tau_darken", 5}, {"cut_low", 30}, {"cut_high", 30}};
  std::string played;
  for (int i = 0; i <= 4; ++i) played = frame(i, temporal, "play");
  const std::string cold = frame(4, temporal, "cold");
  EXPECT_NE(played, cold) << "frames 0..4 in order adapt from frame 0; frame 4 alone starts from itself";
  // A seek (not the next frame) resets: the same as a cold render of that frame.
  frame(1, temporal, "cold");
  EXPECT_EQ(frame(3, temporal, "play"), frame(3, temporal, "cold3"));
  // Another view is not disturbed by this one: the cold view's state is its own.
  EXPECT_EQ(frame(4, temporal, "fresh"), cold);
  // Temporal off: the plain render of the frame, the same as without the field.
  EXPECT_EQ(frame(4, {{"on", false}}, "off"), frame(4, nullptr, "plain"));
}

TEST(ImageLibrary, InfersASequenceOnlyFromOneNumberedRun) {
  using studio::infer_sequence_pattern;
  const fs::path d = "/data/shot 50%";
  EXPECT_EQ(infer_sequence_pattern({d / "f.0001.exr", d / "f.0002.exr", d / "f.0003.exr"}), "/data/shot 50%%/f.%04d.exr");
  EXPECT_EQ(infer_sequence_pattern({d / "v2_7.hdr", d / "v2_8.hdr"}), "/data/shot 50%%/v2_%01d.hdr");
  EXPECT_EQ(infer_sequence_pattern({d / "f.0001.exr"}), "");                     // one file is a still
  EXPECT_EQ(infer_sequence_pattern({d / "a_ramp.exr", d / "b_night.pfm"}), "");  // no numbers
  EXPECT_EQ(infer_sequence_pattern({d / "f.0001.exr", d / "g.0002.exr"}), "");   // two prefixes
  EXPECT_EQ(infer_sequence_pattern({d / "f.1.exr", d / "f.10.exr"}), "");        // digit counts differ
  EXPECT_EQ(infer_sequence_pattern({d / "f.0001.exr", d / "f.0002.hdr"}), "");   // two formats
}

TEST(ImageLibrary, AFolderWithAGapListsStillsAndAPatternWithAGapIsRefused) {
  const fs::path dir = fs::temp_directory_path() / ("tonekit_studio_gap_" + std::to_string(getpid()));
  fs::create_directories(dir);
  auto scene = synth::render_scene("checker-hdr", 32, 16);
  ASSERT_TRUE(scene.ok());
  for (const char* name : {"f.0001.pfm", "f.0003.pfm"}) ASSERT_TRUE(io::write_pfm((dir / name).string(), *scene).ok());
  auto guard = studio::PathGuard::create({dir.string()});
  ASSERT_TRUE(guard.ok());
  studio::ImageLibrary library(std::move(*guard));
  ASSERT_EQ(library.entries().size(), 2u);
  for (studio::ImageEntry* e : library.entries()) EXPECT_FALSE(e->is_sequence());
  // Given as a pattern, the gap is the user's error, with the stream's message.
  studio::StudioOptions options;
  options.paths = {(dir / "f.%04d.pfm").string()};
  auto server = studio::StudioServer::create(options);
  ASSERT_FALSE(server.ok());
  EXPECT_NE(server.status().message().find("gap"), std::string::npos) << server.status().message();
  fs::remove_all(dir);
}

// Scores (/api/quality) and automatic parameters (/api/auto) on an image large enough for TMQI
// (quality::kMinSide), and the library's refusal of one that is not.
class StudioQualityTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = fs::temp_directory_path() / ("tonekit_studio_quality_" + std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    auto big = synth::render_scene("night-drive", 320, 200);
    auto small = synth::render_scene("night-drive", 160, 100);
    ASSERT_TRUE(big.ok() && small.ok());
    ASSERT_TRUE(io::write_exr((dir_ / "a_big.exr").string(), *big).ok());
    ASSERT_TRUE(io::write_exr((dir_ / "b_small.exr").string(), *small).ok());
    start_studio({dir_.string()}, dir_, server_, port_);
  }
  static void TearDownTestSuite() {
    delete server_;
    fs::remove_all(dir_);
  }
  static httplib::Result post(const std::string& path, const json& body) {
    httplib::Client c("127.0.0.1", port_);
    c.set_read_timeout(120, 0);
    return c.Post(path.c_str(), body.dump(), "application/json");
  }
  static json scores(const std::string& op, const json& params = json::object()) {
    auto r = post("/api/quality", {{"image", 0}, {"operator", op}, {"params", params}, {"width", 320}});
    EXPECT_TRUE(r);
    if (!r) return {};
    EXPECT_EQ(r->status, 200) << r->body;
    return json::parse(r->body);
  }
  static inline fs::path dir_;
  static inline studio::StudioServer* server_ = nullptr;
  static inline int port_ = 0;
};

TEST_F(StudioQualityTest, ScoresAreFiniteInUnitRangeAndDependOnTheOperator) {
  json a = scores("reinhard"), b = scores("drago");
  for (const json& s : {a, b}) {
    ASSERT_TRUE(s.contains("tmqi") && s.contains("fsitm") && s.contains("colour")) << s.dump();
    // Colour fidelity beside them (CIEDE2000 of the source's chromaticity at matched lightness).
    const double de = s["colour"]["delta_e2000_mean"].get<double>(), p95 = s["colour"]["delta_e2000_p95"].get<double>();
    EXPECT_TRUE(std::isfinite(de) && de >= 0.0 && de < 100.0) << s.dump();
    EXPECT_TRUE(std::isfinite(p95) && p95 >= 0.0 && p95 < 100.0) << s.dump();
    EXPECT_LE(s["colour"]["chromatic_pixels"].get<double>(), s["width"].get<double>() * s["height"].get<double>()) << s.dump();
    for (double v : {s["tmqi"]["q"].get<double>(), s["tmqi"]["s"].get<double>(), s["tmqi"]["n"].get<double>(),
                     s["fsitm"]["mean"].get<double>()}) {
      EXPECT_TRUE(std::isfinite(v)) << s.dump();
      EXPECT_GE(v, 0.0) << s.dump();
      EXPECT_LE(v, 1.0) << s.dump();
    }
    EXPECT_EQ(s["width"], 320);
    EXPECT_EQ(s["height"], 200);
    EXPECT_GE(s["ms"].get<double>(), 0.0);
  }
  EXPECT_NE(a["tmqi"]["q"].get<double>(), b["tmqi"]["q"].get<double>());
  EXPECT_NE(a["tmqi"]["n"].get<double>(), b["tmqi"]["n"].get<double>());
}

TEST_F(StudioQualityTest, TooSmallIs400WithTheLibraryMessage) {
  // 160x100 is below quality::kMinSide on both sides; so is a 150-wide preview of the big one.
  for (const json& body : {json{{"image", 1}, {"operator", "reinhard"}, {"width", 160}},
                           json{{"image", 0}, {"operator", "reinhard"}, {"width", 150}}}) {
    auto r = post("/api/quality", body);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 400) << r->body;
    EXPECT_NE(json::parse(r->body)["error"].get<std::string>().find("too small for TMQI/FSITM"), std::string::npos)
        << r->body;
    auto a = post("/api/auto", body);
    ASSERT_TRUE(a);
    EXPECT_EQ(a->status, 400) << a->body;
    EXPECT_NE(json::parse(a->body)["error"].get<std::string>().find(std::to_string(quality::kMinSide)),
              std::string::npos)
        << a->body;
  }
  auto bad = post("/api/quality", {{"image", 0}, {"operator", "nope"}});
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->status, 400);
}

// /api/auto says where it searched: the CPU with the cpu backend; with the cuda backend the GPU
// (GpuAutoParams) when it can search, else the CPU (no device, no cuFFT), with the same answer's shape.
TEST_F(StudioQualityTest, AutoSaysWhereItSearched) {
  auto on_cpu = post("/api/auto", {{"image", 0}, {"operator", "reinhard"}, {"width", 320}});
  ASSERT_TRUE(on_cpu);
  ASSERT_EQ(on_cpu->status, 200) << on_cpu->body;
  EXPECT_EQ(json::parse(on_cpu->body)["searcher"], "cpu");
  studio::StudioOptions options;
  options.paths = {dir_.string()};
  options.backend = Backend::cuda;
  options.export_dir = (dir_ / "exports_cuda").string();
  auto server = studio::StudioServer::create(options);
  ASSERT_TRUE(server.ok()) << server.status().message();
  auto port = (*server)->start();
  ASSERT_TRUE(port.ok()) << port.status().message();
  httplib::Client c("127.0.0.1", *port);
  c.set_read_timeout(120, 0);
  const json body = {{"image", 0}, {"operator", "reinhard"}, {"width", 320}};
  auto r = c.Post("/api/auto", body.dump(), "application/json");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  const json doc = json::parse(r->body);
  if (!cuda_available()) EXPECT_EQ(doc["searcher"], "cpu") << doc.dump();
  else EXPECT_TRUE(doc["searcher"] == "cuda" || doc["searcher"] == "cpu") << doc.dump();  // cpu: no cuFFT
  std::printf("[ studio ] /api/auto with the cuda backend searched on %s\n",
              doc["searcher"].get<std::string>().c_str());
  EXPECT_GE(doc["chosen"]["objective"].get<double>(), doc["start"]["objective"].get<double>());
  EXPECT_EQ(doc["searched"], json::parse(on_cpu->body)["searched"]);
  const json small_body = {{"image", 1}, {"operator", "reinhard"}, {"width", 160}};
  auto small = c.Post("/api/auto", small_body.dump(), "application/json");
  ASSERT_TRUE(small);
  EXPECT_EQ(small->status, 400) << small->body;
}

TEST_F(StudioQualityTest, AutoReturnsValuesInsideTheRegistryRangesThatRender) {
  for (const char* op : {"reinhard", "drago"}) {
    auto r = post("/api/auto", {{"image", 0}, {"operator", op}, {"width", 320}});
    ASSERT_TRUE(r);
    ASSERT_EQ(r->status, 200) << r->body;
    json doc = json::parse(r->body);
    EXPECT_EQ(doc["operator"], op);
    const OperatorDesc* desc = find_operator(op);
    ASSERT_NE(desc, nullptr);
    for (const ParamDesc* p : all_params(*desc)) {
      ASSERT_TRUE(doc["params"].contains(p->name)) << p->name << " " << doc.dump();
      const double v = doc["params"][p->name].get<double>();
      EXPECT_GE(v, p->min_value) << p->name;
      EXPECT_LE(v, p->max_value) << p->name;
    }
    for (const json& name : doc["searched"]) {
      bool own = false;
      for (const ParamDesc& p : desc->params) own |= name == p.name;
      EXPECT_TRUE(own) << name;
    }
    EXPECT_GE(doc["chosen"]["objective"].get<double>(), doc["start"]["objective"].get<double>());
    // The page applies the values and renders them.
    json body = {{"image", 0}, {"operator", op}, {"params", doc["params"]}, {"width", 320}};
    auto rendered = post("/api/render", body);
    ASSERT_TRUE(rendered);
    ASSERT_EQ(rendered->status, 200) << rendered->body;
    EXPECT_EQ(rendered->body.size(), 320u * 200 * 4);
    json after = scores(op, doc["params"]);
    EXPECT_TRUE(std::isfinite(after["tmqi"]["q"].get<double>()));
  }
}
