// local-laplacian and exposure-fusion on the device (core/laplacian.hpp, core/fusion.hpp; the CPU
// references are src/cpu/local/local_laplacian_cpu.cpp and exposure_fusion_cpu.cpp): the level-0
// planes, the pyramids' decimations (one launch per level, the planes along grid.z; one kernel
// for both operators), the top level, then one collapse launch per level.
// Compiled with -fmad=false (src/cuda/CMakeLists.txt): the same float operations in the same order
// as the CPU's, so the pyramids are the CPU's bit for bit.
#include <cuda_fp16.h>

#include "core/fusion.hpp"
#include "core/laplacian.hpp"
#include "cuda/check.hpp"
#include "cuda/formats.hpp"
#include "cuda/local/local_launch.hpp"

namespace tonekit::cuda_local {
namespace {

constexpr int kTx = 32, kTy = 8;                    // outputs per block
constexpr int kInX = 2 * kTx + 3, kInY = 2 * kTy + 3;  // the inputs they read (5 taps, stride 2)

__global__ void llf_frame_kernel(const FrameStats* stats, const core::LlfCurve c, core::LlfFrame* out) {
  *out = core::make_llf_frame(stats->max_luminance, stats->min_positive_luminance, stats->log_average, c);
}

__global__ void llf_log_kernel(float* plane, std::size_t n, const core::LlfFrame* frame) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) plane[i] = core::llf_log(plane[i], frame->floor_lum);
}

// One level's decimation for every plane z (grid.z). remap: level 1 of the remapped pyramids,
// whose source is the log plane remapped around g_z (z < K; z = K the plane itself); otherwise
// plane z of the previous level. Shared: the source region (remapped once), then its rows'
// horizontal taps, then the vertical taps: core::llf_down_at's order.
enum class DownSource : int { planes = 0, llf_level1 = 1, fusion_level1 = 2 };

// planes: plane z of the previous level (z * src_plane). llf_level1: the log plane remapped around
// g_z (z = K: as it is). fusion_level1: z < N the exposure min(1, a_z p) of the plane p; z >= N the
// weight plane z - N (at (z - N) * src_plane).
__global__ void __launch_bounds__(kTx* kTy) llf_down_kernel(const float* __restrict__ src, std::size_t src_plane, int sw,
                                                             int sh, float* __restrict__ dst, std::size_t dst_plane, int dw,
                                                             int dh, DownSource mode, const core::LlfCurve c,
                                                             const core::LlfFrame* __restrict__ frame,
                                                             const core::FusionFrame* __restrict__ fusion) {
  __shared__ float table[core::kLlfTable + 1];
  __shared__ float in[kInY][kInX + 1];
  __shared__ float hs[kInY][kTx];
  const int z = blockIdx.z;
  const int t = threadIdx.y * kTx + threadIdx.x;
  if (mode == DownSource::llf_level1)
    for (int i = t; i <= core::kLlfTable; i += kTx * kTy) table[i] = c.table[i];
  const bool remap = mode == DownSource::llf_level1 && z < c.levels;
  const float g = remap ? core::llf_level(*frame, z) : 0.0f;
  const float beta = remap ? frame->beta : 0.0f;
  const bool expose = mode == DownSource::fusion_level1 && z < fusion->n;
  const float a = expose ? fusion->a[z] : 0.0f;
  std::size_t plane = 0;
  if (mode == DownSource::planes) plane = z;
  else if (mode == DownSource::fusion_level1 && !expose) plane = z - fusion->n;
  const float* s = src + plane * src_plane;
  __syncthreads();
  const int ox = blockIdx.x * kTx, oy = blockIdx.y * kTy;
  const int ix0 = 2 * ox - 2, iy0 = 2 * oy - 2;
  for (int i = t; i < kInX * kInY; i += kTx * kTy) {
    const int lx = i % kInX, ly = i / kInX;
    const float v = s[static_cast<std::size_t>(core::llf_clamp(iy0 + ly, sh)) * sw + core::llf_clamp(ix0 + lx, sw)];
    in[ly][lx] = remap ? core::llf_remap_with(v, g, table, c.sigma, c.to_index, beta) : (expose ? core::fusion_value(v, a) : v);
  }
  __syncthreads();
  // Horizontal taps: in[ly][lx] holds source column clamp(ix0 + lx) of row clamp(iy0 + ly), so
  // output column ox + lx reads in[ly][2 lx .. 2 lx + 4], the clamped taps of core::llf_down_at.
  for (int i = t; i < kInY * kTx; i += kTx * kTy) {
    const int ly = i / kTx, lx = i % kTx;
    const float* r = in[ly] + 2 * lx;
    hs[ly][lx] = core::llf_tap5(r[0], r[1], r[2], r[3], r[4]);
  }
  __syncthreads();
  const int x = ox + threadIdx.x, y = oy + threadIdx.y;
  if (x >= dw || y >= dh) return;
  const int ly = 2 * threadIdx.y;
  dst[static_cast<std::size_t>(z) * dst_plane + static_cast<std::size_t>(y) * dw + x] = core::llf_tap5(
      hs[ly][threadIdx.x], hs[ly + 1][threadIdx.x], hs[ly + 2][threadIdx.x], hs[ly + 3][threadIdx.x], hs[ly + 4][threadIdx.x]);
}

