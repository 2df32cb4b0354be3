// Night vision's validated schedule for one frame size, the one validator of both backends
// (apply_night on the CPU, NightEngine on the GPU: identical errors).
#pragma once
#include "core/night.hpp"
#include "tonekit/blur.hpp"
#include "tonekit/night.hpp"

namespace tonekit::blur_impl {

struct NightPlan {
  core::NightConstants constants;
  bool active = false;          // false: the stage leaves every frame untouched
  double fixed_adaptation = 0;  // cd/m^2; 0: the frame's log-average luminance
  double cd_per_unit = 1;       // scene_cd_per_unit in double, as the adapting luminance takes it
  double sigma = 0;             // acuity blur in pixels (0: none)
  BlurPlan blur;                // when constants.blur: sigma / 2, on the half-resolution plane (core/night.hpp)
};

// Checks the image shape (width, height >= 1; 3 or 4 channels) and resolves the constants.
Result<NightPlan> plan_night(const NightParams& params, int width, int height, int channels);

}  // namespace tonekit::blur_impl
