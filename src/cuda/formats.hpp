// Pixel formats as compile-time tags, and 4-pixel vector loads/stores for the kernels.
// A thread handles a group of 4 consecutive pixels of a row: with 16-byte aligned rows that is
// 2 (half RGBA), 3 (float RGB) or 4 (float RGBA) 16-byte loads, and one 16-byte store for RGBA8.
#pragma once
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "core/colour.hpp"
#include "cuda/pipeline.hpp"

namespace tonekit::cuda {

// kGroup (pixels per thread per step) is in pipeline.hpp.

struct InF32x3 { static constexpr int channels = 3; static constexpr int bytes = 12; using T = float; };
struct InF32x4 { static constexpr int channels = 4; static constexpr int bytes = 16; using T = float; };
struct InF16x4 { static constexpr int channels = 4; static constexpr int bytes = 8; using T = __half; };

__device__ __forceinline__ float load_scalar(const float* p) { return *p; }
__device__ __forceinline__ float load_scalar(const __half* p) { return __half2float(*p); }

// The 16-byte words of a whole, aligned group (2, 3 or 4 of them), loaded ahead of their use.
template <class In>
struct RawGroup {
  uint4 w[kGroup * In::bytes / 16];
};

// Loads the group's words when the group is whole and 16-byte aligned; false otherwise (then
// load_group's scalar path reads it). Through the read-only path, or with `evict_first` as
// streaming loads (ld.global.cs: lines allocated evict-first in L1 and L2; the statistics pass's
// L2 policy, stats_kernels.cu v16).
template <class In>
__device__ __forceinline__ bool load_raw(const unsigned char* row, int x, int width, RawGroup<In>& r, bool evict_first = false) {
  const unsigned char* p = row + static_cast<std::size_t>(x) * In::bytes;
  if (x + kGroup <= width && (reinterpret_cast<std::uintptr_t>(p) & 15u) == 0) {
#pragma unroll
    for (int i = 0; i < kGroup * In::bytes / 16; ++i)
      r.w[i] = evict_first ? __ldcs(reinterpret_cast<const uint4*>(p) + i) : __ldg(reinterpret_cast<const uint4*>(p) + i);
    return true;
  }
  return false;
}

// The low and the high half of a packed pair, as floats.
__device__ __forceinline__ float half_lo(unsigned w) {
  return __half2float(__ushort_as_half(static_cast<unsigned short>(w & 0xFFFFu)));
}
__device__ __forceinline__ float half_hi(unsigned w) {
  return __half2float(__ushort_as_half(static_cast<unsigned short>(w >> 16)));
}

template <class In>
__device__ __forceinline__ void decode_raw(const RawGroup<In>& r, float (&v)[kGroup * In::channels]) {
  constexpr int kVecs = kGroup * In::bytes / 16;
  if constexpr (sizeof(typename In::T) == 4) {
#pragma unroll
    for (int i = 0; i < kVecs; ++i) {
      v[4 * i + 0] = __uint_as_float(r.w[i].x);
      v[4 * i + 1] = __uint_as_float(r.w[i].y);
      v[4 * i + 2] = __uint_as_float(r.w[i].z);
      v[4 * i + 3] = __uint_as_float(r.w[i].w);
    }
  } else {
#pragma unroll
    for (int i = 0; i < kVecs; ++i) {
      const unsigned u[4] = {r.w[i].x, r.w[i].y, r.w[i].z, r.w[i].w};
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        v[8 * i + 2 * j + 0] = half_lo(u[j]);
        v[8 * i + 2 * j + 1] = half_hi(u[j]);
      }
    }
  }
}

// Raw (unsanitised) channel values of 4 pixels starting at column x of `row`: v[p * C + c].
// Vector path when the group is whole and the address 16-byte aligned; samples past the row
// end read as 0.
template <class In>
__device__ __forceinline__ void load_group(const unsigned char* row, int x, int width, float (&v)[kGroup * In::channels]) {
  constexpr int C = In::channels;
  RawGroup<In> raw;
  if (load_raw<In>(row, x, width, raw)) {
    decode_raw<In>(raw, v);
  } else {
    const typename In::T* q = reinterpret_cast<const typename In::T*>(row + static_cast<std::size_t>(x) * In::bytes);
#pragma unroll
    for (int i = 0; i < kGroup; ++i) {
#pragma unroll
      for (int c = 0; c < C; ++c) v[i * C + c] = (x + i < width) ? load_scalar(q + i * C + c) : 0.0f;
    }
  }
}

// A packed pair of halves sanitised as one clamp: a half is at most 65504 or +Inf, so the
// policy of core::sanitise_channel (NaN, negatives -> 0, +Inf -> 65504) is min(max(h, 0), 65504)
// (__hmax2 returns the other operand for a NaN); `top` 1 in a lane clamps alpha to [0, 1] too.
// Two half2 instructions per pair of channels instead of two float min/max per channel.
__device__ __forceinline__ __half2 half2_top_rgb() { return __float2half2_rn(core::kInfReplacement); }
__device__ __forceinline__ __half2 half2_top_ba() {
  return __halves2half2(__float2half_rn(core::kInfReplacement), __float2half_rn(1.0f));
}
__device__ __forceinline__ unsigned clamp_half2(unsigned w, __half2 top) {
  __half2 h = *reinterpret_cast<__half2*>(&w);
  h = __hmin2(__hmax2(h, __float2half2_rn(0.0f)), top);
  return *reinterpret_cast<unsigned*>(&h);
}

// Sanitised r, g, b of pixel i of a group (policy of core::sanitise_channel); returns flags.
template <int C>
__device__ __forceinline__ unsigned sanitise_rgb(const float* v, float& r, float& g, float& b) {
  unsigned f = 0;
  r = core::sanitise_channel(v[0], f);
  g = core::sanitise_channel(v[1], f);
  b = core::sanitise_channel(v[2], f);
  return f;
}

}  // namespace tonekit::cuda
