// FFT convolution (seed 3.4) with FFTW (single precision, real-to-complex).
//
// Clamped borders with a cyclic transform: the plane is padded with replicated edges to at
// least (w + 2r) x (h + 2r), rounded up to a size FFTW handles fast (2^a 3^b 5^c 7^d), so no
// output pixel's window wraps around; the kernel is placed with its centre at (0, 0), wrapped
// (the seed's Figure 3.6). Cost O(N log N), independent of the kernel size.
//
// Built without FFTW (TONEKIT_HAS_FFTW unset: CMake did not find fftw3f), the same convolution is
// computed directly (identical result, O(r^2) per pixel), so every method stays available.
#include "cpu/blur/methods.hpp"
#include "cpu/parallel.hpp"

#if !defined(TONEKIT_HAS_FFTW)
namespace tonekit::blur_impl {
void fft_convolve(const std::vector<const float*>& in, const std::vector<float*>& out, int w, int h,
                  const BlurKernel2D& k) {
  for (std::size_t p = 0; p < in.size(); ++p) direct_convolve(in[p], out[p], w, h, k);
}
}  // namespace tonekit::blur_impl
#else
#include <fftw3.h>

#include <algorithm>
#include <complex>
#include <mutex>
#include <stdexcept>

namespace tonekit::blur_impl {
namespace {

// FFTW's planner is not thread-safe; execution with new arrays is.
std::mutex& planner_mutex() {
  static std::mutex m;
  return m;
}

struct FftwBuffer {
  explicit FftwBuffer(std::size_t bytes) : p(fftwf_malloc(bytes)) {
    if (!p) throw std::bad_alloc();
  }
  ~FftwBuffer() { fftwf_free(p); }
  FftwBuffer(const FftwBuffer&) = delete;
  FftwBuffer& operator=(const FftwBuffer&) = delete;
  void* p;
};

}  // namespace

void fft_convolve(const std::vector<const float*>& in, const std::vector<float*>& out, int w, int h,
                  const BlurKernel2D& k) {
  const int r = k.radius;
  const int W = blur_math::fft_friendly(w + 2 * r), H = blur_math::fft_friendly(h + 2 * r);
  const int Wc = W / 2 + 1;  // r2c output width
  const std::size_t real_n = static_cast<std::size_t>(W) * H, cplx_n = static_cast<std::size_t>(Wc) * H;

  FftwBuffer kreal(sizeof(float) * real_n), kspec(sizeof(fftwf_complex) * cplx_n);
  fftwf_plan fwd, inv;
  {
    std::lock_guard<std::mutex> lock(planner_mutex());
    fwd = fftwf_plan_dft_r2c_2d(H, W, static_cast<float*>(kreal.p), static_cast<fftwf_complex*>(kspec.p),
                                FFTW_ESTIMATE);
    inv = fftwf_plan_dft_c2r_2d(H, W, static_cast<fftwf_complex*>(kspec.p), static_cast<float*>(kreal.p),
                                FFTW_ESTIMATE);
  }
  // The kernel, centre at (0, 0), negative offsets wrapped; the 1 / (W H) of the unnormalised
  // inverse is folded in here.
  float* kr = static_cast<float*>(kreal.p);
  std::fill(kr, kr + real_n, 0.0f);
  const float norm = 1.0f / static_cast<float>(real_n);
  for (int dy = -r; dy <= r; ++dy)
    for (int dx = -r; dx <= r; ++dx)
      kr[static_cast<std::size_t>((dy + H) % H) * W + (dx + W) % W] = k.at(-dx, -dy) * norm;  // correlation
  fftwf_execute_dft_r2c(fwd, kr, static_cast<fftwf_complex*>(kspec.p));
  const auto* ks = reinterpret_cast<const std::complex<float>*>(kspec.p);

  const int planes = static_cast<int>(in.size());
  cpu::parallel_rows(planes, [&](int, int p0, int p1) {
    FftwBuffer real(sizeof(float) * real_n), spec(sizeof(fftwf_complex) * cplx_n);
    float* re = static_cast<float*>(real.p);
    auto* sp = static_cast<fftwf_complex*>(spec.p);
    for (int p = p0; p < p1; ++p) {
      // Replicated-edge padding: pixel (X, Y) of the padded plane is in(clamp(X - r), clamp(Y - r)).
      for (int Y = 0; Y < H; ++Y) {
        const float* src = in[p] + static_cast<std::size_t>(std::clamp(Y - r, 0, h - 1)) * w;
        float* dst = re + static_cast<std::size_t>(Y) * W;
        for (int X = 0; X < W; ++X) dst[X] = src[std::clamp(X - r, 0, w - 1)];
      }
      fftwf_execute_dft_r2c(fwd, re, sp);
      auto* s = reinterpret_cast<std::complex<float>*>(sp);
      for (std::size_t i = 0; i < cplx_n; ++i) s[i] *= ks[i];
      fftwf_execute_dft_c2r(inv, sp, re);
      for (int y = 0; y < h; ++y)
        std::copy(re + static_cast<std::size_t>(y + r) * W + r, re + static_cast<std::size_t>(y + r) * W + r + w,
                  out[p] + static_cast<std::size_t>(y) * w);
    }
  });
  std::lock_guard<std::mutex> lock(planner_mutex());
  fftwf_destroy_plan(fwd);
  fftwf_destroy_plan(inv);
}

}  // namespace tonekit::blur_impl
#endif  // TONEKIT_HAS_FFTW
