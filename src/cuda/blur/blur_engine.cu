// BlurEngine (include/tonekit/blur_cuda.hpp): resolve the plan into device scratch and weights
// once (create), then run each frame as a fixed sequence of launches (the dispatch layer).
// Border semantics follow the CPU reference exactly (blur_impl::clamped_border_padding,
// src/cpu/blur/methods.hpp): single-pass methods clamp on their own; pyramids, repeated boxes and diffusion
// run on the plane padded by blur_impl::clamped_border_padding(plan) replicated pixels, then crop;
// spreading pads by its radius.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cmath>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "api/cuda_entry.hpp"
#include "cpu/blur/methods.hpp"
#include "cuda/blur/blur_kernels.hpp"
#include "cuda/blur/fft_blur.hpp"
#include "cuda/check.hpp"
#include "cuda/device_allocations.hpp"
#include "cuda/tuning.hpp"
#include "tonekit/blur_cuda.hpp"

namespace tonekit {

using namespace gpu_blur;

// The transient planes of one engine: where each pointer lives and its offset in the block.
struct WorkspaceBinding {
  void** slot;
  std::size_t offset;
};
struct WorkspaceUser {
  std::vector<WorkspaceBinding> bindings;
  std::size_t bytes = 0;
};

struct BlurWorkspace::Impl {
  void* block = nullptr;
  std::size_t capacity = 0;
  std::vector<WorkspaceUser*> users;

  ~Impl() { cudaFree(block); }
  // Grows the block to `user`'s need if larger (rebinding every attached engine), binds it.
  Status attach(WorkspaceUser* user) {
    if (user->bytes > capacity) {
      void* grown = nullptr;
      TK_CUDA_CHECK(cudaMalloc(&grown, user->bytes));
      cudaFree(block);  // synchronises: no run of an attached engine is still using it
      block = grown;
      capacity = user->bytes;
      for (WorkspaceUser* u : users) bind(*u);
    }
    users.push_back(user);
    bind(*user);
    return {};
  }
  void detach(WorkspaceUser* user) { users.erase(std::remove(users.begin(), users.end(), user), users.end()); }
  void bind(const WorkspaceUser& u) const {
    for (const WorkspaceBinding& b : u.bindings) *b.slot = static_cast<unsigned char*>(block) + b.offset;
  }
};

BlurWorkspace::BlurWorkspace() : impl_(std::make_unique<Impl>()) {}
BlurWorkspace::~BlurWorkspace() = default;
std::size_t BlurWorkspace::bytes() const { return impl_->capacity; }

struct BlurEngine::Impl {
  BlurEngineConfig cfg;
  cuda::BlurTuning tuning;
  std::string id;
  int w = 0, h = 0, C = 0;
  int pad = 0, pw = 0, ph = 0;  // the working plane of the multi-pass methods
  cuda::DeviceAllocations memory;
  float* padded = nullptr;
  float* work_a = nullptr;
  float* work_b = nullptr;
  float* work_t = nullptr;
  // separable / gaussian; pyramid refinement (coarse_radius < 0: none)
  double* weights = nullptr;
  int radius = 0;
  bool fused = false;  // separable in one pass (tuning.separable_fused and the ring fits)
  int strip_chunk = 0;  // > 0: separable through the v3 strip kernel (tuning.separable_strips, RGBA, fits)
  SeparableBanding banding;  // separable / gaussian with tuning.separable_banded on a large frame
  // direct / reshuffle
  Kernel2D k2d;
  // pyramid
  Analysis4 analysis{};
  std::vector<int> lw, lh;
  std::vector<float*> levels;
  float* coarse_out = nullptr;
  float* coarse_tmp = nullptr;
  // repeated box
  std::vector<int> widths;
  bool use_sat = false;
  double* table = nullptr;
  // diffusion
  int iterations = 0;
  float c = 0.0f;
  // spreading
  int spread_r = 0;
  double* spread_tmp = nullptr;
  FftBlur fft;

  WorkspaceUser transient;  // with cfg.workspace: the planes below that live in it

  ~Impl() {
    fft_destroy(fft);
    if (cfg.workspace) cfg.workspace->impl_->detach(&transient);
  }
  // With a workspace: the transient planes bound into its block (after create()).
  Status attach_workspace() {
    if (cfg.workspace && !transient.bindings.empty()) return cfg.workspace->impl_->attach(&transient);
    return {};
  }

