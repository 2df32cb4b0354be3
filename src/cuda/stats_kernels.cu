// Frame statistics on the device (docs/architecture.md stage 1; thesis ch. 5.2, average-luminance
// seed): luminance, log-sum, min, max, smallest positive, NaN/Inf/negative counts.
//  - fused (default): one launch, persistent grid, 16-byte loads, block totals in double, added
//    into the frame's totals by integer atomics (fixed-point log-sum); the last block to finish
//    (atomic ticket) derives the curve constants on the device: no host round trip,
//    deterministic. Packed half/float RGBA frames take its flat form (several groups per thread
//    in flight), strided frames and float RGB its row form.
//  - harris: the multi-pass shared-memory tree of Harris, "Optimizing parallel reduction in
//    CUDA" (first add during load, sequential addressing), one launch per level + finish.
//  - mjp: vectorised, several pixels of two rows per thread (the 2x2-per-thread idea of the
//    average-luminance seed), block totals, then a one-block finish launch.
//  - cub: cub::DeviceReduce::Reduce over a transform iterator of pixel groups, then finish.
#include <cub/device/device_reduce.cuh>
#include <cuda/atomic>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include "cuda/check.hpp"
#include "cuda/pdl.cuh"
#include "core/temporal_model.hpp"
#include "cuda/stats_reduce.cuh"

