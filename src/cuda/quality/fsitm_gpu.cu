// FSITM on the device (Nafchi et al., IEEE SPL 2015; the CPU reference is src/cpu/quality/fsitm.cpp
// over phase_congruency.cpp, whose header comments give the definitions). Per plane: one D2Z
// transform (shared by both banks when their input is the same plane: the LDR side), then per bank
// one kernel forms the three Hermitian products (the even filter summed over orientations, and
// (-i) times each orientation's antisymmetric half), one batched Z2D gives the even and the two
// odd responses, and one kernel takes the phase angle atan2(E, |O|), blends the banks and, on the
// LDR side, counts the pixels whose sign agrees with the HDR's.
// Float64 transforms as the CPU's FFTW (cuFFT's D2Z/Z2D, loaded at run time: cuda/cufft_api.hpp);
// the filters are built on the device from quality/log_gabor.hpp (the CPU's definition) and
// stored in float as on the CPU. Built with -fmad=false (src/cuda/CMakeLists.txt) so the filter
// maths and the angle's sums round as the CPU's code does.
#include <cub/block/block_reduce.cuh>

#include <cmath>

#include "cuda/check.hpp"
#include "cuda/cufft_api.hpp"
#include "cuda/quality/quality_gpu.hpp"
#include "cpu/quality/fsitm_reference.hpp"
#include "cpu/quality/log_gabor.hpp"

namespace tonekit::quality::gpu {

using cuda::cufft;

namespace {

constexpr int kOrientations = 2;  // both banks
static_assert(detail::kFsitmFineBank.orientations == kOrientations &&
              detail::kFsitmCoarseBank.orientations == kOrientations);
constexpr int kResponses = 1 + kOrientations;  // even, odd per orientation
constexpr int kThreads = 256;
constexpr int kBlockX = 32, kBlockY = 8;
constexpr std::size_t kAlign = 32;  // doubles (256 bytes) between the work planes

std::size_t aligned(std::size_t n) { return (n + kAlign - 1) / kAlign * kAlign; }
unsigned blocks_for(std::size_t n) { return static_cast<unsigned>((n + kThreads - 1) / kThreads); }

// The symmetric half (summed over orientations) and the antisymmetric halves of the bank over the
// D2Z half spectrum (phase_congruency.cpp build_filters); the mirror of (x, y) is
// ((W - x) % W, (H - y) % H).
__global__ void filter_kernel(detail::LogGaborBank bank, int width, int height, float* even, float* odd) {
  const int half = width / 2 + 1;
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= half || y >= height) return;
  const std::size_t m = static_cast<std::size_t>(half) * height, i = static_cast<std::size_t>(y) * half + x;
  const int mx = (width - x) % width, my = (height - y) % height;
  double e = 0.0;
  for (int o = 0; o < kOrientations; ++o) {
    const double h = detail::log_gabor_filter(x, y, o, width, height, bank);
    const double h_mirror = detail::log_gabor_filter(mx, my, o, width, height, bank);
    e += 0.5 * (h + h_mirror);
    odd[o * m + i] = static_cast<float>(0.5 * (h - h_mirror));
  }
  even[i] = static_cast<float>(e);
}

// F H_s, and F (-i H_a) per orientation: (re, im) (-i h) = (im h, -re h).
__global__ void products_kernel(const double2* __restrict__ spectrum, const float* __restrict__ even,
                                const float* __restrict__ odd, std::size_t m, double2* __restrict__ products) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= m) return;
  const double2 f = spectrum[i];
  const double e = even[i];
  products[i] = make_double2(f.x * e, f.y * e);
#pragma unroll
  for (int o = 0; o < kOrientations; ++o) {
    const double h = odd[o * m + i];
    products[(1 + o) * m + i] = make_double2(f.y * h, -(f.x * h));
  }
}

// The smallest positive value's log stands for zeros and negatives; no positive value: zeros
// (fsitm.cpp log_stretched).
__global__ void log_kernel(const double* in, std::size_t n, const double* min_positive, double* out) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const double mp = *min_positive;
  out[i] = isfinite(mp) ? log(fmax(in[i], mp)) : 0.0;
}

__global__ void log_stretch_kernel(double* v, std::size_t n, const double* min_max) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  v[i] = detail::log_stretch_code(v[i], min_max[0], min_max[1] - min_max[0]);
}

struct AngleArgs {
  const double* responses;  // kResponses planes of n
  std::size_t n;
  double ca[kOrientations], sa[kOrientations];  // cos, sin of each orientation's angle
  const double* fine;      // the fine bank's angle to blend with (nullptr: none)
  double alpha;            // weight of this bank's angle when blending
  double* out;             // the (blended) angle (nullptr: not kept)
  const double* hdr_phase; // compare with (nullptr: no count)
  unsigned long long* agree;
};

