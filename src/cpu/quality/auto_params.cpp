// Automatic parameters (see include/tonekit/auto_params.hpp): coordinate search with a halving
// step in a normalised coordinate t in [0, 1] per parameter (logarithmic for ranges spanning two
// decades or more with a positive minimum, linear otherwise), from the starting values, on a
// downscaled proxy, until the step is below 1/64 of the range, the evaluation budget is spent, or
// the next evaluation would pass the time budget. The search is every backend's
// (quality/auto_search.hpp); the CPU's scoring of a candidate is at the end of this file.
#include "tonekit/auto_params.hpp"

#include <algorithm>
#include <cmath>

#include "cpu/quality/auto_search.hpp"
#include "cpu/quality/fsitm_reference.hpp"
#include "tonekit/quality.hpp"
#include "tonekit/tonemap.hpp"

namespace tonekit {
namespace {

using detail::AutoClock;

double seconds_since(AutoClock::time_point t) { return std::chrono::duration<double>(AutoClock::now() - t).count(); }

// A searched parameter and its map between the value and t in [0, 1].
struct Axis {
  const ParamDesc* desc;
  bool logarithmic;
  double to_t(double v) const {
    if (logarithmic) return std::log(v / desc->min_value) / std::log(desc->max_value / desc->min_value);
    return (v - desc->min_value) / (desc->max_value - desc->min_value);
  }
  double from_t(double t) const {
    t = std::clamp(t, 0.0, 1.0);
    const double v = logarithmic ? desc->min_value * std::pow(desc->max_value / desc->min_value, t)
                                 : desc->min_value + t * (desc->max_value - desc->min_value);
    return std::clamp(v, desc->min_value, desc->max_value);
  }
};

// Continuous own parameters with a range a coordinate search can cover: integer ones are flags,
// algorithm choices or sizes (not looks), and a range from 0 to more than 100 (reinhard's
// `white`, where 0 means automatic) has no meaningful normalised coordinate; parameters marked
// !auto_search (peak_percentile: which statistic is L_max, not a look) stay where the user set them.
std::vector<Axis> searchable_axes(const OperatorDesc& op) {
  std::vector<Axis> axes;
  for (const ParamDesc& p : op.params) {
    if (p.integer || !p.auto_search || !(p.max_value > p.min_value)) continue;
    if (p.min_value > 0.0) axes.push_back({&p, p.max_value / p.min_value >= 100.0});
    else if (p.max_value <= 100.0) axes.push_back({&p, false});
  }
  return axes;
}

}  // namespace

namespace detail {

Status check_auto_inputs(const Image& hdr, const AutoBudget& budget) {
  if (hdr.width < quality::kMinSide || hdr.height < quality::kMinSide)
    return invalid_argument("automatic parameters need an image of at least " + std::to_string(quality::kMinSide) +
                            " pixels on each side (TMQI); this one is " + std::to_string(hdr.width) + "x" +
                            std::to_string(hdr.height));
  if (hdr.channels < 3) return invalid_argument("automatic parameters need an RGB image");
  if (!(budget.seconds > 0.0) || budget.max_evaluations < 1 || budget.proxy_long_side < quality::kMinSide)
    return invalid_argument("automatic parameters: the budget needs seconds > 0, evaluations >= 1 and a proxy of at least " +
                            std::to_string(quality::kMinSide) + " px");
  return {};
}

Image auto_proxy(const Image& hdr, int long_side) {
  const int longer = std::max(hdr.width, hdr.height), shorter = std::min(hdr.width, hdr.height);
  double factor = std::max(1.0, static_cast<double>(longer) / long_side);
  factor = std::min(factor, std::max(1.0, static_cast<double>(shorter) / quality::kMinSide));
  if (factor <= 1.0) return hdr;
  const int w = std::max(1, static_cast<int>(hdr.width / factor)), h = std::max(1, static_cast<int>(hdr.height / factor));
  Image out(w, h, 3);
  for (int y = 0; y < h; ++y) {
    const int y0 = static_cast<int>(static_cast<long long>(y) * hdr.height / h);
    const int y1 = std::max(y0 + 1, static_cast<int>(static_cast<long long>(y + 1) * hdr.height / h));
    for (int x = 0; x < w; ++x) {
      const int x0 = static_cast<int>(static_cast<long long>(x) * hdr.width / w);
      const int x1 = std::max(x0 + 1, static_cast<int>(static_cast<long long>(x + 1) * hdr.width / w));
      double sum[3] = {0, 0, 0};
      for (int sy = y0; sy < y1; ++sy)
        for (int sx = x0; sx < x1; ++sx)
          for (int c = 0; c < 3; ++c) sum[c] += hdr.row(sy)[sx * hdr.channels + c];
      const double count = static_cast<double>(y1 - y0) * (x1 - x0);
      for (int c = 0; c < 3; ++c) out.row(y)[x * 3 + c] = static_cast<float>(sum[c] / count);
    }
  }
  return out;
}

double auto_objective(double tmqi, double fsitm, double delta_e2000) {
  return 0.5 * (tmqi + fsitm) - 0.005 * delta_e2000;
}

Result<AutoResult> coordinate_search(const Params& start, const AutoBudget& budget, AutoClock::time_point begin,
                                     const CandidateScorer& score) {
  int evaluations = 0;
  auto evaluate = [&](const Params& params) -> Result<AutoScores> {
    auto s = score(params);
    if (!s.ok()) return s.status();
    s->objective = auto_objective(s->tmqi, s->fsitm, s->delta_e2000);
    ++evaluations;
    return s;
  };

  AutoResult result;
  result.params = start;
  auto first = evaluate(start);
  if (!first.ok()) return first.status();
  result.start = result.chosen = *first;

  const std::vector<Axis> axes = searchable_axes(start.op());
  for (const Axis& a : axes) result.searched.push_back(a.desc->name);
  double last_cost = seconds_since(begin);  // an upper bound on one evaluation's time, at first
  auto time_left = [&] {
    return evaluations < budget.max_evaluations && seconds_since(begin) + last_cost <= budget.seconds;
  };
  for (double step = 0.25; step >= 1.0 / 64.0 && !axes.empty() && time_left();) {
    bool improved = false;
    for (const Axis& axis : axes) {
      const double t0 = axis.to_t(result.params.get(axis.desc->name));
      for (double t : {t0 - step, t0 + step}) {
        if (t < -1e-12 || t > 1.0 + 1e-12 || !time_left()) continue;
        Params candidate = result.params;
        if (!candidate.set(axis.desc->name, axis.from_t(t)).ok()) continue;
        const AutoClock::time_point eval_begin = AutoClock::now();
        auto s = evaluate(candidate);
        last_cost = seconds_since(eval_begin);
        if (!s.ok()) return s.status();
        if (s->objective > result.chosen.objective + 1e-9) {
          result.chosen = *s;
          result.params = candidate;
          improved = true;
          break;  // move, then try this step again on the next axis
        }
      }
    }
    if (!improved) step /= 2.0;
  }
  result.evaluations = evaluations;
  result.seconds = seconds_since(begin);
  return result;
}

}  // namespace detail

namespace {

// The CPU's candidate: mapped by the CPU reference to 8-bit sRGB, scored by quality::tmqi, the
// proxy's FSITM reference (its HDR phase maps computed once) and quality::colour_fidelity.
class CpuScorer {
 public:
  CpuScorer(const Image& proxy, quality::detail::FsitmReference fsitm) : proxy_(proxy), fsitm_(std::move(fsitm)) {}

