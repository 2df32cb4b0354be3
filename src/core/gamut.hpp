// Gamut mapping BT.2020 -> BT.709, the stage after the primaries matrix of every decode
// (core::linearise_pixel; tonekit/video.hpp GamutMapping), one TK_HD text for both backends in
// float through the portable maths (core/portable_math.hpp), so the CPU reference decode and the
// CUDA decode give the same floats (both files build without contraction: video_kernels.cpp,
// video_stages.cu).
//   clip:        core::gamut_clip_desaturate (video_colour.hpp), the policy before this stage:
//                a pixel outside BT.709 is desaturated towards its luminance just enough that its
//                smallest channel is 0; in-gamut pixels are untouched.
//   desaturate:  the same direction (towards the pixel's own luminance Y, which stays), softly:
//                the excursion e = (Y - min(R, G, B)) / Y (0 grey, 1 on BT.709's boundary) becomes
//                soft_compress(e) < 1 (identity up to the knee 0.7, then k + (1 - k) x / (1 + x),
//                x = (e - k) / (1 - k): slope 1 at the knee). Out-of-gamut colours keep their
//                differences instead of all landing on the boundary; near-boundary colours lose a
//                little saturation. Linear-light desaturation bends hue slightly (Abney).
//   perceptual:  in ICtCp (ITU-R BT.2100 Table 7, absolute: scene 1.0 = reference_white cd/m^2):
//                intensity I and hue angle atan2(Cp, Ct) kept, chroma C = |(Ct, Cp)| scaled by
//                soft_compress(u) / u with u = C / C_709(I, hue), C_709 the largest chroma at that
//                I and hue whose BT.709 RGB has no negative channel (bisection, 16 steps). Pixels
//                with u <= 0.7 (checked with one conversion) are untouched. Keeps hue as seen and
//                I (not Y); costs ~20 PQ conversions for a pixel near or outside the boundary.
#pragma once
#include "core/colour.hpp"
#include "core/hd.hpp"
#include "core/portable_math.hpp"

