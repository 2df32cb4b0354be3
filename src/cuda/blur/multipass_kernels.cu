// Multi-pass blur kernels: pyramid analysis / synthesis (Ernst 2013 section 3.5; Kraus &
// Strengert 2007), box filters by running sums and by summed-area tables (Kovesi 2009, section
// 3.8), explicit heat diffusion (section 3.9) and polynomial spreading (Kosloff 2011, section
// 3.6.2). Each kernel evaluates its sums in the order of the CPU reference (src/cpu/blur), so the two
// backends differ by float rounding (FMA contraction) alone.
#include "cuda/blur/blur_kernels.hpp"
#include "cuda/blur/pixel.cuh"
#include "cuda/check.hpp"
#include "cpu/sat/box_query.hpp"

namespace tonekit::gpu_blur {
namespace {

dim3 grid2d(int w, int h) { return dim3((w + 31) / 32, (h + 7) / 8); }
const dim3 kBlock2d(32, 8);

// Coarse pixel (i, j) = sum_a sum_b w[a] w[b] fine(2i - 1 + b, 2j - 1 + a), clamped; vertical
// sums first (the CPU's order), then horizontal.
template <int C>
__global__ void pyramid_down_kernel(const float* __restrict__ fine, int fw, int fh, float* __restrict__ coarse,
                                    int cw, int ch, Analysis4 a) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= cw || j >= ch) return;
  const float* r[4];
#pragma unroll
  for (int k = 0; k < 4; ++k) r[k] = fine + static_cast<size_t>(clampi(2 * j - 1 + k, 0, fh - 1)) * fw * C;
  Pix<C, float> acc = pix_zero<C, float>();
#pragma unroll
  for (int b = 0; b < 4; ++b) {
    const size_t x = static_cast<size_t>(clampi(2 * i - 1 + b, 0, fw - 1)) * C;
    const Pix<C, float> p0 = load_pix<C>(r[0] + x), p1 = load_pix<C>(r[1] + x), p2 = load_pix<C>(r[2] + x),
                        p3 = load_pix<C>(r[3] + x);
#pragma unroll
    for (int c = 0; c < C; ++c) {
      const float v = a.w[0] * p0.v[c] + a.w[1] * p1.v[c] + a.w[2] * p2.v[c] + a.w[3] * p3.v[c];
      acc.v[c] += a.w[b] * v;
    }
  }
  store_pix<C, float>(coarse + (static_cast<size_t>(j) * cw + i) * C, acc);
}

// Fine 2i + p = 3/4 coarse(i) + 1/4 coarse(i - 1 + 2p), clamped, per axis (vertical first).
template <int C>
__global__ void pyramid_up_kernel(const float* __restrict__ coarse, int cw, int ch, float* __restrict__ fine, int fw,
                                  int fh) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= fw || y >= fh) return;
  constexpr float kNear = 0.75f, kFar = 0.25f;
  const int i = y >> 1, j = clampi((y & 1) ? i + 1 : i - 1, 0, ch - 1);
  const int ci = x >> 1, cj = clampi((x & 1) ? ci + 1 : ci - 1, 0, cw - 1);
  const float* ra = coarse + static_cast<size_t>(i) * cw * C;
  const float* rb = coarse + static_cast<size_t>(j) * cw * C;
  const Pix<C, float> ai = load_pix<C>(ra + ci * C), bi = load_pix<C>(rb + ci * C), aj = load_pix<C>(ra + cj * C),
                      bj = load_pix<C>(rb + cj * C);
  Pix<C, float> o;
#pragma unroll
  for (int c = 0; c < C; ++c) {
    const float vi = kNear * ai.v[c] + kFar * bi.v[c], vj = kNear * aj.v[c] + kFar * bj.v[c];
    o.v[c] = kNear * vi + kFar * vj;
  }
  store_pix<C, float>(fine + (static_cast<size_t>(y) * fw + x) * C, o);
}

