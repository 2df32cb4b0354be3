// The CUDA quality metrics' dispatch layer (include/tonekit/quality_cuda.hpp is the public call):
// the plane layouts, the device-side results of one run, and the launches of the input,
// reduction, TMQI, FSITM and colour-fidelity kernels. Every function enqueues on `s` and returns the launch status;
// none synchronises or allocates (GpuQuality sizes the buffers: gpu_quality.cu).
#pragma once
#include <cuda_runtime.h>

#include <array>
#include <cstddef>

#include "tonekit/quality.hpp"
#include "tonekit/status.hpp"

namespace tonekit::quality::gpu {

constexpr int kScales = 5;

// Colour fidelity's sums over the compared pixels (those whose source is not black).
struct ColourSums {
  double delta_e;                // sum of CIEDE2000
  double hue_shift;              // sum of the hue shift over the chromatic pixels
  unsigned long long compared;   // pixels with a CIEDE2000 (the p95's population)
  unsigned long long chromatic;  // pixels whose hue is defined in both images
};

// Everything a run reduces to, in one device struct copied back at the end.
struct DeviceResults {
  double hdr_min_max[2];     // TMQI: HDR luminance min and max (before the stretch)
  double ldr_sum;            // TMQI: sum of the LDR luminance (m = ldr_sum / pixels)
  double block_dev_sum;      // TMQI: sum over 11x11 blocks of deviation x covered pixels (d = / pixels)
  double scale_sum[kScales]; // TMQI: sum of the local fidelity map per scale
  double min_positive[3];    // FSITM: smallest positive HDR value per channel
  double log_min_max[3][2];  // FSITM: min and max of the HDR channel's logs
  unsigned long long agree[3];  // FSITM: pixels whose phase signs agree, per channel
  ColourSums colour;            // colour fidelity's sums
  double colour_p95;            // colour fidelity: the 95th percentile of CIEDE2000 (0: none compared)
};

// An interleaved input image in device memory.
struct HdrSource {  // float32, >= 3 channels (RGB first)
  const unsigned char* data;
  std::size_t stride;  // bytes per row
  int channels;
};
struct LdrSource {  // u8 or u16 code values, >= 3 channels
  const unsigned char* data;
  std::size_t stride;
  int channels;
  bool u16;
};

// ---- input planes (quality_inputs.cu) ----
// Float64 planes, row-major and packed (width x height): the BT.709 luminance (nullptr: skip) and
// the three channels (nullptr: skip; else 3 planes channel_plane_stride apart), as quality/planes.cpp makes them
// (HDR through the bad-pixel policy; LDR as codes on the 0..255 scale).
// Distance between the three channel planes (and the HDR phase planes), in doubles: the pixel
// count rounded up to 32 (256 bytes), so that every plane starts aligned as cuFFT's D2Z wants
// its input (an odd pixel count put the second plane 8 bytes off: CUFFT_INVALID_VALUE on the H200).
__host__ __device__ inline std::size_t channel_plane_stride(int width, int height) {
  return (static_cast<std::size_t>(width) * height + 31) / 32 * 32;
}
Status hdr_planes(const HdrSource& in, int width, int height, double* luminance, double* channels, cudaStream_t s);
Status ldr_planes(const LdrSource& in, int width, int height, double* luminance, double* channels, cudaStream_t s);

// ---- reductions (quality_reduce.cu, CUB DeviceReduce) ----
// temp == nullptr: only sets temp_bytes to what the call needs for n values (nothing runs).
Status reduce_sum(const double* in, std::size_t n, double* out, void* temp, std::size_t& temp_bytes, cudaStream_t s);
// out[0] = min, out[1] = max.
Status reduce_min_max(const double* in, std::size_t n, double* out, void* temp, std::size_t& temp_bytes,
                      cudaStream_t s);
// The smallest value > 0 (+inf when there is none).
Status reduce_min_positive(const double* in, std::size_t n, double* out, void* temp, std::size_t& temp_bytes,
                           cudaStream_t s);
// The largest temp_bytes of the three for n values.
Result<std::size_t> reduce_temp_bytes(std::size_t n);

struct ReduceTemp {
  void* p = nullptr;
  std::size_t bytes = 0;
};

// ---- TMQI (tmqi_gpu.cu) ----
struct TmqiLayout {
  std::array<int, kScales> width{}, height{};
  std::array<std::size_t, kScales> offset{};  // of each level in a pyramid buffer (doubles)
  std::size_t pyramid = 0;                    // doubles of one pyramid
  std::size_t moments = 0;                    // doubles of the 5 moment planes at scale 0
  std::size_t map = 0;                        // doubles of the fidelity map at scale 0
  std::size_t blocks = 0;                     // 11x11 naturalness blocks
};
TmqiLayout tmqi_layout(int width, int height);

struct TmqiBuffers {
  double* hdr_pyramid;  // level 0 holds the HDR luminance on entry to tmqi_hdr
  double* ldr_pyramid;  // level 0 holds the LDR luminance on entry to tmqi_ldr
  double* moments;      // scratch: layout.moments
  double* map;          // scratch: layout.map
  double* blocks;       // scratch: layout.blocks
};
// The HDR side: stretch level 0 to [0, 2^32 - 1], build levels 1..4.
Status tmqi_hdr(const TmqiLayout& l, const TmqiBuffers& b, DeviceResults* res, const ReduceTemp& t, cudaStream_t s);
// The LDR side against a prepared HDR pyramid: m, d and the per-scale sums into `res`.
Status tmqi_ldr(const TmqiLayout& l, const TmqiBuffers& b, DeviceResults* res, const ReduceTemp& t, cudaStream_t s);
// The score from the results copied back.
TmqiScore tmqi_finish(const TmqiLayout& l, const DeviceResults& r);

// ---- FSITM (fsitm_gpu.cu) ----
// The log-Gabor filters of both banks and the cuFFT plans for one image size.
class FsitmPlan {
 public:
  FsitmPlan() = default;
  ~FsitmPlan();
  FsitmPlan(const FsitmPlan&) = delete;
  FsitmPlan& operator=(const FsitmPlan&) = delete;
  // unsupported without cuFFT's double-precision transforms. `filters` holds filter_floats(w, h).
  Status build(int width, int height, float* filters, cudaStream_t s);
  void release();
  static std::size_t filter_floats(int width, int height);
  static std::size_t spectrum_size(int width, int height);  // complex values of one half spectrum
  // Doubles of the per-plane working set (log plane, spectra, responses, fine angle).
  static std::size_t work_doubles(int width, int height);
  int width() const { return width_; }
  int height() const { return height_; }
  double alpha() const { return alpha_; }