namespace tonekit::core {

constexpr float kGamutKnee = 0.7f;

// Identity up to kGamutKnee, then k + (1 - k) x / (1 + x), x = (e - k) / (1 - k): below 1 for all e.
TK_HD float gamut_soft_compress(float e) {
  if (!(e > kGamutKnee)) return e;
  const float x = (e - kGamutKnee) * (1.0f / (1.0f - kGamutKnee));
  return kGamutKnee + (1.0f - kGamutKnee) * (x / (1.0f + x));
}

// desaturate: BT.709 RGB (after the matrix) in place.
TK_HD void gamut_soft_desaturate(float& r, float& g, float& b) {
  const float y = luminance(r, g, b);
  if (!(y > 0.0f)) {
    r = g = b = 0.0f;
    return;
  }
  const float m = r < g ? (r < b ? r : b) : (g < b ? g : b);
  const float e = (y - m) / y;
  if (!(e > kGamutKnee)) return;
  const float t = gamut_soft_compress(e) / e;
  r = y + t * (r - y);
  g = y + t * (g - y);
  b = y + t * (b - y);
  r = r < 0.0f ? 0.0f : r;
  g = g < 0.0f ? 0.0f : g;
  b = b < 0.0f ? 0.0f : b;
}

// ---- ICtCp (BT.2100 Table 7): LMS = M1 RGB_2020 (x / 4096), I Ct Cp = M2 PQ^-1(LMS) (x / 4096).
// The inverses below are those matrices' exact inverses to 15 digits (test_video_colour.cpp
// multiplies them back).
struct Ictcp {
  float i, ct, cp;
};
// PQ inverse EOTF / EOTF on Y = F_D / 10000 in [0, 1] (BT.2100 Table 4), portable float.
TK_HD float gamut_pq_encode(float y) {
  y = y < 0.0f ? 0.0f : (y > 1.0f ? 1.0f : y);
  const float p = portable_powf(y, 2610.0f / 16384.0f);
  return portable_powf((0.8359375f + 18.8515625f * p) / (1.0f + 18.6875f * p), 78.84375f);
}
TK_HD float gamut_pq_decode(float e) {
  e = e < 0.0f ? 0.0f : (e > 1.0f ? 1.0f : e);
  const float p = portable_powf(e, 1.0f / 78.84375f);
  const float num = p - 0.8359375f;
  return portable_powf((num > 0.0f ? num : 0.0f) / (18.8515625f - 18.6875f * p), 16384.0f / 2610.0f);
}
// BT.2020 RGB in units of 10000 cd/m^2 -> ICtCp.
TK_HD Ictcp rgb2020_to_ictcp(float r, float g, float b) {
  const float l = gamut_pq_encode((1688.0f * r + 2146.0f * g + 262.0f * b) * (1.0f / 4096.0f));
  const float m = gamut_pq_encode((683.0f * r + 2951.0f * g + 462.0f * b) * (1.0f / 4096.0f));
  const float s = gamut_pq_encode((99.0f * r + 309.0f * g + 3688.0f * b) * (1.0f / 4096.0f));
  return Ictcp{0.5f * l + 0.5f * m, (6610.0f * l - 13613.0f * m + 7003.0f * s) * (1.0f / 4096.0f),
               (17933.0f * l - 17390.0f * m - 543.0f * s) * (1.0f / 4096.0f)};
}
// ICtCp -> BT.2020 RGB in units of 10000 cd/m^2.
TK_HD void ictcp_to_rgb2020(Ictcp c, float& r, float& g, float& b) {
  const float l = gamut_pq_decode(c.i + 0.008609037037933f * c.ct + 0.111029625003026f * c.cp);
  const float m = gamut_pq_decode(c.i - 0.008609037037933f * c.ct - 0.111029625003026f * c.cp);
  const float s = gamut_pq_decode(c.i + 0.560031335710679f * c.ct - 0.320627174987319f * c.cp);
  r = 3.436606694333078f * l - 2.506452118656270f * m + 0.069845424323191f * s;
  g = -0.791329555598929f * l + 1.983600451792291f * m - 0.192270896193362f * s;
  b = -0.025949899690593f * l - 0.098913714711726f * m + 1.124863614402319f * s;
}
// BT.2020 -> BT.709: video_colour.hpp's bt2020_to_bt709<float>, the same rounded literals and
// operations (that header includes this one).
TK_HD void gamut_2020_to_709(float& r, float& g, float& b) {
  const float r2 = 1.660491002108434f * r - 0.587641138788550f * g - 0.072849863319885f * b;
  const float g2 = -0.124550474521591f * r + 1.132899897125960f * g - 0.008349422604369f * b;
  const float b2 = -0.018150763354905f * r - 0.100578898008007f * g + 1.118729661362913f * b;
  r = r2;
  g = g2;
  b = b2;
}
// The smallest BT.709 channel of ICtCp colour (i, s ct, s cp).
TK_HD float gamut_min709_at(Ictcp c, float s) {
  float r, g, b;
  ictcp_to_rgb2020(Ictcp{c.i, s * c.ct, s * c.cp}, r, g, b);
  gamut_2020_to_709(r, g, b);
  return r < g ? (r < b ? r : b) : (g < b ? g : b);
}

// perceptual: scene-linear BT.2020 RGB in (scene 1.0 = white_cd cd/m^2), BT.709 RGB out. ICtCp's
// PQ holds up to 10000 cd/m^2: brighter linear input is clamped there for the chroma search.
TK_HD void gamut_perceptual(float& r, float& g, float& b, float white_cd) {
  const float to_abs = white_cd * (1.0f / 10000.0f);
  const Ictcp c = rgb2020_to_ictcp(r * to_abs, g * to_abs, b * to_abs);
  gamut_2020_to_709(r, g, b);
  if (!(c.i > 0.0f)) {
    r = g = b = 0.0f;
    return;
  }
  // u <= knee: the colour at chroma 1 / knee times its own is still inside BT.709.
  const float s_knee = 1.0f / kGamutKnee;
  if (gamut_min709_at(c, s_knee) >= 0.0f) {
    r = r > 0.0f ? r : 0.0f;  // inside: the matrix's values (a rounding's negative ulp aside)
    g = g > 0.0f ? g : 0.0f;
    b = b > 0.0f ? b : 0.0f;
    return;
  }
  float lo = 0.0f, hi = s_knee;  // min709 >= 0 at lo (grey), < 0 at hi
  for (int k = 0; k < 16; ++k) {
    const float mid = 0.5f * (lo + hi);
    if (gamut_min709_at(c, mid) >= 0.0f) lo = mid;
    else hi = mid;
  }
  const float u = 1.0f / (lo > 1e-6f ? lo : 1e-6f);  // the pixel's chroma over the boundary's
  const float scale = gamut_soft_compress(u) / u;
  ictcp_to_rgb2020(Ictcp{c.i, scale * c.ct, scale * c.cp}, r, g, b);
  gamut_2020_to_709(r, g, b);
  const float from_abs = 10000.0f / white_cd;
  r = r > 0.0f ? r * from_abs : 0.0f;
  g = g > 0.0f ? g * from_abs : 0.0f;
  b = b > 0.0f ? b * from_abs : 0.0f;
}

}  // namespace tonekit::core