namespace tonekit::cuda {
namespace {

// The grid's total -> FrameStats and the frame's curve constants, on the device. Not inlined: a
// whole frame (the statistics kernel's last block) and a frame split between GPUs (the finish
// after the exchange) run the same machine code, so equal totals give equal constants bit for
// bit (inlined, each caller's compilation may contract the double arithmetic differently).
__device__ __noinline__ void finalise_frame(const StatsPartial& t, unsigned long long pixel_count, DeviceFrame* frame,
                                               const core::CurvePlan& params, const float* hist_table) {
  FrameStats s;
  s.pixel_count = pixel_count;
  s.log_sum = t.log_sum * 0.69314718055994530942;  // log2 units (group_stats_values) -> ln
  s.log_average = exp(s.log_sum / static_cast<double>(pixel_count));
  s.min_luminance = t.min;
  s.max_luminance = t.max;
  s.peak_luminance = t.max;  // the robust peak, when the operator asks for one, replaces it (launch_robust_peak)
  s.min_positive_luminance = isfinite(t.min_positive) ? t.min_positive : 0.0;
  s.nan_count = t.nan;
  s.inf_count = t.inf;
  s.negative_count = t.negative;
  frame->stats = s;
  frame->curve = core::prepare_curve_hd(params, core::curve_stats_hd(s), hist_table);
}


// 32-bit: a frame holds at most 2^28 pixels (kMaxImagePixels), 2^26 groups; a 64-bit division
// here cost ~20 instructions per pixel (docs/performance.md, global pipeline).
__device__ __forceinline__ void group_coords(unsigned g, unsigned groups_per_row, int& x, int& y) {
  const unsigned q = g / groups_per_row;
  y = static_cast<int>(q);
  x = static_cast<int>(g - q * groups_per_row) * kGroup;
}

// The grid-wide finish of the one-launch kernels (v20): thread 0 of each block adds its block's
// total into frame->acc and takes a ticket (add_block_total, stats_reduce.cuh); the last block's
// thread 0 reads the totals, finishes the frame and zeroes them. Until v19 each block stored a
// partial and the last block loaded all of them (an L2 round trip) and reduced them across the
// block; the atomics take neither, though the 4K time did not move (v20 in docs/performance.md).
// A frame part (g.defer_finish) leaves the totals, widened, in frame->exchange for the exchange
// between parts instead (launch_finish_exchanged finishes it).
__device__ void finish_by_last_block(const StatsPartial& mine, DeviceFrame* frame, const FrameGeometry& g,
                                     const core::CurvePlan& params, const float* hist_table) {
  if (threadIdx.x != 0) return;
  StatsAccumulator& acc = frame->acc;
  if (!add_block_total(mine, acc)) return;
  const unsigned long long pixel_count = static_cast<unsigned long long>(g.width) * g.height;
  if (g.defer_finish) {
    defer_totals(acc, frame->exchange, pixel_count);
    return;
  }
  StatsPartial t;
  const unsigned long long fixed = __ldcg(&acc.log_sum_fixed);
  t.log_sum = __ldcg(&acc.log_sum_infinite) ? static_cast<double>(INFINITY)
                                             : ldexp(static_cast<double>(static_cast<long long>(fixed)), -kLogSumFracBits);
  t.min = __uint_as_float(~__ldcg(&acc.min_complement));
  t.max = __uint_as_float(__ldcg(&acc.max_bits));
  t.min_positive = __uint_as_float(~__ldcg(&acc.min_positive_complement));
  t.nan = __ldcg(&acc.nan);
  t.inf = __ldcg(&acc.inf);
  t.negative = __ldcg(&acc.negative);
  acc = StatsAccumulator{};  // ready for the next frame (the next launch orders these stores)
  finalise_frame(t, pixel_count, frame, params, hist_table);
}

// Blocks per SM the fused kernel is compiled for. ptxas' own choice (52-61 registers) fits 4
// blocks of 256 threads per SM (not the 5 assumed before v15b); 5 for half
// input (48 registers, no spill: -0.2 to -0.3 us at 4K, v15b/v16), 2 for float input, whose
// kernels spill at 48 registers (v7: an 8-byte spill made the float-RGB pass 2.2x slower; v16: a
// 10-byte spill, 2.6x).
template <class In>
constexpr int kStatsMinBlocks = sizeof(typename In::T) == 2 ? 5 : 2;

// The L2 policy of the statistics pass's loads (v16): groups before `head_groups` are read with
// evict-first loads, the frame's last kStatsL2Keep of the L2's size with the normal read-only
// ones. Evict-first lines are replaced before the L2's other lines: the previous frame's dirty
// output and the frame's end stay, the end for the map pass (which walks backwards and reads it
// first). 4K half RGBA, H100 (v16 in docs/performance.md), frame / statistics in the stream / map, ms:
// no policy 0.0700 / 0.0337 / 0.0390; keep 0: 0.0700 / 0.0309 / 0.0415; 0.3: 0.0689 / 0.0314 /
// 0.0402; 0.45: 0.0688 / 0.0321 / 0.0394; 0.6: 0.0693 / 0.0329 / 0.0390; 0.8: 0.0701.
constexpr double kStatsL2Keep = 0.45;

template <class In>
__global__ void __launch_bounds__(kStatsThreads, kStatsMinBlocks<In>) stats_fused_kernel(FrameGeometry g,
                                                                    DeviceFrame* frame, core::CurvePlan params,
                                                                    const float* hist_table, unsigned head_groups) {
  // The next kernel, when launched as a programmatic dependent (the map pass), may start its
  // blocks now; it waits for this grid's completion before reading results (cuda/pdl.cuh).
  trigger_dependents();
  StatsPartial acc = identity_partial();
  const unsigned step = gridDim.x * blockDim.x, total = static_cast<unsigned>(g.total_groups);
  // Software pipelining (v6): the next group's 16-byte loads are issued before this group's
  // log chain, so every thread keeps a load in flight (v4's two-groups-per-iteration unroll
  // gained nothing: the loads of the next iteration still waited for this one's compute; v9's
  // two groups ahead cost registers, 4 instead of 5 blocks per SM, and ran 6 % slower).
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  RawGroup<In> raw;
  bool vec = false;
  int x = 0, y = 0;
  if (i < total) {
    group_coords(i, g.groups_per_row, x, y);
    vec = load_raw<In>(g.in + static_cast<std::size_t>(y) * g.in_stride, x, g.width, raw, i < head_groups);
  }
  while (i < total) {
    const unsigned j = i + step;
    RawGroup<In> next{};  // zero-initialised: a partly defined copy below made ptxas spill (v7)
    bool next_vec = false;
    int xn = 0, yn = 0;
    if (j < total) {
      group_coords(j, g.groups_per_row, xn, yn);
      next_vec = load_raw<In>(g.in + static_cast<std::size_t>(yn) * g.in_stride, xn, g.width, next, j < head_groups);
    }
    float v[kGroup * In::channels];
    if (vec) decode_raw<In>(raw, v);
    else load_group<In>(g.in + static_cast<std::size_t>(y) * g.in_stride, x, g.width, v);
    combine(acc, group_stats_values<In>(v, x, g.width));
    raw = next;
    vec = next_vec;
    x = xn;
    y = yn;
    i = j;
  }
  acc = block_reduce<kStatsThreads>(acc);
  finish_by_last_block(acc, frame, g, params, hist_table);
}

// The pixels [done, width x height) of a packed frame (fewer than kStatsThreads x kGroup), as one
// short "row" of kGroup pixels per thread: the last block of the flat and bulk kernels takes them.
template <class In>
__device__ __forceinline__ void add_packed_tail(const FrameGeometry& g, unsigned long long done, StatsPartial& acc) {
  const int tail = static_cast<int>(static_cast<unsigned long long>(g.width) * g.height - done);
  const int x = static_cast<int>(threadIdx.x) * kGroup;
  if (x < tail) {
    float v[kGroup * In::channels];
    load_group<In>(g.in + static_cast<std::size_t>(done) * In::bytes, x, tail, v);
    combine(acc, group_stats_values<In>(v, x, tail));
  }
}

// ---- fused, flat: packed frames, several groups in flight per thread (v21) ----
// The row kernel above is bound by the latency of its loads (ncu: 77 % of its stall cycles wait
// on them), with one group per thread in flight while it reduces the previous one: at 4K half
// RGBA 12 rounds of 40 KB per SM. More groups per thread in that kernel cost registers and
// blocks per SM (v9). A packed frame (stride = width x pixel bytes, 16-byte aligned) is one flat
// array of pixels, which frees the loop of rows, columns and the division per group, and lets
// each thread take kStatsFlatGroups<In> groups a round: 32 lanes x G groups x kWords 16-byte
// words form a unit, each lane's group 4 consecutive pixels (load_item). Only whole units go
// through the loop; the < 32 x G x kGroup pixels past the last one go to the last block as one
// short "row". For pixel sizes that divide 16 bytes (half and float RGBA); float RGB keeps the
// row kernel. 4K half RGBA, clean L2 (v21d in docs/performance.md): G = 1 (5 blocks per SM) 0.0283 ms as
// the row kernel; G = 2 (4 blocks) 0.0276-0.0278; G = 3 (3 blocks) 0.0277-0.0278; G = 4 (2 blocks)
// 0.0276, and the best at 1080p (0.0121 against 0.0125-0.0128) and 8K.
template <class In>
constexpr bool kFlatStats = (16 % In::bytes) == 0;
template <class In>
constexpr int kStatsFlatGroups = sizeof(typename In::T) == 2 ? 4 : 2;  // float RGBA: 4 x 64-byte groups would spill
constexpr int kStatsFlatMinBlocks = 2;
static_assert(32 * kStatsFlatGroups<InF16x4> <= kStatsThreads && 32 * kStatsFlatGroups<InF32x4> <= kStatsThreads,
              "the last block takes the pixels past the last unit, kGroup per thread");

template <class In>
struct FlatItem {
  RawGroup<In> g[kStatsFlatGroups<In>];
};

// Lane t's group q is the kWords consecutive words (4 consecutive pixels) at unit + (32 q + t) x
// kWords: the same 4 pixels the row kernel and the tail take as a group, since the log-sum is
// rounded per group (stats_reduce.cuh) and the key must not depend on which kernel reads the
// frame. (Until 2026-11-26 lane t read words t, 32 + t, ...: groups of pixels 512 bytes apart,
// and a 4K frame's key differed between half and float RGBA of the same values in its last bits.)
template <class In>
__device__ __forceinline__ void load_item(const uint4* words, unsigned j, FlatItem<In>& r, bool evict_first) {
  constexpr int kWords = kGroup * In::bytes / 16, G = kStatsFlatGroups<In>;
  const uint4* p = words + static_cast<std::size_t>(j & ~31u) * (G * kWords) + (j & 31u) * kWords;
#pragma unroll
  for (int q = 0; q < G; ++q)
#pragma unroll
    for (int k = 0; k < kWords; ++k) {
      const uint4* a = p + 32 * q * kWords + k;
      r.g[q].w[k] = evict_first ? __ldcs(a) : __ldg(a);
    }
}

template <class In>
__global__ void __launch_bounds__(kStatsThreads, kStatsFlatMinBlocks) stats_flat_kernel(FrameGeometry g,
                                                                    DeviceFrame* frame, core::CurvePlan params,
                                                                    const float* hist_table, unsigned head_groups,
                                                                    unsigned total) {
  trigger_dependents();  // the map pass may start loading its pixels (cuda/pdl.cuh)
  const uint4* words = reinterpret_cast<const uint4*>(g.in);
  StatsPartial acc = identity_partial();
  const unsigned step = gridDim.x * blockDim.x;
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned head_items = head_groups / kStatsFlatGroups<In>;
  FlatItem<In> raw{};
  if (i < total) load_item<In>(words, i, raw, i < head_items);
  while (i < total) {  // software pipelined as the row kernel (v6)
    const unsigned j = i + step;
    FlatItem<In> next{};
    if (j < total) load_item<In>(words, j, next, j < head_items);
#pragma unroll
    for (int q = 0; q < kStatsFlatGroups<In>; ++q) {
      float v[kGroup * In::channels];
      decode_raw<In>(raw.g[q], v);
      combine(acc, group_stats_values<In>(v, 0, kGroup));
    }
    raw = next;
    i = j;
  }
  if (blockIdx.x == gridDim.x - 1)
    add_packed_tail<In>(g, static_cast<unsigned long long>(total) * kStatsFlatGroups<In> * kGroup, acc);
  acc = block_reduce<kStatsThreads>(acc);
  finish_by_last_block(acc, frame, g, params, hist_table);
}

// ---- bulk: TMA bulk copies into a shared-memory pipeline (sm_90) ----
// The fused kernel keeps one group (32-48 bytes) per thread in flight, and more costs registers
// and blocks per SM (v9): at 4K its one wave leaves DRAM 61 % busy. Here loads are decoupled
// from the log chain: thread 0 streams contiguous chunks of 1024 pixels (8-16 KB) into
// kBulkStages shared-memory buffers with cp.async.bulk, completion signalled on an mbarrier per
// buffer, while the block's 256 threads reduce the previous chunks (one group each). Needs a
// packed frame (stride = width * pixel bytes) on a 16-byte boundary: the frame is then one flat
// array, every group whole; the < 1024 pixels past the last whole chunk go to the last block.
constexpr int kBulkStages = 4;
template <class In>
__host__ __device__ constexpr int bulk_chunk_bytes() {
  return kStatsThreads * kGroup * In::bytes;
}
template <class In>
__host__ __device__ constexpr std::size_t bulk_smem_bytes() {
  return static_cast<std::size_t>(kBulkStages) * bulk_chunk_bytes<In>();
}

__device__ __forceinline__ std::uint32_t smem_address(const void* p) {
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ void mbarrier_wait_parity(std::uint32_t bar, std::uint32_t parity) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile(
      "{\n"
      "  .reg .pred done;\n"
      "WAIT_%=:\n"
      "  mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
      "  @!done bra WAIT_%=;\n"
      "}\n" ::"r"(bar),
      "r"(parity)
      : "memory");
#endif
}

template <class In>
__global__ void __launch_bounds__(kStatsThreads) stats_bulk_kernel(FrameGeometry g,
                                                                   DeviceFrame* frame, core::CurvePlan params,
                                                                   const float* hist_table, long long chunks) {
  trigger_dependents();  // the map pass may start loading its pixels (cuda/pdl.cuh)
  constexpr int kBytes = bulk_chunk_bytes<In>();
  extern __shared__ __align__(128) unsigned char stage[];
  __shared__ __align__(8) unsigned long long bar[kBulkStages];
  const int tid = static_cast<int>(threadIdx.x);
  const long long first = blockIdx.x, step = gridDim.x;
  const long long mine = first < chunks ? (chunks - first + step - 1) / step : 0;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  if (tid == 0) {
    for (int i = 0; i < kBulkStages; ++i)
      asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem_address(&bar[i])) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  auto issue = [&](long long k, int s) {  // thread 0: this block's chunk k into buffer s
    const unsigned char* src = g.in + static_cast<std::size_t>(first + k * step) * kBytes;
    const std::uint32_t b = smem_address(&bar[s]), dst = smem_address(stage + static_cast<std::size_t>(s) * kBytes);
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");  // earlier generic reads of the buffer first
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(b), "r"(kBytes) : "memory");
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(dst),
                 "l"(src), "r"(kBytes), "r"(b)
                 : "memory");
  };
  if (tid == 0)
    for (long long k = 0; k < mine && k < kBulkStages; ++k) issue(k, static_cast<int>(k));
#endif
  StatsPartial acc = identity_partial();
  for (long long k = 0; k < mine; ++k) {
    const int s = static_cast<int>(k % kBulkStages);
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    mbarrier_wait_parity(smem_address(&bar[s]), static_cast<std::uint32_t>((k / kBulkStages) & 1));
    const unsigned char* chunk = stage + static_cast<std::size_t>(s) * kBytes;
#else  // built for an older architecture: the same chunk straight from global memory
    const unsigned char* chunk = g.in + static_cast<std::size_t>(first + k * step) * kBytes;
#endif
    RawGroup<In> raw;
    const uint4* q = reinterpret_cast<const uint4*>(chunk) + static_cast<std::size_t>(tid) * (kGroup * In::bytes / 16);
#pragma unroll
    for (int i = 0; i < kGroup * In::bytes / 16; ++i) raw.w[i] = q[i];
    float v[kGroup * In::channels];
    decode_raw<In>(raw, v);
    combine(acc, group_stats_values<In>(v, 0, kGroup));
    __syncthreads();  // every thread is done with buffer s
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    if (tid == 0 && k + kBulkStages < mine) issue(k + kBulkStages, s);
#endif
  }
  if (blockIdx.x == gridDim.x - 1)  // the pixels past the last whole chunk
    add_packed_tail<In>(g, static_cast<unsigned long long>(chunks) * (kStatsThreads * kGroup), acc);
  acc = block_reduce<kStatsThreads>(acc);
  finish_by_last_block(acc, frame, g, params, hist_table);
}

