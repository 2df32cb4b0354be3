// histeq on the device (CUDA/Thrust seed; Ward Larson 1997): a histogram of log luminance over
// [log min_positive, log max] (the range comes from the device-resident statistics), with
// per-block shared-memory counters flushed by one atomic per non-empty bin, then the CDF by an
// exclusive scan and the mid-rank table (cdf[b] + h[b] / 2) / total, both on the device:
//  - blelloch: one block, each thread sums a chunk of bins, a work-efficient up-/down-sweep
//    (Blelloch 1990, as in the seed) over the 1024 chunk totals, then each thread writes its chunk;
//  - cub: cub::DeviceScan::ExclusiveSum, then a table kernel.
// The bin uses log() in double, as the CPU reference does, so both give the same histogram.
// The robust peak (core/robust_peak.hpp) reads the same kernel's histogram over the range
// [ln min_positive, ln max] of the frame's statistics, then one block finds the percentile.
#include <cub/block/block_scan.cuh>
#include <cub/device/device_scan.cuh>

#include "core/robust_peak.hpp"
#include "cuda/check.hpp"
#include "cuda/stats_reduce.cuh"

namespace tonekit::cuda {
namespace {

constexpr int kScanThreads = 1024;

// Visits the positive sanitised luminance of every pixel of the frame (grid-stride over groups of
// 4 pixels), as core::luminance computes it uncontracted, as the CPU histogram loop (no FMA clone)
// does: the histograms' one read of the input.
template <class In, class Visit>
__device__ __forceinline__ void for_each_positive_luminance(const FrameGeometry& g, Visit&& visit) {
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
      const float l = __fadd_rn(__fadd_rn(__fmul_rn(0.2126f, r), __fmul_rn(0.7152f, gg)), __fmul_rn(0.0722f, b));
      if (x + p < g.width && l > 0.0f) visit(l);
    }
  }
}

