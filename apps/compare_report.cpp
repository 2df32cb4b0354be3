// Renderings of a `tonekit compare` run (see compare_report.hpp). The page is self-contained:
// inline CSS, plain inline JavaScript for the table sort, SVG plots written here.
#include "compare_report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "quality_format.hpp"

namespace tonekit::cli {
namespace {

std::string escaped(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    if (c == '&') out += "&amp;";
    else if (c == '<') out += "&lt;";
    else if (c == '>') out += "&gt;";
    else if (c == '"') out += "&quot;";
    else out.push_back(c);
  }
  return out;
}

std::string number(double v, const char* format) {
  if (!std::isfinite(v)) return "";
  char buf[48];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

struct MethodSummary {
  double q = 0.0, fsitm = 0.0, ms = 0.0;
  int scored = 0, timed = 0;
};

std::vector<MethodSummary> summarise(const std::vector<CompareMethod>& methods, const std::vector<CompareRow>& rows) {
  std::vector<MethodSummary> s(methods.size());
  for (const CompareRow& r : rows)
    for (std::size_t m = 0; m < methods.size() && m < r.cells.size(); ++m) {
      const CompareCell& c = r.cells[m];
      if (c.status == "ok" || c.status == "black") s[m].ms += c.ms, ++s[m].timed;
      if (c.scored) s[m].q += c.scores.tmqi.q, s[m].fsitm += c.scores.fsitm.mean, ++s[m].scored;
    }
  for (MethodSummary& m : s) {
    if (m.scored) m.q /= m.scored, m.fsitm /= m.scored;
    if (m.timed) m.ms /= m.timed;
  }
  return s;
}

// Horizontal bars, one group per method: TMQI Q and FSITM (0..1), methods that scored nothing
// are listed with no bar.
std::string scores_svg(const std::vector<CompareMethod>& methods, const std::vector<MethodSummary>& s) {
  const int row = 26, left = 190, width = 420, height = row * static_cast<int>(methods.size()) + 40;
  std::string svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + std::to_string(left + width + 60) +
                    "\" height=\"" + std::to_string(height) + "\" font-size=\"11\">\n";
  svg += "<text x=\"" + std::to_string(left) + "\" y=\"12\" fill=\"#ddd\">mean over images: TMQI Q (blue), FSITM (orange), axis 0 .. 1</text>\n";
  for (std::size_t m = 0; m < methods.size(); ++m) {
    const int y = 24 + static_cast<int>(m) * row;
    svg += "<text x=\"" + std::to_string(left - 6) + "\" y=\"" + std::to_string(y + 14) +
           "\" text-anchor=\"end\" fill=\"#ddd\">" + escaped(methods[m].id) + "</text>\n";
    if (!s[m].scored) continue;
    svg += "<rect x=\"" + std::to_string(left) + "\" y=\"" + std::to_string(y + 2) + "\" width=\"" +
           number(width * s[m].q, "%.1f") + "\" height=\"9\" fill=\"#5b9bd5\"/>\n";
    svg += "<rect x=\"" + std::to_string(left) + "\" y=\"" + std::to_string(y + 12) + "\" width=\"" +
           number(width * s[m].fsitm, "%.1f") + "\" height=\"9\" fill=\"#ed7d31\"/>\n";
    svg += "<text x=\"" + number(left + width * std::max(s[m].q, s[m].fsitm) + 4, "%.1f") + "\" y=\"" +
           std::to_string(y + 14) + "\" fill=\"#aaa\">" + number(s[m].q, "%.3f") + " / " + number(s[m].fsitm, "%.3f") +
           "</text>\n";
  }
  return svg + "</svg>\n";
}

// Mean time per method on a log axis from 0.1 ms to the slowest.
std::string times_svg(const std::vector<CompareMethod>& methods, const std::vector<MethodSummary>& s) {
  double slowest = 1.0;
  for (const MethodSummary& m : s) slowest = std::max(slowest, m.ms);
  const double decades = std::log10(slowest / 0.1);
  const int row = 18, left = 190, width = 420, height = row * static_cast<int>(methods.size()) + 40;
  std::string svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + std::to_string(left + width + 90) +
                    "\" height=\"" + std::to_string(height) + "\" font-size=\"11\">\n";
  svg += "<text x=\"" + std::to_string(left) + "\" y=\"12\" fill=\"#ddd\">mean time per image, ms (log axis from 0.1 ms)</text>\n";
  for (std::size_t m = 0; m < methods.size(); ++m) {
    const int y = 22 + static_cast<int>(m) * row;
    svg += "<text x=\"" + std::to_string(left - 6) + "\" y=\"" + std::to_string(y + 12) +
           "\" text-anchor=\"end\" fill=\"#ddd\">" + escaped(methods[m].id) + "</text>\n";
    if (!s[m].timed) continue;
    const double w = width * std::clamp(std::log10(std::max(s[m].ms, 0.1) / 0.1) / decades, 0.0, 1.0);
    svg += "<rect x=\"" + std::to_string(left) + "\" y=\"" + std::to_string(y + 2) + "\" width=\"" + number(w, "%.1f") +
           "\" height=\"12\" fill=\"" + (methods[m].family.rfind("tonekit", 0) == 0 ? "#70ad47" : "#a5a5a5") + "\"/>\n";
    svg += "<text x=\"" + number(left + w + 4, "%.1f") + "\" y=\"" + std::to_string(y + 12) + "\" fill=\"#aaa\">" +
           number(s[m].ms, "%.1f") + "</text>\n";
  }
  return svg + "</svg>\n";
}

const char* kSortScript = R"(<script>
// Click a column header to sort the score table by it (numbers numerically, again to reverse).
document.querySelectorAll('table.scores th').forEach((th, col) => th.addEventListener('click', () => {
  const body = th.closest('table').tBodies[0], rows = Array.from(body.rows);
  const up = th.dataset.dir !== 'up'; th.dataset.dir = up ? 'up' : 'down';
  const key = r => { const t = r.cells[col].textContent, n = parseFloat(t); return isNaN(n) ? t : n; };
  rows.sort((a, b) => { const x = key(a), y = key(b);
    const c = (typeof x === typeof y) ? (x < y ? -1 : x > y ? 1 : 0) : (typeof x === 'number' ? -1 : 1);
    return up ? c : -c; });
  rows.forEach(r => body.appendChild(r));
}));
</script>
)";

}  // namespace