// Box running sums: one thread per line segment of kSeg outputs, float64 sums (the CPU's
// box_separable). kVertical: lines are columns. The window sum restarts per segment.
constexpr int kSeg = 128;
template <int C, bool kVertical>
__global__ void box_running_kernel(const float* __restrict__ in, float* __restrict__ out, int w, int h, int width) {
  const int line = blockIdx.x * blockDim.x + threadIdx.x;
  const int lines = kVertical ? w : h, len = kVertical ? h : w;
  const int p0 = blockIdx.y * kSeg;
  if (line >= lines || p0 >= len) return;
  const size_t step = kVertical ? static_cast<size_t>(w) * C : C;
  const float* src = in + (kVertical ? static_cast<size_t>(line) * C : static_cast<size_t>(line) * w * C);
  float* dst = out + (kVertical ? static_cast<size_t>(line) * C : static_cast<size_t>(line) * w * C);
  const int b = width / 2;
  const double inv = 1.0 / width;
  auto at = [&](int p) { return load_pix<C>(src + static_cast<size_t>(clampi(p, 0, len - 1)) * step); };
  Pix<C, double> s = pix_zero<C, double>();
  for (int p = p0 - b; p <= p0 + b; ++p) madd(s, 1.0, at(p));
  const int p1 = min(p0 + kSeg, len);
  for (int p = p0; p < p1; ++p) {
    Pix<C, double> o;
#pragma unroll
    for (int c = 0; c < C; ++c) o.v[c] = s.v[c] * inv;
    store_pix<C, double>(dst + static_cast<size_t>(p) * step, o);
    const Pix<C, float> add = at(p + b + 1), sub = at(p - b);
#pragma unroll
    for (int c = 0; c < C; ++c) s.v[c] += static_cast<double>(add.v[c]) - static_cast<double>(sub.v[c]);
  }
}

// Summed-area table, exclusive, per channel: rows by one warp each (shuffle scans of 32-wide
// chunks with a carry), then columns by one thread each (coalesced across x).
template <int C>
__global__ void sat_rows_kernel(const float* __restrict__ in, double* __restrict__ table, int w, int h) {
  const int warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5, lane = threadIdx.x & 31;
  if (warp >= h * C) return;
  const int y = warp / C, c = warp % C;
  const size_t pitch = static_cast<size_t>(w) + 1;
  double* t = table + static_cast<size_t>(c) * pitch * (h + 1) + static_cast<size_t>(y + 1) * pitch;
  if (lane == 0) t[0] = 0.0;
  if (y == 0)
    for (int x = lane; x <= w; x += 32) t[x - static_cast<long>(pitch)] = 0.0;  // row 0
  double carry = 0.0;
  for (int x0 = 0; x0 < w; x0 += 32) {
    const int x = x0 + lane;
    double v = x < w ? static_cast<double>(in[(static_cast<size_t>(y) * w + x) * C + c]) : 0.0;
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
      const double n = __shfl_up_sync(0xffffffffu, v, d);
      if (lane >= d) v += n;
    }
    v += carry;
    if (x < w) t[x + 1] = v;
    carry = __shfl_sync(0xffffffffu, v, 31);
  }
}

__global__ void sat_cols_kernel(double* __restrict__ table, int w, int h, int planes) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const size_t pitch = static_cast<size_t>(w) + 1;
  if (x > w || blockIdx.y >= static_cast<unsigned>(planes)) return;
  double* t = table + static_cast<size_t>(blockIdx.y) * pitch * (h + 1) + x;
  double s = 0.0;
  for (int y = 1; y <= h; ++y) {
    s += t[static_cast<size_t>(y) * pitch];
    t[static_cast<size_t>(y) * pitch] = s;
  }
}

template <int C>
__global__ void box_sat_query_kernel(const double* __restrict__ table, float* __restrict__ out, int w, int h,
                                     int width) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  const size_t pitch = static_cast<size_t>(w) + 1, plane = pitch * (h + 1);
  const double inv = 1.0 / (static_cast<double>(width) * width);
  Pix<C, double> o;
#pragma unroll
  for (int c = 0; c < C; ++c) o.v[c] = sat::box_sum_replicated<double>(table + c * plane, pitch, x, y, width, w, h) * inv;
  store_pix<C, double>(out + (static_cast<size_t>(y) * w + x) * C, o);
}

