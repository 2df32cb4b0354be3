// Night (scotopic / mesopic) vision on the CPU: the reference the device stage
// (src/cuda/blur/night_gpu.cu) is tested against. The model and its sources are in
// include/tonekit/night.hpp; the per-pixel maths in core/night.hpp. The adapting luminance's
// log-sum is float64 per row, rows merged in order (as glare's key), so it does not depend on
// the thread count. The per-pixel passes (log_average, apply_night) are compiled once per
// instruction-set level (cpu/isa_level.hpp: night_v3.cpp, _v4.cpp; the level options: no
// contraction, as the device's -fmad=false, so every level gives the same bytes).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "cpu/blur/night_plan.hpp"
#include "cpu/isa_level.hpp"
#include "cpu/parallel.hpp"

namespace tonekit {

#if TK_ISA_PRIMARY
TK_ISA_DECLARE(double log_average(const Image& image);
               Status apply_night(Image& image, const NightParams& params, std::uint32_t frame, NightReport* report);)

const std::vector<ParamDesc>& night_params() {
  static const std::vector<ParamDesc> params{
      {"strength", 1.0, 0.0, 1.0, "the rod fraction at full scotopic adaptation: 1 the model's, 0 the identity"},
      {"scene_cd_per_unit", 1.0, 1e-4, 1e5,
       "cd/m^2 of a scene value of 1.0: 1 for the synthetic scenes and absolute HDR (as PU21 reads them), 203 "
       "for BT.2408 scene-linear video (tonekit stream's --reference-white)", false, false},
      {"adaptation", 0.0, 0.0, 1e5,
       "the adapting luminance in cd/m^2; 0: the frame's log-average luminance times scene_cd_per_unit", false, false},
      {"photopic", 10.0, 0.01, 1e4,
       "cd/m^2: at or above this adapting luminance the eye is photopic and the stage is the identity", false, false},
      {"scotopic", 0.001, 1e-6, 1.0,
       "cd/m^2: at or below this adapting luminance only rods see (rod fraction = strength)", false, false},
      {"blue_shift", 1.0, 0.0, 1.0,
       "the rods' colour: 0 grey, 1 Thompson et al.'s blue, chromaticity (0.25, 0.25)"},
      {"acuity", 0.0015, 0.0, 0.05,
       "acuity loss: blur sigma at full rod vision as a fraction of the longer image side (0: no blur); blended "
       "per pixel by its own mesopic luminance"},
      {"noise", 0.0, 0.0, 0.5, "temporal noise: relative amplitude at full rod vision (0: off)"},
  };
  return params;
}

namespace {

int night_index(std::string_view name) {
  const auto& descs = night_params();
  for (std::size_t i = 0; i < descs.size(); ++i)
    if (name == descs[i].name) return static_cast<int>(i);
  return -1;
}

std::string format_number(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

}  // namespace

NightParams::NightParams() {
  for (const ParamDesc& d : night_params()) values_.push_back(d.default_value);
}

double NightParams::get(std::string_view name) const {
  const int i = night_index(name);
  if (i < 0) {
    std::fprintf(stderr, "tonekit: internal error: night has no parameter '%.*s'\n", static_cast<int>(name.size()),
                 name.data());
    std::abort();
  }
  return values_[static_cast<std::size_t>(i)];
}

Status NightParams::set(std::string_view name, double value) {
  const int i = night_index(name);
  if (i < 0) {
    std::string known;
    for (const ParamDesc& d : night_params()) known += (known.empty() ? "" : ", ") + std::string(d.name);
    return invalid_argument("night: no parameter '" + std::string(name) + "' (it takes: " + known + ")");
  }
  const ParamDesc& d = night_params()[static_cast<std::size_t>(i)];
  if (!std::isfinite(value) || value < d.min_value || value > d.max_value)
    return invalid_argument("night: parameter '" + std::string(name) + "' = " + format_number(value) +
                            " is out of range [" + format_number(d.min_value) + ", " + format_number(d.max_value) + "]");
  values_[static_cast<std::size_t>(i)] = value;
  return {};
}

Status NightParams::set(std::string_view name, std::string_view text) {
  const std::string s(text);
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (s.empty() || end != s.c_str() + s.size())
    return invalid_argument("night: parameter '" + std::string(name) + "': '" + s + "' is not a number");
  return set(name, v);
}

std::vector<std::pair<std::string, double>> NightParams::values() const {
  std::vector<std::pair<std::string, double>> out;
  for (std::size_t i = 0; i < values_.size(); ++i) out.emplace_back(night_params()[i].name, values_[i]);
  return out;
}

Result<NightParams> prepare_night(const std::vector<std::pair<std::string, std::string>>& settings,
                                  std::string_view blur_method) {
  NightParams p;
  p.on = true;
  p.blur_method = std::string(blur_method);
  for (const auto& [name, value] : settings)
    if (Status s = p.set(name, value); !s.ok()) return s;
  if (auto plan = blur_impl::plan_night(p, 1, 1, 4); !plan.ok()) return plan.status();
  return p;
}

namespace blur_impl {

Result<NightPlan> plan_night(const NightParams& p, int width, int height, int channels) {
  if (!find_blur_method(p.blur_method)) return invalid_argument("night: unknown blur method '" + p.blur_method + "'");
  // The parameters' ranges again: NightParams::set checks them, a default-built one holds defaults.
  for (const auto& [name, value] : p.values()) {
    const ParamDesc& d = night_params()[static_cast<std::size_t>(night_index(name))];
    if (!(value >= d.min_value && value <= d.max_value))
      return invalid_argument("night: parameter '" + name + "' = " + format_number(value) + " is out of range");
  }
  const double scotopic = p.get("scotopic"), photopic = p.get("photopic");
  if (!(scotopic < photopic))
    return invalid_argument("night: scotopic (" + format_number(scotopic) + " cd/m^2) must be below photopic (" +
                            format_number(photopic) + " cd/m^2)");
  if (width < 1 || height < 1) return invalid_argument("night: the image has no pixels");
  if (channels != 3 && channels != 4) return invalid_argument("night: needs an RGB or RGBA image, got " +
                                                              std::to_string(channels) + " channels");
  NightPlan plan;
  core::NightConstants& k = plan.constants;
  k.strength = p.get("strength");
  k.log10_scotopic = std::log10(scotopic);
  k.log10_photopic = std::log10(photopic);
  k.cd_per_unit = static_cast<float>(p.get("scene_cd_per_unit"));
  const double range = k.log10_photopic - k.log10_scotopic;
  k.t_scale = static_cast<float>(std::log10(2.0) / range);
  k.t_offset = static_cast<float>(-k.log10_scotopic / range);
  k.noise = static_cast<float>(p.get("noise"));
  // Thompson et al.'s blue, (x, y) = (0.25, 0.25) at Y = 1: XYZ (1, 1, 2) in linear Rec. 709
  // (IEC 61966-2-1's inverse matrix), mixed with grey by blue_shift; both have luminance 1.
  const double blue[3] = {3.2406 - 1.5372 - 2 * 0.4986, -0.9689 + 1.8758 + 2 * 0.0415, 0.0557 - 0.2040 + 2 * 1.0570};
  const double luma = 0.2126 * blue[0] + 0.7152 * blue[1] + 0.0722 * blue[2];
  const double shift = p.get("blue_shift");
  for (int c = 0; c < 3; ++c) k.blue[c] = static_cast<float>(1.0 + shift * (blue[c] / luma - 1.0));
  k.inv_v_white = 1.0f / core::scotopic_luminance(1.0f, 1.0f, 1.0f);
  plan.fixed_adaptation = p.get("adaptation");
  plan.cd_per_unit = p.get("scene_cd_per_unit");
  plan.active = p.on && k.strength > 0.0 &&
                !(plan.fixed_adaptation > 0.0 && core::night_rod_fraction(k, plan.fixed_adaptation) == 0.0);
  // plan_blur's sigma limit (1000) caps the blur of frames wider than ~20K at acuity's maximum.
  plan.sigma = std::min(1000.0, p.get("acuity") * std::max(width, height));
  if (plan.sigma >= 0.5) {
    Result<BlurPlan> blur = plan_blur(p.blur_method, 0.5 * plan.sigma);  // on the half-resolution plane
    if (!blur.ok()) return blur.status();
    plan.blur = *blur;
    k.blur = 1;
  } else {
    plan.sigma = 0.0;
  }
  return plan;
}

}  // namespace blur_impl

namespace {
double log_average(const Image& image) { TK_ISA_DISPATCH(log_average(image)); }
}  // namespace

double night_adapting_luminance(const Image& image, const NightParams& params) {
  if (params.get("adaptation") > 0.0) return params.get("adaptation");
  if (image.channels < 3 || image.width < 1 || image.height < 1 ||
      image.pixels.size() != static_cast<std::size_t>(image.width) * image.height * image.channels)
    return 0.0;
  return params.get("scene_cd_per_unit") * log_average(image);
}

double night_rod_fraction(const NightParams& params, double adapting_luminance) {
  auto plan = blur_impl::plan_night(params, 1, 1, 4);
  if (!plan.ok() || !params.on) return 0.0;
  return core::night_rod_fraction(plan->constants, adapting_luminance);
}

#endif  // TK_ISA_PRIMARY

TK_ISA_BEGIN

// exp(mean log(1e-6 + L)) of the sanitised colour, float64 per row, rows in order.
double log_average(const Image& image) {
  const int w = image.width, c = image.channels;
  std::vector<double> rows(static_cast<std::size_t>(image.height));
  cpu::parallel_rows(image.height, [&](int, int y0, int y1) {
    for (int y = y0; y < y1; ++y) {
      const float* row = image.row(y);
      double sum = 0.0;
      for (int x = 0; x < w; ++x) {
        const float* px = row + static_cast<std::size_t>(x) * c;
        sum += core::night_log_term(core::night_clean(px[0]), core::night_clean(px[1]), core::night_clean(px[2]));
      }
      rows[static_cast<std::size_t>(y)] = sum;
    }
  });
  double total = 0.0;
  for (double r : rows) total += r;
  return std::exp(total / (static_cast<double>(w) * image.height));
}

Status apply_night(Image& image, const NightParams& params, std::uint32_t frame, NightReport* report) {
  if (report) *report = NightReport{};
  auto planned = blur_impl::plan_night(params, image.width, image.height, image.channels);
  if (!planned.ok()) return planned.status();
  if (image.pixels.size() != static_cast<std::size_t>(image.width) * image.height * image.channels)
    return invalid_argument("night: image has an inconsistent size");
  const blur_impl::NightPlan& plan = *planned;
  if (!plan.active) return {};
  const double adapting = night_adapting_luminance(image, params);
  const double rod = core::night_rod_fraction(plan.constants, adapting);
  if (report) *report = {adapting, rod, rod > 0.0 ? plan.sigma : 0.0};
  if (rod == 0.0) return {};

  const int w = image.width, h = image.height, c = image.channels;
  const int hw = core::night_half(w), hh = core::night_half(h);
  auto clean_at = [&](int x, int y, int ch) {
    return core::night_clean(image.pixels[(static_cast<std::size_t>(y) * w + x) * c + ch]);
  };
  // The acuity blur (core/night.hpp): the sanitised colour's 2x2 box means (a NaN must not
  // spread), the Gaussian of sigma / 2 on them.
  Image blurred;
  if (plan.constants.blur) {
    Image half(hw, hh, 3);
    cpu::parallel_rows(hh, [&](int, int j0, int j1) {
      for (int j = j0; j < j1; ++j)
        for (int i = 0; i < hw; ++i) {
          const int xa = 2 * i, xb = std::min(2 * i + 1, w - 1), ya = 2 * j, yb = std::min(2 * j + 1, h - 1);
          for (int ch = 0; ch < 3; ++ch)
            half.pixels[(static_cast<std::size_t>(j) * hw + i) * 3 + ch] =
                core::night_box(clean_at(xa, ya, ch), clean_at(xb, ya, ch), clean_at(xa, yb, ch), clean_at(xb, yb, ch));
        }
    });
    Result<Image> b = blur(half, plan.blur);
    if (!b.ok()) return b.status();
    blurred = std::move(*b);
  }
  const float rod_f = static_cast<float>(rod);
  cpu::parallel_rows(h, [&](int, int y0, int y1) {
    for (int y = y0; y < y1; ++y) {
      const core::NightTap ty = core::night_tap(y, hh);
      for (int x = 0; x < w; ++x) {
        float rgb[3] = {clean_at(x, y, 0), clean_at(x, y, 1), clean_at(x, y, 2)};
        float b[3] = {0.0f, 0.0f, 0.0f};
        if (plan.constants.blur) {
          const core::NightTap tx = core::night_tap(x, hw);
          auto at = [&](int i, int j, int ch) { return blurred.pixels[(static_cast<std::size_t>(j) * hw + i) * 3 + ch]; };
          for (int ch = 0; ch < 3; ++ch)
            b[ch] = core::night_bilinear(at(tx.i0, ty.i0, ch), at(tx.i1, ty.i0, ch), at(tx.i0, ty.i1, ch),
                                         at(tx.i1, ty.i1, ch), tx.f, ty.f);
        }
        core::night_pixel(rgb, b, plan.constants, rod_f, x, y, frame);
        const std::size_t i = static_cast<std::size_t>(y) * w + x;
        for (int ch = 0; ch < 3; ++ch) image.pixels[i * c + ch] = rgb[ch];
      }
    }
  });
  return {};
}

TK_ISA_END

#if TK_ISA_PRIMARY
Status apply_night(Image& image, const NightParams& params, std::uint32_t frame, NightReport* report) {
  TK_ISA_DISPATCH(apply_night(image, params, frame, report));
}
#endif  // TK_ISA_PRIMARY

}  // namespace tonekit