// atan2(E, |O|) (phase_congruency.cpp mean_phase_angle), the blend alpha * this + (1 - alpha)
// * fine (fsitm.cpp blended_phase), and the count of sign agreements (a zero counts with the
// negatives, as fsitm.cpp sign_agreement).
__global__ void __launch_bounds__(kThreads) angle_kernel(AngleArgs a) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  unsigned same = 0;
  if (i < a.n) {
    const double even = a.responses[i];
    double odd_x = 0.0, odd_y = 0.0;
#pragma unroll
    for (int o = 0; o < kOrientations; ++o) {
      const double r = a.responses[(1 + o) * a.n + i];
      odd_x += a.ca[o] * r;
      odd_y += a.sa[o] * r;
    }
    double phase = atan2(even, sqrt(odd_x * odd_x + odd_y * odd_y));
    if (a.fine) phase = a.alpha * phase + (1.0 - a.alpha) * a.fine[i];
    if (a.out) a.out[i] = phase;
    if (a.hdr_phase) same = (a.hdr_phase[i] > 0.0) == (phase > 0.0);
  }
  if (!a.agree) return;
  using Reduce = cub::BlockReduce<unsigned, kThreads>;
  __shared__ typename Reduce::TempStorage temp;
  const unsigned block_sum = Reduce(temp).Sum(same);
  if (threadIdx.x == 0 && block_sum) atomicAdd(a.agree, static_cast<unsigned long long>(block_sum));
}

}  // namespace

struct FsitmPlan::Work {
  double* log_plane;     // n: the HDR side's fine-bank input
  double2* spectrum;     // m
  double2* products;     // kResponses x m
  double* responses;     // kResponses x n
  double* fine;          // n: the fine bank's angle
};

FsitmPlan::~FsitmPlan() { release(); }

void FsitmPlan::release() {
  if (forward_ >= 0) cufft().destroy(static_cast<cufftHandle>(forward_));
  if (inverse_ >= 0) cufft().destroy(static_cast<cufftHandle>(inverse_));
  forward_ = inverse_ = -1;
  width_ = height_ = 0;
  filters_ = nullptr;
}

std::size_t FsitmPlan::spectrum_size(int width, int height) {
  return static_cast<std::size_t>(width / 2 + 1) * height;
}

std::size_t FsitmPlan::filter_floats(int width, int height) { return 2 * kResponses * spectrum_size(width, height); }

std::size_t FsitmPlan::work_doubles(int width, int height) {
  const std::size_t n = static_cast<std::size_t>(width) * height, m = spectrum_size(width, height);
  return aligned(n) + aligned(2 * m) + aligned(2 * kResponses * m) + aligned(kResponses * n) + aligned(n);
}

FsitmPlan::Work FsitmPlan::carve(double* work) const {
  const std::size_t n = static_cast<std::size_t>(width_) * height_, m = spectrum_size(width_, height_);
  Work w;
  w.log_plane = work;
  work += aligned(n);
  w.spectrum = reinterpret_cast<double2*>(work);
  work += aligned(2 * m);
  w.products = reinterpret_cast<double2*>(work);
  work += aligned(2 * kResponses * m);
  w.responses = work;
  work += aligned(kResponses * n);
  w.fine = work;
  return w;
}

Status FsitmPlan::build(int width, int height, float* filters, cudaStream_t s) {
  release();
  const cuda::CufftApi& api = cufft();
  if (!api.double_ok) return unsupported("FSITM on the GPU needs cuFFT: " + api.why);
  const int half = width / 2 + 1;
  int dims[2] = {height, width};
  int complex_embed[2] = {height, half}, real_embed[2] = {height, width};
  const int n = width * height, m = half * height;  // <= kMaxImagePixels: fits an int
  cufftHandle forward = 0, inverse = 0;
  TK_CUFFT(api.plan_many(&forward, 2, dims, nullptr, 1, 0, nullptr, 1, 0, CUFFT_D2Z, 1), "cufftPlanMany (D2Z)");
  forward_ = static_cast<int>(forward);
  TK_CUFFT(api.plan_many(&inverse, 2, dims, complex_embed, 1, m, real_embed, 1, n, CUFFT_Z2D, kResponses),
           "cufftPlanMany (Z2D)");
  inverse_ = static_cast<int>(inverse);
  const std::size_t per_bank = kResponses * spectrum_size(width, height);
  const detail::LogGaborBank banks[2] = {detail::kFsitmFineBank, detail::kFsitmCoarseBank};
  const dim3 grid((half + kBlockX - 1) / kBlockX, (height + kBlockY - 1) / kBlockY);
  for (int b = 0; b < 2; ++b) {
    float* even = filters + b * per_bank;
    filter_kernel<<<grid, dim3(kBlockX, kBlockY), 0, s>>>(banks[b], width, height, even,
                                                          even + spectrum_size(width, height));
    TK_CUDA_CHECK_LAUNCH("filter_kernel");
  }
  width_ = width;
  height_ = height;
  alpha_ = detail::fsitm_alpha(width, height);
  filters_ = filters;
  return {};
}

