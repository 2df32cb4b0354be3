// Convolution kernels: clamped padding / crop, separable convolution (Ernst 2013 section 3.3;
// also the exact Gaussian with float64 accumulation), direct 2D convolution with a shared tile
// and halo (section 3.2) and Porikli's reshuffling (section 3.7) through the same tile.
//
// Separable, rows: a block of 4 warps loads a row segment of 256 outputs plus the halo into
// shared memory, deinterleaved (one plane per channel, so RGBA lanes read consecutive words),
// each lane computes 8 consecutive outputs of one channel with the register-blocked sliding
// window (8 taps x 8 outputs per 8 + 8 shared loads); planes are padded by one word per 8
// (index i + i / 8), so lane l's reads at 9 l + const hit 32 distinct banks. Results go back
// through shared memory so the global stores are 16-byte and coalesced.
// Separable, columns: each thread owns one pixel column (a 16-byte RGBA load per row, coalesced
// across the warp) and 8 consecutive outputs, same sliding window; rows come through L1.
// Banded (optional, BlurEngineConfig::separable_banded; off: slower on the H100, see
// docs/performance.md): for frames whose intermediate exceeds ~L2 / 2 the passes alternate over bands of
// B rows, rows(b) then columns(b), and the intermediate is a ring of `ring` rows (a power of two
// >= B + 2r; row y lives in slot y & (ring - 1)): the ring stays in L2, so its rows are written
// and read there and never reach DRAM; the frame moves its input and output bytes only.
#include <algorithm>

#include "cuda/blur/blur_kernels.hpp"
#include "cuda/blur/pixel.cuh"
#include "cuda/check.hpp"

namespace tonekit::gpu_blur {
namespace {

constexpr int K = kSepOutputs;
constexpr int kRowThreads = 128;       // 4 warps
constexpr int kRowSegment = 32 * K;    // outputs per warp (and per block row)
constexpr int kMaxRowSmem = 200 * 1024;

__host__ __device__ inline int padded_index(int i) { return i + i / K; }
__host__ __device__ inline int plane_stride(int span) { return padded_index(span) + 1; }

// The register-blocked sliding window of the per-channel and per-pixel kernels (Ernst 2013
// section 3.3; rgba_window below is the float4-per-lane form): acc[k] += sum over t < taps of
// w(t) x(k + t) for k < K, taps a multiple of K (zero weights past 2r + 1); x(i) = at(i) is
// called once per i, in increasing order (so `at` may walk a ring), and madd(acc, w, x)
// accumulates. K inputs per K x K multiply-adds: one shared or cached load per K FMAs.
template <class Val, class Acc, class At, class Wt, class Madd>
__device__ __forceinline__ void sliding_window(int taps, At at, Wt wt, Madd madd, Acc (&acc)[K]) {
  Val v[2 * K];
#pragma unroll
  for (int u = 0; u < K; ++u) v[u] = at(u);
  for (int t0 = 0; t0 < taps; t0 += K) {
#pragma unroll
    for (int u = 0; u < K; ++u) v[K + u] = at(t0 + K + u);
#pragma unroll
    for (int u = 0; u < K; ++u) {
      const auto wu = wt(t0 + u);
#pragma unroll
      for (int k = 0; k < K; ++k) madd(acc[k], wu, v[k + u]);
    }
#pragma unroll
    for (int u = 0; u < K; ++u) v[u] = v[K + u];
  }
}

template <int C>
__global__ void pad_kernel(const float* __restrict__ in, int w, int h, int pad, float* __restrict__ out) {
  const int pw = w + 2 * pad, ph = h + 2 * pad;
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= pw || y >= ph) return;
  const int sx = clampi(x - pad, 0, w - 1), sy = clampi(y - pad, 0, h - 1);
  store_pix<C, float>(out + (static_cast<size_t>(y) * pw + x) * C, load_pix<C>(in + (static_cast<size_t>(sy) * w + sx) * C));
}

template <int C>
__global__ void crop_kernel(const float* __restrict__ in, int pw, int pad, float* __restrict__ out, int w, int h) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  store_pix<C, float>(out + (static_cast<size_t>(y) * w + x) * C,
                      load_pix<C>(in + (static_cast<size_t>(y + pad) * pw + x + pad) * C));
}

// Row pass. Block: 4 warps = (4 / C) image rows x C channels; rows_per_block = 4 / C.
// One task: rows y0 .. y0 + 4 / C - 1 (below y_end) of the segment at x0; written to row
// (y & ring_mask) of out. Weights in wsh, the planes after them.
template <int C, class A>
__device__ __forceinline__ void sep_row_task(const float* __restrict__ in, float* __restrict__ out, int w, int h,
                                             int radius, int taps, int x0, int y0, int y_end, unsigned ring_mask,
                                             const A* wsh, float* planes) {
  constexpr int kRows = 4 / C;
  const int span = kRowSegment + taps, stride = plane_stride(span);
  for (int rr = 0; rr < kRows; ++rr) {
    const int y = min(y0 + rr, h - 1);
    const float* row = in + static_cast<size_t>(y) * w * C;
    for (int i = threadIdx.x; i < span; i += kRowThreads) {
      const Pix<C, float> p = load_pix<C>(row + static_cast<size_t>(clampi(x0 - radius + i, 0, w - 1)) * C);
#pragma unroll
      for (int c = 0; c < C; ++c) planes[(rr * C + c) * stride + padded_index(i)] = p.v[c];
    }
  }
  __syncthreads();
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  float* plane = planes + warp * stride;  // warp = rr * C + c
  const int base = lane * K;
  A acc[K];
#pragma unroll
  for (int k = 0; k < K; ++k) acc[k] = A(0);
  sliding_window<float>(
      taps, [&](int i) { return plane[padded_index(base + i)]; }, [&](int t) { return wsh[t]; },
      [](A& a, A wu, float x) { a += wu * static_cast<A>(x); }, acc);
  __syncthreads();  // every lane is done reading the input planes
#pragma unroll
  for (int k = 0; k < K; ++k) plane[padded_index(base + k)] = static_cast<float>(acc[k]);
  __syncthreads();
  for (int rr = 0; rr < kRows; ++rr) {
    const int y = y0 + rr;
    if (y >= y_end) break;
    float* dst = out + static_cast<size_t>(static_cast<unsigned>(y) & ring_mask) * w * C;
    for (int i = threadIdx.x; i < kRowSegment && x0 + i < w; i += kRowThreads) {
      Pix<C, float> p;
#pragma unroll
      for (int c = 0; c < C; ++c) p.v[c] = planes[(rr * C + c) * stride + padded_index(i)];
      store_pix<C, float>(dst + static_cast<size_t>(x0 + i) * C, p);
    }
  }
}

