// TMQI on the device (Yeganeh & Wang, IEEE TIP 2013; the definitions and conventions of the CPU
// reference, src/cpu/quality/tmqi.cpp, whose header lists them). Float64 throughout, as the CPU: the
// H100's FP64 rate makes that cheap (docs/performance.md), and the one-pass statistics
// E[x^2] - E[x]^2 of a luminance stretched to 2^32 need it.
// Per scale two thin kernels: the horizontal pass of the 11-tap window writes the five moments
// (x, y, x^2, y^2, xy) over the 'valid' columns, the vertical pass turns them into the local
// fidelity map; CUB sums the map. This file is built with -fmad=false (src/cuda/CMakeLists.txt):
// the sums round as the CPU's scalar code does (no contraction), so the moments match the CPU's
// bit for bit and only the order of the final sums and erfc's last bits differ.
#include <algorithm>

#include "cuda/check.hpp"
#include "cuda/quality/quality_gpu.hpp"
#include "cpu/quality/tmqi_model.hpp"

namespace tonekit::quality::gpu {
namespace {

constexpr int kBlockX = 32, kBlockY = 8;
constexpr int kTaps = detail::kTmqiWindow;

struct Window {
  double w[kTaps];
};

dim3 grid_for(int width, int height) {
  return dim3(static_cast<unsigned>((width + kBlockX - 1) / kBlockX), static_cast<unsigned>((height + kBlockY - 1) / kBlockY));
}
unsigned blocks_for(std::size_t n) { return static_cast<unsigned>((n + 255) / 256); }

// h = round((2^32 - 1) / (max - min)) (h - min), min and max from the reduction before.
__global__ void stretch_kernel(double* h, std::size_t n, const double* min_max) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const double lo = min_max[0], stretch = detail::tmqi_stretch(min_max[1] - lo);
  h[i] = stretch * (h[i] - lo);
}

// 2x2 block mean; an odd last row or column is paired with itself (tmqi.cpp half_size).
__global__ void half_size_kernel(const double* in, int width, int height, double* out, int out_width, int out_height) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= out_width || y >= out_height) return;
  const int y0 = 2 * y, y1 = min(2 * y + 1, height - 1), x0 = 2 * x, x1 = min(2 * x + 1, width - 1);
  const double* r0 = in + static_cast<std::size_t>(y0) * width;
  const double* r1 = in + static_cast<std::size_t>(y1) * width;
  out[static_cast<std::size_t>(y) * out_width + x] = 0.25 * (r0[x0] + r0[x1] + r1[x0] + r1[x1]);
}

// One 11x11 naturalness block per thread, as tmqi.cpp mean_block_deviation: partial blocks at the
// right and bottom zero-padded to 121 values; the sample deviation times the pixels covered.
__global__ void block_deviation_kernel(const double* p, int width, int height, int blocks_x, int blocks_y,
                                       double* out) {
  const int bx = blockIdx.x * blockDim.x + threadIdx.x, by = blockIdx.y * blockDim.y + threadIdx.y;
  if (bx >= blocks_x || by >= blocks_y) return;
  constexpr double kCount = kTaps * kTaps;
  const int x0 = bx * kTaps, y0 = by * kTaps, ex = min(x0 + kTaps, width), ey = min(y0 + kTaps, height);
  double mean = 0.0;
  for (int y = y0; y < ey; ++y)
    for (int x = x0; x < ex; ++x) mean += p[static_cast<std::size_t>(y) * width + x];
  mean /= kCount;
  const double inside = static_cast<double>(ey - y0) * (ex - x0);
  double ss = (kCount - inside) * mean * mean;
  for (int y = y0; y < ey; ++y)
    for (int x = x0; x < ex; ++x) {
      const double d = p[static_cast<std::size_t>(y) * width + x] - mean;
      ss += d * d;
    }
  out[static_cast<std::size_t>(by) * blocks_x + bx] = sqrt(ss / (kCount - 1.0)) * inside;
}

