// Exposure fusion of one HDR frame (Mertens, Kautz and Van Reeth, "Exposure Fusion", Pacific
// Graphics 2007), the maths both backends run (TK_HD); the pyramid filters are local-laplacian's
// (core/laplacian.hpp).
//
// N synthetic exposures of the frame's luminance, display-encoded with gamma 2.2 and clipped:
// v_i = min(1, a_i p), p = L_w^(1 / 2.2), a_i = E_i^(1 / 2.2). The exposures E_i are geometric
// between E_0 = 0.7^2.2 / L_max (the peak at 0.7 encoded: the highlights' exposure, where
// well-exposedness still weighs them) and E_{N-1} = 0.5 / L_avg (the log-average at 0.5, 0.73
// encoded: the shadows'), log2 E_{N-1} rounded to 1/256 stop so both backends pick the same value
// from their (nearly equal) keys. The shadows' end and N = 7 measured (looks_eval,
// docs/performance.md): the former 2 / L_avg and N = 5 over-exposed interiors (mean code up to 181;
// 25 real images: mean TMQI 0.866, FSITM 0.792); 0.5 / L_avg and N = 7: 0.874, 0.806. Per pixel and
// exposure, Mertens' weight
// W_i = C^wc S^ws E^we: C = |4-neighbour Laplacian of v_i| (contrast), S = the standard deviation
// of the exposure's clipped channels min(1, a_i c_k^(1 / 2.2)) (saturation), E = exp(-(v_i - 0.5)^2 /
// (2 sigma^2)) (well-exposedness); C and S offset by 1e-3 so flat grey pixels still weigh. The
// weights are normalised over i, the v_i blended in a Laplacian pyramid with the weights' Gaussian
// pyramid, F = collapse, clamped to [0, 1], L_d = F^2.2; colour by ratio as the other operators.
//
// Bits: the powers and the weight's exp/log are taken in double and rounded once; every float
// operation is written in one order, both files built without contraction.
#pragma once
#include <math.h>

#include <cstddef>

#include "core/hd.hpp"
#include "core/laplacian.hpp"

