// Glare / bloom (issue item 4): bright-pass on the HDR luminance, blur, add back before tone
// mapping. The bright pass keeps colour: bright = C * max(0, L - T) / L, a soft knee at
// T = threshold * log-average luminance (the frame's key, as the operators compute it), so the
// effect does not change with exposure. The blur defaults to the quasi-convolution pyramid, the
// seed's fastest method of adequate quality (its chapter 4.4); any registered method works.
#include <cmath>

#include "tonekit/blur.hpp"

namespace tonekit {

Status apply_glare(Image& image, const GlareParams& p) {
  if (!(p.strength >= 0.0 && p.strength <= 10.0)) return invalid_argument("glare: strength out of range [0, 10]");
  if (!(p.threshold >= 0.0 && p.threshold <= 1e6)) return invalid_argument("glare: threshold out of range [0, 1e6]");
  if (!(p.radius >= 0.0 && p.radius <= 0.5)) return invalid_argument("glare: radius out of range [0, 0.5]");
  if (p.octaves < 1 || p.octaves > 8) return invalid_argument("glare: octaves out of range [1, 8]");
  if (!find_blur_method(p.method)) return invalid_argument("glare: unknown blur method '" + p.method + "'");
  const int w = image.width, h = image.height, c = image.channels;
  if (c <= 0 || image.pixels.size() != static_cast<std::size_t>(w) * h * c)
    return invalid_argument("glare: image has no pixels or an inconsistent size");
  const double sigma = p.radius * std::max(w, h);
  if (p.strength == 0.0 || sigma < 0.5) return {};

  const int colour = c >= 3 ? 3 : 1;  // alpha (4th channel) is left alone
  const std::vector<float> lum = luminance_plane(image);
  const std::size_t n = lum.size();
  double log_sum = 0.0;
  for (float l : lum) log_sum += std::log(1e-6 + std::max(0.0f, std::isfinite(l) ? l : 0.0f));
  const double key = std::exp(log_sum / static_cast<double>(n));
  const float t = static_cast<float>(p.threshold * key);

  Image bright(w, h, colour);
  for (std::size_t i = 0; i < n; ++i) {
    const float l = lum[i];
    const float k = (std::isfinite(l) && l > t && l > 0.0f) ? (l - t) / l : 0.0f;
    for (int ch = 0; ch < colour; ++ch) bright.pixels[i * colour + ch] = k * image.pixels[i * c + ch];
  }
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
    Result<Image> blurred = blur(bright, p.method, sk);
    if (!blurred.ok()) return blurred.status();
    const float s = static_cast<float>(p.strength * std::ldexp(1.0, -k) / total_w);
    for (std::size_t i = 0; i < n; ++i)
      for (int ch = 0; ch < colour; ++ch) image.pixels[i * c + ch] += s * blurred->pixels[i * colour + ch];
  }
  return {};
}

}  // namespace tonekit