// ---- async: a per-thread cp.async pipeline (sm_80+) ----
// The fused kernel's loop keeps one group per thread in flight besides the one it reduces (more
// cost registers, v9). Here each thread copies its next kAsyncDepth - 1 groups with cp.async into
// its own shared-memory slots, so the bytes in flight cost no registers (4 groups of 32-64 bytes
// per thread: 3x the fused kernel's), and no thread waits for another (each reads back only its
// own copies: cp.async.wait_group, no barrier). Groups that are not whole or not 16-byte aligned
// take the scalar path when reduced. Slot s of thread t word i: [(s * words + i) * threads + t],
// so a warp's 16-byte copies and reads are consecutive.
constexpr int kAsyncDepth = 4;
template <class In>
__host__ __device__ constexpr std::size_t async_smem_bytes() {
  return static_cast<std::size_t>(kAsyncDepth) * kStatsThreads * kGroup * In::bytes;
}

__device__ __forceinline__ void stats_cp_async16(void* smem_dst, const void* gmem_src) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(smem_address(smem_dst)), "l"(gmem_src) : "memory");
#else
  *static_cast<uint4*>(smem_dst) = *static_cast<const uint4*>(gmem_src);
#endif
}
__device__ __forceinline__ void stats_cp_async_commit() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}
template <int N>
__device__ __forceinline__ void stats_cp_async_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
#endif
}