template <int C, class A>
__global__ void __launch_bounds__(kRowThreads) sep_rows_kernel(const float* __restrict__ in, float* __restrict__ out,
                                                               int w, int h, const double* __restrict__ weights,
                                                               int radius, int taps) {
  extern __shared__ __align__(16) unsigned char smem[];
  A* wsh = reinterpret_cast<A*>(smem);
  float* planes = reinterpret_cast<float*>(wsh + taps);
  for (int i = threadIdx.x; i < taps; i += kRowThreads) wsh[i] = static_cast<A>(weights[i]);
  sep_row_task<C, A>(in, out, w, h, radius, taps, static_cast<int>(blockIdx.x) * kRowSegment,
                     static_cast<int>(blockIdx.y) * (4 / C), h, ~0u, wsh, planes);
}

__device__ __forceinline__ void fma4(float4& acc, float wgt, const float4& v) {
  acc.x += wgt * v.x;
  acc.y += wgt * v.y;
  acc.z += wgt * v.z;
  acc.w += wgt * v.w;
}

// The register-blocked sliding window of the RGBA kernels (whole float4 pixels per lane):
// acc[k] = sum_t w[t] x[k + t] for k < K and t < K nfull + kTail, where x[i0 + u] = at(i0, u)
// for i0 a multiple of K and u < K; wsh 16-byte aligned, zero-padded to a multiple of K. One
// 16-byte shared load feeds 4 channels' FMAs: about 1.1 instructions per FMA. The strip kernel
// passes kTail = (2r + 1) % K so the zero padding is not multiplied; the two-pass kernels
// multiply it (kTail 0, nfull = taps / K) as the banded kernel does, which keeps them
// bit-identical to it.
template <int kTail, class At>
__device__ __forceinline__ void rgba_window(const float* wsh, int nfull, At at, float4 (&acc)[K]) {
  float4 v[2 * K];
#pragma unroll
  for (int k = 0; k < K; ++k) acc[k] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
#pragma unroll
  for (int u = 0; u < K; ++u) v[u] = at(0, u);
  const float4* wp = reinterpret_cast<const float4*>(wsh);
  const int taps = nfull * K;
#pragma unroll 2
  for (int t0 = 0; t0 < taps; t0 += K) {
#pragma unroll
    for (int u = 0; u < K; ++u) v[K + u] = at(t0 + K, u);
    const float4 wa = wp[0], wb = wp[1];
    wp += 2;
    const float wv[K] = {wa.x, wa.y, wa.z, wa.w, wb.x, wb.y, wb.z, wb.w};
#pragma unroll
    for (int u = 0; u < K; ++u)
#pragma unroll
      for (int k = 0; k < K; ++k) fma4(acc[k], wv[u], v[k + u]);
#pragma unroll
    for (int u = 0; u < K; ++u) v[u] = v[K + u];
  }
  if constexpr (kTail > 0) {  // taps t = taps .. taps + kTail - 1 need x up to taps + K + kTail - 2
#pragma unroll
    for (int u = 0; u + 1 < kTail; ++u) v[K + u] = at(taps + K, u);
#pragma unroll
    for (int u = 0; u < kTail; ++u)
#pragma unroll
      for (int k = 0; k < K; ++k) fma4(acc[k], wsh[taps + u], v[k + u]);
  }
}

// Row pass for RGBA with float accumulation (v3): a warp per row, each lane 8 consecutive whole
// pixels (float4) with the register-blocked window: one 16-byte shared load feeds 4 channels'
// FMAs and no deinterleaving, so about 1.2 instructions per FMA instead of the per-channel
// layout's ~2.2 (ncu: that row pass ran 361 instructions per pixel, compute bound). The span is
// padded by one float4 per 8 (lane stride 9 float4 = 36 words: conflict-free 16-byte loads);
// results go back through the warp's span so the global stores are coalesced.
constexpr int kRgbaRows = 4;  // rows (warps) per block
__host__ __device__ inline size_t rgba_row_smem(int taps) {
  return static_cast<size_t>(taps) * sizeof(float) + 16u + static_cast<size_t>(kRgbaRows) * 16u * plane_stride(kRowSegment + taps);
}

__global__ void __launch_bounds__(kRowThreads) sep_rows_rgba_kernel(const float* __restrict__ in, float* __restrict__ out,
                                                                    int w, int h, const double* __restrict__ weights,
                                                                    int radius, int taps) {
  extern __shared__ __align__(16) unsigned char smem[];
  float* wsh = reinterpret_cast<float*>(smem);
  const int span = kRowSegment + taps, stride = plane_stride(span);
  float4* spans = reinterpret_cast<float4*>(smem + ((static_cast<size_t>(taps) * sizeof(float) + 15u) & ~size_t{15}));
  for (int i = threadIdx.x; i < taps; i += kRowThreads) wsh[i] = static_cast<float>(weights[i]);
  __syncthreads();
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const int x0 = blockIdx.x * kRowSegment, y = blockIdx.y * kRgbaRows + warp;
  float4* buf = spans + warp * stride;
  const float4* row = reinterpret_cast<const float4*>(in) + static_cast<size_t>(min(y, h - 1)) * w;
  for (int i = lane; i < span; i += 32) buf[padded_index(i)] = __ldg(row + clampi(x0 - radius + i, 0, w - 1));
  __syncwarp();
  const int base = lane * K;
  float4 acc[K];
  rgba_window<0>(wsh, taps / K, [&](int i0, int u) { return buf[padded_index(base + i0 + u)]; }, acc);
  __syncwarp();  // every lane is done reading the span
#pragma unroll
  for (int k = 0; k < K; ++k) buf[padded_index(base + k)] = acc[k];
  __syncwarp();
  if (y >= h) return;
  float4* dst = reinterpret_cast<float4*>(out) + static_cast<size_t>(y) * w;
  for (int i = lane; i < kRowSegment && x0 + i < w; i += 32) dst[x0 + i] = buf[padded_index(i)];
}

// Column pass. Block (32, 4): 32 pixel columns x 4 groups of K output rows. One task: the K
// outputs from y0 (below y_end) of column x, reading row (y & ring_mask) of `in`; kCoherent:
// `in` is written by other blocks of the same grid (the banded kernel), so it is read through L2
// (ld.cg), never from a possibly stale L1 line.
template <int C, class A, bool kCoherent>
__device__ __forceinline__ void sep_col_task(const float* __restrict__ in, float* __restrict__ out, int w, int h,
                                             int radius, int taps, int x, int y0, int y_end, unsigned ring_mask,
                                             const A* wsh) {
  if (x >= w || y0 >= y_end) return;
  const float* col = in + static_cast<size_t>(x) * C;
  const size_t pitch = static_cast<size_t>(w) * C;
  auto at = [&](int y) {
    const float* p = col + static_cast<size_t>(static_cast<unsigned>(clampi(y, 0, h - 1)) & ring_mask) * pitch;
    return load_pix<C, kCoherent>(p);
  };
  Pix<C, A> acc[K];
#pragma unroll
  for (int k = 0; k < K; ++k) acc[k] = pix_zero<C, A>();
  sliding_window<Pix<C, float>>(
      taps, [&](int i) { return at(y0 - radius + i); }, [&](int t) { return wsh[t]; },
      [](Pix<C, A>& a, A wu, const Pix<C, float>& x) { madd(a, wu, x); }, acc);
#pragma unroll
  for (int k = 0; k < K; ++k)
    if (y0 + k < y_end) store_pix<C, A>(out + static_cast<size_t>(y0 + k) * pitch + static_cast<size_t>(x) * C, acc[k]);
}

