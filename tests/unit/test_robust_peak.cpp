// The robust peak (core/robust_peak.hpp, issue 14 item 3): an operator's peak_percentile below
// 100 makes L_max that percentile of the non-black pixels' luminance. Checked against a sorted
// reference, for the glints it exists to ignore, for every operator that reads L_max, and in the
// temporal model.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "core/colour.hpp"
#include "core/robust_peak.hpp"
#include "cpu/stats.hpp"
#include "tonekit/operators.hpp"
#include "tonekit/temporal.hpp"
#include "tonekit/tonemap.hpp"

using namespace tonekit;

namespace {

// The registry's operators that take peak_percentile (its curve reads L_max), or those that don't.
std::vector<const char*> ops_with_peak(bool with) {
  std::vector<const char*> ids;
  for (const OperatorDesc* op : all_operators()) {
    bool has = false;
    for (const ParamDesc* p : all_params(*op)) has = has || std::string(p->name) == "peak_percentile";
    if (has == with) ids.push_back(op->id);
  }
  return ids;
}

// Log-uniform grey-ish pixels over [lo, hi], with zeros, NaNs and negatives mixed in.
Image scene(int w, int h, unsigned seed, double lo = 1e-3, double hi = 1e3, bool bad = true) {
  Image img(w, h, 3);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> e(std::log(lo), std::log(hi)), tint(0.7, 1.3), u(0, 1);
  for (int i = 0; i < w * h; ++i) {
    const double l = std::exp(e(rng));
    for (int c = 0; c < 3; ++c) img.pixels[i * 3 + c] = static_cast<float>(l * tint(rng));
    if (bad && u(rng) < 0.03) img.pixels[i * 3 + rng() % 3] = (rng() % 2) ? NAN : -2.0f;
    if (bad && u(rng) < 0.03) img.pixels[i * 3] = img.pixels[i * 3 + 1] = img.pixels[i * 3 + 2] = 0.0f;
  }
  return img;
}

// The sanitised luminance of every non-black pixel, as the statistics pass sees it, sorted.
std::vector<double> sorted_positive_luminance(const Image& img) {
  std::vector<double> l;
  for (int i = 0; i < img.width * img.height; ++i) {
    unsigned f = 0;
    const float r = core::sanitise_channel(img.pixels[i * 3], f);
    const float g = core::sanitise_channel(img.pixels[i * 3 + 1], f);
    const float b = core::sanitise_channel(img.pixels[i * 3 + 2], f);
    const float v = core::luminance<float>(r, g, b);
    if (v > 0.0f) l.push_back(v);
  }
  std::sort(l.begin(), l.end());
  return l;
}

FrameStats map_stats(const Image& img, const char* op, const std::string& percentile, OutputImage* out = nullptr) {
  std::vector<std::pair<std::string, std::string>> set;
  if (!percentile.empty()) set.emplace_back("peak_percentile", percentile);
  Result<Params> p = prepare_params(op, set);
  EXPECT_TRUE(p.ok()) << p.status().message();
  OutputImage local;
  OutputImage& o = out ? *out : local;
  o.allocate(img.width, img.height, 4, PixelType::u8);
  FrameStats s;
  EXPECT_TRUE(cpu::tone_map(img.view(), *p, o.view(), &s).ok());
  return s;
}

double mean_abs_difference(const OutputImage& a, const OutputImage& b) {
  double sum = 0;
  for (std::size_t i = 0; i < a.bytes.size(); ++i) sum += std::abs(int(a.bytes[i]) - int(b.bytes[i]));
  return sum / static_cast<double>(a.bytes.size());
}

}  // namespace