// I += c (left + right + up + down - 4 I), clamped (zero-flux) borders; the CPU's sum order.
template <int C>
__global__ void diffusion_kernel(const float* __restrict__ a, float* __restrict__ b, int w, int h, float cf) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  const float centre = 1.0f - 4.0f * cf;
  auto at = [&](int px, int py) { return load_pix<C>(a + (static_cast<size_t>(py) * w + px) * C); };
  const Pix<C, float> m = at(x, y), l = at(max(x - 1, 0), y), r = at(min(x + 1, w - 1), y), u = at(x, max(y - 1, 0)),
                      d = at(x, min(y + 1, h - 1));
  Pix<C, float> o;
#pragma unroll
  for (int c = 0; c < C; ++c) o.v[c] = centre * m.v[c] + cf * (l.v[c] + r.v[c] + u.v[c] + d.v[c]);
  store_pix<C, float>(b + (static_cast<size_t>(y) * w + x) * C, o);
}

// Spreading, one axis: d1 += s(m), d2 += d1 with s(m) = P(m - 1) - 2 P(m - r - 1) + P(m - 2r - 1)
// (P zero outside the line); output n = d2 at m = n + 2r. One thread per line, all channels.
// Rows: float padded plane (pw x ph) -> double tmp (w x ph). Columns: tmp -> out (w x h), / r^4.
// One line of length n: d1 += s(m), d2 += d1 over m < n, channel by channel; store(m - 2r, c,
// d2) from m = 2r on.
template <int C, class Src, class Store>
__device__ __forceinline__ void spread_line(int n, int r, Src P, Store store) {
  double d1[C], d2[C];
#pragma unroll
  for (int c = 0; c < C; ++c) d1[c] = d2[c] = 0.0;
  for (int m = 0; m < n; ++m) {
#pragma unroll
    for (int c = 0; c < C; ++c) {
      d1[c] += P(m - 1, c) - 2.0 * P(m - r - 1, c) + P(m - 2 * r - 1, c);
      d2[c] += d1[c];
    }
    if (m >= 2 * r)
#pragma unroll
      for (int c = 0; c < C; ++c) store(m - 2 * r, c, d2[c]);
  }
}

template <int C>
__global__ void spreading_rows_kernel(const float* __restrict__ padded, double* __restrict__ tmp, int w, int ph,
                                      int r) {
  const int y = blockIdx.x * blockDim.x + threadIdx.x;
  if (y >= ph) return;
  const int pw = w + 2 * r;
  const float* row = padded + static_cast<size_t>(y) * pw * C;
  double* dst = tmp + static_cast<size_t>(y) * w * C;
  auto P = [&](int i, int c) { return (i < 0 || i >= pw) ? 0.0 : static_cast<double>(row[static_cast<size_t>(i) * C + c]); };
  spread_line<C>(pw, r, P, [&](int n, int c, double v) { dst[static_cast<size_t>(n) * C + c] = v; });
}

template <int C>
__global__ void spreading_cols_kernel(const double* __restrict__ tmp, float* __restrict__ out, int w, int h, int r) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x >= w) return;
  const int ph = h + 2 * r;
  const size_t pitch = static_cast<size_t>(w) * C;
  auto P = [&](int i, int c) { return (i < 0 || i >= ph) ? 0.0 : tmp[static_cast<size_t>(i) * pitch + x * C + c]; };
  const double norm = 1.0 / (static_cast<double>(r) * r * r * r);
  spread_line<C>(ph, r, P, [&](int n, int c, double v) {
    out[static_cast<size_t>(n) * pitch + x * C + c] = static_cast<float>(v * norm);
  });
}

}  // namespace

Status pyramid_down(const float* fine, int fw, int fh, float* coarse, int channels, Analysis4 a, cudaStream_t s) {
  const int cw = (fw + 1) / 2, ch = (fh + 1) / 2;
  if (channels == 4) pyramid_down_kernel<4><<<grid2d(cw, ch), kBlock2d, 0, s>>>(fine, fw, fh, coarse, cw, ch, a);
  else pyramid_down_kernel<1><<<grid2d(cw, ch), kBlock2d, 0, s>>>(fine, fw, fh, coarse, cw, ch, a);
  TK_CUDA_CHECK_LAUNCH("pyramid_down_kernel");
  return {};
}

