// Automatic parameters (the thesis' future work): a bounded, time-limited search over an
// operator's own registered parameters, within their registered ranges, that maximises
//   J = (TMQI Q + FSITM mean) / 2 - 0.005 * mean CIEDE2000
// (the FSITM + TMQI average is Nafchi et al.'s combined index, SPL 2015, Sec. IV; a mean colour
// error of 10 costs 0.05). The search runs on a downscaled proxy of the image (longer side
// <= proxy_long_side, shorter side >= quality::kMinSide where the image allows), on the CPU here,
// or with each candidate mapped and scored on the GPU (tonekit/auto_params_cuda.hpp: the same
// proxy, candidates and objective: src/cpu/quality/auto_search.hpp is the one search both run).
// Objective scores can be gamed: only registered parameters move, only inside their ranges, and
// the defaults' scores are returned beside the chosen ones so a person can compare.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "tonekit/image.hpp"
#include "tonekit/operators.hpp"
#include "tonekit/status.hpp"
#include "tonekit/tonemap.hpp"

namespace tonekit {

struct AutoBudget {
  double seconds = 2.0;        // wall-clock bound for the whole search, proxy included
  int proxy_long_side = 384;   // pixels
  int max_evaluations = 200;
};

struct AutoScores {
  double objective = 0.0;  // J above
  double tmqi = 0.0;       // Q
  double fsitm = 0.0;      // mean over R, G, B
  double delta_e2000 = 0.0;
};

struct AutoResult {
  Params params;                      // the chosen values (the starting ones for parameters not searched)
  AutoScores start, chosen;           // on the proxy
  std::vector<std::string> searched;  // parameter names the search moved within their ranges
  int evaluations = 0;
  double seconds = 0.0;
  int proxy_width = 0, proxy_height = 0;
  // Where the candidates were mapped and scored: cpu (auto_params) or cuda (GpuAutoParams).
  Backend backend = Backend::cpu;
};

// Searches the continuous (non-integer) own parameters of `start.op()` with finite, searchable
// ranges, starting from `start`'s values (so --set values are the starting point; common
// parameters such as saturation and gamma are kept). Errors: an image smaller than
// quality::kMinSide on a side (invalid_argument), FFTW missing (unsupported).
Result<AutoResult> auto_params(const Image& hdr, const Params& start, const AutoBudget& budget = {});
// The same search on a backend (Backend's rule, tonekit/tonemap.hpp; on the GPU GpuAutoParams,
// tonekit/auto_params_cuda.hpp, one kept per device for the process and used by one caller at a
// time); AutoResult::backend says where it ran.
Result<AutoResult> auto_params(const Image& hdr, const Params& start, const AutoBudget& budget, Backend backend);

}  // namespace tonekit
