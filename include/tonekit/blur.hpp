// Blur library: nine ways to approximate (or compute) a Gaussian blur, after the blur
// comparison seed (Ernst 2013, "Comparison of fast image filter techniques"), plus the exact
// reference, effective-sigma fitting and quality metrics, and the glare/bloom post-effect.
//
// One descriptor per method (id, title, citation, parameters with default and range),
// registered once; `tonekit blur --list`, the fitter (bench/cpu/blur_fit.cpp), the tests and the
// benchmarks read the registry. Every method takes a target sigma and picks its own parameters
// to match it (Kovesi's box widths, pyramid levels, spreading radius, diffusion steps); a
// parameter given explicitly (--set NAME=VALUE) overrides the choice. Borders are clamped
// (edge pixels replicated) for every method.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tonekit/image.hpp"
#include "tonekit/operators.hpp"  // ParamDesc
#include "tonekit/status.hpp"
#include "tonekit/tonemap.hpp"  // Backend

namespace tonekit {

struct BlurMethodDesc {
  const char* id;           // `gaussian`, `direct`, `separable`, `fft`, `pyramid-box2`, ...
  const char* title;
  const char* citation;
  const char* description;  // how it works and its trade-off
  bool any_kernel;          // takes an arbitrary 2D kernel (direct, fft, reshuffle)
  std::vector<ParamDesc> params;  // a default of 0 marked "auto" in the help: chosen from sigma
};

const std::vector<const BlurMethodDesc*>& all_blur_methods();
const BlurMethodDesc* find_blur_method(std::string_view id);

// NAME=VALUE pairs as given to --set (parse_setting in operators.hpp splits them).
using BlurSettings = std::vector<std::pair<std::string, std::string>>;

// A validated, fully resolved parameter set: every parameter of the method with the value it
// will run with (auto values replaced by the choice for sigma). Built only by plan_blur.
struct BlurPlan {
  const BlurMethodDesc* method = nullptr;
  double sigma = 0.0;  // the target
  std::vector<std::pair<std::string, double>> values;
  double get(std::string_view name) const;  // aborts on an unknown name: a programming error
  // "levels=3 refine=1" etc., for logs and the CLI.
  std::string describe() const;
};

// The one place that validates: unknown method or parameter, unparsable or out-of-range value,
// sigma outside [0, 1000] give invalid_argument. sigma 0 is allowed when every auto parameter
// is set explicitly (the fitter runs methods by their own parameters); otherwise it must be > 0.
Result<BlurPlan> plan_blur(std::string_view method, double sigma, const BlurSettings& settings = {});

// Planar single channel: `in` and `out` hold w x h floats, tightly packed; out must not alias in.
Status blur_plane(const float* in, float* out, int w, int h, const BlurPlan& plan);

// Interleaved float images (any channel count: grey, RGB, RGBA; alpha is blurred too).
Result<Image> blur(const Image& in, const BlurPlan& plan);
Result<Image> blur(const Image& in, std::string_view method, double sigma, const BlurSettings& settings = {});
// The same on a backend (Backend's rule, tonekit/tonemap.hpp); *ran_on (optional) gets the one
// that ran. On the GPU: upload, the device blur (tonekit/blur_cuda.hpp), download; 1 to 4
// channels (2 and 3 travel as RGBA); within the tests' tolerance of the CPU's
// (tests/gpu/test_gpu_blur.cpp).
Result<Image> blur(const Image& in, const BlurPlan& plan, Backend backend, Backend* ran_on = nullptr);

// ---- Arbitrary kernels (direct, fft, reshuffle) ----
// A square kernel of odd side 2 radius + 1, row-major; weight (dx, dy) at
// weights[(dy + radius) * (2 radius + 1) + dx + radius]. out(x, y) = sum k(dx, dy) in(x + dx, y + dy)
// (a correlation; identical to convolution for the symmetric kernels used here).
struct BlurKernel2D {
  int radius = 0;
  std::vector<float> weights;
  float at(int dx, int dy) const {
    return weights[static_cast<std::size_t>(dy + radius) * (2 * radius + 1) + (dx + radius)];
  }
};
// Sampled 2D Gaussian, normalised over the (2 radius + 1)^2 window.
BlurKernel2D gaussian_kernel_2d(double sigma, int radius);
// method: "direct", "fft" or "reshuffle".
Status convolve_plane(const float* in, float* out, int w, int h, const BlurKernel2D& kernel, std::string_view method);

// ---- Quality and effective sigma (Ernst 2013, section 4.1.2) ----
double mean_abs_diff(const float* a, const float* b, std::size_t n);
// PSNR in dB of `test` against `ref` with the given peak (+inf when identical).
double psnr(const float* test, const float* ref, std::size_t n, double peak);
// Mean SSIM (Wang et al. 2004: 11x11 Gaussian window, sigma 1.5, K1 0.01, K2 0.03) of two
// single-channel planes with the given dynamic range.
double ssim(const float* a, const float* b, int w, int h, double dynamic_range);
// Rec. 709 luminance plane of an RGB(A) or grey image.
std::vector<float> luminance_plane(const Image& image);

// The Gaussian sigma in [lo, hi] whose exact blur of `original` is closest to `blurred` in mean
// absolute difference (golden-section search; Ernst 2013's "absolute pixel difference" metric),
// until the bracket is narrower than `tolerance` times its midpoint.
struct SigmaFit {
  double sigma = 0.0;
  double mean_abs_diff = 0.0;
};
Result<SigmaFit> fit_sigma(const float* original, const float* blurred, int w, int h, double lo, double hi,
                           double tolerance = 0.005);

// ---- Glare / bloom ----
// Bright-pass on the HDR luminance, blur, add back before tone mapping:
//   bright = C * max(0, L - T) / L with T = threshold * (log-average luminance of the frame),
//   C += strength * sum_k w_k blur(bright, sigma_k), sigma_k = 2^k radius * max(width, height),
//   w_k = 2^-k / sum_j 2^-j, k < octaves (a core plus a ~ r^-3 tail).
// The threshold is relative to the frame's log-average (as the key is), so it does not depend
// on exposure. strength 0 leaves the image untouched; energy added = strength * bright energy.
// With a pyramid method (the default) the octaves share one pyramid: the analysis once, each
// octave's Gaussian on its own level, one synthesis back (the sum of the octaves' pyramid blurs
// on a common grid; its speed: docs/performance.md).
struct GlareParams {
  double strength = 0.0;    // 0..10: multiple of the blurred bright part added back
  double threshold = 30.0;  // 0..1e6: bright-pass knee in multiples of the log-average luminance
  double radius = 0.01;     // 0..0.5: core sigma as a fraction of the longer image side
  int octaves = 3;          // 1..8: Gaussians in the PSF (1: a single Gaussian)
  std::string method = "pyramid-quasi";  // any blur method id; pyramid: the fastest adequate
};
Status apply_glare(Image& image, const GlareParams& params);
// The same on a backend (Backend's rule; on the GPU an upload, the device glare, a download);
// *ran_on (optional) gets the one that ran.
Status apply_glare(Image& image, const GlareParams& params, Backend backend, Backend* ran_on = nullptr);

// The glare's validated schedule for a width x height frame, the one validator of both backends
// (apply_glare; identical error messages): per octave k the
// blur plan (plan_blur(method, sigma_k)) and the weight strength 2^-k / sum_j 2^-j, in the float
// that the accumulation multiplies by. Octaves with sigma_k > 1000 are dropped; none at all
// means the effect is off (strength 0, or radius * max(width, height) < 0.5).
struct GlareOctave {
  BlurPlan blur;
  float weight = 0.0f;
};
Result<std::vector<GlareOctave>> plan_glare(const GlareParams& params, int width, int height);
// The same for `image`, checked as apply_glare checks it: the parameters first, then that it
// holds width x height x channels floats (channels >= 1).
Result<std::vector<GlareOctave>> plan_glare(const GlareParams& params, const Image& image);

// The log-average luminance the threshold is relative to: exp(mean log(1e-6 + L)) over every
// pixel, L = Rec. 709 luminance (the grey channel for 1 or 2 channels), non-finite or negative L
// counted as black. The bright-pass knee is threshold * glare_log_average(image).
double glare_log_average(const Image& image);

}  // namespace tonekit
