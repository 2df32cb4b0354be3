// FFT convolution with cuFFT: replicated-edge padding and deinterleaving into C real planes in
// one kernel, a batched R2C transform, the product with the kernel's spectrum, a batched C2R,
// crop and interleave in one kernel. Same padded size and kernel placement as the CPU's FFTW
// path (src/cpu/blur/fft.cpp): centre at (0, 0), negative offsets wrapped, correlation.
#include "cuda/blur/fft_blur.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "cpu/blur/blur_math.hpp"
#include "cuda/blur/pixel.cuh"
#include "cuda/check.hpp"
#include "cuda/cufft_api.hpp"

namespace tonekit::gpu_blur {
namespace {

using cuda::cufft;
using cuda::CufftApi;

template <int C>
__global__ void pad_planar_kernel(const float* __restrict__ in, int w, int h, int r, float* __restrict__ real, int W,
                                  int H) {
  const int X = blockIdx.x * blockDim.x + threadIdx.x, Y = blockIdx.y * blockDim.y + threadIdx.y;
  if (X >= W || Y >= H) return;
  const Pix<C, float> p =
      load_pix<C>(in + (static_cast<size_t>(clampi(Y - r, 0, h - 1)) * w + clampi(X - r, 0, w - 1)) * C);
  const size_t plane = static_cast<size_t>(W) * H, i = static_cast<size_t>(Y) * W + X;
#pragma unroll
  for (int c = 0; c < C; ++c) real[c * plane + i] = p.v[c];
}

__global__ void multiply_spectrum_kernel(float2* __restrict__ spec, const float2* __restrict__ k, size_t n,
                                         int planes) {
  const size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float2 b = k[i];
  for (int p = 0; p < planes; ++p) {
    float2& a = spec[p * n + i];
    a = make_float2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
  }
}

template <int C>
__global__ void crop_interleave_kernel(const float* __restrict__ real, int W, int H, int r, float* __restrict__ out,
                                       int w, int h) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  const size_t plane = static_cast<size_t>(W) * H, i = static_cast<size_t>(y + r) * W + x + r;
  Pix<C, float> p;
#pragma unroll
  for (int c = 0; c < C; ++c) p.v[c] = real[c * plane + i];
  store_pix<C, float>(out + (static_cast<size_t>(y) * w + x) * C, p);
}

Status make_plan(int* handle, int W, int H, int batch, cufftType type) {
  int n[2] = {H, W};
  cufftHandle h = 0;
  TK_CUFFT(cufft().plan_many(&h, 2, n, nullptr, 1, 0, nullptr, 1, 0, type, batch), "cufftPlanMany");
  *handle = static_cast<int>(h);
  return {};
}

}  // namespace