Status pyramid_up(const float* coarse, int cw, int ch, float* fine, int fw, int fh, int channels, cudaStream_t s) {
  if (channels == 4) pyramid_up_kernel<4><<<grid2d(fw, fh), kBlock2d, 0, s>>>(coarse, cw, ch, fine, fw, fh);
  else pyramid_up_kernel<1><<<grid2d(fw, fh), kBlock2d, 0, s>>>(coarse, cw, ch, fine, fw, fh);
  TK_CUDA_CHECK_LAUNCH("pyramid_up_kernel");
  return {};
}

Status box_running(const float* in, float* tmp, float* out, int w, int h, int channels, int width, cudaStream_t s) {
  const dim3 rgrid((h + 127) / 128, (w + kSeg - 1) / kSeg), cgrid((w + 127) / 128, (h + kSeg - 1) / kSeg);
  if (channels == 4) {
    box_running_kernel<4, false><<<rgrid, 128, 0, s>>>(in, tmp, w, h, width);
    box_running_kernel<4, true><<<cgrid, 128, 0, s>>>(tmp, out, w, h, width);
  } else {
    box_running_kernel<1, false><<<rgrid, 128, 0, s>>>(in, tmp, w, h, width);
    box_running_kernel<1, true><<<cgrid, 128, 0, s>>>(tmp, out, w, h, width);
  }
  TK_CUDA_CHECK_LAUNCH("box_running_kernel");
  return {};
}

std::size_t box_sat_table_doubles(int w, int h, int channels) {
  return (static_cast<std::size_t>(w) + 1) * (static_cast<std::size_t>(h) + 1) * channels;
}

Status box_sat(const float* in, double* table, float* out, int w, int h, int channels, int width, cudaStream_t s) {
  const int warps = h * channels, rows_blocks = (warps * 32 + 255) / 256;
  if (channels == 4) sat_rows_kernel<4><<<rows_blocks, 256, 0, s>>>(in, table, w, h);
  else sat_rows_kernel<1><<<rows_blocks, 256, 0, s>>>(in, table, w, h);
  TK_CUDA_CHECK_LAUNCH("sat_rows_kernel");
  sat_cols_kernel<<<dim3((w + 1 + 127) / 128, channels), 128, 0, s>>>(table, w, h, channels);
  TK_CUDA_CHECK_LAUNCH("sat_cols_kernel");
  if (channels == 4) box_sat_query_kernel<4><<<grid2d(w, h), kBlock2d, 0, s>>>(table, out, w, h, width);
  else box_sat_query_kernel<1><<<grid2d(w, h), kBlock2d, 0, s>>>(table, out, w, h, width);
  TK_CUDA_CHECK_LAUNCH("box_sat_query_kernel");
  return {};
}

Status diffusion(float* a, float* b, int w, int h, int channels, int iterations, float c, float** result,
                 cudaStream_t s) {
  for (int it = 0; it < iterations; ++it) {
    if (channels == 4) diffusion_kernel<4><<<grid2d(w, h), kBlock2d, 0, s>>>(a, b, w, h, c);
    else diffusion_kernel<1><<<grid2d(w, h), kBlock2d, 0, s>>>(a, b, w, h, c);
    TK_CUDA_CHECK_LAUNCH("diffusion_kernel");
    float* t = a;
    a = b;
    b = t;
  }
  *result = a;
  return {};
}

Status spreading(const float* padded, double* tmp, float* out, int w, int h, int channels, int r, cudaStream_t s) {
  const int ph = h + 2 * r;
  if (channels == 4) {
    spreading_rows_kernel<4><<<(ph + 127) / 128, 128, 0, s>>>(padded, tmp, w, ph, r);
    spreading_cols_kernel<4><<<(w + 127) / 128, 128, 0, s>>>(tmp, out, w, h, r);
  } else {
    spreading_rows_kernel<1><<<(ph + 127) / 128, 128, 0, s>>>(padded, tmp, w, ph, r);
    spreading_cols_kernel<1><<<(w + 127) / 128, 128, 0, s>>>(tmp, out, w, h, r);
  }
  TK_CUDA_CHECK_LAUNCH("spreading_kernels");
  return {};
}

}  // namespace tonekit::gpu_blur