// Horizontal pass: the five weighted moments of columns x .. x + 10 of row y, into five planes of
// out_width x height (tmqi.cpp structural_fidelity_at, same order of operations).
__global__ void moments_kernel(const double* __restrict__ hdr, const double* __restrict__ ldr, int width, int height,
                               int out_width, double* __restrict__ moments, Window w) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= out_width || y >= height) return;
  const double* a = hdr + static_cast<std::size_t>(y) * width + x;
  const double* b = ldr + static_cast<std::size_t>(y) * width + x;
  double sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0;
#pragma unroll
  for (int k = 0; k < kTaps; ++k) {
    const double u = a[k], v = b[k];
    sx += w.w[k] * u;
    sy += w.w[k] * v;
    sxx += w.w[k] * u * u;
    syy += w.w[k] * v * v;
    sxy += w.w[k] * u * v;
  }
  const std::size_t plane = static_cast<std::size_t>(out_width) * height, i = static_cast<std::size_t>(y) * out_width + x;
  moments[i] = sx;
  moments[plane + i] = sy;
  moments[2 * plane + i] = sxx;
  moments[3 * plane + i] = syy;
  moments[4 * plane + i] = sxy;
}

__device__ __forceinline__ double normal_cdf(double x) { return 0.5 * erfc(-x / sqrt(2.0)); }

// Vertical pass over rows y .. y + 10 of the moments, then the visibility model and the local
// fidelity map (Sec. II-A; tmqi.cpp fidelity_row_sum): one value per 'valid' pixel.
__global__ void fidelity_kernel(const double* __restrict__ moments, int width, int height, int out_height,
                                double* __restrict__ map, Window w, double tau, double spread) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= out_height) return;
  const std::size_t plane = static_cast<std::size_t>(width) * height;
  double sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0;
#pragma unroll
  for (int k = 0; k < kTaps; ++k) {
    const std::size_t i = static_cast<std::size_t>(y + k) * width + x;
    sx += w.w[k] * moments[i];
    sy += w.w[k] * moments[plane + i];
    sxx += w.w[k] * moments[2 * plane + i];
    syy += w.w[k] * moments[3 * plane + i];
    sxy += w.w[k] * moments[4 * plane + i];
  }
  constexpr double c1 = 0.01, c2 = 10.0;
  const double sigma_h = sqrt(fmax(0.0, sxx - sx * sx));
  const double sigma_l = sqrt(fmax(0.0, syy - sy * sy));
  const double cov = sxy - sx * sy;
  // Signal strength through the visibility model: sigma' = Phi((sigma - tau) / spread).
  const double ph = normal_cdf((sigma_h - tau) / spread);
  const double pl = normal_cdf((sigma_l - tau) / spread);
  map[static_cast<std::size_t>(y) * width + x] =
      (2.0 * ph * pl + c1) / (ph * ph + pl * pl + c1) * (cov + c2) / (sigma_h * sigma_l + c2);
}

Status half_sizes(const TmqiLayout& l, double* pyramid, cudaStream_t s) {
  for (int k = 1; k < kScales; ++k) {
    half_size_kernel<<<grid_for(l.width[k], l.height[k]), dim3(kBlockX, kBlockY), 0, s>>>(
        pyramid + l.offset[k - 1], l.width[k - 1], l.height[k - 1], pyramid + l.offset[k], l.width[k], l.height[k]);
    TK_CUDA_CHECK_LAUNCH("half_size_kernel");
  }
  return {};
}

Window window() {
  static const std::array<double, kTaps> taps = detail::tmqi_gaussian_window();
  Window w;
  std::copy(taps.begin(), taps.end(), w.w);
  return w;
}

}  // namespace

TmqiLayout tmqi_layout(int width, int height) {
  TmqiLayout l;
  std::size_t offset = 0;
  for (int k = 0; k < kScales; ++k) {
    l.width[k] = k ? (l.width[k - 1] + 1) / 2 : width;
    l.height[k] = k ? (l.height[k - 1] + 1) / 2 : height;
    l.offset[k] = offset;
    offset += static_cast<std::size_t>(l.width[k]) * l.height[k];
  }
  l.pyramid = offset;
  const std::size_t valid_width = static_cast<std::size_t>(width - (kTaps - 1));
  l.moments = 5 * valid_width * height;
  l.map = valid_width * (height - (kTaps - 1));
  l.blocks = static_cast<std::size_t>((width + kTaps - 1) / kTaps) * ((height + kTaps - 1) / kTaps);
  return l;
}

