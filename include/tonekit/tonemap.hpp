// Host tone-mapping API: statistics and whole-image tone mapping on a chosen backend.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "tonekit/image.hpp"
#include "tonekit/operators.hpp"
#include "tonekit/status.hpp"
#include "tonekit/video.hpp"

namespace tonekit {

// Where a host entry runs (tone_map, tone_map_temporal, blur, apply_glare, quality::assess,
// auto_params), one rule for all: cpu; cuda (no_device when the build or the machine has none);
// automatic: cuda when this build has CUDA and a device is present, else cpu. On automatic, blur,
// glare, quality and auto-params also take the CPU when the GPU cannot run the request (an error
// other than invalid_argument or bad_input: no cuFFT, out of device memory).
enum class Backend { cpu, cuda, automatic };
const char* backend_name(Backend b);
Result<Backend> parse_backend(std::string_view text);
// True when this build has CUDA and a device is present.
bool cuda_available();
// Creates the CUDA context now (a no-op for the CPU backend), so that a caller can overlap its
// cost with other work such as decoding the first file; tone_map() would otherwise
// pay it on its first call. Optional; thread-safe.
Status prepare_backend(Backend backend);
// Starts CUDA's start-up (loading the driver and detecting devices, then device 0's context:
// longer than a whole 4K map on the CPU, docs/performance.md) on a background thread and returns
// at once, so that a caller can read its input meanwhile; cuda_available(),
// prepare_backend() and the first CUDA call wait for what they need of it. Idempotent; with no
// NVIDIA device node (or no CUDA in the build) it does nothing. A program that starts it must
// call wait_for_cuda_start() before it returns from main (the driver must not be torn down
// while the start-up runs).
void start_cuda_in_background();
// True once the start-up has finished (or has nothing to do); never blocks.
bool cuda_start_finished();
void wait_for_cuda_start();

// Statistics of one frame, over the sanitised luminance (see sanitise policy in
// src/core/colour.hpp): log-average with delta, min, max, and counts of pixels that held
// NaN, +-Inf or negative values in any colour channel.
struct FrameStats {
  std::uint64_t pixel_count = 0;
  double log_sum = 0.0;       // sum of log(delta + L)
  double log_average = 0.0;   // exp(log_sum / pixel_count)  (thesis Eq 4.1)
  double min_luminance = 0.0;
  double max_luminance = 0.0;
  double min_positive_luminance = 0.0;  // smallest L > 0 (0 when none): for dynamic range
  // The L_max the curves read: max_luminance, or with an operator's peak_percentile below 100 the
  // robust peak, that percentile of the non-black pixels' luminance (core/robust_peak.hpp).
  // 0 with max_luminance > 0 means "not derived": the curves then read max_luminance.
  double peak_luminance = 0.0;
  std::uint64_t nan_count = 0;
  std::uint64_t inf_count = 0;
  std::uint64_t negative_count = 0;
  double dynamic_range_stops() const;
};

// Output of tone mapping. Display formats (u8, u16) get the transfer curve (sRGB or gamma)
// and quantisation; f16 and f32 outputs stay linear display-referred values in [0, 1].
struct OutputFormat {
  PixelType type = PixelType::u8;
  int channels = 3;  // 3 (RGB) or 4 (RGBA, alpha copied from the input or 1)
};

struct MapTimings {
  double stats_ms = 0.0;
  double map_ms = 0.0;
  double total_ms = 0.0;
};

// CUDA devices this process can use (0 without a CUDA build or a GPU).
int cuda_device_count();
// Device memory in use and in total on this thread's CUDA device (cudaMemGetInfo); false when
// no device can be asked (a build without CUDA, no device, or the call failed). No allocation.
bool cuda_memory_info(std::size_t* used, std::size_t* total);
// The CUDA device on which this thread's tone_map calls with the cuda backend (and the other
// host entries on Backend::cuda) run; each device keeps its own cached pipeline (`map --devices` maps on one
// thread per device). Default: the runtime's current device (0).
Status use_cuda_device(int device);

// A scene-linear still in BT.2020 primaries -> BT.709 in place, through the gamut mapping of the
// video decode (tonekit/video.hpp GamutMapping; scene 1.0 = reference_white cd/m^2 for the
// perceptual mapping's ICtCp): RGB or RGBA float, alpha untouched. NaN and negatives become 0 and
// +Inf 65504 first (the sanitising policy), so the statistics then count no bad pixels. Runs on
// the host before either backend maps the image; invalid_argument for other channel counts or a
// reference_white outside [1, 10000].
Status convert_bt2020_to_bt709(Image& image, GamutMapping gamut, double reference_white = 203.0);

// A global operator's map for fixed statistics as a 3D LUT (tonekit lut, written as .cube):
// lattice point (r, g, b) of size^3 holds the output R'G'B' in [0, 1] (the BT.709 OETF, or
// v^(1/gamma) with the `gamma` parameter: what `tonekit stream` encodes for yuv420p / nv12) of
// the input signal (r, g, b) / (size - 1) decoded by `colour` (transfer, reference white,
// primaries, gamut mapping), red fastest. A linear input has a 1D shaper before the lattice:
// `shaper` samples x in [0, shaper_max] evenly (shaper_max = 10000 / reference_white) and holds
// PQ^-1(x reference_white), the signal the lattice is indexed by. invalid_argument for a local
// operator, an operator whose curve reads the histogram (histeq), size outside [2, 129],
// statistics without a positive peak and log-average.
struct Lut3d {
  int size = 0;
  std::vector<float> rgb;     // size^3 * 3, red fastest, then green, then blue
  std::vector<float> shaper;  // linear input only (else empty)
  double shaper_max = 0.0;
};
Status make_lut3d(const Params& params, const FrameStats& stats, const InputColour& colour, int size, Lut3d& out);

// Tone maps a host float image with the operator and parameters in `params`.
// `out` is (re)allocated. Never writes NaN.
Status tone_map(const Image& input, const Params& params, OutputFormat format, Backend backend,
                OutputImage& out, FrameStats* stats = nullptr, MapTimings* timings = nullptr);
// The same for a host view: float RGB or RGBA, or half RGBA (io::read_half_rgba), which either
// backend maps without widening it first.
Status tone_map(const ImageView& input, const Params& params, OutputFormat format, Backend backend,
                OutputImage& out, FrameStats* stats = nullptr, MapTimings* timings = nullptr);

namespace cpu {
FrameStats compute_stats(const ImageView& input);
// The robust peak (an operator's `peak_percentile`, src/core/robust_peak.hpp): that percentile of
// the non-black pixels' luminance, from `stats` = compute_stats(input). 100 gives the brightest
// pixel. kRobustPeakPercentile is the value the README and `tonekit info` suggest.
constexpr double kRobustPeakPercentile = 99.99;
double robust_peak(const ImageView& input, const FrameStats& stats, double percentile);
// Replaces the statistics the curves read (temporal adaptation: tonekit/temporal.hpp's
// temporal_update); *stats still receives the frame's own statistics.
using CurveStatsHook = std::function<FrameStats(const FrameStats&)>;
Status tone_map(const ImageView& input, const Params& params, const ImageView& output,
                FrameStats* stats = nullptr, MapTimings* timings = nullptr, const CurveStatsHook* hook = nullptr);
}  // namespace cpu

}  // namespace tonekit
