// The scene registry and the threaded renderer: rows are handed out in small chunks from an
// atomic counter to std::threads, so uneven rows (sky vs road) balance across cores.
#include <algorithm>
#include <atomic>
#include <functional>
#include <new>
#include <string>
#include <thread>
#include <vector>

#include "cpu/synth/synth_internal.hpp"
#include "tonekit/synth.hpp"

namespace tonekit::synth {
namespace {

struct SceneEntry {
  SceneInfo info;
  RowShader shade;
};

const std::vector<SceneEntry>& entries() {
  static const std::vector<SceneEntry> list{
      {{"night-drive",
        "dark road at night (asphalt 0.01-0.1) under a low-beam headlight pattern (to ~100, "
        "retroreflective markings and a road sign brighter), oncoming headlights (~1.5e4), "
        "sodium street lamps with glow, a tree line (~0.002) and a starry sky: > 1e6:1"},
       shade_night_drive},
      {{"window-interior",
        "sunlit room seen from inside: walls, shelf, rug and cabinet at 0.3-5, a window onto "
        "sky, clouds and hills (1e3-1e4) and the sun's patch on the floor (~1e3) with mullion "
        "shadows"},
       shade_window_interior},
      {{"gradient-ramp",
        "horizontal log luminance ramps over 6 decades (1e-2..1e4): grey, R, G, B, C, M, Y bands "
        "and a stepped half-decade grey ramp: for checking curves and colour handling"},
       shade_gradient_ramp},
      {{"sunset",
        "sun on the sea horizon (disc ~5e4, halo), orange-to-blue sky with lit cloud bands, "
        "glittering sun path on the water and dark textured headland silhouettes (~0.05-1)"},
       shade_sunset},
      {{"checker-hdr",
        "checkerboard whose squares step from 1e-2 to 1e4 across the frame with 1000:1 between "
        "neighbours, faint texture inside each: for halos and local contrast at hard edges"},
       shade_checker_hdr},
  };
  return list;
}

const SceneEntry* find_entry(std::string_view id) {
  for (const SceneEntry& e : entries())
    if (id == e.info.id) return &e;
  return nullptr;
}

}  // namespace

Frame make_frame(int width, int height) {
  Frame frame;
  frame.width = width;
  frame.height = height;
  frame.aspect = static_cast<float>(width) / static_cast<float>(height);
  frame.pixel = 1.0f / static_cast<float>(height);
  return frame;
}

void render_rows(const Frame& frame, const std::function<void(int y, float* rgb)>& shade, Image& image, unsigned threads) {
  const int height = frame.height;
  constexpr int kRowsPerChunk = 8;
  std::atomic<int> next_row{0};
  auto work = [&] {
    for (;;) {
      int y0 = next_row.fetch_add(kRowsPerChunk, std::memory_order_relaxed);
      if (y0 >= height) return;
      int y1 = std::min(height, y0 + kRowsPerChunk);
      for (int y = y0; y < y1; ++y) shade(y, image.row(y));
    }
  };

  unsigned n = threads ? threads : std::max(1u, std::thread::hardware_concurrency());
  n = std::min<unsigned>(n, static_cast<unsigned>((height + kRowsPerChunk - 1) / kRowsPerChunk));
  std::vector<std::thread> pool;
  try {
    for (unsigned i = 1; i < n; ++i) pool.emplace_back(work);
  } catch (const std::system_error&) {
    // Fewer threads than asked for: the ones running (and this one) still finish every row.
  }
  work();
  for (std::thread& t : pool) t.join();
}

const std::vector<SceneInfo>& all_scenes() {
  static const std::vector<SceneInfo> infos = [] {
    std::vector<SceneInfo> v;
    for (const SceneEntry& e : entries()) v.push_back(e.info);
    return v;
  }();
  return infos;
}

const SceneInfo* find_scene(std::string_view id) {
  for (const SceneInfo& s : all_scenes())
    if (id == s.id) return &s;
  return nullptr;
}

Status check_size(int width, int height) {
  if (width < 1 || height < 1 || width > kMaxSide || height > kMaxSide ||
      std::int64_t{width} * height > kMaxPixels)
    return invalid_argument("size " + std::to_string(width) + "x" + std::to_string(height) +
                            " is out of range (each side 1.." + std::to_string(kMaxSide) +
                            ", at most 7680x4320 pixels in all)");
  return {};
}

Result<Image> render_scene(std::string_view id, int width, int height, unsigned threads) {
  const SceneEntry* entry = find_entry(id);
  if (!entry) {
    std::string known;
    for (const SceneEntry& e : entries()) known += (known.empty() ? "" : ", ") + std::string(e.info.id);
    return invalid_argument("unknown scene '" + std::string(id) + "' (known: " + known + ")");
  }
  Result<Image> image = new_synthetic_image(width, height, "scene", "scene " + std::string(id));
  if (!image.ok()) return image;
  const Frame frame = make_frame(width, height);
  render_rows(frame, [&](int y, float* rgb) { entry->shade(frame, y, rgb); }, *image, threads);
  return image;
}

Result<Image> new_synthetic_image(int width, int height, const char* what, std::string note) {
  if (Status s = check_size(width, height); !s.ok()) return s;
  Image image;
  try {
    image = Image(width, height, 3);
  } catch (const std::bad_alloc&) {
    return Status{StatusCode::out_of_memory, "not enough memory for a " + std::to_string(width) + "x" +
                                                 std::to_string(height) + " " + what};
  }
  image.meta.format = "synthetic";
  image.meta.compression = "none";
  image.meta.source_pixel_type = "float";
  image.meta.source_channels = "R,G,B";
  image.meta.notes.push_back(std::move(note));
  return image;
}

}  // namespace tonekit::synth
