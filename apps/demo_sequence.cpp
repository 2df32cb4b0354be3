#include "demo_sequence.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <vector>

#include "stream/frame_mapper.hpp"
#include "tonekit/synth.hpp"

namespace tonekit::cli {
namespace {

namespace fs = std::filesystem;
using namespace tonekit::stream;

struct KeyRow {
  double own = 0, adapted = 0;
  bool cut = false;
};

// Maps the rendered frames into a y4m file, temporal or not; the temporal run logs the keys.
Status map_frames(const std::vector<Image>& scenes, const DemoSequence& d, const Params& params, bool temporal,
                  const fs::path& y4m, const fs::path& log) {
  MapperSetup ms;
  ms.width = d.width;
  ms.height = d.height;
  ms.format = InputFormat::rgb_f32;
  ms.params = params;
  ms.backend = Backend::cpu;
  ms.out = OutputKind::y4m;
  ms.frame_seconds = 1.0 / d.fps;
  if (temporal) ms.temporal = *prepare_temporal();
  ms.temporal_log = log.string();
  auto mapper = FrameMapper::create(ms);
  if (!mapper.ok()) return mapper.status();
  SinkOptions so;
  so.path = y4m.string();
  so.kind = OutputKind::y4m;
  so.width = d.width;
  so.height = d.height;
  so.fps = Rational{d.fps, 1};
  std::unique_ptr<FrameSink> sink = make_sink(so);
  Frame in, out;
  for (std::size_t i = 0; i < scenes.size(); ++i) {
    in.index = out.index = static_cast<long long>(i);
    in.image = scenes[i];
    if (Status s = (*mapper)->map(in, out); !s.ok()) return s;
    if (Status s = sink->write(out); !s.ok()) return s;
  }
  return sink->finish();
}

std::vector<KeyRow> read_keys(const fs::path& csv) {
  std::vector<KeyRow> rows;
  std::ifstream f(csv);
  std::string line;
  std::getline(f, line);  // header
  while (std::getline(f, line)) {
    std::vector<double> v;
    std::stringstream ss(line);
    for (std::string cell; std::getline(ss, cell, ',');) v.push_back(std::strtod(cell.c_str(), nullptr));
    if (v.size() >= 6) rows.push_back({v[1], v[2], v[5] != 0});
  }
  return rows;
}

// log2 of the frame key (grey) and of the adapted key (green) per frame; scene cuts in red.
std::string keys_svg(const std::vector<KeyRow>& rows) {
  const double w = 640, h = 240, pad = 36;
  double lo = 1e30, hi = -1e30;
  for (const KeyRow& r : rows)
    for (double v : {r.own, r.adapted}) lo = std::min(lo, std::log2(v)), hi = std::max(hi, std::log2(v));
  lo = std::floor(lo), hi = std::ceil(hi);
  if (hi <= lo) hi = lo + 1;
  const auto px = [&](std::size_t i) { return pad + (w - 2 * pad) * static_cast<double>(i) / std::max<std::size_t>(1, rows.size() - 1); };
  const auto py = [&](double v) { return h - pad - (h - 2 * pad) * (std::log2(v) - lo) / (hi - lo); };
  char buf[256];
  std::string s = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"640\" height=\"240\" style=\"background:#111\">\n";
  for (double v = lo; v <= hi; v += std::max(1.0, std::round((hi - lo) / 6))) {
    std::snprintf(buf, sizeof buf, "<line x1=\"%g\" x2=\"%g\" y1=\"%g\" y2=\"%g\" stroke=\"#333\"/><text x=\"2\" y=\"%g\" fill=\"#999\" font-size=\"10\">2^%g</text>\n",
                  pad, w - pad, py(std::exp2(v)), py(std::exp2(v)), py(std::exp2(v)) + 3, v);
    s += buf;
  }
  for (std::size_t i = 0; i < rows.size(); ++i)
    if (rows[i].cut && i > 0) {
      std::snprintf(buf, sizeof buf, "<line x1=\"%g\" x2=\"%g\" y1=\"%g\" y2=\"%g\" stroke=\"#c44\"/>\n", px(i), px(i), pad, h - pad);
      s += buf;
    }
  for (int series = 0; series < 2; ++series) {
    s += series == 0 ? "<polyline fill=\"none\" stroke=\"#aaa\" stroke-width=\"1.5\" points=\""
                     : "<polyline fill=\"none\" stroke=\"#6c6\" stroke-width=\"2\" points=\"";
    for (std::size_t i = 0; i < rows.size(); ++i) {
      std::snprintf(buf, sizeof buf, "%g,%g ", px(i), py(series == 0 ? rows[i].own : rows[i].adapted));
      s += buf;
    }
    s += "\"/>\n";
  }
  s += "<text x=\"40\" y=\"14\" fill=\"#aaa\" font-size=\"11\">frame key (log-average)</text>"
       "<text x=\"200\" y=\"14\" fill=\"#6c6\" font-size=\"11\">adapted key (--temporal)</text>"
       "<text x=\"360\" y=\"14\" fill=\"#c44\" font-size=\"11\">scene cut detected</text>\n</svg>\n";
  return s;
}

// y4m -> H.264 MP4 with ffmpeg when it is installed (the README's set-up installs it); the y4m
// is removed then. Without ffmpeg the y4m stays and is linked instead.
std::string to_mp4(const fs::path& y4m) {
  const fs::path mp4 = fs::path(y4m).replace_extension(".mp4");
  const std::string cmd = "command -v ffmpeg >/dev/null 2>&1 && ffmpeg -v error -y -i '" + y4m.string() +
                          "' -c:v libx264 -pix_fmt yuv420p -crf 18 '" + mp4.string() + "' </dev/null";
  if (std::system(cmd.c_str()) == 0 && fs::exists(mp4)) {
    std::error_code ec;
    fs::remove(y4m, ec);
    return mp4.filename().string();
  }
  return y4m.filename().string();
}

}  // namespace

Result<std::string> write_demo_sequence(const fs::path& out_dir, const DemoSequence& d, const Params& params) {
  const fs::path dir = out_dir / "sequence";
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return io_error(dir.string() + ": " + ec.message());
  std::vector<Image> scenes;
  for (int i = 0; i < d.frames; ++i) {
    auto frame = synth::render_sequence_frame("night-drive", i, d.frames, d.width, d.height);
    if (!frame.ok()) return frame.status();
    scenes.push_back(std::move(*frame));
  }
  if (Status s = map_frames(scenes, d, params, false, dir / "per_frame.y4m", dir / "per_frame_keys.csv"); !s.ok()) return s;
  if (Status s = map_frames(scenes, d, params, true, dir / "temporal.y4m", dir / "keys.csv"); !s.ok()) return s;
  fs::remove(dir / "per_frame_keys.csv", ec);
  const std::string plain = to_mp4(dir / "per_frame.y4m"), adapted = to_mp4(dir / "temporal.y4m");
  std::ofstream(dir / "keys.svg") << keys_svg(read_keys(dir / "keys.csv"));
  const bool video = plain.size() > 4 && plain.compare(plain.size() - 4, 4, ".mp4") == 0;
  auto clip = [&](const std::string& file, const char* title) {
    return "<td><b>" + std::string(title) + "</b><br>" +
           (video ? "<video src=\"sequence/" + file + "\" controls loop muted width=\"480\"></video>"
                  : "<a href=\"sequence/" + file + "\">" + file + "</a> (install ffmpeg for an MP4)") +
           "</td>";
  };
  char intro[512];
  std::snprintf(intro, sizeof intro,
                "<h2>Sequence: night drive, tunnel exit, scene cut</h2>\n<p>%d frames at %dx%d, %d fps "
                "(<code>tonekit synth night-drive --frames %d</code>), operator %s, through the stream's mapper "
                "(<code>tonekit stream</code>): each frame on its own, and with <code>--temporal</code> (one "
                "adaptation state for the whole stream).</p>\n",
                d.frames, d.width, d.height, d.fps, d.frames, params.op().id);
  return std::string(intro) + "<table><tr>" + clip(plain, "per frame") + clip(adapted, "--temporal") +
         "</tr></table>\n<p><img src=\"sequence/keys.svg\" style=\"width:640px\" alt=\"frame and adapted key\"></p>\n";
}

}  // namespace tonekit::cli