template <int C, class A>
__global__ void __launch_bounds__(128) sep_cols_kernel(const float* __restrict__ in, float* __restrict__ out, int w,
                                                       int h, const double* __restrict__ weights, int radius,
                                                       int taps) {
  extern __shared__ __align__(16) unsigned char smem[];
  A* wsh = reinterpret_cast<A*>(smem);
  const int tid = threadIdx.y * 32 + threadIdx.x;
  for (int i = tid; i < taps; i += 128) wsh[i] = static_cast<A>(weights[i]);
  __syncthreads();
  sep_col_task<C, A, false>(in, out, w, h, radius, taps, static_cast<int>(blockIdx.x * 32 + threadIdx.x),
                            static_cast<int>(blockIdx.y * 4 + threadIdx.y) * K, h, ~0u, wsh);
}

// Column pass for RGBA with float accumulation (v3): a block stages the 32 columns x (64 + taps)
// input rows its 32 x 64 outputs need in shared memory once (coalesced 512-byte rows), then each
// thread slides its window over shared memory (8 outputs, 16-byte loads, conflict-free). The
// per-thread pass through L1 read each row ~5.6 times per 8 outputs (ncu: 650 MB of L2 traffic
// for a 133 MB plane at 4K, 21 % occupancy at 122 registers).
constexpr int kColTileW = 32, kColTileH = 64, kColThreads = 256;
__host__ __device__ inline size_t rgba_col_smem(int taps) {
  return ((static_cast<size_t>(taps) * sizeof(float) + 15u) & ~size_t{15}) +
         static_cast<size_t>(kColTileH + taps) * kColTileW * 16u;
}

__global__ void __launch_bounds__(kColThreads) sep_cols_rgba_kernel(const float* __restrict__ in, float* __restrict__ out,
                                                                    int w, int h, const double* __restrict__ weights,
                                                                    int radius, int taps) {
  extern __shared__ __align__(16) unsigned char smem[];
  float* wsh = reinterpret_cast<float*>(smem);
  float4* tile = reinterpret_cast<float4*>(smem + ((static_cast<size_t>(taps) * sizeof(float) + 15u) & ~size_t{15}));
  const int tid = threadIdx.x;
  for (int i = tid; i < taps; i += kColThreads) wsh[i] = static_cast<float>(weights[i]);
  const int x0 = blockIdx.x * kColTileW, y0 = blockIdx.y * kColTileH;
  const int rows = kColTileH + taps;
  const float4* src = reinterpret_cast<const float4*>(in);
  const int c = tid & 31, gx = min(x0 + c, w - 1);
#pragma unroll 4
  for (int r = tid >> 5; r < rows; r += kColThreads / 32)
    tile[r * kColTileW + c] = __ldg(src + static_cast<size_t>(clampi(y0 - radius + r, 0, h - 1)) * w + gx);
  __syncthreads();
  const int x = x0 + c, ty = tid >> 5;  // 8 row groups of K outputs
  const float4* col = tile + c;
  const int base = ty * K;
  float4 acc[K];
  rgba_window<0>(wsh, taps / K, [&](int i0, int u) { return col[(base + i0 + u) * kColTileW]; }, acc);
  if (x >= w) return;
  float4* dst = reinterpret_cast<float4*>(out);
#pragma unroll
  for (int k = 0; k < K; ++k) {
    const int y = y0 + base + k;
    if (y < h) dst[static_cast<size_t>(y) * w + x] = acc[k];
  }
}

// Banded separable pass, one persistent launch (BlurEngineConfig::separable_banded): the work is
// the sequence rows(0), columns(0), rows(1), columns(1), ... of bands of B output rows through an
// intermediate ring of `ring` rows (a power of two >= 2 B + 2 r) that stays in L2. Block i runs
// tasks i, i + grid, i + 2 grid, ... in order; a task first waits (one thread spinning on a
// counter) for the phases it depends on: columns(b) on rows(b - 1) and rows(b) (the rows it
// reads), rows(b) on columns(b - 2) (whose ring rows it overwrites). Every dependency points to
// an earlier task and every block is resident (grid from the occupancy calculator), so the
// earliest unfinished task can always run: no deadlock.
template <int C, class A>
__global__ void __launch_bounds__(kRowThreads) sep_banded_kernel(const float* __restrict__ in, float* __restrict__ tmp,
                                                                 float* __restrict__ out, int w, int h,
                                                                 const double* __restrict__ weights, int radius,
                                                                 int taps, unsigned ring_mask,
                                                                 const BandPhase* __restrict__ phases, int nphases,
                                                                 int total, int* done, int segments, int col_blocks) {
  extern __shared__ __align__(16) unsigned char smem[];
  A* wsh = reinterpret_cast<A*>(smem);
  float* planes = reinterpret_cast<float*>(wsh + taps);
  for (int i = threadIdx.x; i < taps; i += kRowThreads) wsh[i] = static_cast<A>(weights[i]);
  __syncthreads();
  int p = 0;
  for (int t = blockIdx.x; t < total; t += gridDim.x) {
    while (p + 1 < nphases && phases[p + 1].first <= t) ++p;
    const BandPhase ph = phases[p];
    if (threadIdx.x == 0) {
      if (ph.dep0 >= 0)
        while (*reinterpret_cast<volatile int*>(done + ph.dep0) < phases[ph.dep0].count) __nanosleep(64);
      if (ph.dep1 >= 0)
        while (*reinterpret_cast<volatile int*>(done + ph.dep1) < phases[ph.dep1].count) __nanosleep(64);
      __threadfence();
    }
    __syncthreads();
    const int k = t - ph.first;
    if (ph.rows) {
      const int x0 = (k % segments) * kRowSegment, r0 = ph.y0 + (k / segments) * kBandRowsPerTask;
      const int r1 = min(r0 + kBandRowsPerTask, ph.y1);
      for (int r = r0; r < r1; r += 4 / C) {
        sep_row_task<C, A>(in, tmp, w, h, radius, taps, x0, r, r1, ring_mask, wsh, planes);
        __syncthreads();  // the next rows reuse the planes
      }
    } else {
      const int x = (k % col_blocks) * 32 + static_cast<int>(threadIdx.x & 31);
      const int y0 = ph.y0 + ((k / col_blocks) * 4 + static_cast<int>(threadIdx.x >> 5)) * K;
      sep_col_task<C, A, true>(tmp, out, w, h, radius, taps, x, y0, ph.y1, ring_mask, wsh);
      __syncthreads();
    }
    if (threadIdx.x == 0) {
      __threadfence();
      atomicAdd(done + p, 1);
    }
  }
}

