// Colour fidelity on the GPU (issue 17; the CPU's is quality::colour_fidelity,
// src/cpu/quality/colour_fidelity.cpp): one thread a pixel runs quality/colour_maths.hpp's
// colour_terms, the text the CPU's vectorised runs inline, on the same inputs: the HDR through
// the bad-pixel policy (core::sanitise_channel, kept by set_reference as float RGB, which is
// exact), the display codes through the CPU's own decode table (shown_linear_table, computed on
// the host and uploaded: CUDA's pow and glibc's differ in the last bit). Then the statistics as
// the CPU defines them:
//  - the CIEDE2000 sum, the hue-shift sum and the two counts: per-block sums (cub::BlockReduce)
//    and a DeviceReduce over the blocks' partials, in float64 as the CPU's, in a fixed order
//    (the same bits from run to run for one size on one GPU);
//  - the 95th percentile: CUB DeviceRadixSort::SortKeys of every pixel's CIEDE2000 as 64-bit
//    double keys (pixels not compared keyed +inf, so they sort last), then the element
//    ceil(0.95 n) - 1 of the n compared ones: the element the CPU's nth_element selects from the
//    same values. A full sort rather than a select: 8 one-sweep passes over 2 x 66 MB at 4K
//    (docs/performance.md), and launch-bound either way on the 83k pixels of an --auto proxy.
// Built with -fmad=false (CMakeLists.txt): the lightness match and the L*a*b* matrix round as the
// CPU's, which has no FMA (GCC's avx512f and avx2 clones do not imply -mfma); the transcendentals
// (CUDA's against libmvec's, both within a few ulp) leave ~1e-12 relative per pixel
// (tests/gpu/test_gpu_quality.cpp states the tolerances).
#include <cub/block/block_reduce.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>

#include <algorithm>
#include <cstdint>

#include "core/colour.hpp"
#include "cuda/check.hpp"
#include "cuda/quality/quality_gpu.hpp"
#include "cpu/quality/colour_maths.hpp"

namespace tonekit::quality::gpu {
namespace {

// One pixel a thread. 256: the partials stay ~1 MB at 4K (32 400 blocks x 32 bytes).
constexpr int kThreads = 256;
constexpr int kBlockX = 32, kBlockY = 8;  // the reference copy, 2D as quality_inputs.cu

struct CombineSums {
  __host__ __device__ ColourSums operator()(const ColourSums& a, const ColourSums& b) const {
    return {a.delta_e + b.delta_e, a.hue_shift + b.hue_shift, a.compared + b.compared, a.chromatic + b.chromatic};
  }
};

__global__ void colour_source_kernel(HdrSource in, int width, int height, float* source) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height) return;
  const float* p = reinterpret_cast<const float*>(in.data + static_cast<std::size_t>(y) * in.stride) +
                   static_cast<std::size_t>(x) * in.channels;
  float* out = source + 3 * (static_cast<std::size_t>(y) * width + x);
  unsigned flags = 0;
  for (int c = 0; c < 3; ++c) out[c] = core::sanitise_channel(p[c], flags);
}

__global__ void __launch_bounds__(kThreads)
    colour_pixels_kernel(LdrSource in, int width, int height, const float* __restrict__ source,
                         const double* __restrict__ shown_linear, double* __restrict__ keys,
                         ColourSums* __restrict__ partials) {
  const std::size_t n = static_cast<std::size_t>(width) * height;
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * kThreads + threadIdx.x;
  ColourSums mine{0.0, 0.0, 0, 0};
  if (i < n) {
    const std::size_t y = i / width, x = i - y * width;
    const unsigned char* row = in.data + y * in.stride;
    unsigned code[3];
    if (in.u16) {
      const auto* p = reinterpret_cast<const std::uint16_t*>(row) + x * in.channels;
      for (int c = 0; c < 3; ++c) code[c] = p[c];
    } else {
      const unsigned char* p = row + x * in.channels;
      for (int c = 0; c < 3; ++c) code[c] = p[c];
    }
    const float* src = source + 3 * i;
    const detail::ColourTerms t =
        detail::colour_terms(src[0], src[1], src[2], __ldg(shown_linear + code[0]), __ldg(shown_linear + code[1]),
                             __ldg(shown_linear + code[2]));
    // colour_fidelity.cpp: a black source is left out of everything; a NaN difference (none on
    // finite inputs) is dropped from the mean and the percentile but not from the hue sums.
    const bool has_difference = t.compared && !isnan(t.delta_e);
    keys[i] = has_difference ? t.delta_e : INFINITY;
    if (has_difference) {
      mine.delta_e = t.delta_e;
      mine.compared = 1;
    }
    if (t.compared) {
      mine.hue_shift = t.hue_shift;
      mine.chromatic = t.counted != 0.0;
    }
  }
  using BlockReduce = cub::BlockReduce<ColourSums, kThreads>;
  __shared__ typename BlockReduce::TempStorage temp;
  const ColourSums block = BlockReduce(temp).Reduce(mine, CombineSums{});
  if (threadIdx.x == 0) partials[blockIdx.x] = block;
}