  Result<AutoScores> operator()(const Params& params) {
    OutputImage ldr;
    if (Status s = tone_map(proxy_, params, OutputFormat{PixelType::u8, 3}, Backend::cpu, ldr); !s.ok()) return s;
    auto t = quality::tmqi(proxy_, ldr);
    if (!t.ok()) return t.status();
    auto c = quality::colour_fidelity(proxy_, ldr);
    if (!c.ok()) return c.status();
    AutoScores s;
    s.tmqi = t->q;
    s.fsitm = fsitm_.score(ldr).mean;
    s.delta_e2000 = c->delta_e2000_mean;
    return s;
  }

 private:
  const Image& proxy_;
  quality::detail::FsitmReference fsitm_;
};

}  // namespace

Result<AutoResult> auto_params(const Image& hdr, const Params& start, const AutoBudget& budget) {
  const AutoClock::time_point begin = AutoClock::now();
  if (Status s = detail::check_auto_inputs(hdr, budget); !s.ok()) return s;
  const Image proxy = detail::auto_proxy(hdr, budget.proxy_long_side);
  auto reference = quality::detail::FsitmReference::create(proxy);
  if (!reference.ok()) return reference.status();
  CpuScorer scorer(proxy, std::move(*reference));
  auto result = detail::coordinate_search(start, budget, begin, std::ref(scorer));
  if (!result.ok()) return result.status();
  result->proxy_width = proxy.width;
  result->proxy_height = proxy.height;
  return result;
}

}  // namespace tonekit
