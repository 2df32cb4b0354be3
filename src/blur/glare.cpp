// Glare / bloom (issue item 4): bright-pass on the HDR luminance, blur, add back before tone
// mapping. The bright pass keeps colour: bright = C * max(0, L - T) / L, a soft knee at
// T = threshold * log-average luminance (the frame's key, as the operators compute it), so the
// effect does not change with exposure. The blur defaults to the quasi-convolution pyramid, the
// seed's fastest method of adequate quality (its chapter 4.4); any registered method works.
// The per-pixel maths lives in blur/blur_math.hpp and the schedule in plan_glare, shared with the
// device version (src/cuda/blur/glare_gpu.cu), which is tested against this one.
#include <algorithm>
#include <cmath>

#include "blur/blur_math.hpp"
#include "tonekit/blur.hpp"

namespace tonekit {

Result<std::vector<GlareOctave>> plan_glare(const GlareParams& p, int width, int height) {
  if (!(p.strength >= 0.0 && p.strength <= 10.0)) return invalid_argument("glare: strength out of range [0, 10]");
  if (!(p.threshold >= 0.0 && p.threshold <= 1e6)) return invalid_argument("glare: threshold out of range [0, 1e6]");
  if (!(p.radius >= 0.0 && p.radius <= 0.5)) return invalid_argument("glare: radius out of range [0, 0.5]");
  if (p.octaves < 1 || p.octaves > 8) return invalid_argument("glare: octaves out of range [1, 8]");
  if (!find_blur_method(p.method)) return invalid_argument("glare: unknown blur method '" + p.method + "'");
  std::vector<GlareOctave> octaves;
  const double sigma = p.radius * std::max(width, height);
  if (p.strength == 0.0 || sigma < 0.5) return octaves;
  // The glare PSF: `octaves` Gaussians of sigma, 2 sigma, 4 sigma, ... weighted 1, 1/2, 1/4, ...
  // (normalised to sum 1): a core with a heavy tail falling off ~ r^-3 between sigma and
  // 2^(octaves-1) sigma, like a lens/eye glare PSF (Spencer et al. 1995 use ~ r^-2 to r^-3). One
  // Gaussian has a visibly hard edge around lights 1e4x brighter than the threshold (any kernel
  // truncated at 3 sigma shows its square window there); the wider octaves hide it.
  double total_w = 0.0;
  for (int k = 0; k < p.octaves; ++k) total_w += std::ldexp(1.0, -k);
  for (int k = 0; k < p.octaves; ++k) {
    const double sk = sigma * std::ldexp(1.0, k);
    if (sk > 1000.0) break;
    Result<BlurPlan> plan = plan_blur(p.method, sk);
    if (!plan.ok()) return plan.status();
    octaves.push_back({*plan, static_cast<float>(p.strength * std::ldexp(1.0, -k) / total_w)});
  }
  return octaves;
}

Result<std::vector<GlareOctave>> plan_glare(const GlareParams& p, const Image& image) {
  Result<std::vector<GlareOctave>> octaves = plan_glare(p, image.width, image.height);
  if (!octaves.ok()) return octaves.status();
  if (image.channels <= 0 || image.pixels.size() != static_cast<std::size_t>(image.width) * image.height * image.channels)
    return invalid_argument("glare: image has no pixels or an inconsistent size");
  return octaves;
}

double glare_log_average(const Image& image) {
  const std::size_t n = static_cast<std::size_t>(image.width) * image.height;
  if (n == 0 || image.channels <= 0 || image.pixels.size() != n * image.channels) return 0.0;
  double log_sum = 0.0;
  for (std::size_t i = 0; i < n; ++i)
    log_sum += blur_math::glare_log_term(blur_math::pixel_luminance(image.pixels.data() + i * image.channels, image.channels));
  return std::exp(log_sum / static_cast<double>(n));
}

Status apply_glare(Image& image, const GlareParams& p) {
  Result<std::vector<GlareOctave>> octaves = plan_glare(p, image);
  if (!octaves.ok()) return octaves.status();
  if (octaves->empty()) return {};
  const int w = image.width, h = image.height, c = image.channels;

  const int colour = blur_math::glare_colour_channels(c);  // alpha (4th channel) is left alone
  const std::size_t n = static_cast<std::size_t>(w) * h;
  const float t = static_cast<float>(p.threshold * glare_log_average(image));
  Image bright(w, h, colour);
  for (std::size_t i = 0; i < n; ++i) {
    const float* px = image.pixels.data() + i * c;
    const float k = blur_math::glare_bright_factor(blur_math::pixel_luminance(px, c), t);
    for (int ch = 0; ch < colour; ++ch) bright.pixels[i * colour + ch] = blur_math::glare_bright_sample(k, px[ch]);
  }
  for (const GlareOctave& o : *octaves) {
    Result<Image> blurred = blur(bright, o.blur);
    if (!blurred.ok()) return blurred.status();
    for (std::size_t i = 0; i < n; ++i)
      for (int ch = 0; ch < colour; ++ch) {
        float& v = image.pixels[i * c + ch];
        v = blur_math::glare_accumulate(v, o.weight, blurred->pixels[i * colour + ch]);
      }
  }
  return {};
}

}  // namespace tonekit
