// Quick quality loop for the looks (issue 36): mean TMQI and FSITM of operator/parameter sets on
// the synthetic scenes and on the real images of ../shared/hdr (every .exr/.hdr but
// AllHalfValues.exr), each image loaded once, mapped on the CPU to 8-bit sRGB as `tonekit compare`
// maps it, and scored with tonekit::quality (what compare reports); plus `tonekit compare`'s
// gradient-reversal percentage (rev %) on checker-hdr and its mean over the synthetic scenes. Peers' outputs (e.g. pfstmo, bench/cpu/looks_peers.sh)
// are scored from PNG folders named <source>.png.
// Usage: looks_eval [--hdr DIR] [--synth WxH] [--per-image] [--write-pfm DIR] SET...
//   SET: OP[:NAME=VALUE,...] (tonekit, CPU) or png=DIR[:LABEL] (pre-made outputs)
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "tonekit/io.hpp"
#include "tonekit/operators.hpp"
#include "tonekit/quality.hpp"
#include "tonekit/synth.hpp"
#include "tonekit/tonemap.hpp"

namespace fs = std::filesystem;
using namespace tonekit;

namespace {

struct Source {
  std::string name;
  bool synthetic = false;
  Image hdr;
};


struct Sums {
  double q = 0, f = 0, s = 0, nat = 0, m = 0;
  int count = 0;
  void add(const quality::TmqiScore& t, double fsitm) {
    q += t.q, f += fsitm, s += t.s, nat += t.n, m += t.mean_luminance;
    ++count;
  }
};

}  // namespace

