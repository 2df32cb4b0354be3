// The parts of TMQI (tmqi.cpp) that do not depend on how the local statistics are scheduled,
// shared by the CPU reference and the CUDA path (src/cuda/quality/): the window, the visibility
// threshold per scale, the HDR stretch, the naturalness model and the final combination.
#pragma once
#include <array>

#include "core/hd.hpp"
#include "tonekit/quality.hpp"

namespace tonekit::quality::detail {

// Spatial frequencies of the five scales, cycles/degree (Sec. II-A), and their weights (from
// Wang et al.'s MS-SSIM).
constexpr std::array<double, 5> kTmqiFrequencies{16.0, 8.0, 4.0, 2.0, 1.0};
constexpr std::array<double, 5> kTmqiWeights{0.0448, 0.2856, 0.3001, 0.2363, 0.1333};
constexpr int kTmqiWindow = 11;  // taps of the Gaussian window; also the naturalness block side

// Sampled Gaussian, 11 taps, sigma 1.5, normalised to sum 1 (the 2D window is its outer product).
std::array<double, 11> tmqi_gaussian_window();
// Visibility threshold tau of a signal at f cycles/degree: mean 128 over the peak-to-mean contrast
// sensitivity, 128 / (1.4 * 100 A(f)) (Sec. II-A); the spread of the visibility model is tau / 3.
double tmqi_visibility_threshold(double f);
// The HDR luminance is stretched to [0, 2^32 - 1]: round((2^32 - 1) / (max - min)), 0 for a flat image.
TK_HD double tmqi_stretch(double range) { return range > 0.0 ? ::round(4294967295.0 / range) : 0.0; }
// Statistical naturalness (Sec. II-B) of the LDR luminance mean m and mean block deviation d.
double statistical_naturalness(double m, double d);
// S, N and Q of `score` from its per-scale values, mean_luminance and contrast.
void tmqi_combine(TmqiScore& score);

}  // namespace tonekit::quality::detail
