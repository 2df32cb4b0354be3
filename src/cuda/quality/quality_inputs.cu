// The metrics' float64 input planes from interleaved device images, one thread a pixel: the
// luminance and the channels as src/cpu/quality/planes.cpp makes them on the CPU, bit for bit (the
// BT.709 sum spelled without fused multiply-adds, in the CPU's order; the HDR through
// core::sanitise_channel: NaN and negatives 0, +Inf 65504).
#include <cstdint>

#include "core/colour.hpp"
#include "cuda/check.hpp"
#include "cuda/quality/quality_gpu.hpp"

namespace tonekit::quality::gpu {
namespace {

constexpr int kBlockX = 32, kBlockY = 8;

// 0.2126 r + 0.7152 g + 0.0722 b, rounded as the CPU rounds it (no contraction).
__device__ __forceinline__ double bt709(double r, double g, double b) {
  return __dadd_rn(__dadd_rn(__dmul_rn(0.2126, r), __dmul_rn(0.7152, g)), __dmul_rn(0.0722, b));
}

__device__ __forceinline__ void store(int x, int y, int width, int height, const double (&v)[3], double* luminance,
                                      double* channels) {
  const std::size_t i = static_cast<std::size_t>(y) * width + x, plane = channel_plane_stride(width, height);
  if (luminance) luminance[i] = bt709(v[0], v[1], v[2]);
  if (channels)
    for (int c = 0; c < 3; ++c) channels[c * plane + i] = v[c];
}

__global__ void hdr_planes_kernel(HdrSource in, int width, int height, double* luminance, double* channels) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height) return;
  const float* p = reinterpret_cast<const float*>(in.data + static_cast<std::size_t>(y) * in.stride) +
                   static_cast<std::size_t>(x) * in.channels;
  double v[3];
  unsigned flags = 0;
  for (int c = 0; c < 3; ++c) v[c] = core::sanitise_channel(p[c], flags);
  store(x, y, width, height, v, luminance, channels);
}

__global__ void ldr_planes_kernel(LdrSource in, int width, int height, double* luminance, double* channels) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height) return;
  const unsigned char* row = in.data + static_cast<std::size_t>(y) * in.stride;
  double v[3];
  if (in.u16) {
    const auto* p = reinterpret_cast<const std::uint16_t*>(row) + static_cast<std::size_t>(x) * in.channels;
    for (int c = 0; c < 3; ++c) v[c] = p[c] / 257.0;  // planes.cpp: 16-bit codes on the 0..255 scale
  } else {
    const unsigned char* p = row + static_cast<std::size_t>(x) * in.channels;
    for (int c = 0; c < 3; ++c) v[c] = p[c];
  }
  store(x, y, width, height, v, luminance, channels);
}

dim3 grid_for(int width, int height) {
  return dim3(static_cast<unsigned>((width + kBlockX - 1) / kBlockX), static_cast<unsigned>((height + kBlockY - 1) / kBlockY));
}

}  // namespace

Status hdr_planes(const HdrSource& in, int width, int height, double* luminance, double* channels, cudaStream_t s) {
  hdr_planes_kernel<<<grid_for(width, height), dim3(kBlockX, kBlockY), 0, s>>>(in, width, height, luminance, channels);
  TK_CUDA_CHECK_LAUNCH("hdr_planes_kernel");
  return {};
}

Status ldr_planes(const LdrSource& in, int width, int height, double* luminance, double* channels, cudaStream_t s) {
  ldr_planes_kernel<<<grid_for(width, height), dim3(kBlockX, kBlockY), 0, s>>>(in, width, height, luminance, channels);
  TK_CUDA_CHECK_LAUNCH("ldr_planes_kernel");
  return {};
}

}  // namespace tonekit::quality::gpu