Status FsitmPlan::forward(const double* in, const Work& w, cudaStream_t s) {
  const cuda::CufftApi& api = cufft();
  TK_CUFFT(api.set_stream(static_cast<cufftHandle>(forward_), s), "cufftSetStream");
  // D2Z does not write its input (out of place); the input pointer is const to us.
  TK_CUFFT(api.exec_d2z(static_cast<cufftHandle>(forward_), const_cast<double*>(in),
                        reinterpret_cast<cufftDoubleComplex*>(w.spectrum)),
           "cufftExecD2Z");
  return {};
}

Status FsitmPlan::bank_angle(int bank, const Work& w, const double* fine, double alpha, double* out,
                             const double* hdr_phase, unsigned long long* agree, cudaStream_t s) {
  const std::size_t n = static_cast<std::size_t>(width_) * height_, m = spectrum_size(width_, height_);
  const float* even = filters_ + bank * kResponses * m;
  products_kernel<<<blocks_for(m), kThreads, 0, s>>>(w.spectrum, even, even + m, m, w.products);
  TK_CUDA_CHECK_LAUNCH("products_kernel");
  const cuda::CufftApi& api = cufft();
  TK_CUFFT(api.set_stream(static_cast<cufftHandle>(inverse_), s), "cufftSetStream");
  // Z2D may overwrite its input: the products are made afresh for every bank.
  TK_CUFFT(api.exec_z2d(static_cast<cufftHandle>(inverse_), reinterpret_cast<cufftDoubleComplex*>(w.products),
                        w.responses),
           "cufftExecZ2D");
  AngleArgs a{};
  a.responses = w.responses;
  a.n = n;
  for (int o = 0; o < kOrientations; ++o) {
    const double angle = o * detail::kLogGaborPi / kOrientations;
    a.ca[o] = std::cos(angle);
    a.sa[o] = std::sin(angle);
  }
  a.fine = fine;
  a.alpha = alpha;
  a.out = out;
  a.hdr_phase = hdr_phase;
  a.agree = agree;
  angle_kernel<<<blocks_for(n), kThreads, 0, s>>>(a);
  TK_CUDA_CHECK_LAUNCH("angle_kernel");
  return {};
}

Status FsitmPlan::hdr_phase(int c, const double* linear, double* phase, double* work, DeviceResults* res,
                            const ReduceTemp& t, cudaStream_t s) {
  const std::size_t n = static_cast<std::size_t>(width_) * height_;
  const Work w = carve(work);
  // The fine bank's input: the log of the channel stretched to 0..255 and rounded.
  std::size_t bytes = t.bytes;
  if (Status st = reduce_min_positive(linear, n, &res->min_positive[c], t.p, bytes, s); !st.ok()) return st;
  log_kernel<<<blocks_for(n), kThreads, 0, s>>>(linear, n, &res->min_positive[c], w.log_plane);
  TK_CUDA_CHECK_LAUNCH("log_kernel");
  bytes = t.bytes;
  if (Status st = reduce_min_max(w.log_plane, n, res->log_min_max[c], t.p, bytes, s); !st.ok()) return st;
  log_stretch_kernel<<<blocks_for(n), kThreads, 0, s>>>(w.log_plane, n, res->log_min_max[c]);
  TK_CUDA_CHECK_LAUNCH("log_stretch_kernel");
  if (Status st = forward(w.log_plane, w, s); !st.ok()) return st;
  if (alpha_ == 0.0) return bank_angle(0, w, nullptr, 0.0, phase, nullptr, nullptr, s);
  if (Status st = bank_angle(0, w, nullptr, 0.0, w.fine, nullptr, nullptr, s); !st.ok()) return st;
  // The coarse bank runs on the linear channel.
  if (Status st = forward(linear, w, s); !st.ok()) return st;
  return bank_angle(1, w, w.fine, alpha_, phase, nullptr, nullptr, s);
}

Status FsitmPlan::ldr_agree(int c, const double* ldr, const double* hdr_phase, double* work, DeviceResults* res,
                            cudaStream_t s) {
  const Work w = carve(work);
  // Both banks read the same plane: one forward transform.
  if (Status st = forward(ldr, w, s); !st.ok()) return st;
  if (alpha_ == 0.0) return bank_angle(0, w, nullptr, 0.0, nullptr, hdr_phase, &res->agree[c], s);
  if (Status st = bank_angle(0, w, nullptr, 0.0, w.fine, nullptr, nullptr, s); !st.ok()) return st;
  return bank_angle(1, w, w.fine, alpha_, nullptr, hdr_phase, &res->agree[c], s);
}

}  // namespace tonekit::quality::gpu