template <class In>
__global__ void __launch_bounds__(kStatsThreads, 2) stats_async_kernel(FrameGeometry g,
                                                                    DeviceFrame* frame, core::CurvePlan params,
                                                                    const float* hist_table) {
  trigger_dependents();  // the map pass may start loading its pixels (cuda/pdl.cuh)
  constexpr int kWords = kGroup * In::bytes / 16;
  extern __shared__ __align__(16) uint4 slot_words[];
  const unsigned tid = threadIdx.x;
  const unsigned long long step = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
  const unsigned long long total = static_cast<unsigned long long>(g.total_groups);
  unsigned vec_mask = 0;  // bit s: slot s holds its group's words
  auto issue = [&](unsigned long long j, int s) {
    vec_mask &= ~(1u << s);
    if (j < total) {
      int x = 0, y = 0;
      group_coords(static_cast<unsigned>(j), g.groups_per_row, x, y);
      const unsigned char* p = g.in + static_cast<std::size_t>(y) * g.in_stride + static_cast<std::size_t>(x) * In::bytes;
      if (x + kGroup <= g.width && (reinterpret_cast<std::uintptr_t>(p) & 15u) == 0) {
#pragma unroll
        for (int i = 0; i < kWords; ++i)
          stats_cp_async16(&slot_words[(s * kWords + i) * kStatsThreads + tid], reinterpret_cast<const uint4*>(p) + i);
        vec_mask |= 1u << s;
      }
    }
    stats_cp_async_commit();  // one group per call, empty or not: wait_group counts stay uniform
  };
  const unsigned long long first = static_cast<unsigned long long>(blockIdx.x) * blockDim.x + tid;
#pragma unroll
  for (int s = 0; s < kAsyncDepth - 1; ++s) issue(first + s * step, s);
  StatsPartial acc = identity_partial();
  int s = 0;  // the slot of group j
  for (unsigned long long j = first; j < total; j += step) {
    // Group j + (depth - 1) steps goes to the slot reduced in the previous iteration: its
    // shared-memory reads have completed (their values were consumed).
    issue(j + (kAsyncDepth - 1) * step, s == 0 ? kAsyncDepth - 1 : s - 1);
    stats_cp_async_wait<kAsyncDepth - 1>();  // group j's copies (this thread's own) have landed
    int x = 0, y = 0;
    group_coords(static_cast<unsigned>(j), g.groups_per_row, x, y);
    float v[kGroup * In::channels];
    if (vec_mask & (1u << s)) {
      RawGroup<In> raw;
#pragma unroll
      for (int i = 0; i < kWords; ++i) raw.w[i] = slot_words[(s * kWords + i) * kStatsThreads + tid];
      decode_raw<In>(raw, v);
    } else {
      load_group<In>(g.in + static_cast<std::size_t>(y) * g.in_stride, x, g.width, v);
    }
    combine(acc, group_stats_values<In>(v, x, g.width));
    s = s + 1 == kAsyncDepth ? 0 : s + 1;
  }
  stats_cp_async_wait<0>();  // no copy outlives the block
  acc = block_reduce<kStatsThreads>(acc);
  finish_by_last_block(acc, frame, g, params, hist_table);
}

