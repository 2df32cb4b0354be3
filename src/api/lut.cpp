// tonekit lut: the map of a global operator for fixed statistics, sampled as a 3D LUT over the
// input signal (tonekit/tonemap.hpp, make_lut3d). Each lattice point goes through the stream's
// per-pixel maths: core::linearise_pixel (transfer, reference white, primaries, gamut mapping),
// the operator's curve and colour mode (core/colour_modes.hpp) in float, the output transfer
// (core::encode_video_transfer: the BT.709 OETF table, or v^(1/gamma)).
#include <cmath>

#include "core/map_settings.hpp"
#include "core/video_colour.hpp"
#include "tonekit/tonemap.hpp"

namespace tonekit {

Status make_lut3d(const Params& params, const FrameStats& stats, const InputColour& colour, int size, Lut3d& out) {
  if (params.op().locality != Locality::global)
    return invalid_argument(std::string("operator '") + params.op().id + "' is local: a LUT holds global curves only");
  if (size < 2 || size > 129) return invalid_argument("LUT size " + std::to_string(size) + " is out of range [2, 129]");
  if (Status s = validate(colour); !s.ok()) return s;
  const core::CurvePlan plan = core::compile_curve_plan(params);
  if (plan.histogram_bins > 0)
    return invalid_argument(std::string("operator '") + params.op().id +
                            "' reads the frame's histogram: its curve has no fixed-statistics form for a LUT");
  if (!(stats.max_luminance > 0) || !(stats.log_average > 0))
    return invalid_argument("LUT statistics need a positive peak and log-average luminance");
  const core::CurveSettings curve = core::make_curve_settings(plan, stats, nullptr);
  const core::ColourSettings cs = core::make_colour_settings(params);
  // A linear input goes through the shaper first: scene x -> PQ signal of x * reference_white
  // (so the lattice is spaced as PQ is, perceptually); the lattice is then decoded as PQ.
  InputColour lattice_colour = colour;
  out.shaper.clear();
  out.shaper_max = 0.0;
  if (colour.transfer == Transfer::linear) {
    lattice_colour.transfer = Transfer::pq;
    constexpr int kShaper = 16384;
    out.shaper_max = core::kPqPeak / colour.reference_white;
    out.shaper.resize(kShaper);
    for (int i = 0; i < kShaper; ++i)
      out.shaper[i] = static_cast<float>(core::pq_inverse_eotf(out.shaper_max * i / (kShaper - 1) * colour.reference_white));
  }
  const core::VideoLinearise lin = core::make_video_linearise(lattice_colour, InputFormat::rgb_f32);
  const float* oetf = core::bt709_oetf_table_host();
  const float gamma = static_cast<float>(cs.gamma), saturation = static_cast<float>(cs.saturation);
  out.size = size;
  out.rgb.assign(static_cast<std::size_t>(size) * size * size * 3, 0.0f);
  const float step = 1.0f / static_cast<float>(size - 1);
  core::visit_curve(core::cast_curve<float>(curve), [&](const auto& f) {
    const int mode = core::colour_mode_of(f);
    std::size_t i = 0;
    for (int b = 0; b < size; ++b)
      for (int g = 0; g < size; ++g)
        for (int r = 0; r < size; ++r, i += 3) {  // red fastest: the .cube order
          float v[3] = {r * step, g * step, b * step};
          core::linearise_pixel(lin, v[0], v[1], v[2]);
          core::map_colour_mode(f, mode, v[0], v[1], v[2], core::luminance(v[0], v[1], v[2]), saturation);
          for (int c = 0; c < 3; ++c) out.rgb[i + c] = core::encode_video_transfer(core::clamp01(v[c]), gamma, oetf);
        }
  });
  return {};
}

}  // namespace tonekit
