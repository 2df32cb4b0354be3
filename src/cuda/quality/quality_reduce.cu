// The quality metrics' whole-plane reductions: CUB DeviceReduce (deterministic from run to run
// for one input size on one GPU), results left in device memory for the next kernel.
#include <cub/device/device_reduce.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <algorithm>

#include "cuda/check.hpp"
#include "cuda/quality/quality_gpu.hpp"

namespace tonekit::quality::gpu {
namespace {

struct MinMax {
  double lo, hi;
};
struct PairOf {  // value -> (value, value)
  const double* in;
  __device__ MinMax operator()(std::size_t i) const { return {in[i], in[i]}; }
};
struct CombineMinMax {
  __device__ MinMax operator()(const MinMax& a, const MinMax& b) const { return {fmin(a.lo, b.lo), fmax(a.hi, b.hi)}; }
};
struct PositiveOrInf {
  const double* in;
  __device__ double operator()(std::size_t i) const { return in[i] > 0.0 ? in[i] : INFINITY; }
};
struct Min {
  __device__ double operator()(double a, double b) const { return fmin(a, b); }
};
__global__ void split_min_max_kernel(const MinMax* in, double* out) {
  out[0] = in->lo;
  out[1] = in->hi;
}

}  // namespace

Status reduce_sum(const double* in, std::size_t n, double* out, void* temp, std::size_t& temp_bytes, cudaStream_t s) {
  TK_CUDA_CHECK(cub::DeviceReduce::Sum(temp, temp_bytes, in, out, n, s));
  return {};
}

// The MinMax result lands in the first 256 bytes of `temp` (reserved by the query; CUB's part
// follows, still 256-byte aligned), then is split into out[0..1].
Status reduce_min_max(const double* in, std::size_t n, double* out, void* temp, std::size_t& temp_bytes,
                      cudaStream_t s) {
  auto it = thrust::make_transform_iterator(thrust::counting_iterator<std::size_t>(0), PairOf{in});
  const MinMax init{INFINITY, -INFINITY};
  constexpr std::size_t kResult = 256;  // room for the MinMax result, aligned
  if (!temp) {
    std::size_t bytes = 0;
    TK_CUDA_CHECK(cub::DeviceReduce::Reduce(nullptr, bytes, it, static_cast<MinMax*>(nullptr), n, CombineMinMax{},
                                            init, s));
    temp_bytes = bytes + kResult;
    return {};
  }
  auto* result = static_cast<MinMax*>(temp);
  std::size_t bytes = temp_bytes - kResult;
  TK_CUDA_CHECK(cub::DeviceReduce::Reduce(static_cast<unsigned char*>(temp) + kResult, bytes, it, result, n,
                                          CombineMinMax{}, init, s));
  split_min_max_kernel<<<1, 1, 0, s>>>(result, out);
  TK_CUDA_CHECK_LAUNCH("split_min_max_kernel");
  return {};
}

Status reduce_min_positive(const double* in, std::size_t n, double* out, void* temp, std::size_t& temp_bytes,
                           cudaStream_t s) {
  auto it = thrust::make_transform_iterator(thrust::counting_iterator<std::size_t>(0), PositiveOrInf{in});
  TK_CUDA_CHECK(cub::DeviceReduce::Reduce(temp, temp_bytes, it, out, n, Min{}, static_cast<double>(INFINITY), s));
  return {};
}

Result<std::size_t> reduce_temp_bytes(std::size_t n) {
  std::size_t a = 0, b = 0, c = 0;
  if (Status st = reduce_sum(nullptr, n, nullptr, nullptr, a, nullptr); !st.ok()) return st;
  if (Status st = reduce_min_max(nullptr, n, nullptr, nullptr, b, nullptr); !st.ok()) return st;
  if (Status st = reduce_min_positive(nullptr, n, nullptr, nullptr, c, nullptr); !st.ok()) return st;
  return std::max({a, b, c});
}

}  // namespace tonekit::quality::gpu
