// FFT convolution on the device (Ernst 2013 section 3.4) with cuFFT, loaded at run time
// (dlopen of libcufft.so) so that tonekit_cuda and every binary linking it carry no link-time
// dependency on the 280 MB library: without it, the fft method reports `unsupported`.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>

#include "tonekit/blur.hpp"
#include "tonekit/status.hpp"

namespace tonekit::gpu_blur {

struct FftBlur {
  int w = 0, h = 0, channels = 0, radius = 0;
  int W = 0, H = 0;  // transform size: >= (w + 2r) x (h + 2r), factors 2, 3, 5, 7 (as the CPU's FFTW path)
  int fwd = -1, inv = -1;  // cufftHandle; -1: none
  float* real = nullptr;   // channels x W x H, planar
  float2* spec = nullptr;  // channels x (W / 2 + 1) x H
  float2* kernel_spec = nullptr;  // (W / 2 + 1) x H, the 1 / (W H) folded in
  std::size_t bytes = 0;
};

// Plans, buffers and the kernel's spectrum (synchronises once).
Status fft_create(int w, int h, int channels, const BlurKernel2D& kernel, FftBlur& f);
Status fft_run(FftBlur& f, const float* in, float* out, cudaStream_t s);
void fft_destroy(FftBlur& f);

}  // namespace tonekit::gpu_blur
