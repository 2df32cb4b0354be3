// tonekit compare IMAGES... --out DIR: every tonekit operator (defaults, and automatic parameters)
// and every peer installed on this machine (apps/compare_peers.cpp) on each HDR image, scored with
// TMQI, FSITM and colour fidelity (src/cpu/quality) and timed; writes DIR/index.html (image grid,
// sortable score table, SVG plots, the exact command per cell), DIR/scores.json, the PNGs and
// the PFM copies of the inputs the commands read. The folder is built beside DIR and renamed
// into place at the end, so DIR is either the previous one or the complete new report.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>

#include "auto_select.hpp"
#include "cli_common.hpp"
#include "compare_peers.hpp"
#include "compare_report.hpp"
#include "tonekit/auto_params.hpp"
#include "tonekit/synth.hpp"

namespace tonekit::cli {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

struct CompareOptions {
  std::vector<std::string> images;
  std::string out;
  std::string synth_size;  // empty: no synthetic scenes
  std::string backend = "auto";
  bool no_auto = false;
  bool no_peers = false;
  double budget = 2.0;
};

struct Source {
  std::string name, origin, path, scene;
};

double ms_since(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

std::string file_safe(const std::string& s) {
  std::string out;
  for (char c : s) out += (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.') ? c : '_';
  return out.empty() ? "image" : out;
}

std::string last_line(const fs::path& log) {
  std::ifstream f(log);
  std::string line, last;
  while (std::getline(f, line))
    if (!line.empty()) last = line;
  return last.size() > 300 ? last.substr(last.size() - 300) : last;
}

// Every pixel within 2 codes of black: an operator that produced nothing visible.
bool is_black(const OutputImage& image) {
  for (std::size_t i = 0; i < image.bytes.size(); ++i)
    if (image.bytes[i] > 2 && (image.channels != 4 || i % 4 != 3)) return false;
  return true;
}

CompareCell failed(std::string message, std::string command = {}) {
  CompareCell cell;
  cell.status = "failed";
  cell.message = std::move(message);
  cell.command = std::move(command);
  return cell;
}


void score(CompareCell& cell, const Image& hdr, const OutputImage& ldr) {
  cell.reversals = quality::gradient_reversals(hdr, ldr);
  if (hdr.width < quality::kMinSide || hdr.height < quality::kMinSide) {
    cell.message += (cell.message.empty() ? "" : "; ") + std::string("too small to score (TMQI needs 161 px a side)");
    return;
  }
  auto r = quality::assess(hdr, ldr);
  if (!r.ok()) {
    cell.message += (cell.message.empty() ? "" : "; ") + r.status().message();
    return;
  }
  cell.scored = true;
  cell.scores = *r;
}

std::string set_flags(const Params& p) {
  std::string s;
  for (const auto& [name, value] : p.values()) {
    char buf[96];
    std::snprintf(buf, sizeof buf, " --set %s=%.6g", name.c_str(), value);
    s += buf;
  }
  return s;
}

// One tonekit operator (defaults, or automatic parameters) on one image.
CompareCell run_tonekit(const Image& hdr, const CompareRow& row, const OperatorDesc& op, bool automatic,
                        Backend backend, AutoSelector& selector, const CompareOptions& o, const fs::path& work) {
  CompareCell cell;
  const std::string image = "images/" + row.name + "/" + file_safe(op.id) + (automatic ? "_auto" : "") + ".png";
  auto params = prepare_params(op.id);
  if (!params.ok()) return failed(params.status().message());
  const Clock::time_point start = Clock::now();
  if (automatic) {
    auto chosen = selector.search(hdr, *params, AutoBudget{o.budget});  // on the GPU with --backend cuda (or auto and a GPU)
    if (!chosen.ok()) return failed(chosen.status().message());
    char buf[160];
    std::snprintf(buf, sizeof buf, "auto: J %.4f from %.4f at the defaults, %d evaluations on a %dx%d proxy",
                  chosen->chosen.objective, chosen->start.objective, chosen->evaluations, chosen->proxy_width,
                  chosen->proxy_height);
    cell.message = buf;
    *params = chosen->params;
  }
  OutputImage out;
  if (Status s = tone_map(hdr, *params, OutputFormat{PixelType::u8, 3}, backend, out); !s.ok())
    return failed(s.message());
  cell.ms = ms_since(start);
  // The exact reproduction: automatic values are written out, since the search is time-bounded.
  cell.command = "tonekit map " + shell_quoted(row.input) + " " + shell_quoted(image) + " --op " + op.id +
                 " --backend " + backend_name(backend) + (automatic ? set_flags(*params) : "");
  if (Status s = io::write_png((work / image).string(), out); !s.ok()) return failed(s.message(), cell.command);
  cell.image = image;
  if (is_black(out)) cell.status = "black";
  score(cell, hdr, out);
  return cell;
}

CompareCell run_peer(const Image& hdr, const CompareRow& row, const Peer& peer, const std::string& exposed,
                     const fs::path& work) {
  CompareCell cell;
  const std::string image = "images/" + row.name + "/" + file_safe(peer.id) + ".png";
  cell.command = peer_command(peer, row.input, exposed, image);
  if (!peer_available(peer)) {
    cell.status = "missing";
    cell.message = peer.family + " is not installed (see the README's set-up)";
    return cell;
  }
  const fs::path log = work / (image + ".log");
  // pipefail: a pfstmo stage that fails mid-pipe fails the cell, not only the last stage.
  const std::string shell = "cd " + shell_quoted(work.string()) + " && timeout 600 bash -o pipefail -c " +
                            shell_quoted(cell.command) +
                            " > " + shell_quoted(log.string()) + " 2>&1";
  const Clock::time_point start = Clock::now();
  const int status = std::system(shell.c_str());
  cell.ms = ms_since(start);
  const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  const std::string tail = last_line(log);
  std::error_code ec;
  if (fs::file_size(log, ec) == 0) fs::remove(log, ec);
  if (code != 0) {
    cell.status = code == 3 && peer.family == "opencv" ? "nan" : "failed";
    cell.message = "exit status " + std::to_string(code) + (tail.empty() ? "" : ": " + tail);
    return cell;
  }
  auto out = io::read_png((work / image).string());
  if (!out.ok()) {
    cell.status = "failed";
    cell.message = image + ": no readable output" + (tail.empty() ? "" : ": " + tail);
    return cell;
  }
  cell.image = image;
  if (out->width != hdr.width || out->height != hdr.height) {
    cell.status = "failed";
    cell.message = "output is " + std::to_string(out->width) + "x" + std::to_string(out->height);
    return cell;
  }
  if (is_black(*out)) cell.status = "black";
  score(cell, hdr, *out);
  return cell;
}

Result<Image> load(const Source& s, int width, int height) {
  if (!s.scene.empty()) return synth::render_scene(s.scene, width, height);
  return io::read_image(s.path);
}

int run_compare(const CompareOptions& o) {
  // 1. Everything the user gave, checked before any work.
  if (o.out.empty()) return report(invalid_argument("--out DIR is required"));
  if (o.images.empty() && o.synth_size.empty())
    return report(invalid_argument("compare needs HDR images or --synth WxH (every synthetic scene)"));
  if (!(o.budget > 0.0)) return report(invalid_argument("--budget must be positive"));
  auto backend = resolve_backend(o.backend);
  if (!backend.ok()) return report(backend.status());
  // The "auto" columns' searches: on the GPU where the maps run there; with --backend auto a GPU
  // that cannot search (no cuFFT, out of memory) leaves them to the CPU, as map --auto does.
  AutoSelector selector(o.backend == "auto" ? Backend::automatic : *backend);
  int synth_w = 0, synth_h = 0;
  std::error_code ec;
  std::vector<Source> sources;
  std::set<std::string> names;
  auto unique_name = [&names](std::string n) {
    n = file_safe(n);
    std::string candidate = n;
    for (int i = 2; !names.insert(candidate).second; ++i) candidate = n + "_" + std::to_string(i);
    return candidate;
  };
  if (!o.synth_size.empty()) {
    auto size = parse_size(o.synth_size);
    if (!size.ok()) return report(size.status());
    if (Status s = synth::check_size(size->first, size->second); !s.ok()) return report(s);
    synth_w = size->first, synth_h = size->second;
    for (const synth::SceneInfo& scene : synth::all_scenes())
      sources.push_back({unique_name(scene.id), std::string("synthetic scene ") + scene.id, "", scene.id});
  }
  for (const std::string& path : o.images) {
    if (fs::is_directory(path, ec)) {
      // A folder: every file in it (sorted, not recursive) that a reader recognises by content.
      std::vector<std::string> found;
      for (const fs::directory_entry& e : fs::directory_iterator(path, ec))
        if (e.is_regular_file(ec) && io::probe_image(e.path().string()).ok()) found.push_back(e.path().string());
      if (found.empty()) return report(bad_input(path + ": no HDR images (.exr, .hdr, .pfm) in this folder"));
      std::sort(found.begin(), found.end());
      for (const std::string& f : found) sources.push_back({unique_name(file_stem(f)), f, f, ""});
      continue;
    }
    auto probe = io::probe_image(path);
    if (!probe.ok()) return report(probe.status());
    sources.push_back({unique_name(file_stem(path)), path, path, ""});
  }

  // 2. The report is built in a sibling folder and renamed over DIR at the end.
  fs::path target = fs::absolute(o.out).lexically_normal();
  if (target.filename().empty()) target = target.parent_path();  // "DIR/"
  const fs::path work = target.parent_path() / (target.filename().string() + ".tmp-" + std::to_string(::getpid()));
  fs::create_directories(work / "inputs", ec);
  if (ec) return report(io_error(work.string() + ": cannot create: " + ec.message()));
  auto fail = [&](const Status& s) {
    fs::remove_all(work, ec);
    return report(s);
  };

  std::vector<CompareMethod> methods;
  for (const OperatorDesc* op : all_operators()) {
    methods.push_back({op->id, "tonekit", op->citation});
    if (!o.no_auto) methods.push_back({std::string(op->id) + " auto", "tonekit auto", "automatic parameters"});
  }
  if (!o.no_peers)
    for (const Peer& p : all_peers()) methods.push_back({p.id, p.family, p.note});

  std::vector<CompareRow> rows;
  Progress progress(static_cast<int>(sources.size()));
  for (std::size_t si = 0; si < sources.size(); ++si) {
    const Source& src = sources[si];
    progress.update(static_cast<int>(si), src.name);
    auto hdr = load(src, synth_w, synth_h);
    if (!hdr.ok()) return fail(Status{hdr.status().code(), src.origin + ": " + hdr.status().message()});
    CompareRow row{src.name, src.origin, "inputs/" + src.name + ".pfm", hdr->width, hdr->height, {}};
    fs::create_directories(work / "images" / src.name, ec);
    if (Status s = io::write_pfm((work / row.input).string(), *hdr); !s.ok()) return fail(s);
    // FFmpeg's curves take the scene at key 0.18 (see compare_peers.hpp).
    const std::string exposed = "inputs/" + src.name + ".exposed.exr";
    if (!o.no_peers) {
      const FrameStats stats = cpu::compute_stats(hdr->view());
      Image scaled = *hdr;
      const float k = stats.log_average > 0.0 ? static_cast<float>(0.18 / stats.log_average) : 1.0f;
      for (float& v : scaled.pixels) v *= k;
      if (Status s = io::write_exr((work / exposed).string(), scaled, false); !s.ok()) return fail(s);
    }
    for (const CompareMethod& m : methods) {
      if (m.family == "tonekit" || m.family == "tonekit auto") {
        const std::string op_id = m.family == "tonekit" ? m.id : m.id.substr(0, m.id.size() - 5);
        row.cells.push_back(run_tonekit(*hdr, row, *find_operator(op_id), m.family == "tonekit auto", *backend, selector, o, work));
      } else {
        for (const Peer& p : all_peers())
          if (p.id == m.id) row.cells.push_back(run_peer(*hdr, row, p, exposed, work));
      }
    }
    rows.push_back(std::move(row));
  }
  progress.update(static_cast<int>(sources.size()), "done");
  progress.finish();

  if (Status s = io::write_file_atomically((work / "index.html").string(), compare_html(methods, rows)); !s.ok())
    return fail(s);
  if (Status s = io::write_file_atomically((work / "scores.json").string(), compare_json(methods, rows)); !s.ok())
    return fail(s);
  // 3. Into place: the old report (if any) moves aside, the new one takes its name.
  const fs::path old = target.parent_path() / (target.filename().string() + ".old-" + std::to_string(::getpid()));
  const bool had_old = fs::exists(target, ec);
  if (had_old) fs::rename(target, old, ec);
  if (!ec) fs::rename(work, target, ec);
  if (ec) {
    if (had_old && !fs::exists(target)) fs::rename(old, target, ec);
    return fail(io_error(target.string() + ": cannot move the report into place: " + ec.message()));
  }
  if (had_old) fs::remove_all(old, ec);

  // 4. The summary on stdout: mean scores and times per method.
  std::printf("%-24s %-13s %6s %8s %8s %8s %10s\n", "method", "family", "scored", "TMQI Q", "FSITM", "rev %", "ms");
  for (std::size_t m = 0; m < methods.size(); ++m) {
    double q = 0, f = 0, ms = 0, rev = 0;
    int scored = 0, ran = 0, measured = 0;
    std::string states;
    for (const CompareRow& r : rows) {
      const CompareCell& c = r.cells[m];
      if (c.scored) q += c.scores.tmqi.q, f += c.scores.fsitm.mean, ++scored;
      if (c.reversals >= 0) rev += c.reversals, ++measured;
      if (c.status != "missing") ms += c.ms, ++ran;
      if (c.status != "ok" && states.find(c.status) == std::string::npos) states += " " + c.status;
    }
    std::printf("%-24s %-13s %6d %8.4f %8.4f %8.3f %10.1f%s\n", methods[m].id.c_str(), methods[m].family.c_str(), scored,
                scored ? q / scored : 0.0, scored ? f / scored : 0.0, measured ? rev / measured : 0.0, ran ? ms / ran : 0.0,
                states.c_str());
  }
  std::printf("report: %s\n", (target / "index.html").string().c_str());
  return kExitOk;
}

}  // namespace

void add_compare_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<CompareOptions>();
  CLI::App* cmd = app.add_subcommand(
      "compare", "Every operator (defaults and --auto) and every installed peer on HDR images: scores, times, HTML report");
  cmd->add_option("images", o->images, "HDR files (.exr, .hdr, .pfm) or folders of them");
  cmd->add_option("--out", o->out, "report folder (replaced as a whole at the end)")->required();
  cmd->add_option("--synth", o->synth_size, "also every synthetic scene at this size, WxH");
  cmd->add_option("--backend", o->backend, "backend for tonekit's operators: cpu, cuda or auto")->capture_default_str();
  cmd->add_option("--budget", o->budget, "seconds per automatic parameter search")->capture_default_str();
  cmd->add_flag("--no-auto", o->no_auto, "skip the automatic-parameter columns");
  cmd->add_flag("--no-peers", o->no_peers, "skip pfstmo, OpenCV and FFmpeg");
  cmd->footer("\nPeers (run when installed, else shown as missing): pfstmo reinhard02 (global and -s), drago03, "
              "mantiuk06, fattal02; OpenCV Drago, Reinhard-Devlin, Mantiuk (python3-opencv); FFmpeg tonemap hable, "
              "reinhard, mobius through zscale.");
  cmd->callback([o, &exit_code] { exit_code = run_compare(*o); });
}

}  // namespace tonekit::cli
