// histeq on the device (CUDA/Thrust seed; Ward Larson 1997): a histogram of log luminance over
// [log min_positive, log max] (the range comes from the device-resident statistics), with
// per-block shared-memory counters flushed by one atomic per non-empty bin, then the CDF by an
// exclusive scan and the mid-rank table (cdf[b] + h[b] / 2) / total, both on the device:
//  - blelloch: one block, each thread sums a chunk of bins, a work-efficient up-/down-sweep
//    (Blelloch 1990, as in the seed) over the 1024 chunk totals, then each thread writes its chunk;
//  - cub: cub::DeviceScan::ExclusiveSum, then a table kernel.
// The bin uses log() in double, as the CPU reference does, so both give the same histogram.
#include <cub/device/device_scan.cuh>

#include "cuda/check.hpp"
#include "cuda/stats_reduce.cuh"

namespace tonekit::cuda {
namespace {

constexpr int kScanThreads = 1024;

template <class In, bool Shared>
__global__ void __launch_bounds__(256) histogram_kernel(FrameGeometry g, const DeviceFrame* frame,
                                                        unsigned long long* hist, int bins) {
  extern __shared__ unsigned counts[];
  if constexpr (Shared) {
    for (int b = threadIdx.x; b < bins; b += blockDim.x) counts[b] = 0;
    __syncthreads();
  }
  const double log_min = frame->curve.hist_log_min;
  const double inv_range = frame->curve.hist_inv_log_range;
  constexpr int C = In::channels;
  const unsigned step = gridDim.x * blockDim.x, total = static_cast<unsigned>(g.total_groups);
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < total; i += step) {
    const unsigned q = i / g.groups_per_row;
    const int y = static_cast<int>(q);
    const int x = static_cast<int>(i - q * g.groups_per_row) * kGroup;
    float v[kGroup * C];
    load_group<In>(g.in + static_cast<std::size_t>(y) * g.in_stride, x, g.width, v);
#pragma unroll
    for (int p = 0; p < kGroup; ++p) {
      float r, gg, b;
      sanitise_rgb<C>(v + p * C, r, gg, b);
      // core::luminance uncontracted, as the CPU histogram loop (no FMA clone) computes it.
      const float l = __fadd_rn(__fadd_rn(__fmul_rn(0.2126f, r), __fmul_rn(0.7152f, gg)), __fmul_rn(0.0722f, b));
      if (x + p < g.width && l > 0.0f) {
        const int bin = core::histeq_bin<double>(log(static_cast<double>(l)), log_min, inv_range, bins);
        if constexpr (Shared) atomicAdd(&counts[bin], 1u);
        else atomicAdd(&hist[bin], 1ull);
      }
    }
  }
  if constexpr (Shared) {
    __syncthreads();
    for (int b = threadIdx.x; b < bins; b += blockDim.x)
      if (counts[b]) atomicAdd(&hist[b], static_cast<unsigned long long>(counts[b]));
  }
}

__device__ __forceinline__ float table_entry(unsigned long long cdf, unsigned long long h, unsigned long long total) {
  return static_cast<float>((static_cast<double>(cdf) + 0.5 * static_cast<double>(h)) / static_cast<double>(total));
}

__global__ void __launch_bounds__(kScanThreads) histeq_table_blelloch(const unsigned long long* hist, int bins, float* table) {
  __shared__ unsigned long long s[kScanThreads];
  const int t = threadIdx.x;
  const int chunk = (bins + kScanThreads - 1) / kScanThreads;
  const int begin = min(t * chunk, bins), end = min(begin + chunk, bins);
  unsigned long long sum = 0;
  for (int b = begin; b < end; ++b) sum += hist[b];
  s[t] = sum;
  // Up-sweep (reduce) phase.
  for (int d = 1; d < kScanThreads; d <<= 1) {
    __syncthreads();
    const int idx = (t + 1) * 2 * d - 1;
    if (idx < kScanThreads) s[idx] += s[idx - d];
  }
  __syncthreads();
  const unsigned long long total = s[kScanThreads - 1];
  __syncthreads();
  if (t == 0) s[kScanThreads - 1] = 0;
  // Down-sweep phase.
  for (int d = kScanThreads / 2; d >= 1; d >>= 1) {
    __syncthreads();
    const int idx = (t + 1) * 2 * d - 1;
    if (idx < kScanThreads) {
      const unsigned long long left = s[idx - d];
      s[idx - d] = s[idx];
      s[idx] += left;
    }
  }
  __syncthreads();
  unsigned long long prefix = s[t];
  for (int b = begin; b < end; ++b) {
    const unsigned long long h = hist[b];
    table[b] = total ? table_entry(prefix, h, total) : 0.0f;
    prefix += h;
  }
}

__global__ void histeq_table_from_cdf(const unsigned long long* hist, const unsigned long long* cdf, int bins, float* table) {
  const int b = blockIdx.x * blockDim.x + threadIdx.x;
  if (b >= bins) return;
  const unsigned long long total = cdf[bins - 1] + hist[bins - 1];
  table[b] = total ? table_entry(cdf[b], hist[b], total) : 0.0f;
}

template <class In>
Status histogram_for(const FrameGeometry& g, const DeviceFrame* frame, unsigned long long* hist, int bins, int sm_count,
                     cudaStream_t s) {
  const long long needed = (g.total_groups + 255) / 256;
  const int grid = static_cast<int>(std::max<long long>(1, std::min<long long>(needed, 4LL * sm_count)));
  if (bins <= kSharedHistogramBins) {
    const std::size_t shmem = static_cast<std::size_t>(bins) * sizeof(unsigned);
    if (shmem > 48 * 1024)
      TK_CUDA_CHECK(cudaFuncSetAttribute(histogram_kernel<In, true>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         static_cast<int>(shmem)));
    histogram_kernel<In, true><<<grid, 256, shmem, s>>>(g, frame, hist, bins);
  } else {
    histogram_kernel<In, false><<<grid, 256, 0, s>>>(g, frame, hist, bins);
  }
  TK_CUDA_CHECK_LAUNCH("histogram_kernel");
  return {};
}

}  // namespace

