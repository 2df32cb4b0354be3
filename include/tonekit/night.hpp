// Night (scotopic / mesopic) vision: a stage that edits the HDR scene before any operator, as
// glare does, so it works with every operator on both backends.
//
// The model (docs/architecture.md, "Night vision"):
// - Scotopic luminance from CIE XYZ (Larson, Rushmeier and Piatko 1997, "A visibility matching
//   tone reproduction operator for high dynamic range scenes"; as used by Thompson, Shirley and
//   Ferwerda 2002, "A spatial post-processing algorithm for images of night scenes"):
//   V = Y (1.33 (1 + (Y + Z) / X) - 1.68), scaled by 1 / V(white) so that R = G = B keeps its
//   luminance (the stage changes colour and sharpness, not the exposure the operator picks).
// - Rod fraction from the adapting luminance L_a in cd/m^2 (the frame's log-average luminance
//   times scene_cd_per_unit, or a fixed `adaptation`): s = strength (1 - smoothstep(t)),
//   t = (log10 L_a - log10 scotopic) / (log10 photopic - log10 scotopic): Thompson et al.'s
//   smoothstep in log luminance over the mesopic range (defaults 0.001 to 10 cd/m^2).
// - Colour: C' = (1 - s) C + s V b, where b is the scotopic colour of luminance 1: grey mixed
//   with Thompson et al.'s blue, chromaticity (x, y) = (0.25, 0.25), by blue_shift.
// - Acuity: one Gaussian copy of the sanitised scene (the blur library; sigma = acuity x the
//   longer side; made at half resolution: 2x2 means, sigma / 2, read back bilinearly) blended in
//   per pixel by w = s (1 - smoothstep(t_pixel)), t_pixel from the pixel's own luminance:
//   dark regions lose detail, lamps stay sharp.
// - Noise (off by default): C' *= 1 + noise s n, n uniform in [-1, 1) from a hash of the frame
//   coordinates and frame index (the dither's lowbias32 hash).
// The identity, bit for bit, when the stage is off, strength is 0, or L_a >= photopic.
// Bad samples: with the stage active, colour channels are sanitised first (NaN, negatives -> 0,
// +Inf -> 65504, as the map does); alpha is left as it is.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tonekit/image.hpp"
#include "tonekit/operators.hpp"  // ParamDesc
#include "tonekit/status.hpp"
#include "tonekit/tonemap.hpp"  // Backend

namespace tonekit {

// The stage's parameters, with default, range and help: the one list the CLI's --night-* flags,
// the studio's sliders, presets and the validator read.
const std::vector<ParamDesc>& night_params();

// A validated set of the stage's values (defaults from night_params()). `on` false: the stage is
// off and apply_night leaves the image untouched. `blur_method`: the acuity blur, any method of
// the blur registry (tonekit/blur.hpp); "separable" is the sampled Gaussian.
class NightParams {
 public:
  NightParams();  // the defaults, off
  bool on = false;
  std::string blur_method = "separable";
  double get(std::string_view name) const;  // aborts on an unknown name: a programming error
  Status set(std::string_view name, double value);       // range-checked; invalid_argument names it
  Status set(std::string_view name, std::string_view text);  // parses, then as above
  std::vector<std::pair<std::string, double>> values() const;

 private:
  std::vector<double> values_;
};

// NAME=VALUE pairs (parse_setting splits --night-set's), validated: unknown names, unparsable or
// out-of-range values, scotopic >= photopic and an unknown blur method give invalid_argument.
// The result is on.
Result<NightParams> prepare_night(const std::vector<std::pair<std::string, std::string>>& settings = {},
                                  std::string_view blur_method = "separable");

// What the stage resolved for one frame (apply_night's `report`, the tests and logs).
struct NightReport {
  double adapting_luminance = 0.0;  // L_a, cd/m^2
  double rod_fraction = 0.0;        // s; 0: the stage left the frame untouched
  double blur_sigma = 0.0;          // pixels; 0: no acuity blur
};

// The stage on an RGB or RGBA float image in place (1 or 2 channels: invalid_argument). `frame`
// seeds the noise (a stream passes its frame index). On the CPU: float64 sums, the blur library's
// CPU method. On a backend (Backend's rule, tonekit/tonemap.hpp): on the GPU an upload, the
// device stage, a download; the image is written only after the last kernel, so a failure leaves
// it as it was. *ran_on (optional) gets the backend that ran.
Status apply_night(Image& image, const NightParams& params, std::uint32_t frame = 0, NightReport* report = nullptr);
Status apply_night(Image& image, const NightParams& params, Backend backend, Backend* ran_on = nullptr,
                   std::uint32_t frame = 0, NightReport* report = nullptr);

// The adapting luminance apply_night uses, cd/m^2: `adaptation` when > 0, else
// scene_cd_per_unit x exp(mean log(1e-6 + L)) over the image (L = Rec. 709 luminance of the
// sanitised colour; float64 sums per row, rows merged in order).
double night_adapting_luminance(const Image& image, const NightParams& params);
// The rod fraction s for an adapting luminance (cd/m^2); 0 when off.
double night_rod_fraction(const NightParams& params, double adapting_luminance);

}  // namespace tonekit
