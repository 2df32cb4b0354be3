// Automatic parameters (src/cpu/quality/auto_params.cpp): the search never scores worse than where
// it started, moves only registered own parameters inside their ranges, and keeps its time budget
// (4K included: it works on a proxy).
#include <gtest/gtest.h>

#include <algorithm>

#include "tonekit/auto_params.hpp"
#include "tonekit/synth.hpp"
#include "unit/quality_fixtures.hpp"

using namespace tonekit;

namespace {

const Image& scene() {
  static const Image image = *synth::render_scene("night-drive", 480, 270, 2);
  return image;
}

}  // namespace

TEST(QualityAuto, ImprovesABadStartWithinRanges) {
  TONEKIT_SKIP_WITHOUT_FFTW();
  auto start = prepare_params("reinhard", {{"key", "0.005"}, {"saturation", "0.9"}});
  ASSERT_TRUE(start.ok());
  auto r = auto_params(scene(), *start, AutoBudget{3.0, 320, 200});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_GT(r->evaluations, 1);
  EXPECT_GT(r->chosen.objective, r->start.objective);  // key 0.005 is far too dark
  EXPECT_GT(r->params.get("key"), 0.005);
  EXPECT_EQ(r->searched, std::vector<std::string>{"key"});
  // Parameters not searched keep their starting values (the --set saturation too).
  for (const auto& [name, value] : start->values())
    if (std::find(r->searched.begin(), r->searched.end(), name) == r->searched.end())
      EXPECT_EQ(r->params.get(name), value) << name;
  EXPECT_NEAR(r->chosen.objective, 0.5 * (r->chosen.tmqi + r->chosen.fsitm) - 0.005 * r->chosen.delta_e2000, 1e-12);
}

TEST(QualityAuto, EveryOperatorStaysInsideItsRegisteredRanges) {
  TONEKIT_SKIP_WITHOUT_FFTW();
  for (const OperatorDesc* op : all_operators()) {
    auto start = prepare_params(op->id);
    ASSERT_TRUE(start.ok());
    auto r = auto_params(scene(), *start, AutoBudget{0.6, 200, 12});
    ASSERT_TRUE(r.ok()) << op->id << ": " << r.status().message();
    EXPECT_GE(r->chosen.objective, r->start.objective) << op->id;
    EXPECT_LE(r->evaluations, 12) << op->id;
    for (const ParamDesc* p : all_params(*op)) {
      const double v = r->params.get(p->name);
      EXPECT_GE(v, p->min_value) << op->id << " " << p->name;
      EXPECT_LE(v, p->max_value) << op->id << " " << p->name;
      if (p->integer) EXPECT_EQ(v, start->get(p->name)) << op->id << " " << p->name;  // never searched
      if (!p->auto_search) EXPECT_EQ(v, start->get(p->name)) << op->id << " " << p->name;  // peak_percentile
    }
  }
}

TEST(QualityAuto, FourKWithinTheTimeBudget) {
  TONEKIT_SKIP_WITHOUT_FFTW();
  auto image = synth::render_scene("sunset", 3840, 2160);
  ASSERT_TRUE(image.ok());
  auto start = prepare_params("reinhard-local");
  ASSERT_TRUE(start.ok());
  auto r = auto_params(*image, *start);  // default budget: 2 s
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_LE(r->proxy_width, 384);
  EXPECT_GE(r->proxy_height, 161);
  EXPECT_GT(r->evaluations, 3);
  // The search stops before an evaluation that would pass 2 s; one evaluation on a loaded
  // machine may still overrun its estimate, hence the slack.
  EXPECT_LT(r->seconds, 2.6);
}

TEST(QualityAuto, RejectsSmallImagesAndEmptyBudgets) {
  auto start = prepare_params("drago");
  ASSERT_TRUE(start.ok());
  auto small = synth::render_scene("sunset", 200, 150);
  ASSERT_TRUE(small.ok());
  auto r = auto_params(*small, *start);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::invalid_argument);
  EXPECT_FALSE(auto_params(scene(), *start, AutoBudget{0.0, 384, 10}).ok());
}
