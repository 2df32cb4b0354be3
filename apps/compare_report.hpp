// What `tonekit compare` measured, and its renderings: DIR/index.html (image grid, sortable score
// table, SVG plots, the command behind every cell) and DIR/scores.json.
#pragma once
#include <string>
#include <vector>

#include "tonekit/quality.hpp"

namespace tonekit::cli {

struct CompareMethod {
  std::string id;      // "reinhard", "reinhard auto", "pfstmo drago03", ...
  std::string family;  // "tonekit", "tonekit auto", "pfstmo", "opencv", "ffmpeg"
  std::string note;
};

struct CompareCell {
  // ok, failed (non-zero exit or unreadable output), missing (peer not installed), nan (the
  // peer produced NaN), black (every pixel within 2 codes of black)
  std::string status = "ok";
  std::string message;  // why, for anything but ok; the chosen values for auto
  std::string command;  // exact, run from the report folder (bash -o pipefail)
  std::string image;    // PNG path relative to the report folder (empty when none)
  double ms = 0.0;      // tonekit: in-process tone_map (and search for auto); peers: the whole command
  bool scored = false;
  quality::QualityReport scores;
  // Gradient reversals: % of the neighbouring pixel pairs within 8 px of a strong edge of the HDR
  // (a factor of 4 between neighbours) whose output contrast has the opposite sign to the HDR's
  // (by 2 codes or more, against an HDR contrast of 5 % or more): the signature of halos.
  // -1: not measured (no 8-bit output).
  double reversals = -1.0;
};

struct CompareRow {
  std::string name;    // file-safe
  std::string origin;  // the path or "synthetic scene ID"
  std::string input;   // the PFM copy, relative to the report folder
  int width = 0, height = 0;
  std::vector<CompareCell> cells;  // one per method
};

std::string compare_html(const std::vector<CompareMethod>& methods, const std::vector<CompareRow>& rows);
std::string compare_json(const std::vector<CompareMethod>& methods, const std::vector<CompareRow>& rows);

}  // namespace tonekit::cli