Status fft_create(int w, int h, int channels, const BlurKernel2D& k, FftBlur& f) {
  const CufftApi& api = cufft();
  if (!api.ok) return {StatusCode::unsupported, "cuda blur fft: " + api.why};
  f.w = w;
  f.h = h;
  f.channels = channels;
  f.radius = k.radius;
  const int r = k.radius;
  f.W = blur_math::fft_friendly(w + 2 * r);
  f.H = blur_math::fft_friendly(h + 2 * r);
  const size_t real_n = static_cast<size_t>(f.W) * f.H, cplx_n = static_cast<size_t>(f.W / 2 + 1) * f.H;
  TK_CUDA_CHECK(cudaMalloc(&f.real, sizeof(float) * real_n * channels));
  TK_CUDA_CHECK(cudaMalloc(&f.spec, sizeof(float2) * cplx_n * channels));
  TK_CUDA_CHECK(cudaMalloc(&f.kernel_spec, sizeof(float2) * cplx_n));
  f.bytes = sizeof(float) * real_n * channels + sizeof(float2) * cplx_n * (channels + 1);
  if (Status s = make_plan(&f.fwd, f.W, f.H, channels, CUFFT_R2C); !s.ok()) return s;
  if (Status s = make_plan(&f.inv, f.W, f.H, channels, CUFFT_C2R); !s.ok()) return s;
  // The kernel's spectrum through a one-plane plan (as the CPU: 1 / (W H) folded into the taps).
  std::vector<float> kr(real_n, 0.0f);
  const float norm = 1.0f / static_cast<float>(real_n);
  for (int dy = -r; dy <= r; ++dy)
    for (int dx = -r; dx <= r; ++dx)
      kr[static_cast<size_t>((dy + f.H) % f.H) * f.W + (dx + f.W) % f.W] = k.at(-dx, -dy) * norm;
  TK_CUDA_CHECK(cudaMemcpy(f.real, kr.data(), sizeof(float) * real_n, cudaMemcpyHostToDevice));
  int one = -1;
  if (Status s = make_plan(&one, f.W, f.H, 1, CUFFT_R2C); !s.ok()) return s;
  const cufftResult e = api.exec_r2c(static_cast<cufftHandle>(one), f.real, reinterpret_cast<cufftComplex*>(f.kernel_spec));
  api.destroy(static_cast<cufftHandle>(one));
  TK_CUFFT(e, "cufftExecR2C (kernel)");
  TK_CUDA_CHECK(cudaDeviceSynchronize());
  return {};
}

Status fft_run(FftBlur& f, const float* in, float* out, cudaStream_t s) {
  const CufftApi& api = cufft();
  const dim3 block(32, 8);
  const dim3 pgrid((f.W + 31) / 32, (f.H + 7) / 8), cgrid((f.w + 31) / 32, (f.h + 7) / 8);
  if (f.channels == 4) pad_planar_kernel<4><<<pgrid, block, 0, s>>>(in, f.w, f.h, f.radius, f.real, f.W, f.H);
  else pad_planar_kernel<1><<<pgrid, block, 0, s>>>(in, f.w, f.h, f.radius, f.real, f.W, f.H);
  TK_CUDA_CHECK_LAUNCH("pad_planar_kernel");
  TK_CUFFT(api.set_stream(static_cast<cufftHandle>(f.fwd), s), "cufftSetStream");
  TK_CUFFT(api.exec_r2c(static_cast<cufftHandle>(f.fwd), f.real, reinterpret_cast<cufftComplex*>(f.spec)), "cufftExecR2C");
  const size_t cplx_n = static_cast<size_t>(f.W / 2 + 1) * f.H;
  multiply_spectrum_kernel<<<static_cast<unsigned>((cplx_n + 255) / 256), 256, 0, s>>>(f.spec, f.kernel_spec, cplx_n,
                                                                                      f.channels);
  TK_CUDA_CHECK_LAUNCH("multiply_spectrum_kernel");
  TK_CUFFT(api.set_stream(static_cast<cufftHandle>(f.inv), s), "cufftSetStream");
  TK_CUFFT(api.exec_c2r(static_cast<cufftHandle>(f.inv), reinterpret_cast<cufftComplex*>(f.spec), f.real), "cufftExecC2R");
  if (f.channels == 4) crop_interleave_kernel<4><<<cgrid, block, 0, s>>>(f.real, f.W, f.H, f.radius, out, f.w, f.h);
  else crop_interleave_kernel<1><<<cgrid, block, 0, s>>>(f.real, f.W, f.H, f.radius, out, f.w, f.h);
  TK_CUDA_CHECK_LAUNCH("crop_interleave_kernel");
  return {};
}

void fft_destroy(FftBlur& f) {
  if (f.fwd >= 0) cufft().destroy(static_cast<cufftHandle>(f.fwd));
  if (f.inv >= 0) cufft().destroy(static_cast<cufftHandle>(f.inv));
  cudaFree(f.real);
  cudaFree(f.spec);
  cudaFree(f.kernel_spec);
  f = FftBlur{};
}

}  // namespace tonekit::gpu_blur