// The top: a, top (one thread, the CPU's order) and O_J = a + beta (G_J - a) (the frame's beta).
__global__ void llf_top_kernel(const float* g_top, int n, const core::LlfCurve c, core::LlfFrame* frame, float* o_top) {
  core::LlfFrame f = *frame;
  core::llf_finish_top(f, g_top, n, c);
  *frame = f;
  for (int i = 0; i < n; ++i) o_top[i] = core::llf_top_value(g_top[i], f);
}

// Level j: O_j = blend of the two levels' coefficients + up(O_{j+1}). Level 0 remaps the log plane
// itself (gj is the log plane, rj unused).
__global__ void __launch_bounds__(kTx* kTy) llf_collapse_kernel(LlfCollapseArgs a, core::LlfCurve c,
                                                                 const core::LlfFrame* __restrict__ frame) {
  __shared__ float table[core::kLlfTable + 1];
  const int t = threadIdx.y * kTx + threadIdx.x;
  if (a.level0)
    for (int i = t; i <= core::kLlfTable; i += kTx * kTy) table[i] = c.table[i];
  __syncthreads();
  const int x = blockIdx.x * kTx + threadIdx.x, y = blockIdx.y * kTy + threadIdx.y;
  if (x >= a.w || y >= a.h) return;
  const core::LlfFrame f = *frame;
  const std::size_t i = static_cast<std::size_t>(y) * a.w + x;
  const float g = a.gj[i];
  float tt;
  const int k0 = core::llf_bracket(g, f, c.levels, tt);
  float coef[2];
  for (int e = 0; e < 2; ++e) {
    const int k = k0 + e;
    const float* rc = a.rc + static_cast<std::size_t>(k) * a.rc_plane;
    const float rj = a.level0 ? core::llf_remap_with(g, core::llf_level(f, k), table, c.sigma, c.to_index, f.beta)
                              : a.rj[static_cast<std::size_t>(k) * a.rj_plane + i];
    const float up = core::llf_up_at([&](int xx, int yy) { return __ldg(rc + static_cast<std::size_t>(yy) * a.cw + xx); },
                                     a.cw, a.ch, x, y);
    coef[e] = rj - up;
  }
  const float base = core::llf_up_at([&](int xx, int yy) { return __ldg(a.oc + static_cast<std::size_t>(yy) * a.cw + xx); },
                                     a.cw, a.ch, x, y);
  a.oj[i] = core::llf_blend(coef[0], coef[1], tt) + base;
}

// ---- exposure-fusion ----

__global__ void fusion_frame_kernel(const FrameStats* stats, core::FusionParams p, core::FusionFrame* out) {
  *out = core::make_fusion_frame(p, stats->max_luminance, stats->log_average);
}

// p = L_w^(1/2.2) in place over the luminance plane; q_k = c_k^(1/2.2) of the sanitised channels.
template <class In>
__global__ void fusion_encode_kernel(const unsigned char* __restrict__ in, std::size_t stride, int w, int h,
                                     float* __restrict__ p, float* __restrict__ q) {
  const int x = blockIdx.x * kTx + threadIdx.x, y = blockIdx.y * kTy + threadIdx.y;
  if (x >= w || y >= h) return;
  const typename In::T* px = reinterpret_cast<const typename In::T*>(in + static_cast<std::size_t>(y) * stride) +
                             static_cast<std::size_t>(x) * In::channels;
  const std::size_t i = static_cast<std::size_t>(y) * w + x, n = static_cast<std::size_t>(w) * h;
  for (int k = 0; k < 3; ++k) {
    const float v = cuda::load_scalar(px + k);
    const float clean = v > 0.0f ? (v == INFINITY ? core::kInfReplacement : v) : 0.0f;  // core::sanitise_channel's values
    q[k * n + i] = core::fusion_encode(clean);
  }
  p[i] = core::fusion_encode(p[i]);
}

