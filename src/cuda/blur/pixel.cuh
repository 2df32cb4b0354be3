// Per-pixel vectors for the blur kernels: C floats (1 = grey plane, 4 = interleaved RGBA) with
// accumulators of type A (float, or double for the exact Gaussian). Loads and stores of RGBA
// pixels are single 16-byte accesses.
#pragma once
#include <cuda_runtime.h>

namespace tonekit::gpu_blur {

template <int C, class A>
struct Pix {
  A v[C];
};

template <int C, class A>
__device__ __forceinline__ Pix<C, A> pix_zero() {
  Pix<C, A> p;
#pragma unroll
  for (int c = 0; c < C; ++c) p.v[c] = A(0);
  return p;
}

// kL2Only: through L2 only (ld.cg), for data other blocks of the same grid write; otherwise the
// read-only path (ld.global.nc).
template <int C, bool kL2Only = false>
__device__ __forceinline__ Pix<C, float> load_pix(const float* p) {
  Pix<C, float> r;
  if constexpr (C == 4) {
    const float4 q = kL2Only ? __ldcg(reinterpret_cast<const float4*>(p)) : __ldg(reinterpret_cast<const float4*>(p));
    r.v[0] = q.x; r.v[1] = q.y; r.v[2] = q.z; r.v[3] = q.w;
  } else {
#pragma unroll
    for (int c = 0; c < C; ++c) r.v[c] = kL2Only ? __ldcg(p + c) : __ldg(p + c);
  }
  return r;
}

template <int C, class A>
__device__ __forceinline__ void store_pix(float* p, const Pix<C, A>& a) {
  if constexpr (C == 4) {
    *reinterpret_cast<float4*>(p) =
        make_float4(static_cast<float>(a.v[0]), static_cast<float>(a.v[1]), static_cast<float>(a.v[2]),
                    static_cast<float>(a.v[3]));
  } else {
#pragma unroll
    for (int c = 0; c < C; ++c) p[c] = static_cast<float>(a.v[c]);
  }
}

// acc += w * x, channel by channel.
template <int C, class A, class B>
__device__ __forceinline__ void madd(Pix<C, A>& acc, A w, const Pix<C, B>& x) {
#pragma unroll
  for (int c = 0; c < C; ++c) acc.v[c] += w * static_cast<A>(x.v[c]);
}

__device__ __forceinline__ int clampi(int v, int lo, int hi) { return v < lo ? lo : (v > hi ? hi : v); }

}  // namespace tonekit::gpu_blur