template <class In>
bool bulk_applicable(const FrameGeometry& g) {
  // Whole groups per row too: the flat kernels' groups of 4 consecutive pixels are then the row
  // kernel's, so the log-sum's per-group rounding (group_stats_values) is the same whichever
  // kernel, or which part of a split frame, reads them.
  return g.in_stride == static_cast<std::size_t>(g.width) * In::bytes && g.width % kGroup == 0 &&
         (reinterpret_cast<std::uintptr_t>(g.in) & 15u) == 0;
}

// Two rows per thread (rows 2r and 2r+1, same columns), 16-byte loads; finish in a second launch.
template <class In>
__global__ void __launch_bounds__(kStatsThreads) stats_mjp_kernel(FrameGeometry g, StatsPartial* partials) {
  StatsPartial acc = identity_partial();
  const unsigned pair_rows = (g.height + 1) / 2;
  const unsigned items = pair_rows * g.groups_per_row;
  const unsigned step = gridDim.x * blockDim.x;
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < items; i += step) {
    int x, yp;
    group_coords(i, g.groups_per_row, x, yp);
    const int y = 2 * yp;
    StatsPartial a = group_stats<In>(g.in + static_cast<std::size_t>(y) * g.in_stride, x, g.width);
    if (y + 1 < g.height) combine(a, group_stats<In>(g.in + static_cast<std::size_t>(y + 1) * g.in_stride, x, g.width));
    combine(acc, a);
  }
  acc = block_reduce<kStatsThreads>(acc);
  if (threadIdx.x == 0) partials[blockIdx.x] = acc;
}

