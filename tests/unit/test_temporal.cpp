// Temporal adaptation (tonekit/temporal.hpp): the model against its closed form, the scene-cut
// hysteresis, frame-rate independence, determinism, and the CPU map reading the adapted key.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "tonekit/synth.hpp"
#include "tonekit/temporal.hpp"
#include "tonekit/tonemap.hpp"

namespace tonekit {
namespace {

FrameStats frame_with(double log_average, double peak) {
  FrameStats f;
  f.pixel_count = 100;
  f.log_average = log_average;
  f.max_luminance = peak;
  f.min_luminance = 0.0;
  f.min_positive_luminance = 1e-3;
  return f;
}

TEST(Temporal, RegistryDefaultsMatchTheStruct) {
  const TemporalParams d;
  Result<TemporalParams> p = prepare_temporal();
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->tau_brighten, d.tau_brighten);
  EXPECT_EQ(p->tau_darken, d.tau_darken);
  EXPECT_EQ(p->cut_low_stops, d.cut_low_stops);
  EXPECT_EQ(p->cut_high_stops, d.cut_high_stops);
  ASSERT_EQ(temporal_params().size(), 4u);
}

TEST(Temporal, BadParametersAreRejected) {
  EXPECT_FALSE(prepare_temporal({{"tau_up", "1"}}).ok());
  EXPECT_FALSE(prepare_temporal({{"tau_darken", "-1"}}).ok());
  EXPECT_FALSE(prepare_temporal({{"tau_darken", "abc"}}).ok());
  Result<TemporalParams> r = prepare_temporal({{"cut_low", "6"}, {"cut_high", "4"}});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("cut_low"), std::string::npos);
}

// A still scene after a step of 2 stops (below the cut threshold) follows
// ln L(t) = ln L1 + (ln L0 - ln L1) exp(-t / tau), monotonically, for both directions.
TEST(Temporal, StepFollowsTheClosedFormWithoutOvershoot) {
  const TemporalParams p;
  for (const double factor : {4.0, 0.25}) {  // brighter (tau_brighten), darker (tau_darken)
    const double l0 = 0.5, l1 = l0 * factor, dt = 1.0 / 30.0;
    const double tau = factor > 1 ? p.tau_brighten : p.tau_darken;
    TemporalState s = seeded_state(frame_with(l0, 10 * l0));
    double previous = std::log(l0);
    for (int n = 1; n <= 90; ++n) {
      const FrameStats used = temporal_update(s, frame_with(l1, 10 * l1), p, dt);
      const double expected = std::log(l1) + (std::log(l0) - std::log(l1)) * std::exp(-n * dt / tau);
      ASSERT_NEAR(std::log(used.log_average), expected, 1e-9) << "frame " << n << " factor " << factor;
      ASSERT_NEAR(std::log(used.max_luminance), expected + std::log(10.0), 1e-9);
      // Monotone toward the target, never past it.
      const double now = std::log(used.log_average);
      if (factor > 1) {
        ASSERT_GE(now, previous);
        ASSERT_LE(now, std::log(l1) + 1e-15);
      } else {
        ASSERT_LE(now, previous);
        ASSERT_GE(now, std::log(l1) - 1e-15);
      }
      previous = now;
    }
    EXPECT_EQ(s.cuts, 0u);
  }
}

TEST(Temporal, StaticSceneStaysPutAndIdenticalFramesGiveIdenticalState) {
  const TemporalParams p;
  TemporalState a, b;
  for (int n = 0; n < 50; ++n) {
    const FrameStats fa = temporal_update(a, frame_with(0.3, 7.0), p, 0.04);
    const FrameStats fb = temporal_update(b, frame_with(0.3, 7.0), p, 0.04);
    ASSERT_EQ(fa.log_average, fb.log_average);
    ASSERT_NEAR(fa.log_average, 0.3, 1e-15);
    ASSERT_NEAR(fa.max_luminance, 7.0, 1e-14);
  }
  EXPECT_EQ(a.frames, 50u);
  EXPECT_EQ(std::memcmp(&a, &b, sizeof a), 0);
}