  template <class T>
  Status alloc(T** p, std::size_t n) {
    return memory.alloc(p, n);
  }
  // A transient plane: its contents do not outlive one run(), so with a workspace it shares the
  // workspace's block with the other engines (bound after create()); else an own allocation.
  template <class T>
  Status talloc(T** p, std::size_t n) {
    if (!cfg.workspace) return alloc(p, n);
    *p = nullptr;
    transient.bindings.push_back({reinterpret_cast<void**>(p), transient.bytes});
    transient.bytes += (std::max<std::size_t>(n, 1) * sizeof(T) + 255) / 256 * 256;
    return {};
  }
  std::size_t plane(int pw_, int ph_) const { return static_cast<std::size_t>(pw_) * ph_ * C; }

  // Separable weights (2r + 1 taps, zero-padded to the kernel's multiple) uploaded once.
  Status upload_weights(const std::vector<double>& k) {
    radius = static_cast<int>(k.size()) / 2;
    std::vector<double> taps(separable_taps(radius), 0.0);
    std::copy(k.begin(), k.end(), taps.begin());
    if (Status s = alloc(&weights, taps.size()); !s.ok()) return s;
    TK_CUDA_CHECK(cudaMemcpy(weights, taps.data(), taps.size() * sizeof(double), cudaMemcpyHostToDevice));
    return {};
  }

  // Direct: one group per offset (row-major, as the CPU loops); reshuffle: Porikli's linkage sets
  // (equal weights, ascending as the CPU's std::map), zero weights dropped.
  Status upload_kernel_2d(const BlurKernel2D& k, bool reshuffle) {
    std::vector<int2> offsets;
    std::vector<int> ends;
    std::vector<float> gw;
    const int r = k.radius;
    if (reshuffle) {
      std::map<float, std::vector<int2>> links;
      for (int dy = -r; dy <= r; ++dy)
        for (int dx = -r; dx <= r; ++dx)
          if (k.at(dx, dy) != 0.0f) links[k.at(dx, dy)].push_back(make_int2(dx, dy));
      for (const auto& [wt, offs] : links) {
        offsets.insert(offsets.end(), offs.begin(), offs.end());
        ends.push_back(static_cast<int>(offsets.size()));
        gw.push_back(wt);
      }
    } else {
      for (int dy = -r; dy <= r; ++dy)
        for (int dx = -r; dx <= r; ++dx) {
          offsets.push_back(make_int2(dx, dy));
          ends.push_back(static_cast<int>(offsets.size()));
          gw.push_back(k.at(dx, dy));
        }
    }
    int2* d_off = nullptr;
    int* d_end = nullptr;
    float* d_w = nullptr;
    if (Status s = alloc(&d_off, offsets.size()); !s.ok()) return s;
    if (Status s = alloc(&d_end, ends.size()); !s.ok()) return s;
    if (Status s = alloc(&d_w, gw.size()); !s.ok()) return s;
    TK_CUDA_CHECK(cudaMemcpy(d_off, offsets.data(), offsets.size() * sizeof(int2), cudaMemcpyHostToDevice));
    TK_CUDA_CHECK(cudaMemcpy(d_end, ends.data(), ends.size() * sizeof(int), cudaMemcpyHostToDevice));
    TK_CUDA_CHECK(cudaMemcpy(d_w, gw.data(), gw.size() * sizeof(float), cudaMemcpyHostToDevice));
    k2d = Kernel2D{r, static_cast<int>(gw.size()), d_off, d_end, d_w, offsets.size() == gw.size()};
    return {};
  }