// Fused separable pass (one read of the input, one write of the output): a block owns a strip
// of FX = 256 / C pixels x kStrip rows and walks down it in chunks of kChunk output rows. Phase
// A: each warp filters whole input rows horizontally (the row pass's staging and register-blocked
// window, per warp) into a ring of kChunk + 2r filtered rows in shared memory; phase B: each
// thread owns one (channel, pixel) column of the ring and computes K rows at a time with the
// same sliding window, staged back through shared memory for 16-byte coalesced stores. The
// intermediate never reaches device memory; the horizontal work is repeated for 2r halo rows per
// strip ((kStrip + 2r) / kStrip). Ring slots start zeroed so the zero-weight padding taps only
// ever multiply finite values.
constexpr int kFusedThreads = 256;
constexpr int kFusedMaxTaps = 128;  // the prefetch registers hold a row of FX + taps <= FX + 128 pixels
template <int C, int kChunk>
__global__ void __launch_bounds__(kFusedThreads) sep_fused_kernel(const float* __restrict__ in, float* __restrict__ out,
                                                                  int w, int h, const double* __restrict__ weights,
                                                                  int radius, int taps, int kStrip) {
  constexpr int FX = 256 / C, kLanesPerChannel = 32 / C, kFusedSpanIters = (FX + kFusedMaxTaps + 31) / 32;
  extern __shared__ __align__(16) unsigned char smem[];
  float* wsh = reinterpret_cast<float*>(smem);
  const int span = FX + taps, sstride = plane_stride(span);
  float* stage = wsh + ((taps + 3) & ~3);
  float* ring = stage + 8 * C * sstride;
  const int ring_rows = kChunk + 2 * radius, ring_row = C * FX;
  const int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31;
  const int x0 = blockIdx.x * FX, ys = blockIdx.y * kStrip, ye = min(ys + kStrip, h);
  for (int i = tid; i < taps; i += kFusedThreads) wsh[i] = static_cast<float>(weights[i]);
  for (int i = tid; i < ring_rows * ring_row; i += kFusedThreads) ring[i] = 0.0f;
  __syncthreads();
  auto slot = [&](int j) { return (j + radius) % ring_rows; };  // j >= ys - radius >= -radius
  int next_row = ys - radius;
  for (int yc = ys; yc < ye; yc += kChunk) {
    const int need = min(yc + kChunk, ye) - 1 + radius;
    // Phase A: filtered rows next_row..need, one warp per row; the warp's next row is loaded
    // into registers while this one is filtered (v2: the loads of one row at a time left each
    // warp waiting out the full memory latency per row).
    float* st = stage + warp * C * sstride;
    const int c = lane / kLanesPerChannel, base = (lane % kLanesPerChannel) * K;
    Pix<C, float> pre[kFusedSpanIters];
    auto fetch = [&](int j) {
      const float* row = in + static_cast<size_t>(clampi(j, 0, h - 1)) * w * C;
#pragma unroll
      for (int q = 0; q < kFusedSpanIters; ++q) {
        const int i = lane + 32 * q;
        if (i < span) pre[q] = load_pix<C>(row + static_cast<size_t>(clampi(x0 - radius + i, 0, w - 1)) * C);
      }
    };
    if (next_row + warp <= need) fetch(next_row + warp);
    for (int j = next_row + warp; j <= need; j += 8) {
#pragma unroll
      for (int q = 0; q < kFusedSpanIters; ++q) {
        const int i = lane + 32 * q;
        if (i < span) {
#pragma unroll
          for (int cc = 0; cc < C; ++cc) st[cc * sstride + padded_index(i)] = pre[q].v[cc];
        }
      }
      __syncwarp();
      if (j + 8 <= need) fetch(j + 8);
      const float* plane = st + c * sstride;
      float acc[K];
#pragma unroll
      for (int k = 0; k < K; ++k) acc[k] = 0.0f;
      sliding_window<float>(
          taps, [&](int i) { return plane[padded_index(base + i)]; }, [&](int t) { return wsh[t]; },
          [](float& a, float wu, float x) { a += wu * x; }, acc);
      float* dst = ring + slot(j) * ring_row + c * FX + base;
#pragma unroll
      for (int k = 0; k < K; ++k) dst[k] = acc[k];
      __syncwarp();  // the staging row is reused
    }
    next_row = need + 1;
    __syncthreads();
    // Phase B: outputs yc .. min(yc + kChunk, ye) - 1, K rows per step.
    const int bc = tid / FX, px = tid % FX;
    const float* col = ring + bc * FX + px;
    for (int y0 = yc; y0 < min(yc + kChunk, ye); y0 += K) {
      float acc[K];
      // Ring slots of consecutive rows by increment and wrap (v2: a modulo per tap was most of
      // this loop's instructions): the window asks for its rows in order.
      int sl = slot(y0 - radius);
      auto next_slot = [&] {
        const int cur = sl;
        sl = sl + 1 == ring_rows ? 0 : sl + 1;
        return cur;
      };
#pragma unroll
      for (int k = 0; k < K; ++k) acc[k] = 0.0f;
      sliding_window<float>(
          taps, [&](int) { return col[next_slot() * ring_row]; }, [&](int t) { return wsh[t]; },
          [](float& a, float wu, float x) { a += wu * x; }, acc);
      // Stage K output rows [k][c][px] in the (idle) staging area, then 16-byte stores.
#pragma unroll
      for (int k = 0; k < K; ++k) stage[(k * C + bc) * FX + px] = acc[k];
      __syncthreads();
      for (int i = tid; i < K * FX; i += kFusedThreads) {
        const int k = i / FX, p = i % FX, y = y0 + k, x = x0 + p;
        if (y < ye && x < w) {
          Pix<C, float> o;
#pragma unroll
          for (int cc = 0; cc < C; ++cc) o.v[cc] = stage[(k * C + cc) * FX + p];
          store_pix<C, float>(out + (static_cast<size_t>(y) * w + x) * C, o);
        }
      }
      __syncthreads();
    }
  }
}

