// Objective quality of tone-mapped images, on the CPU in float64:
//   TMQI   Yeganeh & Wang, "Objective Quality Assessment of Tone-Mapped Images", IEEE TIP 22(2), 2013
//   FSITM  Nafchi, Shahkolaei, Farrahi Moghaddam & Cheriet, "FSITM: A Feature Similarity Index for
//          Tone-Mapped Images", IEEE SPL 22(8), 2015
//   colour fidelity: CIEDE2000 (Sharma, Wu & Dalal 2005) between the HDR source's chromaticity and
//          the output's at matched lightness, and the mean hue-angle shift
//   PU21   Mantiuk & Azimi, "PU21: A novel perceptually uniform encoding for adapting existing
//          quality metrics for HDR", PCS 2021 (banding_glare), with PSNR and SSIM on PU values
// The HDR image is scene-referred linear RGB (any scale for TMQI, FSITM and colour; cd/m^2 for
// PU21). The tone-mapped image is a display image of 8- or 16-bit code values (sRGB-encoded, as
// `tone_map` writes them for PNG); 16-bit codes are read on the 0..255 scale (code / 257). HDR
// pixels pass the README's bad-pixel policy first (NaN and negatives 0, +Inf 65504).
#pragma once
#include <array>
#include <cstddef>

#include "tonekit/image.hpp"
#include "tonekit/status.hpp"
#include "tonekit/tonemap.hpp"  // Backend

namespace tonekit::quality {

// TMQI's fifth scale is a 2^4-times downsampled image filtered with an 11x11 window ('valid'):
// ceil(161 / 16) = 11 is the smallest side that leaves one window position.
constexpr int kMinSide = 161;

struct TmqiScore {
  double q = 0.0;  // Q = 0.8012 S^0.3046 + 0.1988 N^0.7088
  double s = 0.0;  // structural fidelity, weighted product of the per-scale values
  double n = 0.0;  // statistical naturalness
  std::array<double, 5> s_per_scale{};  // f = 16, 8, 4, 2, 1 cycles/degree
  double mean_luminance = 0.0;  // m: mean LDR luminance (0..255)
  double contrast = 0.0;        // d: mean of the 11x11 block standard deviations
};

struct FsitmScore {
  std::array<double, 3> channel{};  // R, G, B
  double mean = 0.0;
};

struct ColourFidelity {
  double delta_e2000_mean = 0.0;
  double delta_e2000_p95 = 0.0;
  double hue_shift_mean_deg = 0.0;      // mean |h_out - h_hdr| over chromatic pixels
  std::size_t chromatic_pixels = 0;     // pixels whose hue is defined (C*ab >= 5 in both)
};

struct QualityReport {
  TmqiScore tmqi;
  FsitmScore fsitm;
  ColourFidelity colour;
};

// Every check on the pair: same size, both at least kMinSide on each side, RGB(A), 8/16-bit LDR.
// invalid_argument naming the problem otherwise.
Status check_pair(const Image& hdr, const OutputImage& ldr);

Result<TmqiScore> tmqi(const Image& hdr, const OutputImage& ldr);
Result<FsitmScore> fsitm(const Image& hdr, const OutputImage& ldr);
Result<ColourFidelity> colour_fidelity(const Image& hdr, const OutputImage& ldr);
// All three.
Result<QualityReport> assess(const Image& hdr, const OutputImage& ldr);
// All three on a backend (Backend's rule, tonekit/tonemap.hpp; on the GPU GpuQuality,
// tonekit/quality_cuda.hpp, one kept per device for the process and used by one caller at a time);
// *ran_on (optional) gets the one that ran. The GPU's scores are within
// tests/gpu/test_gpu_quality.cpp's tolerances of the CPU's.
Result<QualityReport> assess(const Image& hdr, const OutputImage& ldr, Backend backend, Backend* ran_on = nullptr);

// Halos (`tonekit compare`'s rev %): the percentage of neighbour pairs within 8 pixels of a strong
// HDR edge (a factor 4 between neighbours) whose output contrast has the opposite sign to the HDR's
// (both at least a factor 1.05 and 2 codes). The HDR's contrast is the difference of
// ln(L + 1e-6 L_max), the output's that of the mean 8-bit code of its colour channels. -1 when
// the pair cannot be compared (not 8-bit, sizes differ, fewer than 3 channels).
double gradient_reversals(const Image& hdr, const OutputImage& ldr);

// FSITM of one channel: the fraction of pixels whose locally weighted mean phase angle has the
// same sign in the HDR and the LDR channel. Planes are row-major, `hdr` linear, `ldr` 0..255.
Result<double> fsitm_channel(const double* hdr, const double* ldr, int width, int height);

// ---- Colour science ----
struct Lab {
  double l = 0.0, a = 0.0, b = 0.0;
};
// CIE 1976 L*a*b* of linear BT.709 RGB relative to D65 white (Y of white = 1).
Lab lab_from_linear_rgb(double r, double g, double b);
// CIEDE2000 colour difference (kL = kC = kH = 1).
double ciede2000(const Lab& x, const Lab& y);

// ---- PU21 ----
// The banding_glare encoding of absolute luminance (cd/m^2, clamped to [0.005, 10000]).
double pu21_encode(double luminance);
struct Pu21Scores {
  double psnr = 0.0;  // dB, peak V(100) (+inf when identical)
  double ssim = 0.0;  // mean SSIM, dynamic range V(100)
};
// HDR against HDR: pixel luminance taken as cd/m^2.
Result<Pu21Scores> pu21_compare(const Image& test, const Image& reference);
// Display image against display image: sRGB codes shown on a 100 cd/m^2 display with a
// 0.1 cd/m^2 black level (contrast 1000:1), then PU21-encoded.
Result<Pu21Scores> pu21_compare(const OutputImage& test, const OutputImage& reference);

}  // namespace tonekit::quality