std::string compare_html(const std::vector<CompareMethod>& methods, const std::vector<CompareRow>& rows) {
  std::string h =
      "<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>tonekit compare</title>\n<style>\n"
      "body{font-family:sans-serif;background:#222;color:#ddd;margin:1em}a{color:#9cf}\n"
      "table{border-collapse:collapse}td,th{border:1px solid #444;padding:4px;vertical-align:top;font-size:12px}\n"
      "th{background:#333}table.scores th{cursor:pointer}img{display:block;width:240px}\n"
      ".s{color:#8c8}.bad{color:#f88}.n{color:#999;max-width:240px}code{font-size:10px;word-break:break-all}\n"
      "</style></head><body>\n<h1>tonekit compare</h1>\n";
  h += "<p>Every tonekit operator with its defaults and with automatic parameters (" +
       escaped("(TMQI + FSITM)/2 - 0.005 CIEDE2000, searched on a proxy within the registered ranges") +
       "), and every peer found on this machine. Scores: TMQI Q (Yeganeh &amp; Wang 2013), FSITM mean "
       "(Nafchi et al. 2015), CIEDE2000 at matched lightness. Times: tonekit cells time the in-process mapping "
       "(and the search, for auto); peer cells time the whole command (process start and file I/O included). "
       "Each cell's command runs from this folder (bash -o pipefail).</p>\n";

  const std::vector<MethodSummary> summary = summarise(methods, rows);
  h += "<h2>Plots</h2>\n" + scores_svg(methods, summary) + times_svg(methods, summary);

  h += "<h2>Images</h2>\n<table>\n<tr><th>image</th>";
  for (const CompareMethod& m : methods)
    h += "<th title=\"" + escaped(m.note) + "\">" + escaped(m.id) + "<br><span class=\"n\">" + escaped(m.family) +
         "</span></th>";
  h += "</tr>\n";
  for (const CompareRow& r : rows) {
    h += "<tr><th>" + escaped(r.name) + "<br><span class=\"n\">" + escaped(r.origin) + "<br>" +
         std::to_string(r.width) + " x " + std::to_string(r.height) + "</span></th>";
    for (std::size_t m = 0; m < methods.size(); ++m) {
      const CompareCell& c = r.cells[m];
      h += "<td>";
      if (!c.image.empty()) h += "<a href=\"" + escaped(c.image) + "\"><img src=\"" + escaped(c.image) + "\" alt=\"\"></a>";
      h += "<span class=\"" + std::string(c.status == "ok" ? "s" : "bad") + "\">" + escaped(c.status) + "</span>";
      if (c.scored)
        h += " Q " + number(c.scores.tmqi.q, "%.3f") + " FSITM " + number(c.scores.fsitm.mean, "%.3f") + " &Delta;E " +
             number(c.scores.colour.delta_e2000_mean, "%.2f");
      if (c.status != "missing") h += " <span class=\"n\">" + number(c.ms, "%.1f") + " ms</span>";
      if (!c.message.empty()) h += "<div class=\"n\">" + escaped(c.message) + "</div>";
      if (!c.command.empty()) h += "<details><summary>command</summary><code>" + escaped(c.command) + "</code></details>";
      h += "</td>";
    }
    h += "</tr>\n";
  }
  h += "</table>\n";

  h += "<h2>Scores</h2>\n<table class=\"scores\"><thead><tr><th>image</th><th>method</th><th>family</th>"
       "<th>status</th><th>TMQI Q</th><th>S</th><th>N</th><th>FSITM</th><th>&Delta;E00 mean</th>"
       "<th>&Delta;E00 p95</th><th>hue shift &deg;</th><th>reversals %</th><th>ms</th></tr></thead><tbody>\n";
  for (const CompareRow& r : rows)
    for (std::size_t m = 0; m < methods.size(); ++m) {
      const CompareCell& c = r.cells[m];
      const quality::QualityReport& s = c.scores;
      auto score = [&](double v, const char* f) { return "<td>" + (c.scored ? number(v, f) : std::string()) + "</td>"; };
      h += "<tr><td>" + escaped(r.name) + "</td><td>" + escaped(methods[m].id) + "</td><td>" +
           escaped(methods[m].family) + "</td><td>" + escaped(c.status) + "</td>" + score(s.tmqi.q, "%.4f") +
           score(s.tmqi.s, "%.4f") + score(s.tmqi.n, "%.4f") + score(s.fsitm.mean, "%.4f") +
           score(s.colour.delta_e2000_mean, "%.2f") + score(s.colour.delta_e2000_p95, "%.2f") +
           score(s.colour.hue_shift_mean_deg, "%.2f") + "<td>" +
           (c.reversals >= 0 ? number(c.reversals, "%.3f") : std::string()) + "</td><td>" +
           (c.status == "missing" ? std::string() : number(c.ms, "%.1f")) + "</td></tr>\n";
    }
  h += "</tbody></table>\n";
  h += kSortScript;
  h += "</body></html>\n";
  return h;
}

std::string compare_json(const std::vector<CompareMethod>& methods, const std::vector<CompareRow>& rows) {
  std::string j = "{\"cells\": [\n";
  bool first = true;
  for (const CompareRow& r : rows)
    for (std::size_t m = 0; m < methods.size(); ++m) {
      const CompareCell& c = r.cells[m];
      j += first ? "  {" : ",\n  {";
      first = false;
      j += "\"image\": " + json_string(r.name) + ", \"method\": " + json_string(methods[m].id) +
           ", \"family\": " + json_string(methods[m].family) + ", \"status\": " + json_string(c.status) +
           ", \"message\": " + json_string(c.message) + ", \"command\": " + json_string(c.command) +
           ", \"output\": " + json_string(c.image) + ", \"ms\": " + json_number(c.ms);
      if (c.scored) j += ", " + quality_json_members(c.scores);
      if (c.reversals >= 0) j += ", \"reversals_percent\": " + json_number(c.reversals);
      j += "}";
    }
  return j + "\n]}\n";
}

}  // namespace tonekit::cli