int main(int argc, char** argv) {
  std::string hdr_dir = "../shared/hdr", synth_size = "960x540", write_pfm;
  bool per_image = false, quantise = false;
  std::vector<std::string> sets;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--hdr" && i + 1 < argc) hdr_dir = argv[++i];
    else if (a == "--synth" && i + 1 < argc) synth_size = argv[++i];
    else if (a == "--write-pfm" && i + 1 < argc) write_pfm = argv[++i];
    else if (a == "--per-image") per_image = true;
    else if (a == "--png8") quantise = true;  // score 16-bit PNGs as 8-bit
    else if (a == "--help" || a == "-h") {
      std::printf("usage: looks_eval [--hdr DIR (or none)] [--synth WxH (or none)] [--per-image] [--write-pfm DIR] SET...\n"
                  "  SET: OP[:NAME=VALUE,...] or png=DIR[:LABEL]\n");
      return 0;
    } else sets.push_back(a);
  }
  std::vector<Source> sources;
  if (synth_size != "none") {
    int w = 0, h = 0;
    if (std::sscanf(synth_size.c_str(), "%dx%d", &w, &h) != 2) return std::fprintf(stderr, "bad --synth\n"), 1;
    for (const synth::SceneInfo& s : synth::all_scenes()) {
      auto img = synth::render_scene(s.id, w, h);
      if (!img.ok()) return std::fprintf(stderr, "%s: %s\n", s.id, img.status().message().c_str()), 1;
      sources.push_back({s.id, true, std::move(*img)});
    }
  }
  if (hdr_dir != "none") {
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(hdr_dir)) {
      const std::string ext = e.path().extension().string();
      if ((ext == ".exr" || ext == ".hdr") && e.path().filename() != "AllHalfValues.exr") files.push_back(e.path());
    }
    std::sort(files.begin(), files.end());
    for (const fs::path& p : files) {
      auto img = io::read_image(p.string());
      if (!img.ok()) return std::fprintf(stderr, "%s: %s\n", p.c_str(), img.status().message().c_str()), 1;
      sources.push_back({p.stem().string(), false, std::move(*img)});
    }
  }
  if (!write_pfm.empty()) {
    fs::create_directories(write_pfm);
    for (const Source& s : sources)
      if (Status st = io::write_pfm((fs::path(write_pfm) / (s.name + ".pfm")).string(), s.hdr); !st.ok())
        return std::fprintf(stderr, "%s\n", st.message().c_str()), 1;
  }
  std::printf("%-58s %15s %15s %13s | %-26s\n", "set", "synth TMQI/FSIT", "real TMQI/FSIT", "rev% chk/syn", "real S / N / mean code");
  for (const std::string& set : sets) {
    std::string label = set, png_dir;
    Result<Params> params = invalid_argument("");
    if (set.rfind("png=", 0) == 0) {
      png_dir = set.substr(4);
      if (auto c = png_dir.find(':'); c != std::string::npos) label = png_dir.substr(c + 1), png_dir = png_dir.substr(0, c);
    } else {
      const auto c = set.find(':');
      std::vector<std::pair<std::string, std::string>> kv;
      if (c != std::string::npos) {
        std::string rest = set.substr(c + 1);
        std::size_t p = 0;
        while (p < rest.size()) {
          std::size_t q = rest.find(',', p);
          if (q == std::string::npos) q = rest.size();
          const std::string item = rest.substr(p, q - p);
          const auto e = item.find('=');
          if (e != std::string::npos) kv.emplace_back(item.substr(0, e), item.substr(e + 1));
          p = q + 1;
        }
      }
      params = prepare_params(set.substr(0, c), kv);
      if (!params.ok()) return std::fprintf(stderr, "%s: %s\n", set.c_str(), params.status().message().c_str()), 1;
    }
    Sums synth_sum, real_sum;
    double rev = -1.0, rev_sum = 0.0;
    int rev_count = 0;
    for (const Source& s : sources) {
      OutputImage out;
      if (png_dir.empty()) {
        if (Status st = tone_map(s.hdr, *params, OutputFormat{PixelType::u8, 3}, Backend::cpu, out); !st.ok())
          return std::fprintf(stderr, "%s %s: %s\n", label.c_str(), s.name.c_str(), st.message().c_str()), 1;
      } else {
        auto png = io::read_png((fs::path(png_dir) / (s.name + ".png")).string());
        if (!png.ok()) {
          std::fprintf(stderr, "%s %s: missing\n", label.c_str(), s.name.c_str());
          continue;
        }
        out = std::move(*png);
        if (out.type == PixelType::u16) {  // 16-bit PNGs (pfsout's) to the 8-bit codes tonekit writes, for rev %
          OutputImage q;
          q.allocate(out.width, out.height, out.channels, PixelType::u8);
          const auto* v = reinterpret_cast<const std::uint16_t*>(out.bytes.data());
          for (std::size_t i = 0; i < q.bytes.size(); ++i) q.bytes[i] = static_cast<std::uint8_t>((v[i] + 128) / 257);
          if (quantise) out = std::move(q);
          else if (s.synthetic) {
            const double r = quality::gradient_reversals(s.hdr, q);
            if (s.name == "checker-hdr") rev = r;
            rev_sum += r, ++rev_count;
          }
        }
      }
      if (s.synthetic && out.type == PixelType::u8) {
        const double r = quality::gradient_reversals(s.hdr, out);
        if (s.name == "checker-hdr") rev = r;
        rev_sum += r, ++rev_count;
      }
      auto t = quality::tmqi(s.hdr, out);
      auto f = quality::fsitm(s.hdr, out);
      if (!t.ok() || !f.ok()) continue;
      (s.synthetic ? synth_sum : real_sum).add(*t, f->mean);
      if (per_image)
        std::printf("  %-40s %-28s TMQI %.3f S %.3f N %.3f m %5.1f d %5.1f FSITM %.3f\n", label.c_str(), s.name.c_str(),
                    t->q, t->s, t->n, t->mean_luminance, t->contrast, f->mean);
    }
    auto mean = [](double v, int n) { return n ? v / n : 0.0; };
    std::printf("%-58s %7.4f/%.4f %7.4f/%.4f %6.3f/%6.3f | %.3f / %.3f / %5.1f\n", label.c_str(), mean(synth_sum.q, synth_sum.count),
                mean(synth_sum.f, synth_sum.count), mean(real_sum.q, real_sum.count), mean(real_sum.f, real_sum.count), rev, mean(rev_sum, rev_count),
                mean(real_sum.s, real_sum.count), mean(real_sum.nat, real_sum.count), mean(real_sum.m, real_sum.count));
    std::fflush(stdout);
  }
  return 0;
}