namespace tonekit::core {

constexpr int kFusionMaxExposures = 8;  // the registry's range of `exposures`
constexpr double kFusionGamma = 2.2;
constexpr double kFusionFloor = 1e-3;   // added to contrast and saturation before their powers
constexpr double kFusionPeak = 0.7;     // the encoded value of the peak in the darkest exposure
constexpr double kFusionShadow = 0.5;   // the linear value of the log-average in the brightest exposure

struct FusionParams {
  int exposures = 7;
  double contrast = 1.0, saturation = 1.0, exposedness = 1.0;
  double sigma = 0.2;
};

// The frame's exposures (a_i) and the weights' constants.
struct FusionFrame {
  int n = 7;
  float a[kFusionMaxExposures] = {};
  double wc = 1.0, ws = 1.0, we = 1.0;  // the weights' exponents
  double inv_two_sigma2 = 12.5;         // 1 / (2 sigma^2)
};

TK_HD FusionFrame make_fusion_frame(const FusionParams& p, double max_luminance, double log_average) {
  FusionFrame f;
  f.n = p.exposures < 2 ? 2 : (p.exposures > kFusionMaxExposures ? kFusionMaxExposures : p.exposures);
  f.wc = p.contrast;
  f.ws = p.saturation;
  f.we = p.exposedness;
  f.inv_two_sigma2 = 1.0 / (2.0 * p.sigma * p.sigma);
  const double peak = max_luminance > 0.0 ? max_luminance : 1.0;
  const double avg = log_average > 0.0 ? log_average : peak;
  const double s0 = kFusionGamma * log2(kFusionPeak) - log2(peak);  // log2 E_0
  double s1 = floor((log2(kFusionShadow) - log2(avg)) * 256.0 + 0.5) / 256.0;  // log2 E_{N-1}, 1/256 stop
  if (s1 < s0) s1 = s0;
  for (int i = 0; i < f.n; ++i) {
    const double s = s0 + (s1 - s0) * i / (f.n - 1);
    f.a[i] = static_cast<float>(exp2(s / kFusionGamma));
  }
  return f;
}

// x^(1 / 2.2) rounded once (L_w's p, the channels' q).
TK_HD float fusion_encode(float x) { return x > 0.0f ? static_cast<float>(pow(static_cast<double>(x), 1.0 / kFusionGamma)) : 0.0f; }

// v_i from p.
TK_HD float fusion_value(float p, float a) {
  const float v = a * p;
  return v < 1.0f ? v : 1.0f;
}

// Saturation: the standard deviation of the clipped channels min(1, a q_k).
TK_HD float fusion_saturation(float qr, float qg, float qb, float a) {
  const float r = fusion_value(qr, a), g = fusion_value(qg, a), b = fusion_value(qb, a);
  const float m = ((r + g) + b) / 3.0f;
  const float dr = r - m, dg = g - m, db = b - m;
  return sqrtf((((dr * dr) + (dg * dg)) + (db * db)) / 3.0f);
}

// Contrast: |sum of the 4 neighbours - 4 v|.
TK_HD float fusion_contrast(float c, float l, float r, float u, float d) { return fabsf((((l + r) + u) + d) - 4.0f * c); }

// The unnormalised weight (double): exp(wc ln(C + f) + ws ln(S + f) - we (v - 0.5)^2 / (2 sigma^2)),
// with an exponent of 1 (the defaults) or 0 applied as a factor instead of a logarithm (the same
// branch on both backends).
TK_HD double fusion_weight(float contrast, float saturation, float v, const FusionFrame& f) {
  const double e = static_cast<double>(v) - 0.5;
  double l = -f.we * e * e * f.inv_two_sigma2, m = 1.0;
  const double c = static_cast<double>(contrast) + kFusionFloor, s = static_cast<double>(saturation) + kFusionFloor;
  if (f.wc == 1.0) m *= c;
  else if (f.wc != 0.0) l += f.wc * log(c);
  if (f.ws == 1.0) m *= s;
  else if (f.ws != 0.0) l += f.ws * log(s);
  return m * exp(l);
}

// The normalised weights of pixel (x, y) into weights[e * count + i]: p and the channels' q
// (planes r, g, b at q, q + count, q + 2 count), w x h, borders clamped. One definition for the
// CPU's loop and the kernel.
TK_HD void fusion_pixel_weights(const float* p, const float* q, int w, int h, int x, int y, const FusionFrame& f,
                                float* weights) {
  const std::size_t count = static_cast<std::size_t>(w) * h;
  const std::size_t i = static_cast<std::size_t>(y) * w + x;
  const float pc = p[i], pl = p[i - x + llf_clamp(x - 1, w)], pr = p[i - x + llf_clamp(x + 1, w)];
  const float pu = p[static_cast<std::size_t>(llf_clamp(y - 1, h)) * w + x];
  const float pd = p[static_cast<std::size_t>(llf_clamp(y + 1, h)) * w + x];
  const float qr = q[i], qg = q[count + i], qb = q[2 * count + i];
  double wt[kFusionMaxExposures];
  double sum = 0.0;
  for (int e = 0; e < f.n; ++e) {
    const float a = f.a[e];
    const float v = fusion_value(pc, a);
    const float c = fusion_contrast(v, fusion_value(pl, a), fusion_value(pr, a), fusion_value(pu, a), fusion_value(pd, a));
    wt[e] = fusion_weight(c, fusion_saturation(qr, qg, qb, a), v, f);
    sum += wt[e];
  }
  for (int e = 0; e < f.n; ++e) weights[e * count + i] = static_cast<float>(wt[e] / sum);
}

// L_d from the collapsed display value.
TK_HD float fusion_display(float o) {
  const double c = o < 0.0f ? 0.0 : (o > 1.0f ? 1.0 : static_cast<double>(o));
  return static_cast<float>(pow(c, kFusionGamma));
}

}  // namespace tonekit::core