// Fused separable pass v3 ("strips", RGBA, float accumulation; BlurEngineConfig::separable_strips,
// the default for RGBA where it runs two or more blocks per SM): one read of the input, one
// write of the output, float4 per lane and 8 outputs per lane in both phases (rgba_window; the
// fused v2 kernel above filtered one channel per lane at ~2.2 instructions per FMA).
// Work: block (s, c) takes strip s (kStripW = 32 pixels) over the rows [c chunk, (c + 1) chunk);
// the blocks of one chunk run side by side down the frame, so a strip's halo columns are read
// from L2 while its neighbours read them from DRAM. For the segment [ys, ye) of strip x0:
// relative row `rel` = image row ys - r + rel; its filtered row lives in ring slot rel mod R,
// R = kStripRows + taps (taps padded to a multiple of K; R is a multiple of 8, so slot & 7 ==
// rel & 7). Per batch of kStripRows relative rows:
//  * row phase: the batch's (32 + taps)-pixel row spans, staged by cp.async with an odd row
//    stride, are filtered by lane (row q, group j): 8 consecutive outputs; a quarter-warp is 8
//    rows at the same x, so its 16-byte loads hit 8 distinct 4-bank groups. Results go to the
//    ring swizzled (pixel x of slot sl at x ^ (sl & 7)), so the 8 rows' stores are conflict-free.
//  * the next batch's copies are issued, to fly during
//  * the column phase: thread (column c, group g) computes 8 output rows of the previous 32 from
//    its window of 8 + taps ring rows (8-row groups never wrap: the swizzle of row u of a group
//    is u) and stores them as 512-byte coalesced rows.
// Only the 2r + 1 real taps are multiplied (kTail = (2r + 1) % 8 instantiates the last group).
// Shared memory: weights + R x 32 float4 + 32 x (span + 1) float4: 73 KB at taps 40 (sigma 6;
// three blocks of 4 warps per SM), 91 KB at taps 56 (the limit, sigma 9; two blocks). Past it
// the two passes are as fast or faster (4K: sigma 10 0.279 vs 0.278 ms, 11.5 0.315 vs 0.307).
// Versions (H100, 4K sigma 6; docs/performance.md): (a) 64-row steps, 4 outputs per lane in the
// row phase, a double-buffered stage, 146 KB (one block of 8 warps per SM): 0.273 ms; (b) the
// same, one stage buffer (two blocks per SM): 0.245 ms, 507 instructions per pixel, 59 % issue:
// the row phase asked more 16-byte shared loads per FMA than the shared-memory pipe serves, and
// every other batch waited out its own load; (c) this layout with the strips laid end to end and
// cut into equal shares per block: 0.208 ms, but neighbours ran at unrelated rows and 2.6x the
// input came from DRAM; (d) chunks side by side: 0.191 ms; (e) real taps only: 0.182 ms.
constexpr int kStripW = 32, kStripRows = 32, kStripThreads = 128, kStripMaxTaps = 56;
constexpr int kStripSpanIters = (kStripW + kStripMaxTaps + 31) / 32;
__host__ __device__ inline int strip_stage_stride(int taps) { return kStripW + taps + 1; }  // odd
__host__ __device__ inline size_t strip_smem(int taps) {
  return ((static_cast<size_t>(taps) * sizeof(float) + 15u) & ~size_t{15}) +
         16u * (static_cast<size_t>(kStripRows + taps) * kStripW +
                kStripRows * static_cast<size_t>(strip_stage_stride(taps)));
}

__device__ __forceinline__ void cp_async16(void* smem_dst, const void* gmem_src) {
  const unsigned d = static_cast<unsigned>(__cvta_generic_to_shared(smem_dst));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(d), "l"(gmem_src) : "memory");
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
__device__ __forceinline__ void cp_async_wait_all() { asm volatile("cp.async.wait_group 0;\n" ::: "memory"); }

template <int kTail>
__global__ void __launch_bounds__(kStripThreads) sep_strip_rgba_kernel(const float4* __restrict__ in,
                                                                       float4* __restrict__ out, int w, int h,
                                                                       const double* __restrict__ weights, int radius,
                                                                       int taps, int chunk) {
  extern __shared__ __align__(16) unsigned char smem[];
  float* wsh = reinterpret_cast<float*>(smem);
  float4* ring = reinterpret_cast<float4*>(smem + ((static_cast<size_t>(taps) * sizeof(float) + 15u) & ~size_t{15}));
  const int R = kStripRows + taps, span = kStripW + taps, sstride = strip_stage_stride(taps);
  const int nfull = (2 * radius + 1) / K;  // (2 radius + 1) % K == kTail
  float4* stage = ring + R * kStripW;
  const int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31;
  for (int i = tid; i < taps; i += kStripThreads) wsh[i] = static_cast<float>(weights[i]);
  const int nb0 = (taps + kStripRows - 1) / kStripRows;  // prologue batches: relative rows [0, taps)
  const int q = warp * 8 + (lane & 7), j = lane >> 3;     // row phase: batch row q, outputs 8 j .. 8 j + 7
  const int cc = lane, g = warp;                          // column phase: column cc, output rows 8 g .. 8 g + 7
  const int x0 = blockIdx.x * kStripW, ys = blockIdx.y * chunk, ye = min(ys + chunk, h);
  const int nbatches = nb0 + (ye - ys + kStripRows - 1) / kStripRows;
  int gx[kStripSpanIters];
#pragma unroll
  for (int m = 0; m < kStripSpanIters; ++m) {
    const int i = lane + 32 * m;
    gx[m] = i < span ? clampi(x0 - radius + i, 0, w - 1) : -1;
  }
  auto batch_first = [&](int b) { return b < nb0 ? b * kStripRows : taps + (b - nb0) * kStripRows; };
  auto batch_count = [&](int b) { return b < nb0 ? min(kStripRows, taps - b * kStripRows) : kStripRows; };
  auto issue = [&](int b) {
    const int first = batch_first(b), count = batch_count(b);
    for (int r = warp; r < count; r += kStripThreads / 32) {
      const float4* row = in + static_cast<size_t>(clampi(ys - radius + first + r, 0, h - 1)) * w;
      float4* dst = stage + r * sstride + lane;
#pragma unroll
      for (int m = 0; m < kStripSpanIters; ++m)
        if (gx[m] >= 0) cp_async16(dst + 32 * m, row + gx[m]);
    }
    cp_async_commit();
  };
  issue(0);
  for (int b = 0; b < nbatches; ++b) {
    cp_async_wait_all();  // batch b has landed (this thread's copies) ...
    __syncthreads();      // ... and everyone's; the weights; the last column phase is done with the ring
    const int first = batch_first(b);
    if (q < batch_count(b)) {
      const float4* p = stage + q * sstride + K * j;
      float4 acc[K];
      rgba_window<kTail>(wsh, nfull, [&](int i0, int u) { return p[i0 + u]; }, acc);
      const int slot = (first + q) % R, sw = slot & 7;
      float4* dst = ring + slot * kStripW + K * j;
#pragma unroll
      for (int k = 0; k < K; ++k) dst[k ^ sw] = acc[k];
    }
    __syncthreads();  // ring rows written; the stage is free
    if (b + 1 < nbatches) issue(b + 1);  // flies during the column phase
    if (b < nb0) continue;
    // Column phase: output rows ys + 32 s + 8 g + k read relative rows 32 s + 8 g + k + t.
    const int step = b - nb0, y0 = ys + step * kStripRows + 8 * g;
    const int sl0 = (step * kStripRows + 8 * g) % R;
    float4 acc[K];
    rgba_window<kTail>(wsh, nfull, [&](int i0, int u) {
      int sl = sl0 + i0;
      if (sl >= R) sl -= R;  // i0 <= taps < R: one wrap at most
      return ring[(sl + u) * kStripW + (cc ^ u)];
    }, acc);
    if (x0 + cc < w) {
#pragma unroll
      for (int k = 0; k < K; ++k)
        if (y0 + k < ye) out[static_cast<size_t>(y0 + k) * w + x0 + cc] = acc[k];
    }
  }
}