  Status create() {
    const BlurPlan& p = cfg.plan;
    const bool pyramid = id.rfind("pyramid-", 0) == 0;
    pad = blur_impl::clamped_border_padding(p);
    pw = w + 2 * pad;
    ph = h + 2 * pad;
    auto truncate_radius = [&] { return blur_math::kernel_radius(p.sigma, p.get("truncate")); };
    if (id == "gaussian" || id == "separable") {
      const int r = truncate_radius();
      if (!separable_fits(r, C))
        return invalid_argument("cuda blur: radius " + std::to_string(r) + " too large for the separable kernels");
      if (Status s = upload_weights(blur_impl::gaussian_kernel_1d(p.sigma, r)); !s.ok()) return s;
      if (id == "separable" && tuning.separable_strips && !tuning.separable_fused && !tuning.separable_banded &&
          separable_strips_fit(r, C)) {
        auto chunk = separable_strips_chunk(w, h, r);
        if (!chunk.ok()) return chunk.status();
        strip_chunk = *chunk;
        return {};
      }
      fused = id == "separable" && tuning.separable_fused && separable_fused_fits(r, C, tuning.separable_fused_chunk);
      if (fused) return {};
      if (tuning.separable_banded)
        if (Status s = separable_banding_create(w, h, C, radius, memory, banding); !s.ok()) return s;
      return talloc(&work_t, banding.ring > 0 ? static_cast<std::size_t>(banding.ring) * w * C : plane(w, h));
    }
    if (id == "direct" || id == "reshuffle") return upload_kernel_2d(gaussian_kernel_2d(p.sigma, truncate_radius()), id == "reshuffle");
    if (id == "fft") return fft_create(w, h, C, gaussian_kernel_2d(p.sigma, truncate_radius()), fft);
    if (id == "spreading") {
      spread_r = static_cast<int>(std::lround(p.get("radius")));
      if (spread_r <= 1) return {};
      if (Status s = talloc(&padded, plane(w + 2 * spread_r, h + 2 * spread_r)); !s.ok()) return s;
      return talloc(&spread_tmp, static_cast<std::size_t>(w) * (h + 2 * spread_r) * C);
    }
    if (Status s = talloc(&padded, plane(pw, ph)); !s.ok()) return s;
    if (Status s = talloc(&work_a, plane(pw, ph)); !s.ok()) return s;
    if (pyramid) {
      const std::string_view a = id;
      const auto an = a == "pyramid-box2" ? blur_math::PyramidAnalysis::box2
                      : a == "pyramid-box4" ? blur_math::PyramidAnalysis::box4
                                            : blur_math::PyramidAnalysis::quasi;
      for (int t = 0; t < 4; ++t) analysis.w[t] = static_cast<float>(blur_math::analysis_weight(an, t));
      const int n = static_cast<int>(std::lround(p.get("levels")));
      levels.reserve(static_cast<std::size_t>(std::max(n, 0)));  // stable slots for talloc
      int fw = pw, fh = ph;
      for (int l = 0; l < n; ++l) {
        if (fw == 1 && fh == 1) break;
        fw = (fw + 1) / 2;
        fh = (fh + 1) / 2;
        levels.push_back(nullptr);
        if (Status s = talloc(&levels.back(), plane(fw, fh)); !s.ok()) return s;
        lw.push_back(fw);
        lh.push_back(fh);
      }
      const double cs = p.get("coarse_sigma");
      radius = -1;
      if (cs > 0.0) {
        if (cs < blur_math::kSmallSigma) {
          const double sw = blur_math::small_blur_side_weight(cs);
          if (Status s = upload_weights({sw, 1.0 - 2.0 * sw, sw}); !s.ok()) return s;
        } else {
          const int r = blur_math::kernel_radius(cs, 3.0);
          if (!separable_fits(r, C)) return invalid_argument("cuda blur: pyramid refinement radius too large");
          if (Status s = upload_weights(blur_impl::gaussian_kernel_1d(cs, r)); !s.ok()) return s;
        }
        const int cw = levels.empty() ? pw : lw.back(), chh = levels.empty() ? ph : lh.back();
        if (Status s = talloc(&coarse_out, plane(cw, chh)); !s.ok()) return s;
        if (Status s = talloc(&coarse_tmp, plane(cw, chh)); !s.ok()) return s;
      }
      return {};
    }
    if (id == "repeated-box") {
      widths = blur_impl::box_pass_widths(p);
      use_sat = std::lround(p.get("sat")) != 0;
      if (Status s = talloc(&work_b, plane(pw, ph)); !s.ok()) return s;
      if (use_sat) return talloc(&table, box_sat_table_doubles(pw, ph, C));
      return talloc(&work_t, plane(pw, ph));
    }
    if (id == "diffusion") {
      iterations = static_cast<int>(std::lround(p.get("iterations")));
      c = static_cast<float>(p.get("c"));
      return {};
    }
    return {StatusCode::unsupported, "cuda blur: no GPU dispatch for method '" + id + "'"};
  }