Status tmqi_hdr(const TmqiLayout& l, const TmqiBuffers& b, DeviceResults* res, const ReduceTemp& t, cudaStream_t s) {
  const std::size_t n = static_cast<std::size_t>(l.width[0]) * l.height[0];
  std::size_t bytes = t.bytes;
  if (Status st = reduce_min_max(b.hdr_pyramid, n, res->hdr_min_max, t.p, bytes, s); !st.ok()) return st;
  stretch_kernel<<<blocks_for(n), 256, 0, s>>>(b.hdr_pyramid, n, res->hdr_min_max);
  TK_CUDA_CHECK_LAUNCH("stretch_kernel");
  return half_sizes(l, b.hdr_pyramid, s);
}

Status tmqi_ldr(const TmqiLayout& l, const TmqiBuffers& b, DeviceResults* res, const ReduceTemp& t, cudaStream_t s) {
  const int width = l.width[0], height = l.height[0];
  const std::size_t n = static_cast<std::size_t>(width) * height;
  std::size_t bytes = t.bytes;
  if (Status st = reduce_sum(b.ldr_pyramid, n, &res->ldr_sum, t.p, bytes, s); !st.ok()) return st;
  // Statistical naturalness' d (Sec. II-B) on the full-size LDR luminance.
  const int blocks_x = (width + kTaps - 1) / kTaps, blocks_y = (height + kTaps - 1) / kTaps;
  block_deviation_kernel<<<grid_for(blocks_x, blocks_y), dim3(kBlockX, kBlockY), 0, s>>>(b.ldr_pyramid, width, height,
                                                                                      blocks_x, blocks_y, b.blocks);
  TK_CUDA_CHECK_LAUNCH("block_deviation_kernel");
  bytes = t.bytes;
  if (Status st = reduce_sum(b.blocks, l.blocks, &res->block_dev_sum, t.p, bytes, s); !st.ok()) return st;
  if (Status st = half_sizes(l, b.ldr_pyramid, s); !st.ok()) return st;
  const Window w = window();
  for (int k = 0; k < kScales; ++k) {
    const int sw = l.width[k], sh = l.height[k], ow = sw - (kTaps - 1), oh = sh - (kTaps - 1);
    const double tau = detail::tmqi_visibility_threshold(detail::kTmqiFrequencies[k]);
    moments_kernel<<<grid_for(ow, sh), dim3(kBlockX, kBlockY), 0, s>>>(b.hdr_pyramid + l.offset[k],
                                                                      b.ldr_pyramid + l.offset[k], sw, sh, ow,
                                                                      b.moments, w);
    TK_CUDA_CHECK_LAUNCH("moments_kernel");
    fidelity_kernel<<<grid_for(ow, oh), dim3(kBlockX, kBlockY), 0, s>>>(b.moments, ow, sh, oh, b.map, w, tau,
                                                                       tau / 3.0);
    TK_CUDA_CHECK_LAUNCH("fidelity_kernel");
    bytes = t.bytes;
    if (Status st = reduce_sum(b.map, static_cast<std::size_t>(ow) * oh, &res->scale_sum[k], t.p, bytes, s); !st.ok())
      return st;
  }
  return {};
}

TmqiScore tmqi_finish(const TmqiLayout& l, const DeviceResults& r) {
  TmqiScore score;
  const double pixels = static_cast<double>(l.width[0]) * l.height[0];
  score.mean_luminance = r.ldr_sum / pixels;
  score.contrast = r.block_dev_sum / pixels;
  for (int k = 0; k < kScales; ++k)
    score.s_per_scale[k] =
        r.scale_sum[k] / (static_cast<double>(l.width[k] - (kTaps - 1)) * (l.height[k] - (kTaps - 1)));
  detail::tmqi_combine(score);
  return score;
}

}  // namespace tonekit::quality::gpu
