// sunset: the sun just above a sea horizon. Orange-to-blue sky with stretched cloud bands lit
// from below, a glittering sun path on the water (pixel-integrated sparkles, so the path keeps
// its energy at every size) and dark, textured headlands in silhouette.
// Luminance budget (cd/m^2): headlands and foreground rocks 0.05-1, sea 20-200, sky 100-2000,
// cloud rims to ~5e3, sparkles to ~2e4, sun disc 3e4 (below the half-float maximum).
#include <cmath>
#include <vector>

#include "cpu/synth/synth_internal.hpp"

namespace tonekit::synth {
namespace {

constexpr float kHorizon = 0.58f;
constexpr float kSunX = 0.12f, kSunY = 0.535f, kSunRadius = 0.018f;
const Rgb kSunColour{1.0f, 0.62f, 0.32f};

Rgb sky_colour(float sx, float sy, float px) {
  float h = kHorizon - sy;
  float dx = sx - kSunX, dy = sy - kSunY;
  float r = std::sqrt(dx * dx + dy * dy);
  float L = 150.0f + 900.0f * std::exp(-h * 6.0f) + 2000.0f * std::exp(-r * 8.0f);
  Rgb c = with_luminance(mix(Rgb{1.0f, 0.55f, 0.25f}, Rgb{0.35f, 0.45f, 0.9f}, smoothstep(0.0f, 0.45f, h)), L);
  // Cloud bands: stretched noise, lit from below near the sun (bright rims), darker elsewhere.
  float n = fbm(sx * 1.5f, sy * 12.0f, 5, px * 12.0f, 1201u);
  float cover = smoothstep(0.52f, 0.66f, n) * smoothstep(0.02f, 0.08f, h) * (1.0f - smoothstep(0.35f, 0.55f, h) * 0.5f);
  float rim = std::exp(-r * 5.0f) * smoothstep(0.52f, 0.58f, n) * (1.0f - smoothstep(0.6f, 0.7f, n));
  Rgb cloud = with_luminance(mix(Rgb{0.5f, 0.3f, 0.4f}, Rgb{1.0f, 0.5f, 0.25f}, std::exp(-r * 3.0f)),
                             120.0f + 700.0f * std::exp(-r * 4.0f));
  c = mix(c, cloud, cover);
  c = c + with_luminance(Rgb{1.0f, 0.75f, 0.5f}, 5000.0f * rim);
  // Sun disc with limb darkening, anti-aliased edge, and its glare.
  float disc = saturate((kSunRadius - r) / px + 0.5f);
  if (disc > 0.0f) {
    float mu = std::sqrt(std::fmax(0.0f, 1.0f - (r * r) / (kSunRadius * kSunRadius)));
    c = mix(c, with_luminance(kSunColour, 3.0e4f * (0.4f + 0.6f * mu)), disc);
  }
  c = c + with_luminance(kSunColour, 1.0f) * glow(dx, dy, 0.02f, 1500.0f, 0.4f);
  return c;
}

Rgb sea_colour(float sx, float sy, float px) {
  float below = sy - kHorizon;
  float z = 0.5f / below;  // depth along the water
  float wx = sx * z, fp = z * z * px / 0.5f;
  float waves = fbm(wx * 2.0f, z * 0.6f, 5, fp * 2.0f, 1301u);
  // Reflected sky: the sky near the horizon, dimmed, rippled.
  float L = (40.0f + 160.0f * std::exp(-below * 8.0f)) * (0.6f + 0.8f * waves);
  Rgb c = with_luminance(mix(Rgb{0.35f, 0.4f, 0.6f}, Rgb{1.0f, 0.6f, 0.4f}, std::exp(-below * 10.0f)), L);
  // Sun path: a column under the sun widening toward the viewer, made of sparkles.
  float width = 0.015f + 0.35f * below;
  float path = std::exp(-((sx - kSunX) * (sx - kSunX)) / (2.0f * width * width));
  c = c + with_luminance(kSunColour, 300.0f * path * waves);
  constexpr float kCell = 0.008f, kSigma = 0.0007f;
  float reach = 6.0f * kSigma + px;
  int cx0 = fast_floor((sx - reach) / kCell), cx1 = fast_floor((sx + reach) / kCell);
  int cy0 = fast_floor((sy - reach) / kCell), cy1 = fast_floor((sy + reach) / kCell);
  float sparkle = 0.0f;
  if (path < 1e-4f) cy1 = cy0 - 1;  // far from the sun path: no sparkles
  for (int cy = cy0; cy <= cy1; ++cy)
    for (int cx = cx0; cx <= cx1; ++cx) {
      std::uint32_t h = hash2(cx, cy, 1302u);
      float gx = (static_cast<float>(cx) + unit(hash32(h + 1u))) * kCell;
      float gy = (static_cast<float>(cy) + unit(hash32(h + 2u))) * kCell;
      if (gy <= kHorizon || std::fabs(gx - sx) > reach || std::fabs(gy - sy) > reach) continue;
      float w = 0.015f + 0.35f * (gy - kHorizon);
      float p = std::exp(-((gx - kSunX) * (gx - kSunX)) / (2.0f * w * w));
      if (unit(h) > 0.8f * p) continue;
      float peak = 2.0e4f * (0.2f + 0.8f * unit(hash32(h + 3u)));
      sparkle += gaussian_pixel(sx, sy, gx, gy, 1.8f * kSigma, 0.6f * kSigma, peak, px);
    }
  return c + with_luminance(Rgb{1.0f, 0.8f, 0.6f}, sparkle);
}

}  // namespace

void shade_sunset(const Frame& f, int y, float* rgb) {
  const float sy = f.sy(y), px = f.pixel;
  // Silhouette profiles depend on the column only: computed once per thread and size.
  struct Profile {
    float far_top, near_top, shore, far_weight, near_weight;
  };
  thread_local std::vector<Profile> profile;
  thread_local int cached_w = -1, cached_h = -1;
  if (cached_w != f.width || cached_h != f.height) {
    profile.resize(static_cast<std::size_t>(f.width));
    for (int xi = 0; xi < f.width; ++xi) {
      const float sx = f.sx(xi);
      // Headlands: a far one on the left, a nearer one on the right, each rising from the sea.
      const float far_weight = smoothstep(-0.05f, -0.45f, sx), near_weight = smoothstep(0.45f, 0.75f, sx);
      profile[static_cast<std::size_t>(xi)] = {
          kHorizon - (0.05f + 0.06f * fbm(sx * 4.0f, 0.2f, 6, px * 4.0f, 1401u)) * far_weight,
          kHorizon - (0.04f + 0.16f * fbm(sx * 3.0f, 0.7f, 7, px * 3.0f, 1402u)) * near_weight,
          0.9f - 0.05f * fbm(sx * 5.0f, 1.3f, 6, px * 5.0f, 1405u), far_weight, near_weight};
    }
    cached_w = f.width;
    cached_h = f.height;
  }
  for (int xi = 0; xi < f.width; ++xi) {
    const float sx = f.sx(xi);
    const Profile& prof = profile[static_cast<std::size_t>(xi)];
    const float far_top = prof.far_top, near_top = prof.near_top, shore = prof.shore;
    // Each headland rises from its own shore line a little below the horizon; the foreground
    // rocks run along the bottom. Sky and sea are shaded only where they show.
    const float far_cover = saturate((sy - far_top) / px + 0.5f) * saturate((kHorizon + 0.004f * prof.far_weight - sy) / px + 0.5f);
    const float near_cover = saturate((sy - near_top) / px + 0.5f) * saturate((kHorizon + 0.02f * prof.near_weight - sy) / px + 0.5f);
    const float shore_cover = saturate((sy - shore) / px + 0.5f);
    Rgb c;
    if (far_cover < 1.0f && near_cover < 1.0f && shore_cover < 1.0f)
      c = sy < kHorizon ? sky_colour(sx, sy, px) : sea_colour(sx, sy, px);
    if (far_cover > 0.0f) {
      float haze = 20.0f + 15.0f * fbm(sx * 30.0f, sy * 30.0f, 5, px * 30.0f, 1403u);
      c = mix(c, with_luminance(Rgb{0.6f, 0.45f, 0.5f}, haze), far_cover);
    }
    if (near_cover > 0.0f) {
      float rock = fbm(sx * 25.0f, sy * 25.0f, 5, px * 25.0f, 1404u);
      float rim = std::exp(-std::fmax(0.0f, sy - near_top) * 150.0f) * 8.0f;  // sunlit crest
      c = mix(c, with_luminance(Rgb{0.55f, 0.4f, 0.3f}, 0.08f + 1.2f * rock * rock + rim), near_cover);
    }
    if (shore_cover > 0.0f) {
      float rock = fbm(sx * 40.0f, sy * 40.0f, 5, px * 40.0f, 1406u);
      c = mix(c, with_luminance(Rgb{0.5f, 0.42f, 0.35f}, 0.05f + 0.6f * rock * rock), shore_cover);
    }
    store(rgb, xi, c);
  }
}

}  // namespace tonekit::synth