  Status pyramid_run(const float* src, float* dst, cudaStream_t s) {
    const bool refine = radius >= 0;
    auto coarse_blur = [&](const float* in, float* out, int cw, int chh) {
      return separable(in, coarse_tmp, out, cw, chh, C, weights, radius, false, s);
    };
    if (levels.empty()) {
      if (refine) return coarse_blur(src, dst, pw, ph);
      return copy_plane(src, dst, pw, ph, C, s);
    }
    const float* fine = src;
    int fw = pw, fh = ph;
    for (std::size_t l = 0; l < levels.size(); ++l) {
      if (Status st = pyramid_down(fine, fw, fh, levels[l], C, analysis, s); !st.ok()) return st;
      fine = levels[l];
      fw = lw[l];
      fh = lh[l];
    }
    const float* top = levels.back();
    if (refine) {
      if (Status st = coarse_blur(top, coarse_out, lw.back(), lh.back()); !st.ok()) return st;
      top = coarse_out;
    }
    for (std::size_t l = levels.size() - 1; l > 0; --l) {
      if (Status st = pyramid_up(top, lw[l], lh[l], levels[l - 1], lw[l - 1], lh[l - 1], C, s); !st.ok()) return st;
      top = levels[l - 1];
    }
    return pyramid_up(top, lw[0], lh[0], dst, pw, ph, C, s);
  }

