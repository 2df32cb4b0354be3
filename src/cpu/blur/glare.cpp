// Glare / bloom (issue item 4): bright-pass on the HDR luminance, blur, add back before tone
// mapping. The bright pass keeps colour: bright = C * max(0, L - T) / L, a soft knee at
// T = threshold * log-average luminance (the frame's key, as the operators compute it), so the
// effect does not change with exposure. The blur defaults to the quasi-convolution pyramid, the
// seed's fastest method of adequate quality (its chapter 4.4); any registered method works.
// With a pyramid method the octaves share one pyramid (blur/glare_pyramid.hpp: one padded bright
// plane, one analysis chain, one synthesis chain that adds each octave's term on its level);
// other methods run octave by octave. The per-pixel maths lives in blur/blur_math.hpp and the
// schedule in plan_glare / plan_glare_pyramid, shared with the device version
// (src/cuda/blur/glare_gpu.cu), which is tested against this one. The per-pixel passes (key,
// bright pass, octave sums, synthesis) are compiled once per instruction-set level
// (cpu/isa_level.hpp: glare_v3.cpp, _v4.cpp; the level options: no contraction, so every level
// gives the same bytes).
#include <algorithm>
#include <cmath>
#include <vector>

#include "cpu/blur/blur_math.hpp"
#include "cpu/blur/glare_pyramid.hpp"
#include "cpu/blur/methods.hpp"
#include "cpu/isa_level.hpp"
#include "cpu/parallel.hpp"
#include "tonekit/blur.hpp"