// The Harris tree of one block: the threads' values through shared memory with sequential
// addressing down to a warp, the last warp by shuffles; thread 0 writes the block's partial.
__device__ __forceinline__ void harris_tree(StatsPartial p, StatsPartial* sdata, StatsPartial* out) {
  sdata[threadIdx.x] = p;
  __syncthreads();
  for (int s = kStatsThreads / 2; s >= 32; s >>= 1) {
    if (threadIdx.x < s) combine(sdata[threadIdx.x], sdata[threadIdx.x + s]);
    __syncthreads();
  }
  if (threadIdx.x < 32) {
    p = sdata[threadIdx.x];
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) combine(p, shfl_down(p, o));
    if (threadIdx.x == 0) out[blockIdx.x] = p;
  }
}

// Harris first level: each thread adds two groups while loading, then a shared-memory tree with
// sequential addressing; the last warp unrolled with shuffles.
template <class In>
__global__ void __launch_bounds__(kStatsThreads) stats_harris_first(FrameGeometry g, StatsPartial* out) {
  __shared__ StatsPartial sdata[kStatsThreads];
  const unsigned i = blockIdx.x * kHarrisElems + threadIdx.x;
  const unsigned total = static_cast<unsigned>(g.total_groups);
  StatsPartial p = identity_partial();
  int x, y;
  if (i < total) {
    group_coords(i, g.groups_per_row, x, y);
    p = group_stats<In>(g.in + static_cast<std::size_t>(y) * g.in_stride, x, g.width);
  }
  if (i + kStatsThreads < total) {
    group_coords(i + kStatsThreads, g.groups_per_row, x, y);
    combine(p, group_stats<In>(g.in + static_cast<std::size_t>(y) * g.in_stride, x, g.width));
  }
  harris_tree(p, sdata, out);
}

// Harris next levels: the same tree over an array of partials.
__global__ void __launch_bounds__(kStatsThreads) stats_harris_level(const StatsPartial* in, long long n, StatsPartial* out) {
  __shared__ StatsPartial sdata[kStatsThreads];
  const long long i = static_cast<long long>(blockIdx.x) * kHarrisElems + threadIdx.x;
  StatsPartial p = identity_partial();
  if (i < n) p = in[i];
  if (i + kStatsThreads < n) combine(p, in[i + kStatsThreads]);
  harris_tree(p, sdata, out);
}

// One block: reduce n partials in a fixed order and finish the frame.
__global__ void __launch_bounds__(kStatsThreads) stats_finish_kernel(const StatsPartial* partials, long long n,
                                                                     DeviceFrame* frame, unsigned long long pixel_count,
                                                                     core::CurvePlan params, const float* hist_table) {
  StatsPartial p = identity_partial();
  for (long long i = threadIdx.x; i < n; i += blockDim.x) combine(p, partials[i]);
  p = block_reduce<kStatsThreads>(p);
  if (threadIdx.x == 0) finalise_frame(p, pixel_count, frame, params, hist_table);
}

template <class In>
struct GroupStatsOp {
  FrameGeometry g;
  __device__ StatsPartial operator()(long long i) const {  // i < 2^26
    int x, y;
    group_coords(static_cast<unsigned>(i), g.groups_per_row, x, y);
    return group_stats<In>(g.in + static_cast<std::size_t>(y) * g.in_stride, x, g.width);
  }
};

template <class In>
Status cub_reduce(const FrameGeometry& g, void* temp, std::size_t& temp_bytes, StatsPartial* out, cudaStream_t s) {
  auto it = thrust::make_transform_iterator(thrust::counting_iterator<long long>(0), GroupStatsOp<In>{g});
  StatsPartial init;
  init.log_sum = 0.0;
  init.min = INFINITY;
  init.max = 0.0f;
  init.min_positive = INFINITY;
  init.nan = init.inf = init.negative = 0;
  TK_CUDA_CHECK(cub::DeviceReduce::Reduce(temp, temp_bytes, it, out, g.total_groups, CombineOp{}, init, s));
  return {};
}

