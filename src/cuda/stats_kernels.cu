// Frame statistics on the device (architecture.md stage 1; thesis ch. 5.2, average-luminance
// seed): luminance, log-sum, min, max, smallest positive, NaN/Inf/negative counts.
//  - fused (default): one launch, persistent grid, 16-byte loads, block totals in double, the
//    last block to finish (atomic ticket) reduces the block totals in a fixed order and derives
//    the curve constants on the device: no host round trip, deterministic.
//  - harris: the multi-pass shared-memory tree of Harris, "Optimizing parallel reduction in
//    CUDA" (first add during load, sequential addressing), one launch per level + finish.
//  - mjp: vectorised, several pixels of two rows per thread (the 2x2-per-thread idea of the
//    average-luminance seed), block totals, then a one-block finish launch.
//  - cub: cub::DeviceReduce::Reduce over a transform iterator of pixel groups, then finish.
#include <cub/device/device_reduce.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include "cuda/check.hpp"
#include "cuda/pdl.cuh"
#include "cuda/stats_reduce.cuh"

namespace tonekit::cuda {
namespace {

// 32-bit: a frame holds at most 2^28 pixels (kMaxImagePixels), 2^26 groups; a 64-bit division
// here cost ~20 instructions per pixel (bench/NOTES.md v2).
__device__ __forceinline__ void group_coords(unsigned g, unsigned groups_per_row, int& x, int& y) {
  const unsigned q = g / groups_per_row;
  y = static_cast<int>(q);
  x = static_cast<int>(g - q * groups_per_row) * kGroup;
}

// The last block reduces all block partials in a fixed order and finishes the frame.
__device__ void finish_by_last_block(const StatsPartial& mine, StatsPartial* partials, DeviceFrame* frame,
                                     unsigned long long pixel_count, const core::CurveParams& params,
                                     const float* hist_table) {
  __shared__ bool is_last;
  if (threadIdx.x == 0) {
    partials[blockIdx.x] = mine;
    __threadfence();
    const unsigned ticket = atomicAdd(&frame->ticket, 1u);
    is_last = ticket == gridDim.x - 1;
  }
  __syncthreads();
  if (!is_last) return;
  __threadfence();
  StatsPartial p = identity_partial();
  for (unsigned i = threadIdx.x; i < gridDim.x; i += blockDim.x) {
    StatsPartial q;
    q.log_sum = __ldcg(&partials[i].log_sum);
    q.min = __ldcg(&partials[i].min);
    q.max = __ldcg(&partials[i].max);
    q.min_positive = __ldcg(&partials[i].min_positive);
    q.nan = __ldcg(&partials[i].nan);
    q.inf = __ldcg(&partials[i].inf);
    q.negative = __ldcg(&partials[i].negative);
    combine(p, q);
  }
  p = block_reduce<kStatsThreads>(p);
  if (threadIdx.x == 0) {
    finalise_frame(p, pixel_count, frame, params, hist_table);
    frame->ticket = 0;  // ready for the next frame
  }
}

template <class In>
__global__ void __launch_bounds__(kStatsThreads, 2) stats_fused_kernel(FrameGeometry g, StatsPartial* partials,
                                                                    DeviceFrame* frame, core::CurveParams params,
                                                                    const float* hist_table) {
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
    vec = load_raw<In>(g.in + static_cast<std::size_t>(y) * g.in_stride, x, g.width, raw);
  }
  while (i < total) {
    const unsigned j = i + step;
    RawGroup<In> next{};  // zero-initialised: a partly defined copy below made ptxas spill (v7)
    bool next_vec = false;
    int xn = 0, yn = 0;
    if (j < total) {
      group_coords(j, g.groups_per_row, xn, yn);
      next_vec = load_raw<In>(g.in + static_cast<std::size_t>(yn) * g.in_stride, xn, g.width, next);
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
  finish_by_last_block(acc, partials, frame, static_cast<unsigned long long>(g.width) * g.height, params, hist_table);
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

// Harris next levels: the same tree over an array of partials.
__global__ void __launch_bounds__(kStatsThreads) stats_harris_level(const StatsPartial* in, long long n, StatsPartial* out) {
  __shared__ StatsPartial sdata[kStatsThreads];
  const long long i = static_cast<long long>(blockIdx.x) * kHarrisElems + threadIdx.x;
  StatsPartial p = identity_partial();
  if (i < n) p = in[i];
  if (i + kStatsThreads < n) combine(p, in[i + kStatsThreads]);
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

// One block: reduce n partials in a fixed order and finish the frame.
__global__ void __launch_bounds__(kStatsThreads) stats_finish_kernel(const StatsPartial* partials, long long n,
                                                                     DeviceFrame* frame, unsigned long long pixel_count,
                                                                     core::CurveParams params, const float* hist_table) {
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
                        const core::CurveParams& params, const float* hist_table, cudaStream_t s) {
  const unsigned long long pixels = static_cast<unsigned long long>(g.width) * g.height;
  switch (algo) {
    case StatsAlgorithm::fused: {
      stats_fused_kernel<In><<<sc.fused_grid, kStatsThreads, 0, s>>>(g, sc.partials, frame, params, hist_table);
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

template <class In>
Status sizes_for(long long total_groups, int sm_count, StatsScratchSizes& z) {
  int per_sm = 0;
  TK_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, stats_fused_kernel<In>, kStatsThreads, 0));
  if (per_sm < 1) per_sm = 1;
  const long long needed = (total_groups + kStatsThreads - 1) / kStatsThreads;
  z.fused_grid = static_cast<int>(std::max<long long>(1, std::min<long long>(needed, static_cast<long long>(per_sm) * sm_count)));
  const long long harris1 = (total_groups + kHarrisElems - 1) / kHarrisElems;
  const long long harris2 = (harris1 + kHarrisElems - 1) / kHarrisElems;
  z.partials = static_cast<std::size_t>(std::max<long long>(harris1, z.fused_grid));
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

Status stats_scratch_sizes(InputFormat in, long long total_groups, int sm_count, StatsScratchSizes& sizes) {
  switch (in) {
    case InputFormat::rgb_f32: return sizes_for<InF32x3>(total_groups, sm_count, sizes);
    case InputFormat::rgba_f32: return sizes_for<InF32x4>(total_groups, sm_count, sizes);
    case InputFormat::rgba_f16: return sizes_for<InF16x4>(total_groups, sm_count, sizes);
  }
  return invalid_argument("unknown input format");
}

Status launch_stats(StatsAlgorithm algo, InputFormat in, const FrameGeometry& g, const StatsScratch& scratch,
                    DeviceFrame* frame, const core::CurveParams& params, const float* hist_table, cudaStream_t s) {
  switch (in) {
    case InputFormat::rgb_f32: return launch_stats_for<InF32x3>(algo, g, scratch, frame, params, hist_table, s);
    case InputFormat::rgba_f32: return launch_stats_for<InF32x4>(algo, g, scratch, frame, params, hist_table, s);
    case InputFormat::rgba_f16: return launch_stats_for<InF16x4>(algo, g, scratch, frame, params, hist_table, s);
  }
  return invalid_argument("unknown input format");
}

}  // namespace tonekit::cuda
