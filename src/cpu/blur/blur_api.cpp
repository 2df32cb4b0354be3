// plan_blur (validate once at the boundary, resolve auto parameters from sigma) and
// the dispatch from a plan to the method's plane function (methods.hpp).
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <stdexcept>
#include <string>

#include "cpu/blur/methods.hpp"
#include "cpu/parallel.hpp"

namespace tonekit {
namespace {

using blur_math::PyramidAnalysis;

bool parse_double(std::string_view text, double& v) {
  std::string s(text);
  char* end = nullptr;
  v = std::strtod(s.c_str(), &end);
  return !s.empty() && end == s.c_str() + s.size() && std::isfinite(v);
}

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

bool is_pyramid(std::string_view id) { return id.substr(0, 8) == "pyramid-"; }

void set_value(BlurPlan& p, const std::string& name, double v) {
  for (auto& [n, value] : p.values)
    if (n == name) {
      value = v;
      return;
    }
  p.values.emplace_back(name, v);
}

int geti(const BlurPlan& p, std::string_view name) { return static_cast<int>(std::lround(p.get(name))); }

BlurKernel2D plan_kernel(const BlurPlan& p) {
  return gaussian_kernel_2d(p.sigma, blur_math::kernel_radius(p.sigma, p.get("truncate")));
}

std::vector<int> box_widths(const BlurPlan& p) {
  std::vector<int> widths;
  const int lower_passes = geti(p, "lower_passes"), passes = geti(p, "passes");
  for (int i = 0; i < passes; ++i) widths.push_back(i < lower_passes ? geti(p, "lower") : geti(p, "upper"));
  return widths;
}

// Multi-pass methods (pyramid, repeated box, diffusion) clamp at the border on every pass (or
// reflect, for diffusion's zero-flux stencil), which is not the clamped border of their combined
// kernel: a second pass sees the blurred edge, not the replicated input. Running them on the plane
// padded with replicated pixels out to the kernel's support (a 3-sigma margin: 99.7 % of the
// mass) and cropping gives every method the same border semantics as the exact Gaussian; it
// costs (w + 2R)(h + 2R) / wh, e.g. 1.5x at 512x512, sigma 12.
int support_radius(const BlurPlan& p) {
  const std::string_view id = p.method->id;
  double s = p.sigma;
  if (is_pyramid(id)) {
    const double reached = blur_math::pyramid_sigma(blur_impl::pyramid_analysis(id), geti(p, "levels"));
    const double coarse = p.get("coarse_sigma") * std::ldexp(1.0, geti(p, "levels"));
    s = std::sqrt(reached * reached + coarse * coarse);
  } else if (id == "repeated-box") {
    double var = 0.0;
    for (int width : box_widths(p)) var += blur_math::box_variance(width);
    s = std::sqrt(var);
  } else if (id == "diffusion") {
    s = std::sqrt(2.0 * p.get("c") * p.get("iterations"));
  }
  return static_cast<int>(std::ceil(3.0 * s));
}

template <class F>
void with_clamped_border(const float* in, float* out, int w, int h, int pad, F&& f) {
  if (pad <= 0) {
    f(in, out, w, h);
    return;
  }
  const int pw = w + 2 * pad, ph = h + 2 * pad;
  const std::vector<float> padded = blur_impl::pad_clamped(in, w, h, pad, pad);
  std::vector<float> result(padded.size());
  f(padded.data(), result.data(), pw, ph);
  for (int y = 0; y < h; ++y) {
    const float* src = result.data() + static_cast<std::size_t>(y + pad) * pw + pad;
    std::copy(src, src + w, out + static_cast<std::size_t>(y) * w);
  }
}

// One plane (every method but fft, which runs its planes together).
void run_plane(const float* in, float* out, int w, int h, const BlurPlan& p) {
  using namespace blur_impl;
  const std::string_view id = p.method->id;
  if (id == "gaussian") {
    separable_convolve_f64(in, out, w, h, gaussian_kernel_1d(p.sigma, blur_math::kernel_radius(p.sigma, p.get("truncate"))));
  } else if (id == "separable") {
    separable_convolve(in, out, w, h, gaussian_kernel_1d(p.sigma, blur_math::kernel_radius(p.sigma, p.get("truncate"))));
  } else if (id == "direct") {
    direct_convolve(in, out, w, h, plan_kernel(p));
  } else if (id == "reshuffle") {
    reshuffle_convolve(in, out, w, h, plan_kernel(p));
  } else if (id == "fft") {
    fft_convolve({in}, {out}, w, h, plan_kernel(p));
  } else if (is_pyramid(id)) {
    with_clamped_border(in, out, w, h, support_radius(p), [&](const float* pin, float* pout, int pw, int ph) {
      pyramid_blur(pin, pout, pw, ph, blur_impl::pyramid_analysis(id), geti(p, "levels"), p.get("coarse_sigma"));
    });
  } else if (id == "spreading") {
    spreading_blur(in, out, w, h, geti(p, "radius"));  // pads by r itself
  } else if (id == "repeated-box") {
    with_clamped_border(in, out, w, h, support_radius(p), [&](const float* pin, float* pout, int pw, int ph) {
      repeated_box(pin, pout, pw, ph, box_widths(p), geti(p, "sat") != 0);
    });
  } else if (id == "diffusion") {
    with_clamped_border(in, out, w, h, support_radius(p), [&](const float* pin, float* pout, int pw, int ph) {
      diffusion_blur(pin, pout, pw, ph, geti(p, "iterations"), p.get("c"));
    });
  } else {
    throw std::logic_error("blur method without dispatch: " + std::string(id));
  }
}

Status check_size(int w, int h) {
  if (w <= 0 || h <= 0 || static_cast<std::int64_t>(w) * h > kMaxImagePixels || w > kMaxImageSide || h > kMaxImageSide)
    return invalid_argument("blur: image size " + std::to_string(w) + "x" + std::to_string(h) + " out of range");
  return {};
}

Status check_plane_args(const void* in, const void* out, int w, int h) {
  if (Status s = check_size(w, h); !s.ok()) return s;
  if (!in || !out || in == out) return invalid_argument("blur: input and output must be distinct, non-null planes");
  return {};
}

template <class F>
Status guarded(F&& f) {
  try {
    f();
  } catch (const std::bad_alloc&) {
    return Status{StatusCode::out_of_memory, "blur: out of memory"};
  } catch (const std::exception& e) {
    return Status{StatusCode::runtime_error, std::string("blur: ") + e.what()};
  }
  return {};
}

}  // namespace

double BlurPlan::get(std::string_view name) const {
  for (const auto& [n, v] : values)
    if (n == name) return v;
  std::fprintf(stderr, "tonekit: BlurPlan::get: no parameter '%.*s'\n", static_cast<int>(name.size()), name.data());
  std::abort();
}

std::string BlurPlan::describe() const {
  std::string s;
  for (const auto& [n, v] : values) s += (s.empty() ? "" : " ") + n + "=" + number(v);
  return s;
}

Result<BlurPlan> plan_blur(std::string_view method, double sigma, const BlurSettings& settings) {
  const BlurMethodDesc* m = find_blur_method(method);
  if (!m) {
    std::string ids;
    for (const BlurMethodDesc* d : all_blur_methods()) ids += (ids.empty() ? "" : ", ") + std::string(d->id);
    return invalid_argument("unknown blur method '" + std::string(method) + "' (known: " + ids + ")");
  }
  if (!std::isfinite(sigma) || sigma < 0.0 || sigma > 1000.0)
    return invalid_argument("blur: sigma " + number(sigma) + " out of range [0, 1000]");
  BlurPlan p;
  p.method = m;
  p.sigma = sigma;
  std::vector<bool> given(m->params.size(), false);
  for (const ParamDesc& d : m->params) p.values.emplace_back(d.name, d.default_value);
  for (const auto& [name, text] : settings) {
    std::size_t i = 0;
    while (i < m->params.size() && name != m->params[i].name) ++i;
    if (i == m->params.size()) {
      std::string names;
      for (const ParamDesc& d : m->params) names += (names.empty() ? "" : ", ") + std::string(d.name);
      return invalid_argument("blur method '" + std::string(m->id) + "' has no parameter '" + name + "' (it has: " +
                              names + ")");
    }
    const ParamDesc& d = m->params[i];
    double v;
    if (!parse_double(text, v)) return invalid_argument("blur: " + name + "=" + text + ": not a number");
    if (v < d.min_value || v > d.max_value)
      return invalid_argument("blur: " + name + "=" + text + " out of range [" + number(d.min_value) + ", " +
                              number(d.max_value) + "]");
    if (d.integer && v != std::floor(v)) return invalid_argument("blur: " + name + "=" + text + ": a whole number");
    p.values[i].second = v;
    given[i] = true;
  }
  auto is_given = [&](const char* name) {
    for (std::size_t i = 0; i < m->params.size(); ++i)
      if (given[i] && std::string_view(m->params[i].name) == name) return true;
    return false;
  };
  auto need_sigma = [&](const char* what) -> Status {
    if (sigma > 0.0) return {};
    return invalid_argument("blur: method '" + std::string(m->id) + "' needs sigma > 0" +
                            (what ? std::string(" or an explicit ") + what : std::string()));
  };

  const std::string_view id = m->id;
  if (!m->params.empty() && std::string_view(m->params[0].name) == "truncate") {
    if (Status s = need_sigma(nullptr); !s.ok()) return s;
  } else if (is_pyramid(id)) {
    const PyramidAnalysis a = blur_impl::pyramid_analysis(id);
    const bool refine = p.get("refine") != 0.0;
    if (!is_given("levels")) {
      if (Status s = need_sigma("levels"); !s.ok()) return s;
      set_value(p, "levels", blur_math::pyramid_levels(a, sigma, refine));
    }
    const int levels = geti(p, "levels");
    const double reached = blur_math::pyramid_sigma(a, levels);
    double coarse = 0.0;
    if (refine && sigma > reached) coarse = std::sqrt(sigma * sigma - reached * reached) / std::ldexp(1.0, levels);
    set_value(p, "coarse_sigma", coarse);
  } else if (id == "spreading") {
    if (!is_given("radius")) {
      if (Status s = need_sigma("radius"); !s.ok()) return s;
      set_value(p, "radius", blur_math::spreading_radius(sigma));
    }
    if (geti(p, "radius") < 1) return invalid_argument("blur: spreading radius must be >= 1");
  } else if (id == "repeated-box") {
    const int passes = geti(p, "passes");
    if (is_given("width")) {
      const int width = geti(p, "width");
      if (width % 2 == 0) return invalid_argument("blur: repeated-box width must be odd, got " + std::to_string(width));
      set_value(p, "lower", width);
      set_value(p, "upper", width);
      set_value(p, "lower_passes", passes);
    } else {
      if (Status s = need_sigma("width"); !s.ok()) return s;
      const blur_math::BoxWidths b = blur_math::kovesi_box_widths(sigma, passes);
      set_value(p, "lower", b.lower);
      set_value(p, "upper", b.upper);
      set_value(p, "lower_passes", b.lower_passes);
    }
  } else if (id == "diffusion") {
    if (!is_given("iterations")) {
      if (Status s = need_sigma("iterations"); !s.ok()) return s;
      const int t = blur_math::diffusion_iterations(sigma, p.get("c"));
      if (t > 1000000)
        return invalid_argument("blur: diffusion needs " + std::to_string(t) + " steps for sigma " + number(sigma) +
                                " (at most 1000000); use a pyramid, fft or repeated-box");
      set_value(p, "iterations", t);
      set_value(p, "c", blur_math::diffusion_c(sigma, t));
    }
  }
  return p;
}

BlurKernel2D gaussian_kernel_2d(double sigma, int radius) {
  BlurKernel2D k;
  k.radius = radius;
  const int side = 2 * radius + 1;
  std::vector<double> v(static_cast<std::size_t>(side) * side);
  double sum = 0.0;
  for (int dy = -radius; dy <= radius; ++dy)
    for (int dx = -radius; dx <= radius; ++dx)
      sum += v[static_cast<std::size_t>(dy + radius) * side + dx + radius] = blur_math::gaussian_weight_2d(dx, dy, sigma);
  k.weights.resize(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) k.weights[i] = static_cast<float>(v[i] / sum);
  return k;
}

Status convolve_plane(const float* in, float* out, int w, int h, const BlurKernel2D& kernel, std::string_view method) {
  if (Status s = check_plane_args(in, out, w, h); !s.ok()) return s;
  const int side = 2 * kernel.radius + 1;
  if (kernel.radius < 0 || kernel.weights.size() != static_cast<std::size_t>(side) * side)
    return invalid_argument("convolve_plane: kernel needs (2 radius + 1)^2 weights");
  if (method == "direct") return guarded([&] { blur_impl::direct_convolve(in, out, w, h, kernel); });
  if (method == "reshuffle") return guarded([&] { blur_impl::reshuffle_convolve(in, out, w, h, kernel); });
  if (method == "fft") return guarded([&] { blur_impl::fft_convolve({in}, {out}, w, h, kernel); });
  return invalid_argument("convolve_plane: method '" + std::string(method) + "' takes no kernel (direct, fft, reshuffle do)");
}

Status blur_plane(const float* in, float* out, int w, int h, const BlurPlan& plan) {
  if (!plan.method) return invalid_argument("blur: empty plan (use plan_blur)");
  if (Status s = check_plane_args(in, out, w, h); !s.ok()) return s;
  return guarded([&] { run_plane(in, out, w, h, plan); });
}

Result<Image> blur(const Image& in, const BlurPlan& plan) {
  if (!plan.method) return invalid_argument("blur: empty plan (use plan_blur)");
  if (in.channels <= 0 || in.pixels.size() != static_cast<std::size_t>(in.width) * in.height * in.channels)
    return invalid_argument("blur: image has no pixels or an inconsistent size");
  if (Status s = check_size(in.width, in.height); !s.ok()) return s;
  Image out;
  Status st = guarded([&] {
    const int w = in.width, h = in.height, c = in.channels;
    const std::size_t n = static_cast<std::size_t>(w) * h;
    out = Image(w, h, c);
    out.meta = in.meta;
    if (c == 1) {  // planar already
      run_plane(in.pixels.data(), out.pixels.data(), w, h, plan);
      return;
    }
    // Channel by channel through two reused plane buffers (threaded strided copies): the
    // allocations, not the copies, dominated (first-touch page faults of fresh 1 MB planes).
    auto deinterleave = [&](int ch, float* plane) {
      cpu::parallel_rows(h, [&](int, int y0, int y1) {
        for (std::size_t i = static_cast<std::size_t>(y0) * w; i < static_cast<std::size_t>(y1) * w; ++i)
          plane[i] = in.pixels[i * c + ch];
      });
    };
    auto interleave = [&](int ch, const float* plane) {
      cpu::parallel_rows(h, [&](int, int y0, int y1) {
        for (std::size_t i = static_cast<std::size_t>(y0) * w; i < static_cast<std::size_t>(y1) * w; ++i)
          out.pixels[i * c + ch] = plane[i];
      });
    };
    if (std::string_view(plan.method->id) == "fft") {  // all channels at once, in parallel
      std::vector<float> src(n * c), dst(n * c);
      std::vector<const float*> ins;
      std::vector<float*> outs;
      for (int ch = 0; ch < c; ++ch) {
        deinterleave(ch, src.data() + ch * n);
        ins.push_back(src.data() + ch * n);
        outs.push_back(dst.data() + ch * n);
      }
      blur_impl::fft_convolve(ins, outs, w, h, plan_kernel(plan));
      for (int ch = 0; ch < c; ++ch) interleave(ch, dst.data() + ch * n);
      return;
    }
    std::vector<float> src(n), dst(n);
    for (int ch = 0; ch < c; ++ch) {
      deinterleave(ch, src.data());
      run_plane(src.data(), dst.data(), w, h, plan);
      interleave(ch, dst.data());
    }
  });
  if (!st.ok()) return st;
  return out;
}

Result<Image> blur(const Image& in, std::string_view method, double sigma, const BlurSettings& settings) {
  Result<BlurPlan> plan = plan_blur(method, sigma, settings);
  if (!plan.ok()) return plan.status();
  return blur(in, *plan);
}

namespace blur_impl {

blur_math::PyramidAnalysis pyramid_analysis(std::string_view id) {
  if (id == "pyramid-box2") return blur_math::PyramidAnalysis::box2;
  if (id == "pyramid-box4") return blur_math::PyramidAnalysis::box4;
  return blur_math::PyramidAnalysis::quasi;
}

int clamped_border_padding(const BlurPlan& plan) {
  const std::string_view id = plan.method->id;
  return (is_pyramid(id) || id == "repeated-box" || id == "diffusion") ? support_radius(plan) : 0;
}

std::vector<int> box_pass_widths(const BlurPlan& plan) { return box_widths(plan); }

}  // namespace blur_impl
}  // namespace tonekit