template <class In, bool Shared>
__global__ void __launch_bounds__(256) histogram_kernel(FrameGeometry g, const DeviceFrame* frame,
                                                        unsigned long long* hist, int bins) {
  extern __shared__ unsigned counts[];
  if constexpr (Shared) {
    for (int b = threadIdx.x; b < bins; b += blockDim.x) counts[b] = 0;
    __syncthreads();
  }
  // The equalisation table's bins are the ones its curve reads (histeq, the one operator that
  // asks for a histogram: CurvePlan::histogram_bins).
  const auto curve = frame->curve.constants.get<core::HisteqOperator::Curve<double>>();
  const double log_min = curve.log_min;
  const double inv_range = curve.inv_log_range;
  for_each_positive_luminance<In>(g, [&](float l) {
    const int bin = core::histeq_bin<double>(log(static_cast<double>(l)), log_min, inv_range, bins);
    if constexpr (Shared) atomicAdd(&counts[bin], 1u);
    else atomicAdd(&hist[bin], 1ull);
  });
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

// The robust peak from the histogram (core::robust_peak_from_histogram, searched in parallel):
// thread t sums the bins of chunk kPeakThreads - 1 - t; an exclusive block scan gives each chunk
// the count above it and the aggregate the positive pixels; the one thread whose chunk holds the
// percentile walks it down to the bin and interpolates. It then sets frame->stats.peak_luminance
// and derives the curve constants again (a temporal step, when on, runs after this). 256 threads
// (16 bins each): at 1024 the 64-register bound made the curve set-up spill.
constexpr int kPeakThreads = 256;

__global__ void __launch_bounds__(kPeakThreads) robust_peak_kernel(const unsigned long long* hist, DeviceFrame* frame,
                                                                  core::CurvePlan params, const float* hist_table) {
  using Scan = cub::BlockScan<unsigned long long, kPeakThreads>;
  __shared__ typename Scan::TempStorage scan_storage;
  constexpr int kPer = core::kPeakBins / kPeakThreads;
  static_assert(core::kPeakBins % kPeakThreads == 0, "whole chunks");
  const int chunk = kPeakThreads - 1 - static_cast<int>(threadIdx.x);
  const unsigned long long* mine = hist + chunk * kPer;
  unsigned long long sum = 0;
#pragma unroll
  for (int i = 0; i < kPer; ++i) sum += mine[i];
  unsigned long long above = 0, positive = 0;
  Scan(scan_storage).ExclusiveSum(sum, above, positive);
  FrameStats& st = frame->stats;
  const double max = st.max_luminance, min_positive = st.min_positive_luminance;
  const core::PeakRange r = core::peak_range(min_positive, max);
  if (!(params.peak_percentile < 100.0) || !(max > 0.0) || !(min_positive > 0.0) || !(r.inv_log_range > 0.0) ||
      positive == 0)
    return;  // the peak stays the brightest pixel (finalise_frame)
  const double exceed = core::peak_exceed(params.peak_percentile, static_cast<double>(positive));
  double a = static_cast<double>(above);
  if (!(a <= exceed && a + static_cast<double>(sum) > exceed)) return;
  for (int i = kPer - 1; i >= 0; --i) {
    const double hb = static_cast<double>(mine[i]);
    if (a + hb > exceed) {
      st.peak_luminance = core::peak_in_bin(chunk * kPer + i, a, hb, exceed, r, core::kPeakBins, min_positive, max);
      frame->curve = core::prepare_curve_hd(params, core::curve_stats_hd(st), hist_table);
      return;
    }
    a += hb;
  }
}

// The robust peak's histogram: core::kPeakBins bins of ln L over the frame's [ln min_positive,
// ln max], the bins core::histeq_bin gives in double (the CPU's), found mostly without a double
// log: t = (log2 L - log2 min) * bins / log2-range in float (lg2.approx) is within `margin` of
// the exact t (bound below), so when it is farther than that from an integer its floor is the
// exact bin; the rest (a few % of pixels, and L below FLT_MIN) take the double log. One block of
// 1024 threads per SM, 16 KB of shared counters, flushed once per block (non-zero bins only).
// H200, 4K half RGBA reinhard, the robust peak's cost over the default frame (0.061 ms): with the
// histeq kernel (a double log per pixel, 4 blocks of 256 per SM) 0.067 ms; this binning 0.055 ms,
// the same on smooth frames (bins shared by neighbours). Tried and dropped: one atomic for groups
// whose 4 pixels share a bin, merged across the warp by __match_any_sync (+0.003 ms), and two
// groups' loads in flight per thread (+0.001 ms). What remains is about one shared atomic per
// pixel (8.3 M at 4K) plus the search's single-thread curve set-up, as the temporal step's 0.007.
// Error bound of t in float: lg2.approx's absolute error (2^-22) and the roundings of log2 L,
// log2 min and their difference (|values| <= 256: <= 3.1e-5 together), times scale; the product's
// and scale's roundings (t <= 4096: <= 5e-4). margin = scale * 4e-5 + 2e-3 covers both.
constexpr int kPeakHistThreads = 1024;

// The bin of one positive sanitised luminance.
__device__ __forceinline__ int peak_bin(float l, const core::PeakRange& r, float log2_min, float scale, float margin) {
  const float t = (log2_sfu(l) - log2_min) * scale;
  const float f = floorf(t);
  if (l >= FLT_MIN && t - f > margin && f + 1.0f - t > margin)
    return f <= 0.0f ? 0 : (f >= static_cast<float>(core::kPeakBins) ? core::kPeakBins - 1 : static_cast<int>(f));
  return core::histeq_bin<double>(log(static_cast<double>(l)), r.log_min, r.inv_log_range, core::kPeakBins);
}

template <class In>
__global__ void __launch_bounds__(kPeakHistThreads) peak_histogram_kernel(FrameGeometry g, const DeviceFrame* frame,
                                                                         unsigned long long* hist) {
  __shared__ unsigned counts[core::kPeakBins];
  for (int b = threadIdx.x; b < core::kPeakBins; b += blockDim.x) counts[b] = 0;
  const core::PeakRange r = core::peak_range(frame->stats.min_positive_luminance, frame->stats.max_luminance);
  const double scale_d = 0.69314718055994530942 * r.inv_log_range * core::kPeakBins;
  const float log2_min = static_cast<float>(r.log_min * 1.44269504088896340736);
  const float scale = static_cast<float>(scale_d);
  const float margin = static_cast<float>(scale_d * 4e-5 + 2e-3);
  __syncthreads();
  for_each_positive_luminance<In>(g, [&](float l) { atomicAdd(&counts[peak_bin(l, r, log2_min, scale, margin)], 1u); });
  __syncthreads();
  for (int b = threadIdx.x; b < core::kPeakBins; b += blockDim.x)
    if (counts[b]) atomicAdd(&hist[b], static_cast<unsigned long long>(counts[b]));
}

template <class In>
Status peak_histogram_for(const FrameGeometry& g, const DeviceFrame* frame, unsigned long long* hist, int sm_count,
                          cudaStream_t s) {
  const long long needed = (g.total_groups + kPeakHistThreads - 1) / kPeakHistThreads;
  const int grid = static_cast<int>(std::max<long long>(1, std::min<long long>(needed, sm_count)));
  peak_histogram_kernel<In><<<grid, kPeakHistThreads, 0, s>>>(g, frame, hist);
  TK_CUDA_CHECK_LAUNCH("peak_histogram_kernel");
  return {};
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
    default: break;  // planar and YUV layouts: decoded to float RGB before the passes
  }
  return invalid_argument("unknown input format");
}

Status launch_peak_histogram(InputFormat in, const FrameGeometry& g, const DeviceFrame* frame, unsigned long long* hist,
                             int sm_count, cudaStream_t s) {
  TK_CUDA_CHECK(cudaMemsetAsync(hist, 0, core::kPeakBins * sizeof(unsigned long long), s));
  switch (in) {
    case InputFormat::rgb_f32: return peak_histogram_for<InF32x3>(g, frame, hist, sm_count, s);
    case InputFormat::rgba_f32: return peak_histogram_for<InF32x4>(g, frame, hist, sm_count, s);
    case InputFormat::rgba_f16: return peak_histogram_for<InF16x4>(g, frame, hist, sm_count, s);
    default: break;
  }
  return invalid_argument("unknown input format");
}

Status launch_robust_peak(const unsigned long long* hist, DeviceFrame* frame, const core::CurvePlan& params,
                          const float* hist_table, cudaStream_t s) {
  robust_peak_kernel<<<1, kPeakThreads, 0, s>>>(hist, frame, params, hist_table);
  TK_CUDA_CHECK_LAUNCH("robust_peak_kernel");
  return {};
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
