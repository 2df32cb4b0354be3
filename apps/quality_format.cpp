// Renderings of quality::QualityReport for the CLI (see quality_format.hpp).
#include "quality_format.hpp"

#include <cmath>
#include <cstdio>

namespace tonekit::cli {

std::string json_number(double v) {
  if (!std::isfinite(v)) return "null";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.10g", v);
  return buf;
}

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out.push_back('\\');
      out.push_back(c);
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out.push_back(c);
    }
  }
  out.push_back('"');
  return out;
}

std::string quality_json_members(const quality::QualityReport& r) {
  const quality::TmqiScore& t = r.tmqi;
  std::string s;
  // Appended piece by piece: GCC 12 at -O3 warns (-Wrestrict, a false positive) on
  // "literal" + std::string chains.
  auto field = [&s](const char* name, double v, bool first = false) {
    if (!first) s += ", ";
    s += '"';
    s += name;
    s += "\": ";
    s += json_number(v);
  };
  s += "\"tmqi\": {";
  field("q", t.q, true);
  field("s", t.s);
  field("n", t.n);
  s += ", \"s_per_scale\": [";
  for (std::size_t i = 0; i < t.s_per_scale.size(); ++i) {
    if (i) s += ", ";
    s += json_number(t.s_per_scale[i]);
  }
  s += "]";
  field("m", t.mean_luminance);
  field("d", t.contrast);
  s += "}, \"fsitm\": {";
  field("r", r.fsitm.channel[0], true);
  field("g", r.fsitm.channel[1]);
  field("b", r.fsitm.channel[2]);
  field("mean", r.fsitm.mean);
  s += "}, \"colour\": {";
  field("delta_e2000_mean", r.colour.delta_e2000_mean, true);
  field("delta_e2000_p95", r.colour.delta_e2000_p95);
  field("hue_shift_mean_deg", r.colour.hue_shift_mean_deg);
  field("chromatic_pixels", static_cast<double>(r.colour.chromatic_pixels));
  s += "}";
  return s;
}

std::string quality_table(const quality::QualityReport& r) {
  const quality::TmqiScore& t = r.tmqi;
  char buf[640];
  std::snprintf(buf, sizeof buf,
                "TMQI     Q %.4f   S %.4f   N %.4f\n"
                "         S per scale (16, 8, 4, 2, 1 cycles/degree): %.4f %.4f %.4f %.4f %.4f\n"
                "         LDR mean m %.2f, block contrast d %.2f\n"
                "FSITM    R %.4f   G %.4f   B %.4f   mean %.4f\n"
                "colour   CIEDE2000 mean %.2f, 95th percentile %.2f; mean hue shift %.2f deg over %zu chromatic pixels\n",
                t.q, t.s, t.n, t.s_per_scale[0], t.s_per_scale[1], t.s_per_scale[2], t.s_per_scale[3],
                t.s_per_scale[4], t.mean_luminance, t.contrast, r.fsitm.channel[0], r.fsitm.channel[1],
                r.fsitm.channel[2], r.fsitm.mean, r.colour.delta_e2000_mean, r.colour.delta_e2000_p95,
                r.colour.hue_shift_mean_deg, r.colour.chromatic_pixels);
  return buf;
}

}  // namespace tonekit::cli
