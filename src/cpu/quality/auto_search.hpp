// The automatic parameter search that every backend shares (include/tonekit/auto_params.hpp): the
// input checks, the proxy, the objective J and the coordinate search over the registered ranges.
// A backend supplies only the scoring of one candidate on the proxy: auto_params.cpp maps and
// scores on the CPU, cuda/quality/auto_params_gpu.cpp on the GPU. One text, so both backends
// search the same candidates, in the same order, for the same objective.
#pragma once
#include <chrono>
#include <functional>

#include "tonekit/auto_params.hpp"

namespace tonekit::detail {

using AutoClock = std::chrono::steady_clock;

// The checks on the image and the budget: invalid_argument naming the problem.
Status check_auto_inputs(const Image& hdr, const AutoBudget& budget);

// Area-averaged downscale so that the longer side is at most `long_side`, keeping the shorter
// side at least quality::kMinSide when the image has that many pixels (the image itself when
// it is small enough: then it keeps its channels).
Image auto_proxy(const Image& hdr, int long_side);

// J = (TMQI Q + FSITM mean) / 2 - 0.005 * mean CIEDE2000 (auto_params.hpp says why).
double auto_objective(double tmqi, double fsitm, double delta_e2000);

// One candidate's scores on the proxy: tmqi, fsitm and delta_e2000 (the search fills objective).
using CandidateScorer = std::function<Result<AutoScores>(const Params&)>;

// The coordinate search (auto_params.cpp's header comment) from `start`, each candidate scored
// by `score`; the time budget counts from `begin`, when the caller began (its proxy and its
// reference set-up included). Fills every field of AutoResult but the proxy's size and the
// backend's own ones. A scorer's error ends the search with that error.
Result<AutoResult> coordinate_search(const Params& start, const AutoBudget& budget, AutoClock::time_point begin,
                                     const CandidateScorer& score);

}  // namespace tonekit::detail