  // The HDR side of channel c: `linear` (the sanitised channel) -> `phase` (the blended mean phase
  // angle). `work` holds work_doubles().
  Status hdr_phase(int c, const double* linear, double* phase, double* work, DeviceResults* res, const ReduceTemp& t,
                   cudaStream_t s);
  // The LDR side of channel c: counts into res->agree[c] the pixels whose phase sign matches
  // `hdr_phase` (res->agree[c] must be zero first).
  Status ldr_agree(int c, const double* ldr, const double* hdr_phase, double* work, DeviceResults* res,
                   cudaStream_t s);

 private:
  struct Work;
  Work carve(double* work) const;
  // The forward transform of `in` into w.spectrum.
  Status forward(const double* in, const Work& w, cudaStream_t s);
  // Bank b's responses of w.spectrum, and the angle kernel in one of its modes.
  Status bank_angle(int bank, const Work& w, const double* fine, double alpha, double* out, const double* hdr_phase,
                    unsigned long long* agree, cudaStream_t s);

  int width_ = 0, height_ = 0;
  double alpha_ = 0.0;
  const float* filters_ = nullptr;
  int forward_ = -1, inverse_ = -1;  // cufftHandle; -1: none
};

// ---- colour fidelity (colour_gpu.cu) ----
// quality/colour_maths.hpp's colour_terms per pixel, as quality::colour_fidelity defines the
// statistics: the mean of CIEDE2000 and its 95th percentile (the element ceil(0.95 n) - 1, from
// 0, of the n compared values in ascending order) over the pixels whose source is not black, the
// mean hue shift over the chromatic ones.
struct ColourBuffers {
  float* source;            // the reference: sanitised HDR RGB, 3 floats a pixel (colour_source_floats)
  double* keys;             // colour_key_doubles: CIEDE2000 per pixel (+inf where not compared), then
                            // its sorted copy (CUB's double buffer)
  ColourSums* partials;     // colour_partial_count
  const double* shown_u8;   // shown_linear_table(u8) on the device (256 values)
  const double* shown_u16;  // shown_linear_table(u16) on the device (65536), nullptr until a u16 LDR
};
std::size_t colour_source_floats(int width, int height);
std::size_t colour_key_doubles(int width, int height);
std::size_t colour_partial_count(int width, int height);
// CUB's temporary storage for the sort and the sums of width x height pixels.
Result<std::size_t> colour_temp_bytes(int width, int height);
// The HDR side: the source through the bad-pixel policy into b.source (kept: the caller may
// release the HDR after set_reference).
Status colour_reference(const HdrSource& in, int width, int height, float* source, cudaStream_t s);
// The LDR side against b.source: res->colour and res->colour_p95.
Status colour_score(const LdrSource& in, int width, int height, const ColourBuffers& b, DeviceResults* res,
                    const ReduceTemp& t, cudaStream_t s);
// The scores from the results copied back, as colour_fidelity returns them.
ColourFidelity colour_finish(const DeviceResults& r);
// CIEDE2000 (colour_maths.hpp's ciede2000_of) of n pairs of L*a*b* colours on the device:
// pairs[6 i .. 6 i + 5] = L1 a1 b1 L2 a2 b2, out[i] their difference (device pointers; the
// tests run the Sharma pairs through it).
Status ciede2000_pairs(const double* pairs, int n, double* out, cudaStream_t s);

}  // namespace tonekit::quality::gpu