__global__ void __launch_bounds__(kTx* kTy) fusion_weights_kernel(const float* __restrict__ p, const float* __restrict__ q,
                                                                   int w, int h, const core::FusionFrame* __restrict__ frame,
                                                                   float* __restrict__ weights) {
  const int x = blockIdx.x * kTx + threadIdx.x, y = blockIdx.y * kTy + threadIdx.y;
  if (x >= w || y >= h) return;
  core::fusion_pixel_weights(p, q, w, h, x, y, *frame, weights);
}

// O_J = sum over e of weight * value (one thread, the CPU's order).
__global__ void fusion_top_kernel(const float* __restrict__ top, std::size_t plane, int n, const core::FusionFrame* frame,
                                  float* o_top) {
  const int N = frame->n;
  for (int i = 0; i < n; ++i) {
    float acc = 0.0f;
    for (int e = 0; e < N; ++e) acc = acc + top[(N + e) * plane + i] * top[e * plane + i];
    o_top[i] = acc;
  }
}

// Level j: O_j = sum over e of weight_j (value_j - up(value_{j+1})) + up(O_{j+1}); level 0 reads
// p and the weight planes (gj = p, rj = the weights, rj_plane = w * h).
__global__ void __launch_bounds__(kTx* kTy) fusion_collapse_kernel(LlfCollapseArgs a, const core::FusionFrame* __restrict__ frame) {
  const int x = blockIdx.x * kTx + threadIdx.x, y = blockIdx.y * kTy + threadIdx.y;
  if (x >= a.w || y >= a.h) return;
  const int N = frame->n;
  const std::size_t i = static_cast<std::size_t>(y) * a.w + x;
  float acc = 0.0f;
  for (int e = 0; e < N; ++e) {
    const float* vc = a.rc + static_cast<std::size_t>(e) * a.rc_plane;
    const float up = core::llf_up_at([&](int xx, int yy) { return __ldg(vc + static_cast<std::size_t>(yy) * a.cw + xx); },
                                     a.cw, a.ch, x, y);
    const float value = a.level0 ? core::fusion_value(a.gj[i], frame->a[e]) : a.rj[static_cast<std::size_t>(e) * a.rj_plane + i];
    const float weight = a.level0 ? a.rj[static_cast<std::size_t>(e) * a.rj_plane + i]
                                  : a.rj[static_cast<std::size_t>(N + e) * a.rj_plane + i];
    acc = acc + weight * (value - up);
  }
  a.oj[i] = acc + core::llf_up_at([&](int xx, int yy) { return __ldg(a.oc + static_cast<std::size_t>(yy) * a.cw + xx); },
                                  a.cw, a.ch, x, y);
}

// A frame of one pixel (no pyramid): O_0 = sum over e of weight * min(1, a_e p).
__global__ void fusion_level0_top_kernel(const float* p, const float* weights, std::size_t count,
                                         const core::FusionFrame* frame, float* out) {
  for (std::size_t i = 0; i < count; ++i) {
    float acc = 0.0f;
    for (int e = 0; e < frame->n; ++e) acc = acc + weights[e * count + i] * core::fusion_value(p[i], frame->a[e]);
    out[i] = acc;
  }
}

template <class In>
Status launch_fusion_encode(const unsigned char* in, std::size_t stride, int w, int h, float* p, float* q, cudaStream_t s) {
  const dim3 block(kTx, kTy), grid((w + kTx - 1) / kTx, (h + kTy - 1) / kTy);
  fusion_encode_kernel<In><<<grid, block, 0, s>>>(in, stride, w, h, p, q);
  TK_CUDA_CHECK_LAUNCH("fusion_encode_kernel");
  return {};
}