  Status run(const float* in, float* out, cudaStream_t s) {
    if (id == "separable" && strip_chunk > 0) return separable_strips(in, out, w, h, weights, radius, strip_chunk, s);
    if (id == "separable" && fused)
      return separable_fused(in, out, w, h, C, weights, radius, s, tuning.separable_fused_strip, tuning.separable_fused_chunk);
    if (id == "gaussian" || id == "separable")
      return separable(in, work_t, out, w, h, C, weights, radius, id == "gaussian", s, &banding);
    if (id == "direct" || id == "reshuffle") return convolve_2d(in, out, w, h, C, k2d, s);
    if (id == "fft") return fft_run(fft, in, out, s);
    if (id == "spreading") {
      if (spread_r <= 1) return copy_plane(in, out, w, h, C, s);
      if (Status st = pad_clamped(in, w, h, spread_r, padded, C, s); !st.ok()) return st;
      return spreading(padded, spread_tmp, out, w, h, C, spread_r, s);
    }
    if (Status st = pad_clamped(in, w, h, pad, padded, C, s); !st.ok()) return st;
    const float* result = nullptr;
    if (id.rfind("pyramid-", 0) == 0) {
      if (Status st = pyramid_run(padded, work_a, s); !st.ok()) return st;
      result = work_a;
    } else if (id == "repeated-box") {
      const float* cur = padded;
      float* bufs[2] = {work_a, work_b};
      int next = 0;
      for (int width : widths) {
        if (width <= 1) continue;
        Status st = use_sat ? box_sat(cur, table, bufs[next], pw, ph, C, width, s)
                            : box_running(cur, work_t, bufs[next], pw, ph, C, width, s);
        if (!st.ok()) return st;
        cur = bufs[next];
        next ^= 1;
      }
      result = cur;
    } else {  // diffusion: in place on the padded copy, ping-pong with work_a
      float* r = nullptr;
      if (Status st = diffusion(padded, work_a, pw, ph, C, iterations, c, &r, s); !st.ok()) return st;
      result = r;
    }
    return crop(result, pw, pad, out, w, h, C, s);
  }
};

BlurEngine::BlurEngine(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
BlurEngine::~BlurEngine() = default;

struct cuda::BlurEngineAccess {
  static Result<std::unique_ptr<BlurEngine>> create(const BlurEngineConfig& config, const BlurTuning& tuning) {
    if (!config.plan.method) return invalid_argument("cuda blur: empty plan (use plan_blur)");
    if (config.width <= 0 || config.height <= 0 || static_cast<std::int64_t>(config.width) * config.height > kMaxImagePixels)
      return invalid_argument("cuda blur: image size out of range");
    if (config.channels != 1 && config.channels != 4)
      return invalid_argument("cuda blur: 1 or 4 channels, got " + std::to_string(config.channels));
    if (tuning.separable_fused &&
        ((tuning.separable_fused_chunk != 16 && tuning.separable_fused_chunk != 32) || tuning.separable_fused_strip <= 0 ||
         tuning.separable_fused_strip % tuning.separable_fused_chunk != 0))
      return invalid_argument("cuda blur: separable_fused_chunk must be 16 or 32 and separable_fused_strip a positive multiple of it");
    if (Status s = cuda::select_device(config.device, "cuda blur"); !s.ok()) return s;
    auto impl = std::make_unique<BlurEngine::Impl>();
    impl->cfg = config;
    impl->tuning = tuning;
    impl->id = config.plan.method->id;
    impl->w = config.width;
    impl->h = config.height;
    impl->C = config.channels;
    if (Status s = impl->create(); !s.ok()) return s;
    if (Status s = impl->attach_workspace(); !s.ok()) return s;
    return std::unique_ptr<BlurEngine>(new BlurEngine(std::move(impl)));
  }
};

Result<std::unique_ptr<BlurEngine>> BlurEngine::create(const BlurEngineConfig& config) {
  return cuda::BlurEngineAccess::create(config, cuda::BlurTuning{});
}

Result<std::unique_ptr<BlurEngine>> cuda::create_blur_engine(const BlurEngineConfig& config, const BlurTuning& tuning) {
  return BlurEngineAccess::create(config, tuning);
}

Status BlurEngine::run(const float* device_in, float* device_out, CUstream_st* stream) {
  if (!device_in || !device_out || device_in == device_out)
    return invalid_argument("cuda blur: input and output must be distinct, non-null device buffers");
  // RGBA kernels move whole float4 pixels (16-byte loads, stores and cp.async copies).
  const std::uintptr_t align = impl_->C == 4 ? 16u : alignof(float);
  if (reinterpret_cast<std::uintptr_t>(device_in) % align != 0 || reinterpret_cast<std::uintptr_t>(device_out) % align != 0)
    return invalid_argument("cuda blur: device buffers must be " + std::to_string(align) + "-byte aligned for " +
                            std::to_string(impl_->C) + " channels (cudaMalloc's are)");
  return impl_->run(device_in, device_out, stream);
}

const BlurEngineConfig& BlurEngine::config() const { return impl_->cfg; }
std::size_t BlurEngine::scratch_bytes() const { return impl_->memory.bytes() + impl_->fft.bytes; }
std::size_t BlurEngine::floor_bytes() const {
  return 2 * sizeof(float) * static_cast<std::size_t>(impl_->w) * impl_->h * impl_->C;
}

Result<Image> cuda_entry::blur_host(const Image& in, const BlurPlan& plan) {
  const int w = in.width, h = in.height, c = in.channels;
  if (c <= 0 || in.pixels.size() != static_cast<std::size_t>(w) * h * c)
    return invalid_argument("cuda blur: image has no pixels or an inconsistent size");
  if (c < 1 || c > 4) return invalid_argument("cuda blur: 1 to 4 channels, got " + std::to_string(c));
  const int dc = c == 1 ? 1 : 4;  // 2 and 3 channels travel as RGBA (the rest 0, dropped again)
  BlurEngineConfig cfg;
  cfg.width = w;
  cfg.height = h;
  cfg.channels = dc;
  cfg.plan = plan;
  auto engine = BlurEngine::create(cfg);
  if (!engine.ok()) return engine.status();
  const std::size_t n = static_cast<std::size_t>(w) * h;
  std::vector<float> host;
  const float* src = in.pixels.data();
  if (c == 2 || c == 3) {
    host.assign(n * 4, 0.0f);
    for (std::size_t i = 0; i < n; ++i)
      for (int k = 0; k < c; ++k) host[i * 4 + k] = in.pixels[i * c + k];
    src = host.data();
  }
  cuda::DeviceBuffer<float> din, dout;
  TK_CUDA_CHECK(cudaMalloc(&din.p, n * dc * sizeof(float)));
  TK_CUDA_CHECK(cudaMalloc(&dout.p, n * dc * sizeof(float)));
  TK_CUDA_CHECK(cudaMemcpy(din.p, src, n * dc * sizeof(float), cudaMemcpyHostToDevice));
  if (Status s = (*engine)->run(din.p, dout.p, nullptr); !s.ok()) return s;
  Image out(w, h, c);
  out.meta = in.meta;
  if (c == 2 || c == 3) {
    TK_CUDA_CHECK(cudaMemcpy(host.data(), dout.p, n * 4 * sizeof(float), cudaMemcpyDeviceToHost));
    for (std::size_t i = 0; i < n; ++i)
      for (int k = 0; k < c; ++k) out.pixels[i * c + k] = host[i * 4 + k];
  } else {
    TK_CUDA_CHECK(cudaMemcpy(out.pixels.data(), dout.p, n * dc * sizeof(float), cudaMemcpyDeviceToHost));
  }
  return out;
}

}  // namespace tonekit
