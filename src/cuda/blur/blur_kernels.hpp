// Launchers of the blur kernels (dispatch layer): host functions that pick the
// launch shape and call one thin kernel each. Planes hold `channels` (1 or 4) interleaved floats
// per pixel, tightly packed. No allocation, no synchronisation: scratch comes from the engine.
#pragma once
#include <cuda_runtime.h>

#include "cuda/device_allocations.hpp"
#include "tonekit/status.hpp"

namespace tonekit::gpu_blur {

// Replicated-edge padding (w x h -> (w + 2 pad) x (h + 2 pad)) and the inverse crop.
Status pad_clamped(const float* in, int w, int h, int pad, float* out, int channels, cudaStream_t s);
Status crop(const float* in, int pw, int pad, float* out, int w, int h, int channels, cudaStream_t s);
Status copy_plane(const float* in, float* out, int w, int h, int channels, cudaStream_t s);

// Separable convolution with a symmetric kernel of 2 radius + 1 taps held on the device as
// `taps` doubles (taps >= 2 radius + 1, zero beyond: a multiple of kSepOutputs), rows into tmp,
// then columns into out; f64: float64 accumulation (the exact reference). Clamped borders.
constexpr int kSepOutputs = 8;  // outputs per thread along the filter direction (register blocking)
int separable_taps(int radius);
bool separable_fits(int radius, int channels);  // the row pass's shared tile fits the device
// banded: frames whose intermediate exceeds ~L2 / 2 run both passes in one persistent launch over
// bands of rows through a ring of intermediate rows that stays in L2 (separable_bands;
// SeparableBanding, built once per engine by separable_banding_create; null or ring 0: the two
// plain passes over the whole frame).
struct SeparableBands {
  int ring = 0;  // rows of the intermediate ring, a power of two >= 2 band + 2 radius (0: not banded)
  int band = 0;  // output rows per band
};
SeparableBands separable_bands(int w, int h, int channels, int radius);
constexpr int kBandRowsPerTask = 8;  // rows of one row-pass task of the banded kernel
struct BandPhase {
  int rows;              // 1: row pass into the ring, 0: column pass out of it
  int y0, y1;            // rows produced
  int first, count;      // tasks [first, first + count) of the launch
  int dep0, dep1;        // phases that must be complete first (-1: none)
};
struct SeparableBanding {
  int ring = 0, band = 0, nphases = 0, total = 0, segments = 0, col_blocks = 0;
  BandPhase* phases = nullptr;  // device
  int* done = nullptr;          // device: finished tasks per phase, zeroed by every run
};
Status separable_banding_create(int w, int h, int channels, int radius, cuda::DeviceAllocations& memory,
                                SeparableBanding& out);
Status separable(const float* in, float* tmp, float* out, int w, int h, int channels, const double* weights,
                 int radius, bool f64, cudaStream_t s, const SeparableBanding* banded = nullptr);

// The same convolution (float accumulation) in one pass: rows filtered into a shared-memory ring,
// columns from the ring; the intermediate never reaches device memory. Radii whose ring does not
// fit (separable_fused_fits false, about r > 50 for RGBA) take the two-pass path.
// strip: rows per block (a multiple of chunk); chunk: output rows per ring refill, 16 or 32.
bool separable_fused_fits(int radius, int channels, int chunk = 32);
Status separable_fused(const float* in, float* out, int w, int h, int channels, const double* weights, int radius,
                       cudaStream_t s, int strip = 128, int chunk = 32);

// The same convolution for RGBA float in one pass, v3 ("strips"): 32-pixel strips cut into
// chunks of `chunk` rows (a multiple of 32; separable_strips_chunk picks it for the device),
// rows staged by cp.async and filtered into a shared ring, columns from the ring, float4 and 8
// outputs per lane in both phases. RGBA, taps <= 56 (r <= 27, sigma <= 9 at truncate 3) and at
// least two blocks per SM (separable_strips_fit); beyond, the two passes are as fast.
bool separable_strips_fit(int radius, int channels);
Result<int> separable_strips_chunk(int w, int h, int radius);
Status separable_strips(const float* in, float* out, int w, int h, const double* weights, int radius, int chunk,
                        cudaStream_t s);

// Direct 2D convolution, or Porikli's reshuffling: weights grouped into linkage sets.
// offsets[i] = (dx, dy) for i < n_offsets, ordered by group; group g covers offsets
// [group_end[g - 1], group_end[g]) and has weight group_weight[g]. Direct: one offset per group
// (one_per_group, which takes offset g with weight g and no group loop).
struct Kernel2D {
  int radius = 0;
  int n_groups = 0;
  const int2* offsets = nullptr;
  const int* group_end = nullptr;
  const float* group_weight = nullptr;
  bool one_per_group = false;
};
Status convolve_2d(const float* in, float* out, int w, int h, int channels, const Kernel2D& k, cudaStream_t s);

// Pyramid: fine (fw x fh) -> coarse ((fw + 1) / 2 x (fh + 1) / 2) with the 4 analysis weights;
// coarse -> fine with the biquadratic B-spline synthesis.
struct Analysis4 {
  float w[4];
};
Status pyramid_down(const float* fine, int fw, int fh, float* coarse, int channels, Analysis4 a, cudaStream_t s);
Status pyramid_up(const float* coarse, int cw, int ch, float* fine, int fw, int fh, int channels, cudaStream_t s);

// One box pass of odd width via float64 running sums (rows into tmp, then columns into out).
Status box_running(const float* in, float* tmp, float* out, int w, int h, int channels, int width, cudaStream_t s);
// One box pass of odd width via a float64 exclusive summed-area table per channel
// (table: channels x (w + 1) x (h + 1) doubles), edge pixels replicated as sat::box_sum_replicated.
Status box_sat(const float* in, double* table, float* out, int w, int h, int channels, int width, cudaStream_t s);
std::size_t box_sat_table_doubles(int w, int h, int channels);

// Explicit heat-equation steps, ping-pong between a and b; the result ends in *result.
Status diffusion(float* a, float* b, int w, int h, int channels, int iterations, float c, float** result,
                 cudaStream_t s);

// Polynomial spreading (Kosloff) on the plane padded by r (pw = w + 2r, ph = h + 2r): per axis the
// sparse second difference [1 -2 1] at distance r integrated twice in float64, / r^2; rows into
// tmp (w x ph x channels doubles), then columns into out (w x h).
Status spreading(const float* padded, double* tmp, float* out, int w, int h, int channels, int r, cudaStream_t s);

}  // namespace tonekit::gpu_blur