// The element ceil(0.95 n) - 1 of the n compared values in ascending order (colour_fidelity.cpp).
__global__ void colour_p95_kernel(const double* sorted, const ColourSums* sums, double* p95) {
  const unsigned long long n = sums->compared;
  *p95 = n == 0 ? 0.0 : sorted[static_cast<unsigned long long>(ceil(0.95 * static_cast<double>(n))) - 1];
}

__global__ void ciede2000_pairs_kernel(const double* pairs, int n, double* out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const double* p = pairs + 6 * static_cast<std::size_t>(i);
  out[i] = detail::ciede2000_of(p[0], p[1], p[2], p[3], p[4], p[5]);
}

std::size_t pixel_count(int width, int height) { return static_cast<std::size_t>(width) * height; }

}  // namespace

std::size_t colour_source_floats(int width, int height) { return 3 * pixel_count(width, height); }

// The keys and their sorted copy, each channel_plane_stride apart (256-byte aligned).
std::size_t colour_key_doubles(int width, int height) { return 2 * channel_plane_stride(width, height); }

std::size_t colour_partial_count(int width, int height) { return (pixel_count(width, height) + kThreads - 1) / kThreads; }

Result<std::size_t> colour_temp_bytes(int width, int height) {
  std::size_t sums = 0, sort = 0;
  TK_CUDA_CHECK(cub::DeviceReduce::Reduce(nullptr, sums, static_cast<const ColourSums*>(nullptr),
                                          static_cast<ColourSums*>(nullptr), colour_partial_count(width, height),
                                          CombineSums{}, ColourSums{0.0, 0.0, 0, 0}));
  cub::DoubleBuffer<double> keys(nullptr, nullptr);
  TK_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, sort, keys, pixel_count(width, height)));
  return std::max(sums, sort);
}

Status colour_reference(const HdrSource& in, int width, int height, float* source, cudaStream_t s) {
  const dim3 grid(static_cast<unsigned>((width + kBlockX - 1) / kBlockX),
                  static_cast<unsigned>((height + kBlockY - 1) / kBlockY));
  colour_source_kernel<<<grid, dim3(kBlockX, kBlockY), 0, s>>>(in, width, height, source);
  TK_CUDA_CHECK_LAUNCH("colour_source_kernel");
  return {};
}

Status colour_score(const LdrSource& in, int width, int height, const ColourBuffers& b, DeviceResults* res,
                    const ReduceTemp& t, cudaStream_t s) {
  const std::size_t n = pixel_count(width, height), blocks = colour_partial_count(width, height);
  const double* shown_linear = in.u16 ? b.shown_u16 : b.shown_u8;
  if (!shown_linear) return {StatusCode::runtime_error, "colour_score: no decode table for the LDR's type"};
  colour_pixels_kernel<<<static_cast<unsigned>(blocks), kThreads, 0, s>>>(in, width, height, b.source, shown_linear,
                                                                          b.keys, b.partials);
  TK_CUDA_CHECK_LAUNCH("colour_pixels_kernel");
  std::size_t bytes = t.bytes;
  TK_CUDA_CHECK(cub::DeviceReduce::Reduce(t.p, bytes, b.partials, &res->colour, blocks, CombineSums{},
                                          ColourSums{0.0, 0.0, 0, 0}, s));
  cub::DoubleBuffer<double> keys(b.keys, b.keys + channel_plane_stride(width, height));
  bytes = t.bytes;
  TK_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(t.p, bytes, keys, n, 0, 64, s));
  colour_p95_kernel<<<1, 1, 0, s>>>(keys.Current(), &res->colour, &res->colour_p95);
  TK_CUDA_CHECK_LAUNCH("colour_p95_kernel");
  return {};
}

ColourFidelity colour_finish(const DeviceResults& r) {
  ColourFidelity out;
  out.chromatic_pixels = r.colour.chromatic;
  if (r.colour.compared == 0) return out;  // an all-black source: nothing to compare (as the CPU)
  out.delta_e2000_mean = r.colour.delta_e / static_cast<double>(r.colour.compared);
  out.delta_e2000_p95 = r.colour_p95;
  out.hue_shift_mean_deg = r.colour.chromatic ? r.colour.hue_shift / static_cast<double>(r.colour.chromatic) : 0.0;
  return out;
}

Status ciede2000_pairs(const double* pairs, int n, double* out, cudaStream_t s) {
  if (n <= 0) return {};
  ciede2000_pairs_kernel<<<(n + kThreads - 1) / kThreads, kThreads, 0, s>>>(pairs, n, out);
  TK_CUDA_CHECK_LAUNCH("ciede2000_pairs_kernel");
  return {};
}

}  // namespace tonekit::quality::gpu