// One collapse step's sizes and planes (level j of the pyramids `pyr` with geometry geo, the
// output pyramid `out` with og, O_0 in out0); the caller sets gj and rj.
LlfCollapseArgs collapse_args(const core::LlfGeometry& geo, const core::LlfGeometry& og, int j, const float* pyr, float* out,
                              float* out0) {
  LlfCollapseArgs a;
  a.w = geo.w[j];
  a.h = geo.h[j];
  a.cw = geo.w[j + 1];
  a.ch = geo.h[j + 1];
  a.level0 = j == 0;
  a.rj_plane = geo.size(j);
  a.rc = pyr + geo.at(j + 1, 0);
  a.rc_plane = geo.size(j + 1);
  a.oc = out + og.at(j + 1, 0);
  a.oj = j == 0 ? out0 : out + og.at(j, 0);
  return a;
}

}  // namespace

Status launch_local_laplacian(float* plane, int w, int h, const FrameStats* stats, const core::LlfCurve& c,
                              const LlfScratch& sc, cudaStream_t s) {
  const int K = c.levels;
  const core::LlfGeometry geo = core::llf_geometry(w, h, K + 1);
  const core::LlfGeometry og = core::llf_geometry(w, h, 1);
  const int J = geo.depth;
  if (geo.total() > sc.pyramid_floats || og.total() > sc.output_floats)
    return invalid_argument("local-laplacian: pyramid scratch smaller than the frame needs");
  llf_frame_kernel<<<1, 1, 0, s>>>(stats, c, sc.frame);
  TK_CUDA_CHECK_LAUNCH("llf_frame_kernel");
  const std::size_t n = static_cast<std::size_t>(w) * h;
  llf_log_kernel<<<static_cast<unsigned>((n + 255) / 256), 256, 0, s>>>(plane, n, sc.frame);
  TK_CUDA_CHECK_LAUNCH("llf_log_kernel");
  const dim3 block(kTx, kTy);
  for (int j = 1; j <= J; ++j) {
    const dim3 grid((geo.w[j] + kTx - 1) / kTx, (geo.h[j] + kTy - 1) / kTy, K + 1);
    const float* src = j == 1 ? plane : sc.pyramid + geo.at(j - 1, 0);
    llf_down_kernel<<<grid, block, 0, s>>>(src, j == 1 ? 0 : geo.size(j - 1), geo.w[j - 1], geo.h[j - 1],
                                           sc.pyramid + geo.at(j, 0), geo.size(j), geo.w[j], geo.h[j],
                                           j == 1 ? DownSource::llf_level1 : DownSource::planes, c, sc.frame, nullptr);
    TK_CUDA_CHECK_LAUNCH("llf_down_kernel");
  }
  const float* g_top = J >= 1 ? sc.pyramid + geo.at(J, K) : plane;
  float* o_top = J >= 1 ? sc.output + og.at(J, 0) : sc.out0;
  llf_top_kernel<<<1, 1, 0, s>>>(g_top, static_cast<int>(geo.size(J)), c, sc.frame, o_top);
  TK_CUDA_CHECK_LAUNCH("llf_top_kernel");
  for (int j = J - 1; j >= 0; --j) {
    LlfCollapseArgs a = collapse_args(geo, og, j, sc.pyramid, sc.output, sc.out0);
    a.gj = j == 0 ? plane : sc.pyramid + geo.at(j, K);
    a.rj = j == 0 ? nullptr : sc.pyramid + geo.at(j, 0);
    const dim3 grid((a.w + kTx - 1) / kTx, (a.h + kTy - 1) / kTy);
    llf_collapse_kernel<<<grid, block, 0, s>>>(a, c, sc.frame);
    TK_CUDA_CHECK_LAUNCH("llf_collapse_kernel");
  }
  return {};
}