// The peak against the sorted luminances: within one histogram bin (in ln L) of the value with
// `exceed` pixels above it, for percentiles from 50 to 99.99 and sizes from one pixel up.
TEST(RobustPeak, MatchesTheSortedPercentileWithinOneBin) {
  struct Size { int w, h; };
  for (const Size sz : {Size{1, 1}, Size{2, 1}, Size{17, 13}, Size{640, 480}}) {
    const Image img = scene(sz.w, sz.h, 11u + sz.w);
    const std::vector<double> l = sorted_positive_luminance(img);
    ASSERT_FALSE(l.empty());
    const double bin = (std::log(l.back()) - std::log(l.front())) / core::kPeakBins;
    for (const double p : {99.99, 99.9, 99.0, 90.0, 50.0}) {
      const FrameStats s = map_stats(img, "drago", std::to_string(p));
      const std::string what = std::to_string(sz.w) + "x" + std::to_string(sz.h) + " at " + std::to_string(p);
      EXPECT_EQ(s.max_luminance, l.back()) << what;
      ASSERT_GT(s.peak_luminance, 0.0) << what;
      EXPECT_GE(s.peak_luminance, l.front()) << what;
      EXPECT_LE(s.peak_luminance, l.back()) << what;
      const double exceed = (1.0 - p / 100.0) * static_cast<double>(l.size());
      const std::size_t k = static_cast<std::size_t>(std::floor(exceed));  // pixels strictly above the reference
      const std::size_t at = l.size() - 1 - std::min(k, l.size() - 1);
      // The reference's neighbours bound what an exact percentile could be.
      const double below = std::log(l[at > 0 ? at - 1 : 0]), above = std::log(l[std::min(at + 1, l.size() - 1)]);
      const double ln = std::log(s.peak_luminance);
      EXPECT_GE(ln, below - bin - 1e-12) << what;
      EXPECT_LE(ln, above + bin + 1e-12) << what;
    }
  }
}

// 100 (the default) is the brightest pixel and leaves every output as it was.
TEST(RobustPeak, HundredIsTheBrightestPixel) {
  const Image img = scene(97, 61, 5);
  for (const char* op : ops_with_peak(true)) {
    OutputImage a, b;
    const FrameStats sa = map_stats(img, op, "", &a);
    const FrameStats sb = map_stats(img, op, "100", &b);
    EXPECT_EQ(sa.peak_luminance, sa.max_luminance) << op;
    EXPECT_EQ(sb.peak_luminance, sb.max_luminance) << op;
    EXPECT_EQ(a.bytes, b.bytes) << op;
    Result<Params> p = prepare_params(op);
    ASSERT_TRUE(p.ok());
    EXPECT_EQ(p->get("peak_percentile"), 100.0) << op;
  }
}

// What it is for: a handful of glints (0.005 % of the pixels, 10^5 times the scene's brightest)
// dim the whole frame when they set L_max; with the robust peak the frame changes by a tenth as
// much at most (less than one 8-bit code on average).
TEST(RobustPeak, GlintsNoLongerDimTheFrame) {
  const int w = 320, h = 240;
  const Image clean = scene(w, h, 21, 0.01, 10.0, false);
  Image glints = clean;
  for (int i : {1000, 20000, 40000, 60000}) glints.pixels[i * 3] = glints.pixels[i * 3 + 1] = glints.pixels[i * 3 + 2] = 1e6f;
  for (const char* op : ops_with_peak(true)) {
    OutputImage c100, g100, c_robust, g_robust;
    map_stats(clean, op, "100", &c100);
    const FrameStats gs = map_stats(glints, op, "100", &g100);
    map_stats(clean, op, "99.99", &c_robust);
    const FrameStats rs = map_stats(glints, op, "99.99", &g_robust);
    EXPECT_EQ(gs.peak_luminance, gs.max_luminance) << op;
    EXPECT_LE(rs.peak_luminance, 10.0 * 1.3) << op << ": the robust peak ignores the glints";
    EXPECT_GT(rs.peak_luminance, 1.0) << op;
    const double with_max = mean_abs_difference(c100, g100), robust = mean_abs_difference(c_robust, g_robust);
    std::printf("[ peak ] %-12s mean |glints - clean|: L_max %.2f codes, robust %.3f codes\n", op, with_max, robust);
    // Reinhard's L_max only sets the white point (1 code on average here); the display curves
    // (those with a source_peak: bt2390, mobius, ...) keep absolute luminance below their knee, so
    // the peak moves only the highlights (0.4 to 65 codes here); the others scale by it.
    bool display = false;
    for (const ParamDesc* p : all_params(*find_operator(op))) display |= std::string(p->name) == "source_peak";
    EXPECT_GT(with_max, std::string(op) == "reinhard" || display ? 0.2 : 20.0) << op << ": glints as L_max should change the frame";
    EXPECT_LT(robust, 0.1 * with_max) << op;
    EXPECT_LT(robust, 1.0) << op;
  }
}

