// Dispatch layer of the CUDA local operators: the plain data the kernels share and the launch
// functions (local_kernels.cu); LocalPass (local_pass.cu) owns the scratch and calls
// them in order on one stream.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>

#include "core/fusion.hpp"
#include "core/laplacian.hpp"
#include "core/local_settings.hpp"
#include "cuda/pipeline.hpp"
#include "cuda/tuning.hpp"
#include "cpu/sat/box_query.hpp"

namespace tonekit::cuda_local {

using cuda::DodgeVariant;

constexpr int kMaxGaussTaps = 32;  // >= core::gaussian_radius(7) + 1 = 28

// The reference's normalised 1-D Gaussian weights of every level (core::gaussian_weight, as
// float), tabulated once on the host.
struct GaussWeights {
  float w[core::kMaxLocalScales][kMaxGaussTaps];
  int radius[core::kMaxLocalScales];
};
GaussWeights make_gauss_weights();

// What the final (map) kernel reads besides the input.
struct LocalMapArgs {
  const unsigned char* in = nullptr;
  std::size_t in_stride = 0;
  unsigned char* out = nullptr;
  std::size_t out_stride = 0;
  // Non-null: device memory holding a surface object (a mapped RGBA8 GL texture, issue 18) that
  // the output (u8 x 4) is written through; `out` is not used. In device memory, not in these
  // arguments: H100 (driver 580), a surface handle inside the by-value argument struct made
  // every launch of these kernels fail with cudaErrorInvalidValue, with or without a surface.
  const cudaSurfaceObject_t* out_surface = nullptr;
  int width = 0, height = 0;
  int out_code = 0;      // 0 u8, 1 u16, 2 half, 3 float
  int out_channels = 4;
  float saturation = 1.0f;
  float gamma = 0.0f;    // 0 = sRGB
  int dither = 1;
  const core::LocalSettings* settings = nullptr;  // device
  const float* centre = nullptr;     // reinhard-local: V1(s_m) per pixel
  const float* llf_out = nullptr;    // local-laplacian, exposure-fusion: the collapsed output O_0 per pixel
  const core::LlfFrame* llf_frame = nullptr;  // local-laplacian: its frame constants (device)
  const double* colsum = nullptr;    // drago-local: window column sums per pixel
  const double* table = nullptr;     // reinhard-sat, float64 table
  const float* hi = nullptr;         // reinhard-sat, tiled pairs
  const float* lo = nullptr;
  sat::TiledLayout tiled{};
  int tile_width = 32;               // reinhard-sat, tile-local tables: 32 x 32, 64 x 32 or 64 x 64 pixels per block
  int tile_height = 32;
  // Rows [out_row_begin, out_row_end) of the input are stored (a frame part's context rows around
  // them are read, not stored; out_row_end <= height), row y at out + y * out_stride: for a part,
  // `out` is its output minus out_row_begin rows. The dither's row is y + dither_row0 (frame
  // coordinates).
  int out_row_begin = 0, out_row_end = 0;
  int dither_row0 = 0;
  // The search's level constants, i + 1 < kMaxLocalScales, read from the kernel parameters (a
  // float64 immediate costs two moves per level): core::activity_offset(settings, i), which
  // depends on the parameters only (phi, key), so the host computes it as the CPU reference does,
  // and core::box_inv_area(core::box_width(i + 1)).
  double level_offset[core::kMaxLocalScales] = {};
  double level_inv_area[core::kMaxLocalScales] = {};
  // encode.oetf_table non-null (the sat_tile path, rgb_f32 input, a whole frame): the map kernel
  // writes `out` as that packed 8-bit 4:2:0 frame itself, encoding the display values a float RGB
  // output would hold (staged in the tile's shared memory) with the encode stage's maths
  // (cuda/encode420.cuh): no display frame written and read back.
  cuda::Encode420 encode{};
};

enum class LocalPath { gauss, sat_tiled, sat_f64, sat_tile, drago, laplacian, fusion };

// Sanitised luminance L_w of every pixel (w x h floats, packed).
Status launch_luminance_plane(InputFormat in, const unsigned char* src, std::size_t in_stride, int w, int h,
                              float* plane, cudaStream_t s);
// core::make_local_settings_hd from the device statistics (a tonekit::FrameStats) into *settings.
// (The activity offsets depend on the parameters only: LocalMapArgs::level_offset, host.)
Status launch_local_settings(const core::LocalParams& p, const FrameStats* stats, core::LocalSettings* settings,
                             cudaStream_t s);
// reinhard-local: the Gaussian pyramid with the scale search after each level (centre, active),
// `tmp` one plane of scratch. `max_scales` = the params' scales (levels beyond are not run).
Status launch_gauss_pyramid(const float* plane, int w, int h, const GaussWeights& g, int max_scales,
                            const core::LocalSettings* settings, float* tmp, float* centre, unsigned char* active,
                            cudaStream_t s);
// drago-local: Qian 2013 Eq 7 column sums (float64) of the fitted window, per pixel row.
Status launch_drago_columns(const float* plane, int w, int h, const core::LocalSettings* settings, double* colsum,
                            cudaStream_t s);
Status launch_local_map(InputFormat in, LocalPath path, DodgeVariant variant, const LocalMapArgs& a, cudaStream_t s);

// local-laplacian's device scratch (core/laplacian.hpp), allocated once per size by LocalPass.
struct LlfScratch {
  float* pyramid = nullptr;         // levels >= 1 of the K + 1 pyramids (core::llf_geometry(w, h, K + 1))
  std::size_t pyramid_floats = 0;
  float* output = nullptr;          // levels >= 1 of the output pyramid (core::llf_geometry(w, h, 1))
  std::size_t output_floats = 0;
  float* out0 = nullptr;            // O_0: w x h
  core::LlfFrame* frame = nullptr;
};
// One collapse step (level j): O_j = blend of the coefficients + up(O_{j+1}).
struct LlfCollapseArgs {
  int w = 0, h = 0, cw = 0, ch = 0;  // level j's size and level j + 1's
  bool level0 = false;               // j = 0: rj is the log plane remapped (gj), not a stored plane
  const float* gj = nullptr;         // G_j (level 0: the log plane)
  const float* rj = nullptr;         // R_j^0; plane k at k * rj_plane
  std::size_t rj_plane = 0;
  const float* rc = nullptr;         // R_{j+1}^0; plane k at k * rc_plane
  std::size_t rc_plane = 0;
  const float* oc = nullptr;         // O_{j+1}
  float* oj = nullptr;
};
// local-laplacian from the sanitised luminance plane (turned into its log in place) and the
// device statistics: the pyramids, the top, the collapse into sc.out0 and sc.frame.
Status launch_local_laplacian(float* plane, int w, int h, const FrameStats* stats, const core::LlfCurve& c,
                              const LlfScratch& sc, cudaStream_t s);

// exposure-fusion's device scratch (core/fusion.hpp), allocated once per size by LocalPass.
struct FusionScratch {
  float* pyramid = nullptr;         // levels >= 1 of the 2N pyramids (core::llf_geometry(w, h, 2 N))
  std::size_t pyramid_floats = 0;
  float* output = nullptr;          // levels >= 1 of the output pyramid
  std::size_t output_floats = 0;
  float* out0 = nullptr;            // O_0, the fused display value: w x h
  float* q = nullptr;               // the channels' c^(1/2.2): 3 planes of w x h
  float* weights = nullptr;         // the normalised weights at level 0: N planes of w x h
  core::FusionFrame* frame = nullptr;
};
// exposure-fusion from the sanitised luminance plane (turned into p = L_w^(1/2.2) in place), the
// input (its channels) and the device statistics: into sc.out0.
Status launch_exposure_fusion(InputFormat fmt, const unsigned char* in, std::size_t in_stride, float* plane, int w, int h,
                              const FrameStats* stats, const core::FusionParams& params, const FusionScratch& sc,
                              cudaStream_t s);

// Young & van Vliet's recursive Gaussian (recursive_gauss.cu), for the study of which Gaussian
// wins at each of reinhard-local's scales; not the operator's path (the reference is exact).
struct RecursiveGaussCoeffs {
  float B = 1, b1 = 0, b2 = 0, b3 = 0;  // y[n] = B x[n] + b1 y[n-1] + b2 y[n-2] + b3 y[n-3]
  int warm = 0;                         // rows a segment's pass runs in before its own
};
RecursiveGaussCoeffs recursive_gauss_coeffs(double sigma);  // sigma >= 0.5
// out = the w x h plane blurred with sigma (clamp-to-edge); tmp, tmp2: w x h floats of scratch.
Status launch_recursive_gauss(const float* plane, int w, int h, double sigma, float* tmp, float* tmp2, float* out,
                              cudaStream_t s);

}  // namespace tonekit::cuda_local