template <class In>
Status launch_stats_for(StatsAlgorithm algo, const FrameGeometry& g, const StatsScratch& sc, DeviceFrame* frame,
                        const core::CurvePlan& params, const float* hist_table, cudaStream_t s) {
  const unsigned long long pixels = static_cast<unsigned long long>(g.width) * g.height;
  switch (algo) {
    case StatsAlgorithm::bulk:
      if (bulk_applicable<In>(g)) {
        const long long chunks = static_cast<long long>(g.width) * g.height / (kStatsThreads * kGroup);
        const int grid = static_cast<int>(std::max<long long>(1, std::min<long long>(chunks, sc.bulk_grid)));
        stats_bulk_kernel<In><<<grid, kStatsThreads, bulk_smem_bytes<In>(), s>>>(g, frame, params,
                                                                                 hist_table, chunks);
        TK_CUDA_CHECK_LAUNCH("stats_bulk_kernel");
        return {};
      }
      [[fallthrough]];  // strided or unaligned frames: the fused kernel
    case StatsAlgorithm::async: {
      stats_async_kernel<In><<<sc.async_grid, kStatsThreads, async_smem_bytes<In>(), s>>>(g, frame, params,
                                                                                        hist_table);
      TK_CUDA_CHECK_LAUNCH("stats_async_kernel");
      return {};
    }
    case StatsAlgorithm::fused: {
      if constexpr (kFlatStats<In>) {
        if (bulk_applicable<In>(g)) {  // packed and aligned: the flat kernel
          const unsigned units = static_cast<unsigned>(pixels / (32 * kStatsFlatGroups<In> * kGroup));
          stats_flat_kernel<In><<<sc.flat_grid, kStatsThreads, 0, s>>>(g, frame, params, hist_table,
                                                                        sc.fused_head_groups, units * 32u);
          TK_CUDA_CHECK_LAUNCH("stats_flat_kernel");
          return {};
        }
      }
      stats_fused_kernel<In><<<sc.fused_grid, kStatsThreads, 0, s>>>(g, frame, params, hist_table,
                                                                     sc.fused_head_groups);
      TK_CUDA_CHECK_LAUNCH("stats_fused_kernel");
      return {};
    }
    case StatsAlgorithm::mjp: {
      stats_mjp_kernel<In><<<sc.fused_grid, kStatsThreads, 0, s>>>(g, sc.partials);
      TK_CUDA_CHECK_LAUNCH("stats_mjp_kernel");
      stats_finish_kernel<<<1, kStatsThreads, 0, s>>>(sc.partials, sc.fused_grid, frame, pixels, params, hist_table);
      TK_CUDA_CHECK_LAUNCH("stats_finish_kernel");
      return {};
    }
    case StatsAlgorithm::harris: {
      long long n = (g.total_groups + kHarrisElems - 1) / kHarrisElems;
      stats_harris_first<In><<<static_cast<unsigned>(n), kStatsThreads, 0, s>>>(g, sc.partials);
      TK_CUDA_CHECK_LAUNCH("stats_harris_first");
      StatsPartial* src = sc.partials;
      StatsPartial* dst = sc.partials2;
      while (n > kStatsThreads) {
        const long long blocks = (n + kHarrisElems - 1) / kHarrisElems;
        stats_harris_level<<<static_cast<unsigned>(blocks), kStatsThreads, 0, s>>>(src, n, dst);
        TK_CUDA_CHECK_LAUNCH("stats_harris_level");
        n = blocks;
        StatsPartial* t = src; src = dst; dst = t;
      }
      stats_finish_kernel<<<1, kStatsThreads, 0, s>>>(src, n, frame, pixels, params, hist_table);
      TK_CUDA_CHECK_LAUNCH("stats_finish_kernel");
      return {};
    }
    case StatsAlgorithm::cub: {
      std::size_t bytes = sc.cub_temp_bytes;
      if (Status st = cub_reduce<In>(g, sc.cub_temp, bytes, sc.total, s); !st.ok()) return st;
      stats_finish_kernel<<<1, kStatsThreads, 0, s>>>(sc.total, 1, frame, pixels, params, hist_table);
      TK_CUDA_CHECK_LAUNCH("stats_finish_kernel");
      return {};
    }
  }
  return invalid_argument("unknown statistics algorithm");
}

// One wave of `kernel`: the blocks per SM that fit (with `smem` bytes of dynamic shared memory),
// at most `cap` of them when cap > 0, at least 1, times the SMs; then at most `limit` blocks in
// all and at least 1.
template <class Kernel>
Status wave_grid(Kernel kernel, std::size_t smem, int cap, int sm_count, long long limit, int& grid) {
  int per_sm = 0;
  TK_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kStatsThreads, smem));
  if (cap > 0) per_sm = std::min(per_sm, cap);
  grid = static_cast<int>(std::max<long long>(1, std::min<long long>(limit, static_cast<long long>(std::max(per_sm, 1)) * sm_count)));
  return {};
}

template <class In>
Status sizes_for(long long total_groups, int sm_count, StatsScratchSizes& z, int blocks_per_sm) {
  const long long needed = (total_groups + kStatsThreads - 1) / kStatsThreads;
  if (Status st = wave_grid(stats_fused_kernel<In>, 0, blocks_per_sm, sm_count, needed, z.fused_grid); !st.ok()) return st;
  int device = 0, l2_bytes = 0;
  TK_CUDA_CHECK(cudaGetDevice(&device));
  TK_CUDA_CHECK(cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, device));
  const long long keep_groups = static_cast<long long>(kStatsL2Keep * l2_bytes) / (kGroup * In::bytes);
  z.fused_head_groups = static_cast<unsigned>(std::max<long long>(0, total_groups - keep_groups));
  z.flat_grid = z.fused_grid;
  if constexpr (kFlatStats<In>)
    if (Status st = wave_grid(stats_flat_kernel<In>, 0, blocks_per_sm, sm_count, needed, z.flat_grid); !st.ok()) return st;
  // bulk: blocks per SM as the pipeline's shared memory allows, at most one per whole chunk.
  TK_CUDA_CHECK(cudaFuncSetAttribute(stats_bulk_kernel<In>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     static_cast<int>(bulk_smem_bytes<In>())));
  if (Status st = wave_grid(stats_bulk_kernel<In>, bulk_smem_bytes<In>(), 0, sm_count, total_groups / kStatsThreads, z.bulk_grid);
      !st.ok())
    return st;
  TK_CUDA_CHECK(cudaFuncSetAttribute(stats_async_kernel<In>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     static_cast<int>(async_smem_bytes<In>())));
  if (Status st = wave_grid(stats_async_kernel<In>, async_smem_bytes<In>(), blocks_per_sm, sm_count, needed, z.async_grid);
      !st.ok())
    return st;
  const long long harris1 = (total_groups + kHarrisElems - 1) / kHarrisElems;
  const long long harris2 = (harris1 + kHarrisElems - 1) / kHarrisElems;
  z.partials = static_cast<std::size_t>(std::max<long long>(harris1, z.fused_grid));  // harris; mjp (fused grid)
  z.partials2 = static_cast<std::size_t>(std::max<long long>(harris2, 1));
  FrameGeometry g;
  g.total_groups = total_groups;
  g.groups_per_row = 1;
  g.width = 4;
  std::size_t bytes = 0;
  if (Status st = cub_reduce<In>(g, nullptr, bytes, nullptr, nullptr); !st.ok()) return st;
  z.cub_temp_bytes = bytes;
  return {};
}

}  // namespace