// The same time span at 24, 30 and 120 fps ends in the same state.
TEST(Temporal, FrameRateDoesNotChangeTheState) {
  const TemporalParams p;
  std::vector<double> keys;
  for (const int fps : {24, 30, 120}) {
    TemporalState s = seeded_state(frame_with(1.0, 20.0));
    for (int n = 0; n < fps / 2; ++n) temporal_update(s, frame_with(3.0, 50.0), p, 1.0 / fps);  // 0.5 s
    keys.push_back(s.log_key);
  }
  EXPECT_NEAR(keys[0], keys[1], 1e-12);
  EXPECT_NEAR(keys[0], keys[2], 1e-12);
  EXPECT_LT(keys[0], std::log(3.0));
  EXPECT_GT(keys[0], std::log(1.0));
}

TEST(Temporal, SceneCutResetsAndHysteresisBlends) {
  const TemporalParams p;  // cut_low 3, cut_high 5 stops
  TemporalState s = seeded_state(frame_with(0.01, 1.0));
  const FrameStats cut = temporal_update(s, frame_with(0.01 * 64, 30.0), p, 1.0 / 30);  // 6 stops
  EXPECT_DOUBLE_EQ(cut.log_average, 0.01 * 64);
  EXPECT_DOUBLE_EQ(cut.max_luminance, 30.0);
  EXPECT_EQ(s.cuts, 1u);
  EXPECT_EQ(s.last_cut, 1u);

  // 4 stops: halfway between the thresholds -> rate a + (1 - a) / 2.
  TemporalState h = seeded_state(frame_with(1.0, 1.0));
  const double a = 1.0 - std::exp(-(1.0 / 30) / p.tau_brighten);
  const FrameStats blended = temporal_update(h, frame_with(16.0, 16.0), p, 1.0 / 30);
  EXPECT_NEAR(std::log(blended.log_average), std::log(16.0) * (a + (1 - a) * 0.5), 1e-12);
  EXPECT_EQ(h.cuts, 0u);

  // Below cut_low: plain adaptation.
  TemporalState n = seeded_state(frame_with(1.0, 1.0));
  const FrameStats plain = temporal_update(n, frame_with(4.0, 4.0), p, 1.0 / 30);
  EXPECT_NEAR(std::log(plain.log_average), std::log(4.0) * a, 1e-12);
}

TEST(Temporal, ResetAndSeed) {
  const TemporalParams p;
  TemporalState s;
  const FrameStats first = temporal_update(s, frame_with(0.2, 5.0), p, 1.0);
  EXPECT_DOUBLE_EQ(first.log_average, 0.2);  // the first frame seeds: no delay
  temporal_update(s, frame_with(0.4, 5.0), p, 0.01);
  s = {};
  const FrameStats again = temporal_update(s, frame_with(0.4, 5.0), p, 0.01);
  EXPECT_DOUBLE_EQ(again.log_average, 0.4);
  const TemporalState seeded = seeded_state(frame_with(0.7, 9.0));
  EXPECT_NEAR(std::exp(seeded.log_key), 0.7, 1e-15);
  EXPECT_NEAR(std::exp(seeded.log_peak), 9.0, 1e-14);
}

TEST(Temporal, BlackFrameStaysBlackAndFinite) {
  const TemporalParams p;
  TemporalState s = seeded_state(frame_with(0.5, 4.0));
  FrameStats black = frame_with(1e-6, 0.0);
  const FrameStats used = temporal_update(s, black, p, 1.0 / 30);
  EXPECT_EQ(used.max_luminance, 0.0);
  EXPECT_TRUE(std::isfinite(used.log_average));
  EXPECT_TRUE(std::isfinite(s.log_peak));
}