namespace tonekit {

#if TK_ISA_PRIMARY
TK_ISA_DECLARE(double glare_log_average(const Image& image); Status apply_glare(Image& image, const GlareParams& p);)

namespace blur_impl {

bool plan_glare_pyramid(const std::vector<GlareOctave>& octaves, int width, int height, GlarePyramid& out) {
  out = GlarePyramid{};
  if (octaves.empty() || width <= 0 || height <= 0) return false;
  const std::string_view id = octaves.front().blur.method->id;
  if (id.substr(0, 8) != "pyramid-") return false;
  out.analysis = pyramid_analysis(id);
  int top = 0, margin = 0;
  for (const GlareOctave& o : octaves) {
    if (std::string_view(o.blur.method->id) != id) return false;
    const int levels = static_cast<int>(std::lround(o.blur.get("levels")));
    if (levels < 1) return false;
    top = std::max(top, levels);
    margin = std::max(margin, clamped_border_padding(o.blur));
  }
  const int align = 1 << std::min(top, 20);
  out.pad = (margin + align - 1) / align * align;
  out.width = width + 2 * out.pad;
  out.height = height + 2 * out.pad;
  // pyramid_blur's levels: halve (rounding up) until 1 x 1; an octave asking for more levels
  // than that blurs the 1 x 1 level, as pyramid_blur does.
  for (int l = 0, w = out.width, h = out.height; l < top && !(w == 1 && h == 1); ++l) {
    w = (w + 1) / 2;
    h = (h + 1) / 2;
    out.lw.push_back(w);
    out.lh.push_back(h);
  }
  if (out.levels() == 0) return false;  // a 1 x 1 padded frame (cannot happen with a margin > 0)
  for (const GlareOctave& o : octaves) {
    const int levels = static_cast<int>(std::lround(o.blur.get("levels")));
    out.octaves.push_back({std::min(levels, out.levels()), o.blur.get("coarse_sigma"), o.weight});
  }
  return true;
}

}  // namespace blur_impl

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

#endif  // TK_ISA_PRIMARY

TK_ISA_BEGIN
namespace {

// One colour channel of the shared-pyramid glare (blur/glare_pyramid.hpp): the bright plane
// (w x h) -> G_1 (level 1 of the padded frame), the weighted sum of the octaves' blurs.
std::vector<float> glare_pyramid_channel(const std::vector<float>& bright, int w, int h,
                                         const blur_impl::GlarePyramid& g) {
  using blur_impl::pyramid_down;
  const int n = g.levels();
  std::vector<std::vector<float>> level(n);
  {
    const std::vector<float> padded = blur_impl::pad_clamped(bright.data(), w, h, g.pad, g.pad);
    level[0] = pyramid_down(padded.data(), g.width, g.height, g.analysis);
  }
  for (int l = 1; l < n; ++l) level[l] = pyramid_down(level[l - 1].data(), g.lw[l - 1], g.lh[l - 1], g.analysis);
  // Each octave's coarse Gaussian on its level (all before the synthesis reuses nothing).
  std::vector<std::vector<float>> blurred(g.octaves.size());
  for (std::size_t k = 0; k < g.octaves.size(); ++k) {
    const int l = g.octaves[k].level - 1;
    blurred[k].resize(level[l].size());
    blur_impl::small_or_gaussian(level[l].data(), blurred[k].data(), g.lw[l], g.lh[l], g.octaves[k].coarse_sigma);
  }
  auto add_octaves = [&](std::vector<float>& sum, int l) {  // sum += w_k B_k for octaves at level l + 1, k ascending
    for (std::size_t k = 0; k < g.octaves.size(); ++k) {
      if (g.octaves[k].level != l + 1) continue;
      const float wk = g.octaves[k].weight;
      const std::vector<float>& b = blurred[k];
      for (std::size_t i = 0; i < sum.size(); ++i) sum[i] = blur_math::glare_accumulate(sum[i], wk, b[i]);
    }
  };
  std::vector<float> sum(level[n - 1].size(), 0.0f);
  add_octaves(sum, n - 1);
  for (int l = n - 2; l >= 0; --l) {
    std::vector<float> finer(static_cast<std::size_t>(g.lw[l]) * g.lh[l]);
    blur_impl::pyramid_up(sum.data(), g.lw[l + 1], g.lh[l + 1], finer.data(), g.lw[l], g.lh[l]);
    add_octaves(finer, l);
    sum.swap(finer);
  }
  return sum;
}

// image's colour channels += up(G_1) at (x + pad, y + pad): pyramid_up's synthesis evaluated at
// the frame's own pixels only (vertical first, then horizontal, as pyramid_up rounds it).
void add_glare_pyramid(Image& image, const std::vector<std::vector<float>>& sums, const blur_impl::GlarePyramid& g) {
  const int w = image.width, c = image.channels, cw = g.lw[0], chh = g.lh[0];
  const float near = static_cast<float>(blur_math::kSynthesisNear), far = static_cast<float>(blur_math::kSynthesisFar);
  cpu::parallel_rows(image.height, [&](int, int y0, int y1) {
    for (int y = y0; y < y1; ++y) {
      const int yy = y + g.pad, i = yy >> 1, j = std::clamp((yy & 1) ? i + 1 : i - 1, 0, chh - 1);
      for (std::size_t ch = 0; ch < sums.size(); ++ch) {
        const float* a = sums[ch].data() + static_cast<std::size_t>(i) * cw;
        const float* b = sums[ch].data() + static_cast<std::size_t>(j) * cw;
        for (int x = 0; x < w; ++x) {
          const int xx = x + g.pad, ci = xx >> 1, cj = std::clamp((xx & 1) ? ci + 1 : ci - 1, 0, cw - 1);
          const float vi = near * a[ci] + far * b[ci], vj = near * a[cj] + far * b[cj];
          float& v = image.pixels[(static_cast<std::size_t>(y) * w + x) * c + ch];
          v = v + (near * vi + far * vj);
        }
      }
    }
  });
}

}  // namespace

double glare_log_average(const Image& image) {
  const std::size_t n = static_cast<std::size_t>(image.width) * image.height;
  if (n == 0 || image.channels <= 0 || image.pixels.size() != n * image.channels) return 0.0;
  // Per-row sums on the worker threads, then the rows in order (as the device sums its key):
  // the same bits whatever the thread count.
  std::vector<double> rows(static_cast<std::size_t>(image.height));
  cpu::parallel_rows(image.height, [&](int, int y0, int y1) {
    for (int y = y0; y < y1; ++y) {
      const float* row = image.pixels.data() + static_cast<std::size_t>(y) * image.width * image.channels;
      double sum = 0.0;
      for (int x = 0; x < image.width; ++x)
        sum += blur_math::glare_log_term(blur_math::pixel_luminance(row + static_cast<std::size_t>(x) * image.channels, image.channels));
      rows[static_cast<std::size_t>(y)] = sum;
    }
  });
  double log_sum = 0.0;
  for (double r : rows) log_sum += r;
  return std::exp(log_sum / static_cast<double>(n));
}

Status apply_glare(Image& image, const GlareParams& p) {
  Result<std::vector<GlareOctave>> octaves = plan_glare(p, image);
  if (!octaves.ok()) return octaves.status();
  if (octaves->empty()) return {};
  const int w = image.width, h = image.height, c = image.channels;

  const int colour = blur_math::glare_colour_channels(c);  // alpha (4th channel) is left alone
  const std::size_t n = static_cast<std::size_t>(w) * h;
  const float t = static_cast<float>(p.threshold * TK_ISA_NS::glare_log_average(image));
  blur_impl::GlarePyramid shared;
  if (blur_impl::plan_glare_pyramid(*octaves, w, h, shared)) {
    std::vector<std::vector<float>> sums(colour);
    std::vector<float> bright(n);
    for (int ch = 0; ch < colour; ++ch) {
      cpu::parallel_rows(h, [&](int, int y0, int y1) {
        for (std::size_t i = static_cast<std::size_t>(y0) * w; i < static_cast<std::size_t>(y1) * w; ++i) {
          const float* px = image.pixels.data() + i * c;
          bright[i] = blur_math::glare_bright_sample(blur_math::glare_bright_factor(blur_math::pixel_luminance(px, c), t), px[ch]);
        }
      });
      sums[ch] = glare_pyramid_channel(bright, w, h, shared);
    }
    add_glare_pyramid(image, sums, shared);
    return {};
  }
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

TK_ISA_END

#if TK_ISA_PRIMARY
double glare_log_average(const Image& image) { TK_ISA_DISPATCH(glare_log_average(image)); }
Status apply_glare(Image& image, const GlareParams& p) { TK_ISA_DISPATCH(apply_glare(image, p)); }
#endif  // TK_ISA_PRIMARY

}  // namespace tonekit
