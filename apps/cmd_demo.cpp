// tonekit demo: every synthetic scene (and every HDR file in --images / $DEMO_IMAGES) through
// every operator in registry order with default parameters. Writes full-size PNGs, thumbnails
// and an HTML contact sheet (a row per image, a column per operator, each cell with the
// parameters and the timing), and prints the timing table (median of --repeat runs) on stdout.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <set>

#include "cli_common.hpp"
#include "demo_sequence.hpp"
#include "tonekit/blur.hpp"
#include "tonekit/synth.hpp"

namespace tonekit::cli {
namespace {

namespace fs = std::filesystem;

struct DemoOptions {
  std::string out = "out/demo";
  std::string size = "1920x1080";
  std::string images;
  std::string backend = "auto";
  std::vector<std::string> scenes;
  int repeat = 3;
  int thumb_width = 480;
  bool keep_hdr = false;
  int sequence_frames = 72;  // the night-drive sequence, per frame vs --temporal (0: skip)
};

struct Source {
  std::string name;  // file-safe, unique
  std::string path;  // empty for a synthetic scene
  std::string scene;
  double glare = 0.0;  // glare/bloom strength added before mapping (0: none)
  bool night = false;  // night vision before mapping (map --night, its defaults)
};

struct Cell {
  bool ok = false;
  double ms = 0.0;
  std::string error;
};

struct Row {
  std::string name, origin;
  int width = 0, height = 0;
  FrameStats stats;
  std::vector<Cell> cells;
  std::string error;  // the image itself could not be made
};

std::string safe_name(const std::string& s) {
  std::string out;
  for (char c : s) out += (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.') ? c : '_';
  return out.empty() ? "image" : out;
}

std::string html_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

// Area-averaged downscale of an 8-bit image to `width` columns (kept when already smaller).
OutputImage thumbnail(const OutputImage& in, int width) {
  if (in.width <= width) return in;
  const int tw = width, th = std::max(1, static_cast<int>(std::lround(static_cast<double>(in.height) * tw / in.width)));
  OutputImage out;
  out.allocate(tw, th, in.channels, PixelType::u8);
  for (int ty = 0; ty < th; ++ty) {
    const int y0 = static_cast<int>(static_cast<long long>(ty) * in.height / th);
    const int y1 = std::max(y0 + 1, static_cast<int>(static_cast<long long>(ty + 1) * in.height / th));
    for (int tx = 0; tx < tw; ++tx) {
      const int x0 = static_cast<int>(static_cast<long long>(tx) * in.width / tw);
      const int x1 = std::max(x0 + 1, static_cast<int>(static_cast<long long>(tx + 1) * in.width / tw));
      for (int c = 0; c < in.channels; ++c) {
        unsigned sum = 0;
        for (int y = y0; y < y1; ++y)
          for (int x = x0; x < x1; ++x) sum += in.bytes[(static_cast<std::size_t>(y) * in.width + x) * in.channels + c];
        const unsigned n = static_cast<unsigned>((y1 - y0) * (x1 - x0));
        out.bytes[(static_cast<std::size_t>(ty) * tw + tx) * in.channels + c] = static_cast<std::uint8_t>((sum + n / 2) / n);
      }
    }
  }
  return out;
}

std::string params_text(const Params& p) {
  std::string s;
  for (const auto& [name, value] : p.values()) s += (s.empty() ? "" : ", ") + name + "=" + format_number(value);
  return s;
}

Status write_html(const fs::path& html_path, const std::vector<Row>& rows, const std::string& size_text,
                  const std::string& backend_text, int repeat, const std::string& sequence_html) {
  std::string h =
      "<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>tonekit demo</title>\n<style>\n"
      "body{font-family:sans-serif;background:#222;color:#ddd;margin:1em}\n"
      "table{border-collapse:collapse}td,th{border:1px solid #444;padding:4px;vertical-align:top;font-size:12px}\n"
      "th{background:#333}img{display:block;width:320px}.p{color:#999;max-width:320px}.t{color:#8c8}"
      ".e{color:#f88;max-width:320px}a{color:#9cf}\n</style></head><body>\n";
  h += "<h1>tonekit demo</h1>\n<p>Scenes synthesised at " + html_escape(size_text) + "; backend " +
       html_escape(backend_text) + "; every operator with its default parameters; time = median of " +
       std::to_string(repeat) + " calls of tonekit::tone_map (statistics + map; with cuda, uploads and downloads too; no file I/O). Click a thumbnail for the full-size PNG.</p>\n";
  h += "<table>\n<tr><th>image</th>";
  for (const OperatorDesc* op : all_operators())
    h += "<th title=\"" + html_escape(op->citation) + "\">" + html_escape(op->id) + "<br><span class=\"p\">" +
         html_escape(op->title) + "</span></th>";
  h += "</tr>\n";
  for (const Row& r : rows) {
    char info[256];
    std::snprintf(info, sizeof info, "%d x %d<br>L %.3g .. %.3g<br>log-avg %.3g<br>%.1f stops", r.width, r.height,
                  r.stats.min_positive_luminance, r.stats.max_luminance, r.stats.log_average,
                  r.stats.dynamic_range_stops());
    h += "<tr><th>" + html_escape(r.name) + "<br><span class=\"p\">" + html_escape(r.origin) + "<br>" +
         (r.error.empty() ? std::string(info) : "") + "</span></th>";
    if (!r.error.empty()) {
      h += "<td colspan=\"" + std::to_string(all_operators().size()) + "\" class=\"e\">" + html_escape(r.error) + "</td></tr>\n";
      continue;
    }
    for (std::size_t i = 0; i < all_operators().size(); ++i) {
      const OperatorDesc* op = all_operators()[i];
      const Cell& c = r.cells[i];
      if (!c.ok) {
        h += "<td class=\"e\">" + html_escape(c.error) + "</td>";
        continue;
      }
      const std::string file = r.name + "_" + op->id + ".png";
      char ms[64];
      std::snprintf(ms, sizeof ms, "%.2f ms", c.ms);
      h += "<td><a href=\"" + html_escape(file) + "\"><img src=\"thumbs/" + html_escape(file) + "\" alt=\"" +
           html_escape(r.name + " / " + op->id) + "\"></a><span class=\"t\">" + ms + "</span><div class=\"p\">" +
           html_escape(params_text(*prepare_params(op->id))) + "</div></td>";
    }
    h += "</tr>\n";
  }
  h += "</table>\n" + sequence_html + "</body></html>\n";
  return io::write_file_atomically(html_path.string(), h);
}

int run_demo(const DemoOptions& o) {
  auto size = parse_size(o.size);
  if (!size.ok()) return report(size.status());
  if (Status s = synth::check_size(size->first, size->second); !s.ok()) return report(s);
  auto resolved = resolve_backend(o.backend);
  if (!resolved.ok()) return report(resolved.status());
  if (o.repeat < 1 || o.repeat > 100) return report(invalid_argument("--repeat must be in [1, 100]"));
  if (o.thumb_width < 16 || o.thumb_width > 4096) return report(invalid_argument("--thumb-width must be in [16, 4096]"));
  const Backend used = *resolved;

  // The images: scenes first, then the folder's HDR files.
  std::vector<Source> sources;
  std::set<std::string> names;
  auto add = [&](std::string name, std::string path, std::string scene, double glare = 0.0, bool night = false) {
    std::string unique = safe_name(name);
    for (int k = 2; names.count(unique); ++k) unique = safe_name(name) + "-" + std::to_string(k);
    names.insert(unique);
    sources.push_back({unique, std::move(path), std::move(scene), glare, night});
  };
  // The night drive once more with glare on the headlights and lamps (map --glare 0.08), and
  // once with glare and night vision (map --glare 0.08 --night: rods, blue shift, acuity).
  auto add_glare_row = [&] {
    if (!names.count("night-drive")) return;
    add("night-drive-glare", "", "night-drive", 0.08);
    add("night-drive-night", "", "night-drive", 0.08, true);
  };
  if (o.scenes.empty()) {
    for (const synth::SceneInfo& s : synth::all_scenes()) add(s.id, "", s.id);
  } else {
    for (const std::string& id : o.scenes) {
      if (!synth::find_scene(id)) return report(synth::render_scene(id, 1, 1).status());
      add(id, "", id);
    }
  }
  add_glare_row();
  std::string folder = o.images;
  if (folder.empty())
    if (const char* env = std::getenv("DEMO_IMAGES")) folder = env;
  if (!folder.empty()) {
    std::error_code ec;
    if (!fs::is_directory(folder, ec)) return report(bad_input(folder + ": not a folder (--images / $DEMO_IMAGES)"));
    std::vector<fs::path> files;
    for (const fs::directory_entry& e : fs::directory_iterator(folder, ec)) {
      std::string ext = e.path().extension().string();
      std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
      if (e.is_regular_file(ec) && (ext == ".exr" || ext == ".hdr" || ext == ".pic" || ext == ".pfm")) files.push_back(e.path());
    }
    std::sort(files.begin(), files.end());
    for (const fs::path& p : files) add(p.stem().string(), p.string(), "");
  }

  const fs::path out_dir(o.out);
  {
    std::error_code ec;
    fs::create_directories(out_dir / "thumbs", ec);
    if (ec) return report(io_error(o.out + ": cannot create the output folder: " + ec.message()));
    if (o.keep_hdr) fs::create_directories(out_dir / "hdr", ec);
  }

  const auto& ops = all_operators();
  Progress progress(static_cast<int>(sources.size() * ops.size()));
  std::vector<Row> rows;
  int worst = kExitOk;
  int step = 0;
  for (const Source& src : sources) {
    Row row;
    row.name = src.name;
    progress.update(step, src.name);
    Result<Image> image = src.path.empty() ? synth::render_scene(src.scene, size->first, size->second)
                                           : io::read_image(src.path);
    row.origin = src.path.empty() ? "synthetic scene" : src.path;
    if (!image.ok()) {
      progress.finish();
      row.error = image.status().message();
      worst = std::max(worst, report(image.status()));
      rows.push_back(row);
      step += static_cast<int>(ops.size());
      continue;
    }
    if (src.glare > 0) {
      GlareParams glare;
      glare.strength = src.glare;
      if (Status s = apply_glare(*image, glare); !s.ok()) worst = std::max(worst, report(s));
      row.origin = "synthetic scene with --glare " + std::to_string(src.glare).substr(0, 4);
    }
    if (src.night) {
      // On the demo's backend, as map runs it (tonekit/night.hpp: defaults, L_a from the frame).
      NightReport night;
      auto params = prepare_night();
      Status s = params.ok() ? apply_night(*image, *params, used, nullptr, 0, &night) : params.status();
      if (!s.ok()) worst = std::max(worst, report(s));
      char buf[160];
      std::snprintf(buf, sizeof buf, " --night (adapting luminance %.3g cd/m^2, rod fraction %.2f)",
                    night.adapting_luminance, night.rod_fraction);
      row.origin += buf;
    }
    row.width = image->width;
    row.height = image->height;
    if (o.keep_hdr && src.path.empty()) {
      Status s = io::write_exr((out_dir / "hdr" / (src.name + ".exr")).string(), *image, true);
      if (!s.ok()) worst = std::max(worst, report(s));
    }
    for (const OperatorDesc* op : ops) {
      progress.update(step++, src.name + " / " + op->id);
      Cell cell;
      auto params = prepare_params(op->id);
      OutputImage out;
      std::vector<double> times;
      Status status;
      for (int r = 0; r < o.repeat && status.ok(); ++r) {
        const auto t0 = std::chrono::steady_clock::now();
        status = tone_map(*image, *params, OutputFormat{PixelType::u8, 3}, used, out, r == 0 ? &row.stats : nullptr);
        times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
      }
      const std::string file = src.name + "_" + op->id + ".png";
      if (status.ok()) status = io::write_png((out_dir / file).string(), out);
      if (status.ok()) status = io::write_png((out_dir / "thumbs" / file).string(), thumbnail(out, o.thumb_width));
      if (status.ok()) {
        std::sort(times.begin(), times.end());
        cell.ok = true;
        cell.ms = times[times.size() / 2];
      } else {
        progress.finish();
        cell.error = status.message();
        worst = std::max(worst, report(Status{status.code(), src.name + " / " + op->id + ": " + status.message()}));
      }
      row.cells.push_back(cell);
    }
    rows.push_back(std::move(row));
  }
  progress.finish();

  // Timing table on stdout.
  std::printf("tonekit demo: scenes at %dx%d, backend %s, tone-mapping time in ms (median of %d)\n", size->first,
              size->second, backend_name(used), o.repeat);
  std::vector<int> widths;
  int name_width = 12;
  for (const Row& r : rows) name_width = std::max(name_width, static_cast<int>(r.name.size()));
  std::printf("%-*s", name_width, "image");
  for (const OperatorDesc* op : ops) {
    widths.push_back(std::max(9, static_cast<int>(std::strlen(op->id))));
    std::printf(" %*s", widths.back(), op->id);
  }
  std::printf("\n");
  for (const Row& r : rows) {
    std::printf("%-*s", name_width, r.name.c_str());
    for (std::size_t i = 0; i < ops.size(); ++i) {
      if (!r.error.empty() || !r.cells[i].ok) std::printf(" %*s", widths[i], "failed");
      else std::printf(" %*.2f", widths[i], r.cells[i].ms);
    }
    std::printf("\n");
  }
  std::string sequence_html;
  if (o.sequence_frames > 0) {
    DemoSequence d;
    d.frames = o.sequence_frames;
    auto section = write_demo_sequence(out_dir, d, *prepare_params("reinhard"));
    if (section.ok()) sequence_html = *section;
    else worst = std::max(worst, report(section.status()));
  }
  Status s = write_html(out_dir / "index.html", rows, o.size, backend_name(used), o.repeat, sequence_html);
  if (!s.ok()) return std::max(worst, report(s));
  std::printf("contact sheet: %s\n", (out_dir / "index.html").string().c_str());
  return worst;
}

}  // namespace

void add_demo_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<DemoOptions>();
  CLI::App* cmd = app.add_subcommand(
      "demo", "Map every scene (and --images) with every operator: PNGs, an HTML contact sheet and a timing table");
  cmd->add_option("--out", o->out, "output folder (index.html, PNGs, thumbs/)")->capture_default_str();
  cmd->add_option("--size", o->size, "scene size WxH")->capture_default_str();
  cmd->add_option("--images", o->images, "also map every .exr/.hdr/.pfm in this folder (default: $DEMO_IMAGES)");
  cmd->add_option("--backend", o->backend, "cpu, cuda or auto")->capture_default_str();
  cmd->add_option("--scenes", o->scenes, "only these scenes (default: all)")->delimiter(',');
  cmd->add_option("--repeat", o->repeat, "timed runs per cell (the median is reported)")->capture_default_str();
  cmd->add_option("--thumb-width", o->thumb_width, "thumbnail width in pixels")->capture_default_str();
  cmd->add_option("--sequence-frames", o->sequence_frames,
                  "frames of the night-drive sequence mapped per frame and with --temporal into MP4s (0: skip)")
      ->check(CLI::Range(0, 10000))
      ->capture_default_str();
  cmd->add_flag("--keep-hdr", o->keep_hdr, "also write the synthesised scenes as EXR into OUT/hdr/");
  cmd->callback([o, &exit_code] { exit_code = run_demo(*o); });
}

}  // namespace tonekit::cli