// The public cpu::robust_peak (what `tonekit info` prints) is the peak an operator maps with.
TEST(RobustPeak, PublicFunctionIsTheOperatorsPeak) {
  const Image img = scene(211, 97, 3);
  const FrameStats stats = cpu::compute_stats(img.view());
  for (const double p : {cpu::kRobustPeakPercentile, 99.0, 100.0}) {
    const FrameStats mapped = map_stats(img, "drago", std::to_string(p));
    EXPECT_EQ(cpu::robust_peak(img.view(), stats, p), mapped.peak_luminance) << p;
  }
  EXPECT_EQ(cpu::robust_peak(img.view(), stats, 100.0), stats.max_luminance);
}

// The fast binning (float log2, the double log only near bin edges) gives the histogram of the
// double log per pixel, count for count: wide and narrow ranges, tiny luminances, a lone glint.
TEST(RobustPeak, FastBinningIsTheDoubleLogsHistogram) {
  struct Case { double lo, hi; unsigned seed; };
  for (const Case c : {Case{1e-3, 1e3, 1}, Case{0.5, 0.52, 2}, Case{1e-38, 1e-30, 3}, Case{1e-6, 1e9, 4}}) {
    Image img = scene(301, 203, c.seed, c.lo, c.hi, true);
    img.pixels[0] = img.pixels[1] = img.pixels[2] = static_cast<float>(c.hi * 1e3);
    const FrameStats stats = cpu::compute_stats(img.view());
    const core::PeakRange r = core::peak_range(stats.min_positive_luminance, stats.max_luminance);
    EXPECT_EQ(cpu::peak_histogram(img.view(), r),
              cpu::log_luminance_histogram(img.view(), r.log_min, r.inv_log_range, core::kPeakBins))
        << c.lo << ".." << c.hi;
  }
}

// Operators whose curve has no L_max take no peak_percentile; its range is enforced.
TEST(RobustPeak, OnlyOperatorsWithAPeakTakeIt) {
  for (const char* op : ops_with_peak(false)) {
    Result<Params> p = prepare_params(op, {{"peak_percentile", "99"}});
    ASSERT_FALSE(p.ok()) << op;
    EXPECT_NE(p.status().message().find("peak_percentile"), std::string::npos) << p.status().message();
  }
  EXPECT_FALSE(prepare_params("drago", {{"peak_percentile", "49"}}).ok());
  EXPECT_FALSE(prepare_params("drago", {{"peak_percentile", "100.5"}}).ok());
  EXPECT_TRUE(prepare_params("drago", {{"peak_percentile", "50"}}).ok());
}

// A black frame and a one-luminance frame keep their peak at max; nothing is NaN.
TEST(RobustPeak, DegenerateFrames) {
  Image black(8, 8, 3);
  const FrameStats b = map_stats(black, "drago", "99");
  EXPECT_EQ(b.max_luminance, 0.0);
  EXPECT_EQ(b.peak_luminance, 0.0);
  Image flat(8, 8, 3);
  std::fill(flat.pixels.begin(), flat.pixels.end(), 2.0f);
  OutputImage out;
  const FrameStats f = map_stats(flat, "drago", "90", &out);
  EXPECT_EQ(f.peak_luminance, f.max_luminance);
  const std::vector<std::uint64_t> none(core::kPeakBins, 0);
  EXPECT_EQ(core::robust_peak_from_histogram(none.data(), core::kPeakBins, 99.0, 1.0, 4.0), 4.0);
}

// The temporal model adapts the peak the curves read: the robust one when it was derived.
TEST(RobustPeak, TemporalAdaptsTheRobustPeak) {
  FrameStats f;
  f.pixel_count = 100;
  f.log_average = 0.5;
  f.min_positive_luminance = 1e-3;
  f.max_luminance = 1e5;  // a glint
  f.peak_luminance = 8.0;
  TemporalState s = seeded_state(f);
  EXPECT_NEAR(std::exp(s.log_peak), 8.0, 1e-9);
  FrameStats g = f;
  g.peak_luminance = 16.0;
  const FrameStats used = temporal_update(s, g, TemporalParams{}, 1.0 / 30);
  EXPECT_GT(used.peak_luminance, 8.0);
  EXPECT_LT(used.peak_luminance, 16.0);
  EXPECT_EQ(used.peak_luminance, used.max_luminance);
}
