// The blur methods on one float plane (w x h, tightly packed, out != in), CPU reference side.
// blur_api.cpp validates and resolves parameters (plan_blur) and calls these; they trust their
// inputs. Borders are clamped everywhere (edge pixels replicated).
#pragma once
#include <string_view>
#include <vector>

#include "cpu/blur/blur_math.hpp"
#include "tonekit/blur.hpp"

namespace tonekit::blur_impl {

// The plane with rx columns / ry rows of replicated edge pixels on each side:
// (w + 2 rx) x (h + 2 ry), tightly packed.
std::vector<float> pad_clamped(const float* in, int w, int h, int rx, int ry);

// Normalised sampled 1D Gaussian of 2 radius + 1 taps.
std::vector<double> gaussian_kernel_1d(double sigma, int radius);

// Separable convolution with a symmetric 1D kernel (odd length), rows then columns.
// Float accumulation (the fast method) or float64 accumulation (the exact reference).
void separable_convolve(const float* in, float* out, int w, int h, const std::vector<double>& kernel);
void separable_convolve_f64(const float* in, float* out, int w, int h, const std::vector<double>& kernel);

void direct_convolve(const float* in, float* out, int w, int h, const BlurKernel2D& k);
void reshuffle_convolve(const float* in, float* out, int w, int h, const BlurKernel2D& k);
// All planes share the kernel's spectrum; planes run in parallel.
void fft_convolve(const std::vector<const float*>& in, const std::vector<float*>& out, int w, int h,
                  const BlurKernel2D& k);

// levels down/up with the given analysis filter; coarse_sigma > 0 adds a Gaussian of that sigma
// (in coarsest-level pixels) before going back up.
void pyramid_blur(const float* in, float* out, int w, int h, blur_math::PyramidAnalysis analysis, int levels,
                  double coarse_sigma);
// One pyramid step of pyramid_blur: fine (fw x fh) -> ((fw + 1) / 2 x (fh + 1) / 2) with the
// analysis filter, and coarse (cw x ch) -> fine (fw x fh) with the B-spline synthesis; clamped.
std::vector<float> pyramid_down(const float* fine, int fw, int fh, blur_math::PyramidAnalysis analysis);
void pyramid_up(const float* coarse, int cw, int ch, float* fine, int fw, int fh);
// A Gaussian of any sigma >= 0 whose discrete variance is sigma^2 (3 taps below kSmallSigma).
void small_or_gaussian(const float* in, float* out, int w, int h, double sigma);

void spreading_blur(const float* in, float* out, int w, int h, int radius);
// One box pass per entry of widths (odd); via summed-area tables or separable running sums.
void repeated_box(const float* in, float* out, int w, int h, const std::vector<int>& widths, bool use_sat);
void diffusion_blur(const float* in, float* out, int w, int h, int iterations, double c);

// For the GPU dispatch, so both backends resolve a plan identically (blur_api.cpp):
// the replicated-edge margin the multi-pass methods run with (3 effective sigmas; 0 for
// single-pass methods, which clamp exactly on their own), and repeated-box's per-pass widths.
int clamped_border_padding(const BlurPlan& plan);
// A pyramid-* method's analysis filter (pyramid-quasi for any other id).
blur_math::PyramidAnalysis pyramid_analysis(std::string_view id);
std::vector<int> box_pass_widths(const BlurPlan& plan);

}  // namespace tonekit::blur_impl