Status stats_scratch_sizes(InputFormat in, long long total_groups, int sm_count, StatsScratchSizes& sizes,
                          int blocks_per_sm) {
  switch (in) {
    case InputFormat::rgb_f32: return sizes_for<InF32x3>(total_groups, sm_count, sizes, blocks_per_sm);
    case InputFormat::rgba_f32: return sizes_for<InF32x4>(total_groups, sm_count, sizes, blocks_per_sm);
    case InputFormat::rgba_f16: return sizes_for<InF16x4>(total_groups, sm_count, sizes, blocks_per_sm);
    default: break;  // planar and YUV layouts: not yet on the device
  }
  return invalid_argument("unknown input format");
}

namespace {
// The frame from the parts' combined totals (StatsExchange::combine on frame->exchange): what
// finish_by_last_block does with a whole frame's accumulator.
__global__ void finish_exchanged_kernel(DeviceFrame* frame, core::CurvePlan params, const float* hist_table) {
  const StatsExchangeWords& x = frame->exchange;
  StatsPartial t;
  t.log_sum = x.maxima[3] ? static_cast<double>(INFINITY)
                          : ldexp(static_cast<double>(static_cast<long long>(x.sums[0])), -kLogSumFracBits);
  t.min = __uint_as_float(~x.maxima[0]);
  t.max = __uint_as_float(x.maxima[1]);
  t.min_positive = __uint_as_float(~x.maxima[2]);
  t.nan = static_cast<unsigned>(x.sums[1]);
  t.inf = static_cast<unsigned>(x.sums[2]);
  t.negative = static_cast<unsigned>(x.sums[3]);
  finalise_frame(t, x.sums[4], frame, params, hist_table);
}

__global__ void temporal_step_kernel(DeviceFrame* frame, core::CurvePlan params, const float* hist_table) {
  const FrameStats& s = frame->stats;
  const core::CurveStats cs =
      core::temporal_step(*params.temporal.state, core::curve_stats_hd(s), params.temporal.params, params.temporal.dt);
  FrameStats adapted = s;
  adapted.log_average = cs.log_average;
  adapted.max_luminance = cs.max_luminance;
  adapted.peak_luminance = cs.max_luminance;
  frame->adapted = adapted;
  frame->curve = core::prepare_curve_hd(params, cs, hist_table);
}
}  // namespace

Status launch_finish_exchanged(DeviceFrame* frame, const core::CurvePlan& params, const float* hist_table,
                               cudaStream_t s) {
  finish_exchanged_kernel<<<1, 1, 0, s>>>(frame, params, hist_table);
  TK_CUDA_CHECK_LAUNCH("finish_exchanged_kernel");
  return {};
}

Status launch_temporal_step(DeviceFrame* frame, const core::CurvePlan& params, const float* hist_table, cudaStream_t s) {
  temporal_step_kernel<<<1, 1, 0, s>>>(frame, params, hist_table);
  TK_CUDA_CHECK_LAUNCH("temporal_step_kernel");
  return {};
}

Status launch_stats(StatsAlgorithm algo, InputFormat in, const FrameGeometry& g, const StatsScratch& scratch,
                    DeviceFrame* frame, const core::CurvePlan& params, const float* hist_table, cudaStream_t s) {
  switch (in) {
    case InputFormat::rgb_f32: return launch_stats_for<InF32x3>(algo, g, scratch, frame, params, hist_table, s);
    case InputFormat::rgba_f32: return launch_stats_for<InF32x4>(algo, g, scratch, frame, params, hist_table, s);
    case InputFormat::rgba_f16: return launch_stats_for<InF16x4>(algo, g, scratch, frame, params, hist_table, s);
    default: break;  // planar and YUV layouts: not yet on the device
  }
  return invalid_argument("unknown input format");
}

}  // namespace tonekit::cuda