// Direct / reshuffled 2D convolution. Block 16 x 16, one output pixel per thread. Tiled: the
// (16 + 2r)^2 input window in shared memory, one plane per channel (consecutive x -> consecutive
// banks); otherwise (large r) reads through L1 with clamped coordinates. kOnePerGroup (direct):
// one offset per weight, taken in turn with no inner loop over the group (the general loop,
// entered once per tap, cost direct 15-20 %).
constexpr int kTile = 16;
template <int C, bool kTiled, bool kOnePerGroup>
__global__ void __launch_bounds__(256) conv2d_kernel(const float* __restrict__ in, float* __restrict__ out, int w,
                                                     int h, int radius, int n_groups, const int2* __restrict__ offsets,
                                                     const int* __restrict__ group_end,
                                                     const float* __restrict__ group_weight) {
  extern __shared__ __align__(16) unsigned char smem[];
  float* tile = reinterpret_cast<float*>(smem);
  const int tw = kTile + 2 * radius, tsize = tw * tw;
  const int bx = blockIdx.x * kTile, by = blockIdx.y * kTile;
  const int tx = threadIdx.x, ty = threadIdx.y;
  if constexpr (kTiled) {
    for (int i = ty * kTile + tx; i < tsize; i += kTile * kTile) {
      const int lx = i % tw, ly = i / tw;
      const int gx = clampi(bx - radius + lx, 0, w - 1), gy = clampi(by - radius + ly, 0, h - 1);
      const Pix<C, float> p = load_pix<C>(in + (static_cast<size_t>(gy) * w + gx) * C);
#pragma unroll
      for (int c = 0; c < C; ++c) tile[c * tsize + i] = p.v[c];
    }
    __syncthreads();
  }
  const int x = bx + tx, y = by + ty;
  if (x >= w || y >= h) return;
  // The input at offset d (edge-clamped), added into sum.
  auto add_tap = [&](int2 d, Pix<C, float>& sum) {
    if constexpr (kTiled) {
      const int i = (ty + radius + d.y) * tw + tx + radius + d.x;
#pragma unroll
      for (int c = 0; c < C; ++c) sum.v[c] += tile[c * tsize + i];
    } else {
      const Pix<C, float> p =
          load_pix<C>(in + (static_cast<size_t>(clampi(y + d.y, 0, h - 1)) * w + clampi(x + d.x, 0, w - 1)) * C);
#pragma unroll
      for (int c = 0; c < C; ++c) sum.v[c] += p.v[c];
    }
  };
  Pix<C, float> acc = pix_zero<C, float>();
  if constexpr (kOnePerGroup) {
    for (int g = 0; g < n_groups; ++g) {
      Pix<C, float> v = pix_zero<C, float>();
      add_tap(offsets[g], v);
      madd(acc, group_weight[g], v);
    }
  } else {
    int o = 0;
    for (int g = 0; g < n_groups; ++g) {
      const int end = group_end[g];
      Pix<C, float> sum = pix_zero<C, float>();
#pragma unroll 4  // ptxas' own choice spilled 8 bytes in the grey tiled instance
      for (; o < end; ++o) add_tap(offsets[o], sum);
      madd(acc, group_weight[g], sum);
    }
  }
  store_pix<C, float>(out + (static_cast<size_t>(y) * w + x) * C, acc);
}

constexpr int kMaxTileSmem = 160 * 1024;

size_t row_smem(int taps, int channels, bool f64) {
  return static_cast<size_t>(taps) * (f64 ? 8 : 4) + 4u * sizeof(float) * plane_stride(kRowSegment + taps);
}

template <class Kern>
Status allow_smem(Kern kernel, size_t bytes) {
  if (bytes > 48 * 1024)
    TK_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)));
  return {};
}

template <int C, class A>
Status separable_t(const float* in, float* tmp, float* out, int w, int h, const double* weights, int radius,
                   const SeparableBanding* banding, cudaStream_t s) {
  const int taps = separable_taps(radius);
  const size_t rs = row_smem(taps, C, sizeof(A) == 8);
  if (banding && banding->ring > 0) {
    if (Status st = allow_smem(sep_banded_kernel<C, A>, rs); !st.ok()) return st;
    TK_CUDA_CHECK(cudaMemsetAsync(banding->done, 0, sizeof(int) * banding->nphases, s));
    int per_sm = 0, device = 0, sms = 0;
    TK_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, sep_banded_kernel<C, A>, kRowThreads, rs));
    TK_CUDA_CHECK(cudaGetDevice(&device));
    TK_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    if (per_sm < 1) return invalid_argument("cuda blur: the banded separable kernel does not fit an SM");
    const int grid = std::min(banding->total, per_sm * sms);
    sep_banded_kernel<C, A><<<grid, kRowThreads, rs, s>>>(in, tmp, out, w, h, weights, radius, taps,
                                                          static_cast<unsigned>(banding->ring - 1), banding->phases,
                                                          banding->nphases, banding->total, banding->done,
                                                          banding->segments, banding->col_blocks);
    TK_CUDA_CHECK_LAUNCH("sep_banded_kernel");
    return {};
  }
  if constexpr (C == 4 && sizeof(A) == 4) {  // RGBA, float accumulation: whole pixels per lane (v3)
    const size_t rgs = rgba_row_smem(taps);
    if (Status st = allow_smem(sep_rows_rgba_kernel, rgs); !st.ok()) return st;
    const dim3 rgrid((w + kRowSegment - 1) / kRowSegment, (h + kRgbaRows - 1) / kRgbaRows);
    sep_rows_rgba_kernel<<<rgrid, kRowThreads, rgs, s>>>(in, tmp, w, h, weights, radius, taps);
    TK_CUDA_CHECK_LAUNCH("sep_rows_rgba_kernel");
  } else {
    if (Status st = allow_smem(sep_rows_kernel<C, A>, rs); !st.ok()) return st;
    const dim3 rgrid((w + kRowSegment - 1) / kRowSegment, (h + 4 / C - 1) / (4 / C));
    sep_rows_kernel<C, A><<<rgrid, kRowThreads, rs, s>>>(in, tmp, w, h, weights, radius, taps);
    TK_CUDA_CHECK_LAUNCH("sep_rows_kernel");
  }
  if constexpr (C == 4 && sizeof(A) == 4) {  // RGBA, float accumulation: shared-memory column tiles (v3)
    const size_t ccs = rgba_col_smem(taps);
    if (ccs <= static_cast<size_t>(kMaxRowSmem)) {
      if (Status st = allow_smem(sep_cols_rgba_kernel, ccs); !st.ok()) return st;
      const dim3 cgrid((w + kColTileW - 1) / kColTileW, (h + kColTileH - 1) / kColTileH);
      sep_cols_rgba_kernel<<<cgrid, kColThreads, ccs, s>>>(tmp, out, w, h, weights, radius, taps);
      TK_CUDA_CHECK_LAUNCH("sep_cols_rgba_kernel");
      return {};
    }
  }
  const size_t cs = static_cast<size_t>(taps) * sizeof(A);
  if (Status st = allow_smem(sep_cols_kernel<C, A>, cs); !st.ok()) return st;
  const dim3 cgrid((w + 31) / 32, (h + 4 * K - 1) / (4 * K));
  sep_cols_kernel<C, A><<<cgrid, dim3(32, 4), cs, s>>>(tmp, out, w, h, weights, radius, taps);
  TK_CUDA_CHECK_LAUNCH("sep_cols_kernel");
  return {};
}