Status launch_histogram(InputFormat in, const FrameGeometry& g, const DeviceFrame* frame, unsigned long long* hist, int bins,
                        int sm_count, cudaStream_t s) {
  TK_CUDA_CHECK(cudaMemsetAsync(hist, 0, static_cast<std::size_t>(bins) * sizeof(unsigned long long), s));
  switch (in) {
    case InputFormat::rgb_f32: return histogram_for<InF32x3>(g, frame, hist, bins, sm_count, s);
    case InputFormat::rgba_f32: return histogram_for<InF32x4>(g, frame, hist, bins, sm_count, s);
    case InputFormat::rgba_f16: return histogram_for<InF16x4>(g, frame, hist, bins, sm_count, s);
    default: break;  // planar and YUV layouts: not yet on the device
  }
  return invalid_argument("unknown input format");
}

Status scan_temp_bytes(std::size_t& bytes) {
  bytes = 0;
  TK_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, bytes, static_cast<const unsigned long long*>(nullptr),
                                              static_cast<unsigned long long*>(nullptr), kMaxHistogramBins));
  return {};
}

Status launch_histeq_table(ScanAlgorithm algo, const unsigned long long* hist, unsigned long long* cdf, int bins,
                           float* table, void* cub_temp, std::size_t cub_temp_bytes, cudaStream_t s) {
  if (algo == ScanAlgorithm::blelloch) {
    histeq_table_blelloch<<<1, kScanThreads, 0, s>>>(hist, bins, table);
    TK_CUDA_CHECK_LAUNCH("histeq_table_blelloch");
    return {};
  }
  TK_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(cub_temp, cub_temp_bytes, hist, cdf, bins, s));
  histeq_table_from_cdf<<<(bins + 255) / 256, 256, 0, s>>>(hist, cdf, bins, table);
  TK_CUDA_CHECK_LAUNCH("histeq_table_from_cdf");
  return {};
}

}  // namespace tonekit::cuda
