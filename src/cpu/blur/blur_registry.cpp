// The blur method registry: one descriptor per method, registered once. The CLI's
// `blur --list`, the fitter, the tests and the benchmarks read it. Parameters whose default is 0
// and whose help starts with "auto" are chosen from sigma by plan_blur (blur_api.cpp).
#include "tonekit/blur.hpp"

namespace tonekit {
namespace {

ParamDesc truncate_param(double def) {
  return {"truncate", def, 1.0, 8.0, "window radius ceil(truncate * sigma); the seed's window is 6 sigma wide (3)"};
}

std::vector<ParamDesc> pyramid_params() {
  return {{"levels", 0, 0, 16, "auto (0): chosen from sigma; else down/up-sampling steps", true},
          {"refine", 1, 0, 1, "1: a small Gaussian at the coarsest level fills the gap to sigma; 0: levels only", true}};
}

const BlurMethodDesc kGaussian{
    "gaussian", "Exact Gaussian (reference)", "Gaussian convolution, sampled kernel (Ernst 2013, ch. 4 ground truth)",
    "Separable convolution with the sampled, normalised Gaussian, float64 accumulation, window "
    "radius ceil(4 sigma). The reference every other method is fitted and tested against. "
    "O(sigma) per pixel.",
    false, {truncate_param(4.0)}};

const BlurMethodDesc kDirect{
    "direct", "Direct 2D convolution", "Ernst 2013, section 3.2",
    "out = sum k(dx, dy) in(x + dx, y + dy) over the whole (2r + 1)^2 window: any kernel, exact, "
    "O(sigma^2) per pixel; only sensible for small kernels.",
    true, {truncate_param(3.0)}};

const BlurMethodDesc kSeparable{
    "separable", "Separable convolution", "Ernst 2013, section 3.3",
    "A horizontal then a vertical 1D pass with the sampled Gaussian (float accumulation): "
    "O(sigma) per pixel; the workhorse for small and medium sigma, Gaussian-type kernels only.",
    false, {truncate_param(3.0)}};

const BlurMethodDesc kFft{
    "fft", "FFT convolution", "Ernst 2013, section 3.4 (FFTW on the CPU, cuFFT on the GPU)",
    "Convolution theorem: transform the edge-padded plane, multiply by the kernel's spectrum, "
    "transform back. Any kernel; O(N log N), independent of the kernel size; pays off for large "
    "or non-separable kernels.",
    true, {truncate_param(3.0)}};

const BlurMethodDesc kPyramidBox2{
    "pyramid-box2", "Pyramid, 2x2 box analysis", "Burt 1981; Ernst 2013, section 3.5 (mipmap-style)",
    "Down-sample with a 2x2 box, up-sample with the biquadratic B-spline. Cheapest pyramid, "
    "blockiest response (seed table A.2: highest detection probability).",
    false, pyramid_params()};

const BlurMethodDesc kPyramidBox4{
    "pyramid-box4", "Pyramid, 4x4 box analysis", "Kraus & Strengert 2007; Ernst 2013, section 3.5",
    "Down-sample with a 4x4 box (two bilinear lookups on a GPU), up-sample with the biquadratic "
    "B-spline. Between box2 and quasi-convolution in quality.",
    false, pyramid_params()};

const BlurMethodDesc kPyramidQuasi{
    "pyramid-quasi", "Pyramid, quasi-convolution analysis", "Kraus & Strengert 2007; Ernst 2013, section 3.5.2",
    "Down-sample with Kraus' [13 19 19 13] / 64 filter (four bilinear lookups), up-sample with the "
    "biquadratic B-spline. The seed's overall winner: fastest family, sigma doubles per level, "
    "closest pyramid response to a Gaussian.",
    false, pyramid_params()};

const BlurMethodDesc kSpreading{
    "spreading", "Polynomial spreading", "Kosloff 2011 (PhD thesis); Ernst 2013, section 3.6.2",
    "Spread the sparse second derivative of a tent filter (9 taps at distance r), integrate twice "
    "with summed-area tables, divide by r^4. O(1) per pixel in r; a tent, not a Gaussian "
    "(sigma = sqrt((r^2 - 1) / 6)).",
    false, {{"radius", 0, 0, 4096, "auto (0): r = round(sqrt(6 sigma^2 + 1)); else the tent radius", true}}};

const BlurMethodDesc kReshuffle{
    "reshuffle", "Reshuffling", "Porikli 2008 (single-output access); Ernst 2013, section 3.7",
    "Group the kernel's equal weights (linkage sets); per pixel, sum the input over each set and "
    "multiply once per unique weight. Any kernel; fewer multiplications than direct convolution, "
    "the same additions.",
    true, {truncate_param(3.0)}};

const BlurMethodDesc kRepeatedBox{
    "repeated-box", "Repeated box filtering", "Kovesi 2009; Ernst 2013, section 3.8",
    "n box passes whose widths Kovesi's formula picks for sigma (m passes of width wl, n - m of "
    "wl + 2). Each pass O(1) per pixel (running sums or a summed-area table); converges to a "
    "Gaussian as passes grow.",
    false,
    {{"passes", 3, 1, 16, "box passes", true},
     {"width", 0, 0, 4095, "auto (0): Kovesi's widths for sigma; else this odd width for every pass", true},
     {"sat", 0, 0, 1, "1: each pass through a summed-area table; 0: separable running sums", true}}};

const BlurMethodDesc kDiffusion{
    "diffusion", "Simulated heat diffusion", "Kass et al. 2006; Ernst 2013, section 3.9",
    "Explicit 4-neighbour Laplacian steps I += c Lap(I); t steps give sigma^2 = 2 c t. Excellent "
    "quality, but t grows with sigma^2.",
    false,
    {{"iterations", 0, 0, 1000000, "auto (0): t = ceil(sigma^2 / (2 c)), then c adjusted to hit sigma", true},
     {"c", 1.0 / 6.0, 0.001, 0.25,
      "conductivity per step, stable up to 0.25 (the seed's value; its centre weight 1 - 4c is 0 and the "
      "response splits into a checkerboard); 1/6 is the most isotropic (9x lower error at sigma 2); "
      "the largest c used when iterations is auto"}}};

}  // namespace

const std::vector<const BlurMethodDesc*>& all_blur_methods() {
  static const std::vector<const BlurMethodDesc*> methods = {
      &kGaussian,    &kDirect,   &kSeparable,  &kFft,     &kPyramidBox2, &kPyramidBox4,
      &kPyramidQuasi, &kSpreading, &kReshuffle, &kRepeatedBox, &kDiffusion};
  return methods;
}

const BlurMethodDesc* find_blur_method(std::string_view id) {
  for (const BlurMethodDesc* m : all_blur_methods())
    if (id == m->id) return m;
  return nullptr;
}

}  // namespace tonekit