// The CPU map reads the adapted statistics through the hook: a state seeded on the frame gives
// the plain output; a state adapted to a darker past gives a brighter image, for a global and a
// local operator.
TEST(Temporal, CpuMapUsesTheAdaptedKey) {
  Result<Image> img = synth::render_scene("night-drive", 64, 48, 1);
  ASSERT_TRUE(img.ok());
  const FrameStats frame = cpu::compute_stats(img->view());
  for (const char* op : {"reinhard", "reinhard-sat"}) {
    Result<Params> params = prepare_params(op, {{"dither", "0"}});
    ASSERT_TRUE(params.ok());
    OutputImage plain, same, adapted;
    for (OutputImage* o : {&plain, &same, &adapted}) o->allocate(64, 48, 3, PixelType::u8);
    ASSERT_TRUE(cpu::tone_map(img->view(), *params, plain.view()).ok());

    TemporalState seeded = seeded_state(frame);
    cpu::CurveStatsHook keep = [&](const FrameStats& f) { return temporal_update(seeded, f, TemporalParams{}, 0.0); };
    ASSERT_TRUE(cpu::tone_map(img->view(), *params, same.view(), nullptr, nullptr, &keep).ok());
    EXPECT_EQ(plain.bytes, same.bytes) << op;

    FrameStats darker = frame;
    darker.log_average /= 4;  // 2 stops darker past: below the cut threshold
    TemporalState dark = seeded_state(darker);
    cpu::CurveStatsHook adapt = [&](const FrameStats& f) { return temporal_update(dark, f, TemporalParams{}, 1.0 / 30); };
    FrameStats reported;
    ASSERT_TRUE(cpu::tone_map(img->view(), *params, adapted.view(), &reported, nullptr, &adapt).ok());
    EXPECT_EQ(reported.log_average, frame.log_average);  // the frame's own statistics are reported
    double sum_plain = 0, sum_adapted = 0;
    for (std::size_t i = 0; i < plain.bytes.size(); ++i) {
      sum_plain += plain.bytes[i];
      sum_adapted += adapted.bytes[i];
    }
    EXPECT_GT(sum_adapted, sum_plain * 1.05) << op;
  }
}

// The host API's temporal entry on the CPU: the same bytes and state as cpu::tone_map with the
// model's hook, frame after frame; a bad time step or a bad frame is an error that leaves the
// caller's state as it was.
TEST(Temporal, HostApiCarriesTheStateAcrossFrames) {
  Result<Image> base = synth::render_scene("night-drive", 48, 32, 1);
  ASSERT_TRUE(base.ok());
  Result<Params> params = prepare_params("reinhard", {{"dither", "0"}});
  ASSERT_TRUE(params.ok());
  TemporalState api_state, ref_state;
  const double dt = 1.0 / 24;
  for (float gain : {1.0f, 2.0f, 4.0f, 4.0f, 300.0f, 1.0f}) {
    Image frame = *base;
    for (float& v : frame.pixels) v *= gain;
    OutputImage got, ref;
    ASSERT_TRUE(tone_map_temporal(frame.view(), *params, {PixelType::u8, 3}, Backend::cpu, api_state, TemporalParams{}, dt, got)
                    .ok());
    ref.allocate(48, 32, 3, PixelType::u8);
    cpu::CurveStatsHook hook = [&](const FrameStats& f) { return temporal_update(ref_state, f, TemporalParams{}, dt); };
    ASSERT_TRUE(cpu::tone_map(frame.view(), *params, ref.view(), nullptr, nullptr, &hook).ok());
    EXPECT_EQ(got.bytes, ref.bytes) << "gain " << gain;
    EXPECT_EQ(api_state.log_key, ref_state.log_key) << "gain " << gain;
    EXPECT_EQ(api_state.frames, ref_state.frames);
  }
  EXPECT_EQ(api_state.frames, 1u);  // the 300x jump was a cut, and so was the return: 1 frame since
  EXPECT_EQ(api_state.cuts, 2u);

  const TemporalState before = api_state;
  OutputImage out;
  EXPECT_EQ(tone_map_temporal(base->view(), *params, {PixelType::u8, 3}, Backend::cpu, api_state, TemporalParams{}, -1.0, out)
                .code(),
            StatusCode::invalid_argument);
  EXPECT_EQ(tone_map_temporal(base->view(), *params, {PixelType::u8, 2}, Backend::cpu, api_state, TemporalParams{}, dt, out)
                .code(),
            StatusCode::invalid_argument);
  EXPECT_EQ(std::memcmp(&before, &api_state, sizeof before), 0);
}

}  // namespace
}  // namespace tonekit