template <int C, bool kTiled, bool kOnePerGroup>
Status conv2d_g(const float* in, float* out, int w, int h, const Kernel2D& k, size_t smem, cudaStream_t s) {
  if (Status st = allow_smem(conv2d_kernel<C, kTiled, kOnePerGroup>, smem); !st.ok()) return st;
  const dim3 grid((w + kTile - 1) / kTile, (h + kTile - 1) / kTile);
  conv2d_kernel<C, kTiled, kOnePerGroup><<<grid, dim3(kTile, kTile), smem, s>>>(
      in, out, w, h, k.radius, k.n_groups, k.offsets, k.group_end, k.group_weight);
  TK_CUDA_CHECK_LAUNCH("conv2d_kernel");
  return {};
}

template <int C, bool kTiled>
Status conv2d_t(const float* in, float* out, int w, int h, const Kernel2D& k, size_t smem, cudaStream_t s) {
  return k.one_per_group ? conv2d_g<C, kTiled, true>(in, out, w, h, k, smem, s)
                         : conv2d_g<C, kTiled, false>(in, out, w, h, k, smem, s);
}

dim3 grid2d(int w, int h) { return dim3((w + 31) / 32, (h + 7) / 8); }

size_t fused_smem(int radius, int channels, int kChunk) {
  const int taps = separable_taps(radius), fx = 256 / channels;
  return sizeof(float) * (static_cast<size_t>((taps + 3) & ~3) + 8u * channels * plane_stride(fx + taps) +
                          static_cast<size_t>(kChunk + 2 * radius) * channels * fx);
}
constexpr size_t kMaxFusedSmem = 150 * 1024;

template <int C, int kChunk>
Status separable_fused_t(const float* in, float* out, int w, int h, const double* weights, int radius, int kStrip,
                         cudaStream_t s) {
  const size_t smem = fused_smem(radius, C, kChunk);
  if (Status st = allow_smem(sep_fused_kernel<C, kChunk>, smem); !st.ok()) return st;
  const dim3 grid((w + 256 / C - 1) / (256 / C), (h + kStrip - 1) / kStrip);
  sep_fused_kernel<C, kChunk><<<grid, kFusedThreads, smem, s>>>(in, out, w, h, weights, radius, separable_taps(radius),
                                                                kStrip);
  TK_CUDA_CHECK_LAUNCH("sep_fused_kernel");
  return {};
}

}  // namespace

bool separable_fused_fits(int radius, int channels, int chunk) {
  return (chunk == 16 || chunk == 32) && separable_taps(radius) <= kFusedMaxTaps &&
         fused_smem(radius, channels, chunk) <= kMaxFusedSmem;
}

Status separable_fused(const float* in, float* out, int w, int h, int channels, const double* weights, int radius,
                       cudaStream_t s, int strip, int chunk) {
  if (!separable_fused_fits(radius, channels, chunk))
    return invalid_argument("cuda blur: radius " + std::to_string(radius) + " too large for the fused separable kernel");
  if (strip < chunk || strip % chunk != 0)
    return invalid_argument("cuda blur: fused separable strip must be a multiple of its chunk");
  if (chunk == 16)
    return channels == 4 ? separable_fused_t<4, 16>(in, out, w, h, weights, radius, strip, s)
                         : separable_fused_t<1, 16>(in, out, w, h, weights, radius, strip, s);
  return channels == 4 ? separable_fused_t<4, 32>(in, out, w, h, weights, radius, strip, s)
                       : separable_fused_t<1, 32>(in, out, w, h, weights, radius, strip, s);
}

namespace {
template <int kTail>
Status strip_launch(const float* in, float* out, int w, int h, const double* weights, int radius, int chunk,
                    cudaStream_t s) {
  const int taps = separable_taps(radius);
  const size_t smem = strip_smem(taps);
  if (Status st = allow_smem(sep_strip_rgba_kernel<kTail>, smem); !st.ok()) return st;
  const dim3 grid((w + kStripW - 1) / kStripW, (h + chunk - 1) / chunk);
  sep_strip_rgba_kernel<kTail><<<grid, kStripThreads, smem, s>>>(reinterpret_cast<const float4*>(in),
                                                                 reinterpret_cast<float4*>(out), w, h, weights, radius,
                                                                 taps, chunk);
  TK_CUDA_CHECK_LAUNCH("sep_strip_rgba_kernel");
  return {};
}

// Blocks of the strip kernel per SM for this radius (0 when it does not fit).
Result<int> strip_blocks_per_sm(int radius) {
  const int taps = separable_taps(radius);
  const size_t smem = strip_smem(taps);
  int device = 0, optin = 0, per_sm = 0;
  TK_CUDA_CHECK(cudaGetDevice(&device));
  TK_CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  if (taps > kStripMaxTaps || smem > static_cast<size_t>(optin)) return 0;
  // All four instantiations use the same shared memory and (within a few) registers.
  if (Status st = allow_smem(sep_strip_rgba_kernel<5>, smem); !st.ok()) return st;
  TK_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, sep_strip_rgba_kernel<5>, kStripThreads, smem));
  return per_sm;
}
}  // namespace

bool separable_strips_fit(int radius, int channels) {
  if (channels != 4) return false;
  auto per_sm = strip_blocks_per_sm(radius);
  // One block per SM leaves too little to overlap the batches' loads with: the two passes win.
  return per_sm.ok() && *per_sm >= 2;
}

Result<int> separable_strips_chunk(int w, int h, int radius) {
  const int taps = separable_taps(radius);
  auto per_sm = strip_blocks_per_sm(radius);
  if (!per_sm.ok()) return per_sm.status();
  if (*per_sm < 1) return invalid_argument("cuda blur: the strip separable kernel does not fit an SM");
  int device = 0, sms = 0;
  TK_CUDA_CHECK(cudaGetDevice(&device));
  TK_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  // Rows per block: a multiple of the 32-row batch. Cost ~ waves x (rows + taps) per block:
  // short chunks repeat the taps-row prologue, long ones leave SMs idle in the last wave.
  const long long slots = static_cast<long long>(*per_sm) * sms, strips = (w + kStripW - 1) / kStripW;
  const int hmax = (h + kStripRows - 1) / kStripRows * kStripRows;
  int best = hmax;
  long long best_cost = -1;
  for (int chunk = kStripRows; chunk <= hmax; chunk += kStripRows) {
    const long long blocks = strips * ((h + chunk - 1) / chunk), waves = (blocks + slots - 1) / slots;
    const long long cost = waves * (chunk + taps);
    if (best_cost < 0 || cost < best_cost) {
      best_cost = cost;
      best = chunk;
    }
  }
  return best;
}

