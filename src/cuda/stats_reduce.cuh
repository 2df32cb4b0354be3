// Per-pixel accumulation and the block-level combine of the statistics (docs/architecture.md
// stage 1), shared by every statistics variant and the finish step.
#pragma once
#include <cuda/atomic>
#include <cuda_runtime.h>

#include <cfloat>

#include "core/colour.hpp"
#include "core/colour_parts.hpp"
#include "cuda/formats.hpp"
#include "cuda/pipeline.hpp"

namespace tonekit::cuda {

__device__ __forceinline__ StatsPartial identity_partial() {
  StatsPartial p;
  p.log_sum = 0.0;
  p.min = INFINITY;
  p.max = 0.0f;  // sanitised luminance is >= 0 (the CPU starts there too)
  p.min_positive = INFINITY;
  p.nan = p.inf = p.negative = 0;
  return p;
}

__host__ __device__ __forceinline__ void combine(StatsPartial& a, const StatsPartial& b) {
  a.log_sum += b.log_sum;
  a.min = fminf(a.min, b.min);
  a.max = fmaxf(a.max, b.max);
  a.min_positive = fminf(a.min_positive, b.min_positive);
  a.nan += b.nan;
  a.inf += b.inf;
  a.negative += b.negative;
}

struct CombineOp {
  __host__ __device__ __forceinline__ StatsPartial operator()(StatsPartial a, const StatsPartial& b) const {
    combine(a, b);
    return a;
  }
};

// log2 on the special-function unit: absolute error <= 2^-22.6 (PTX ISA, lg2.approx), i.e.
// 1.1e-7 in natural-log units per term, so even a fully biased error moves the log-average by
// at most 1.1e-7 relative (the test allows 1e-6). 1 instruction instead of logf's ~18 (v7).
// Its argument delta + L >= 1e-6 is never subnormal, so .ftz changes nothing.
__device__ __forceinline__ float log2_sfu(float x) {
  float y;
  asm("lg2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

// The statistics of one group of 4 pixels (those inside the row). The log terms (base 2) are
// summed in float over the group (4 terms), quantised, and handed back in double, in log2 units.
template <class In>
__device__ __forceinline__ StatsPartial group_stats_values(const float (&v)[kGroup * In::channels], int x, int width) {
  constexpr int C = In::channels;
  StatsPartial p = identity_partial();
  float log_sum = 0.0f;
  const float delta = static_cast<float>(core::kLogDelta);
  // Clean groups (every colour sample finite and without its sign bit: as unsigned bits below
  // +Inf's) need no sanitising and no counting: 3 integer max per pixel instead of ~30
  // instructions of tests (v5). Samples past the row end were loaded as 0.
  unsigned worst = 0;
#pragma unroll
  for (int i = 0; i < kGroup; ++i)
#pragma unroll
    for (int c = 0; c < 3; ++c) worst = max(worst, __float_as_uint(v[i * C + c]));
  if (worst < 0x7F800000u) {
#pragma unroll
    for (int i = 0; i < kGroup; ++i) {
      if (x + i < width) {
        const float l = core::luminance_fma(v[i * C], v[i * C + 1], v[i * C + 2]);
        p.min = fminf(p.min, l);
        p.max = fmaxf(p.max, l);
        p.min_positive = fminf(p.min_positive, l > 0.0f ? l : INFINITY);
        log_sum += log2_sfu(delta + l);
      }
    }
  } else {
#pragma unroll
    for (int i = 0; i < kGroup; ++i) {
      if (x + i < width) {
        float r, g, b;
        const unsigned f = core::classify_flags(sanitise_rgb<C>(v + i * C, r, g, b));
        p.nan += (f == core::kPixelNaN);
        p.inf += (f == core::kPixelInf);
        p.negative += (f == core::kPixelNegative);
        const float l = core::luminance_fma(r, g, b);  // the CPU's contracted form
        p.min = fminf(p.min, l);
        p.max = fmaxf(p.max, l);
        p.min_positive = fminf(p.min_positive, l > 0.0f ? l : INFINITY);
        log_sum += log2_sfu(delta + l);
      }
    }
  }
  // In log2 units, rounded here to a multiple of 2^-kLogSumFracBits (exact: a float times a power
  // of two, then rintf, which moves only |sums| < 2^-2, by <= 2^-27), per group of 4 pixels of one
  // row. Every later sum is exact: per thread and per block in double (multiples of 2^-26 below
  // 2^27 in magnitude: 2^18 groups a block even at the extreme |sum| <= 4 x 128, ~1.6 M at the
  // black floor's 4 x 19.9), the grid's in fixed point. Groups are the same 4 pixels whichever
  // kernel reads the frame (the flat kernels take only rows of whole groups: bulk_applicable), so
  // the frame's total does not depend on how its rows are shared between threads, blocks or GPUs:
  // a frame split into parts (FramePart) gets the single GPU's key bit for bit. finalise_frame
  // turns it into natural-log units.
  p.log_sum = static_cast<double>(rintf(log_sum * kLogSumScale)) * (1.0 / kLogSumScale);
  return p;
}

template <class In>
__device__ __forceinline__ StatsPartial group_stats(const unsigned char* row, int x, int width) {
  float v[kGroup * In::channels];
  load_group<In>(row, x, width, v);
  return group_stats_values<In>(v, x, width);
}

__device__ __forceinline__ StatsPartial shfl_down(const StatsPartial& p, int offset) {
  StatsPartial q;
  q.log_sum = __shfl_down_sync(0xFFFFFFFFu, p.log_sum, offset);
  q.min = __shfl_down_sync(0xFFFFFFFFu, p.min, offset);
  q.max = __shfl_down_sync(0xFFFFFFFFu, p.max, offset);
  q.min_positive = __shfl_down_sync(0xFFFFFFFFu, p.min_positive, offset);
  q.nan = __shfl_down_sync(0xFFFFFFFFu, p.nan, offset);
  q.inf = __shfl_down_sync(0xFFFFFFFFu, p.inf, offset);
  q.negative = __shfl_down_sync(0xFFFFFFFFu, p.negative, offset);
  return q;
}

// Block-wide reduction in a fixed order (deterministic); the result is valid in thread 0.
template <int Threads>
__device__ __forceinline__ StatsPartial block_reduce(StatsPartial p) {
  __shared__ StatsPartial warp_totals[Threads / 32];
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) combine(p, shfl_down(p, o));
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  if (lane == 0) warp_totals[warp] = p;
  __syncthreads();
  if (warp == 0) {
    p = lane < Threads / 32 ? warp_totals[lane] : identity_partial();
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) combine(p, shfl_down(p, o));
  }
  return p;
}


// The grid-wide finish of the one-launch kernels (v20), first half: thread 0 of each block adds
// its block's total into `acc` with one atomic per field (counts only when non-zero), then takes
// a ticket; true in the grid's last block, whose thread 0 then sees every block's totals. Integer
// atomics leave the totals independent of the order blocks arrive in. Contraction-free (integer
// atomics, an exact scaling), so the kernels of any file (video_stages.cu is built with
// -fmad=false) give the same words for the same block totals.
__device__ __forceinline__ bool add_block_total(const StatsPartial& mine, StatsAccumulator& acc) {
  if (isinf(mine.log_sum)) {
    atomicOr(&acc.log_sum_infinite, 1u);
  } else {
    const long long fixed = __double2ll_rn(ldexp(mine.log_sum, kLogSumFracBits));
    atomicAdd(&acc.log_sum_fixed, static_cast<unsigned long long>(fixed));  // two's complement
  }
  // Luminance is >= 0; the mask turns a -0 into +0 so that the bit patterns order as unsigned.
  atomicMax(&acc.min_complement, ~(__float_as_uint(mine.min) & 0x7FFFFFFFu));
  atomicMax(&acc.max_bits, __float_as_uint(mine.max) & 0x7FFFFFFFu);
  atomicMax(&acc.min_positive_complement, ~__float_as_uint(mine.min_positive));
  if (mine.nan) atomicAdd(&acc.nan, mine.nan);
  if (mine.inf) atomicAdd(&acc.inf, mine.inf);
  if (mine.negative) atomicAdd(&acc.negative, mine.negative);
  // Release (this block's atomics) and acquire (every earlier block's) in the ticket's RMW.
  ::cuda::atomic_ref<unsigned, ::cuda::thread_scope_device> ticket(acc.ticket);
  return ticket.fetch_add(1u, ::cuda::memory_order_acq_rel) == gridDim.x - 1;
}

// The last block's totals as StatsExchange words (a frame part's, or a whole frame's whose
// statistics were gathered by another kernel: launch_finish_exchanged finishes them), and the
// accumulator zeroed for the next frame.
__device__ __forceinline__ void defer_totals(StatsAccumulator& acc, StatsExchangeWords& x,
                                             unsigned long long pixel_count) {
  x.sums[0] = __ldcg(&acc.log_sum_fixed);
  x.sums[1] = __ldcg(&acc.nan);
  x.sums[2] = __ldcg(&acc.inf);
  x.sums[3] = __ldcg(&acc.negative);
  x.sums[4] = pixel_count;
  x.maxima[0] = __ldcg(&acc.min_complement);
  x.maxima[1] = __ldcg(&acc.max_bits);
  x.maxima[2] = __ldcg(&acc.min_positive_complement);
  x.maxima[3] = __ldcg(&acc.log_sum_infinite);
  acc = StatsAccumulator{};
}

}  // namespace tonekit::cuda