Status launch_exposure_fusion(InputFormat fmt, const unsigned char* in, std::size_t in_stride, float* plane, int w, int h,
                              const FrameStats* stats, const core::FusionParams& params, const FusionScratch& sc,
                              cudaStream_t s) {
  const core::FusionFrame hf = core::make_fusion_frame(params, 1.0, 1.0);  // N only (the exposures come from the device's statistics)
  const int N = hf.n;
  const core::LlfGeometry geo = core::llf_geometry(w, h, 2 * N);
  const core::LlfGeometry og = core::llf_geometry(w, h, 1);
  const int J = geo.depth;
  if (geo.total() > sc.pyramid_floats || og.total() > sc.output_floats)
    return invalid_argument("exposure-fusion: pyramid scratch smaller than the frame needs");
  fusion_frame_kernel<<<1, 1, 0, s>>>(stats, params, sc.frame);
  TK_CUDA_CHECK_LAUNCH("fusion_frame_kernel");
  Status st;
  switch (fmt) {
    case InputFormat::rgb_f32: st = launch_fusion_encode<cuda::InF32x3>(in, in_stride, w, h, plane, sc.q, s); break;
    case InputFormat::rgba_f32: st = launch_fusion_encode<cuda::InF32x4>(in, in_stride, w, h, plane, sc.q, s); break;
    case InputFormat::rgba_f16: st = launch_fusion_encode<cuda::InF16x4>(in, in_stride, w, h, plane, sc.q, s); break;
    default: return invalid_argument("exposure-fusion: unknown input format");
  }
  if (!st.ok()) return st;
  const dim3 block(kTx, kTy);
  const std::size_t count = static_cast<std::size_t>(w) * h;
  {
    const dim3 grid((w + kTx - 1) / kTx, (h + kTy - 1) / kTy);
    fusion_weights_kernel<<<grid, block, 0, s>>>(plane, sc.q, w, h, sc.frame, sc.weights);
    TK_CUDA_CHECK_LAUNCH("fusion_weights_kernel");
  }
  const core::LlfCurve unused{};
  for (int j = 1; j <= J; ++j) {
    const dim3 grid((geo.w[j] + kTx - 1) / kTx, (geo.h[j] + kTy - 1) / kTy, 2 * N);
    if (j == 1) {
      // planes < N from p, planes >= N from the weight planes: two sources, one launch each
      const dim3 g1((geo.w[1] + kTx - 1) / kTx, (geo.h[1] + kTy - 1) / kTy, N);
      llf_down_kernel<<<g1, block, 0, s>>>(plane, 0, w, h, sc.pyramid + geo.at(1, 0), geo.size(1), geo.w[1], geo.h[1],
                                           DownSource::fusion_level1, unused, nullptr, sc.frame);
      TK_CUDA_CHECK_LAUNCH("llf_down_kernel");
      llf_down_kernel<<<g1, block, 0, s>>>(sc.weights, count, w, h, sc.pyramid + geo.at(1, N), geo.size(1), geo.w[1],
                                           geo.h[1], DownSource::planes, unused, nullptr, sc.frame);
    } else {
      llf_down_kernel<<<grid, block, 0, s>>>(sc.pyramid + geo.at(j - 1, 0), geo.size(j - 1), geo.w[j - 1], geo.h[j - 1],
                                             sc.pyramid + geo.at(j, 0), geo.size(j), geo.w[j], geo.h[j], DownSource::planes,
                                             unused, nullptr, sc.frame);
    }
    TK_CUDA_CHECK_LAUNCH("llf_down_kernel");
  }
  float* o_top = J >= 1 ? sc.output + og.at(J, 0) : sc.out0;
  if (J >= 1) {
    fusion_top_kernel<<<1, 1, 0, s>>>(sc.pyramid + geo.at(J, 0), geo.size(J), static_cast<int>(geo.size(J)), sc.frame, o_top);
    TK_CUDA_CHECK_LAUNCH("fusion_top_kernel");
  }
  for (int j = J - 1; j >= 0; --j) {
    LlfCollapseArgs a = collapse_args(geo, og, j, sc.pyramid, sc.output, sc.out0);
    a.gj = plane;
    a.rj = j == 0 ? sc.weights : sc.pyramid + geo.at(j, 0);
    if (j == 0) a.rj_plane = count;
    const dim3 grid((a.w + kTx - 1) / kTx, (a.h + kTy - 1) / kTy);
    fusion_collapse_kernel<<<grid, block, 0, s>>>(a, sc.frame);
    TK_CUDA_CHECK_LAUNCH("fusion_collapse_kernel");
  }
  if (J == 0) {  // one pixel: O_0 = sum of weight * value at level 0
    fusion_level0_top_kernel<<<1, 1, 0, s>>>(plane, sc.weights, count, sc.frame, sc.out0);
    TK_CUDA_CHECK_LAUNCH("fusion_level0_top_kernel");
  }
  return {};
}

}  // namespace tonekit::cuda_local
