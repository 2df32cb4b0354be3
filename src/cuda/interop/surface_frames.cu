// Surface kernels of the renderer interop passes (surface_frames.hpp). A thread per pixel over
// 32 x 8 blocks: a mapped GL texture is a block-linear CUDA array, so 2D blocks keep each warp's
// surface reads inside few of its tiles while the linear rows are written whole.
#include <cuda_fp16.h>

#include "cuda/check.hpp"
#include "cuda/interop/surface_frames.hpp"

namespace tonekit::cuda {
namespace {

constexpr int kBlockX = 32, kBlockY = 8;

__device__ __forceinline__ float4 half4_to_float4(uint2 h) {
  const __half2 lo = *reinterpret_cast<const __half2*>(&h.x);
  const __half2 hi = *reinterpret_cast<const __half2*>(&h.y);
  const float2 a = __half22float2(lo), b = __half22float2(hi);
  return make_float4(a.x, a.y, b.x, b.y);
}

// Half RGBA array -> packed float RGBA (the glare stage's frame) or packed half RGBA.
template <bool kToFloat>
__global__ void half_surface_to_linear(cudaSurfaceObject_t surface, int width, int height, void* out) {
  const int x = blockIdx.x * kBlockX + threadIdx.x, y = blockIdx.y * kBlockY + threadIdx.y;
  if (x >= width || y >= height) return;
  const uint2 h = surf2Dread<uint2>(surface, x * static_cast<int>(sizeof(uint2)), y);
  const std::size_t i = static_cast<std::size_t>(y) * width + x;
  if constexpr (kToFloat)
    static_cast<float4*>(out)[i] = half4_to_float4(h);
  else
    static_cast<uint2*>(out)[i] = h;
}

__global__ void float_surface_to_linear(cudaSurfaceObject_t surface, int width, int height, float4* out) {
  const int x = blockIdx.x * kBlockX + threadIdx.x, y = blockIdx.y * kBlockY + threadIdx.y;
  if (x >= width || y >= height) return;
  out[static_cast<std::size_t>(y) * width + x] = surf2Dread<float4>(surface, x * static_cast<int>(sizeof(float4)), y);
}

__global__ void rgba8_to_surface(const unsigned* in, int width, int height, cudaSurfaceObject_t surface) {
  const int x = blockIdx.x * kBlockX + threadIdx.x, y = blockIdx.y * kBlockY + threadIdx.y;
  if (x >= width || y >= height) return;
  surf2Dwrite(in[static_cast<std::size_t>(y) * width + x], surface, x * 4, y);
}

dim3 grid_for(int width, int height) { return dim3((width + kBlockX - 1) / kBlockX, (height + kBlockY - 1) / kBlockY); }

}  // namespace

Status launch_surface_to_linear(cudaSurfaceObject_t surface, InputFormat array_format, int width, int height,
                                void* out, InputFormat out_format, cudaStream_t s) {
  const dim3 block(kBlockX, kBlockY), grid = grid_for(width, height);
  if (array_format == InputFormat::rgba_f16 && out_format == InputFormat::rgba_f32) {
    half_surface_to_linear<true><<<grid, block, 0, s>>>(surface, width, height, out);
    TK_CUDA_CHECK_LAUNCH("half_surface_to_linear<float>");
  } else if (array_format == InputFormat::rgba_f16 && out_format == InputFormat::rgba_f16) {
    half_surface_to_linear<false><<<grid, block, 0, s>>>(surface, width, height, out);
    TK_CUDA_CHECK_LAUNCH("half_surface_to_linear<half>");
  } else if (array_format == InputFormat::rgba_f32 && out_format == InputFormat::rgba_f32) {
    float_surface_to_linear<<<grid, block, 0, s>>>(surface, width, height, static_cast<float4*>(out));
    TK_CUDA_CHECK_LAUNCH("float_surface_to_linear");
  } else {
    return invalid_argument(std::string("surface frames: cannot read a ") + input_format_name(array_format) +
                            " array into a " + input_format_name(out_format) + " frame");
  }
  return {};
}

Status launch_rgba8_to_surface(const void* in, int width, int height, cudaSurfaceObject_t surface, cudaStream_t s) {
  rgba8_to_surface<<<grid_for(width, height), dim3(kBlockX, kBlockY), 0, s>>>(static_cast<const unsigned*>(in), width,
                                                                              height, surface);
  TK_CUDA_CHECK_LAUNCH("rgba8_to_surface");
  return {};
}

}  // namespace tonekit::cuda