Status separable_strips(const float* in, float* out, int w, int h, const double* weights, int radius, int chunk,
                        cudaStream_t s) {
  const int taps = separable_taps(radius);
  if (radius < 0 || taps > kStripMaxTaps || chunk <= 0 || chunk % kStripRows != 0)
    return invalid_argument("cuda blur: strip separable kernel: radius " + std::to_string(radius) + " or chunk " +
                            std::to_string(chunk) + " out of range");
  switch ((2 * radius + 1) % K) {
    case 1: return strip_launch<1>(in, out, w, h, weights, radius, chunk, s);
    case 3: return strip_launch<3>(in, out, w, h, weights, radius, chunk, s);
    case 5: return strip_launch<5>(in, out, w, h, weights, radius, chunk, s);
    default: return strip_launch<7>(in, out, w, h, weights, radius, chunk, s);
  }
}

int separable_taps(int radius) { return (2 * radius + 1 + K - 1) / K * K; }

SeparableBands separable_bands(int w, int h, int channels, int radius) {
  const size_t row_bytes = sizeof(float) * static_cast<size_t>(w) * channels;
  constexpr size_t kWholeBudget = 24u << 20, kRingBudget = 32u << 20;  // H100: 50 MB of L2
  SeparableBands b;
  if (row_bytes * static_cast<size_t>(h) <= kWholeBudget) return b;  // the whole intermediate fits L2
  for (int ring = 1024; ring >= 64; ring /= 2) {
    // Two bands and both halos in the ring: rows(b + 1) may run while columns(b) still reads.
    const int band = (ring - 2 * radius) / 2 / (4 * K) * (4 * K);  // whole column-pass blocks
    if (band >= 4 * K && band >= 2 * radius && static_cast<size_t>(ring) * row_bytes <= kRingBudget && ring < h) {
      b.ring = ring;
      b.band = band;
      return b;
    }
  }
  return b;
}

Status separable_banding_create(int w, int h, int channels, int radius, cuda::DeviceAllocations& memory,
                                SeparableBanding& out) {
  out = SeparableBanding{};
  const SeparableBands bands = separable_bands(w, h, channels, radius);
  if (bands.ring == 0) return {};
  const int segments = (w + kRowSegment - 1) / kRowSegment, col_blocks = (w + 31) / 32;
  std::vector<BandPhase> phases;
  int made = 0, first = 0;
  for (int y0 = 0, b = 0; y0 < h; y0 += bands.band, ++b) {
    const int y1 = std::min(h, y0 + bands.band), need = std::min(h, y1 + radius);
    BandPhase r{};
    r.rows = 1;
    r.y0 = made;
    r.y1 = std::max(made, need);
    r.first = first;
    r.count = segments * ((r.y1 - r.y0 + kBandRowsPerTask - 1) / kBandRowsPerTask);
    r.dep0 = b >= 2 ? 2 * (b - 2) + 1 : -1;  // columns(b - 2): its ring rows are overwritten
    r.dep1 = -1;
    made = r.y1;
    first += r.count;
    BandPhase c{};
    c.rows = 0;
    c.y0 = y0;
    c.y1 = y1;
    c.first = first;
    c.count = col_blocks * ((y1 - y0 + 4 * K - 1) / (4 * K));
    c.dep0 = 2 * b;                        // rows(b)
    c.dep1 = b >= 1 ? 2 * (b - 1) : -1;    // rows(b - 1): the upper halo
    first += c.count;
    phases.push_back(r);
    phases.push_back(c);
  }
  if (Status st = memory.alloc(&out.phases, phases.size()); !st.ok()) return st;
  if (Status st = memory.alloc(&out.done, phases.size()); !st.ok()) return st;
  TK_CUDA_CHECK(cudaMemcpy(out.phases, phases.data(), phases.size() * sizeof(BandPhase), cudaMemcpyHostToDevice));
  out.ring = bands.ring;
  out.band = bands.band;
  out.nphases = static_cast<int>(phases.size());
  out.total = first;
  out.segments = segments;
  out.col_blocks = col_blocks;
  return {};
}

bool separable_fits(int radius, int channels) {
  const int taps = separable_taps(radius);
  return row_smem(taps, channels, true) <= static_cast<size_t>(kMaxRowSmem) &&
         (channels != 4 || rgba_row_smem(taps) <= static_cast<size_t>(kMaxRowSmem));
}

Status pad_clamped(const float* in, int w, int h, int pad, float* out, int channels, cudaStream_t s) {
  const dim3 grid = grid2d(w + 2 * pad, h + 2 * pad);
  if (channels == 4) pad_kernel<4><<<grid, dim3(32, 8), 0, s>>>(in, w, h, pad, out);
  else pad_kernel<1><<<grid, dim3(32, 8), 0, s>>>(in, w, h, pad, out);
  TK_CUDA_CHECK_LAUNCH("pad_kernel");
  return {};
}

Status crop(const float* in, int pw, int pad, float* out, int w, int h, int channels, cudaStream_t s) {
  const dim3 grid = grid2d(w, h);
  if (channels == 4) crop_kernel<4><<<grid, dim3(32, 8), 0, s>>>(in, pw, pad, out, w, h);
  else crop_kernel<1><<<grid, dim3(32, 8), 0, s>>>(in, pw, pad, out, w, h);
  TK_CUDA_CHECK_LAUNCH("crop_kernel");
  return {};
}

Status copy_plane(const float* in, float* out, int w, int h, int channels, cudaStream_t s) {
  TK_CUDA_CHECK(cudaMemcpyAsync(out, in, sizeof(float) * static_cast<size_t>(w) * h * channels,
                                cudaMemcpyDeviceToDevice, s));
  return {};
}

Status separable(const float* in, float* tmp, float* out, int w, int h, int channels, const double* weights,
                 int radius, bool f64, cudaStream_t s, const SeparableBanding* banded) {
  if (!separable_fits(radius, channels))
    return invalid_argument("cuda blur: separable radius " + std::to_string(radius) +
                            " exceeds the row pass's shared tile; use fft or a pyramid");
  if (channels == 4)
    return f64 ? separable_t<4, double>(in, tmp, out, w, h, weights, radius, banded, s)
               : separable_t<4, float>(in, tmp, out, w, h, weights, radius, banded, s);
  return f64 ? separable_t<1, double>(in, tmp, out, w, h, weights, radius, banded, s)
             : separable_t<1, float>(in, tmp, out, w, h, weights, radius, banded, s);
}

Status convolve_2d(const float* in, float* out, int w, int h, int channels, const Kernel2D& k, cudaStream_t s) {
  const int tw = kTile + 2 * k.radius;
  const size_t smem = static_cast<size_t>(tw) * tw * channels * sizeof(float);
  const bool tiled = smem <= static_cast<size_t>(kMaxTileSmem);
  if (channels == 4)
    return tiled ? conv2d_t<4, true>(in, out, w, h, k, smem, s) : conv2d_t<4, false>(in, out, w, h, k, 0, s);
  return tiled ? conv2d_t<1, true>(in, out, w, h, k, smem, s) : conv2d_t<1, false>(in, out, w, h, k, 0, s);
}

}  // namespace tonekit::gpu_blur
