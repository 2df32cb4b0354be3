// night-drive: the driver's view of a gently curving two-lane road at night (the thesis seed's
// virtual night driving). A pinhole camera 1.25 m above the right lane; the ground is shaded
// in world coordinates (metres) from the inverse perspective of each pixel, so the beam
// pattern, markings and lamp pools stay put at every resolution.
//
// Luminance budget (cd/m^2): tree line 0.0012-0.003, sky 0.0025-0.015, unlit asphalt ~0.01,
// sodium pools ~0.3, low-beam road up to ~30 and retroreflective markings up to ~600, road
// sign 25/150, lamp heads 2500, oncoming headlights 1.5e4: over 1e6:1 in one frame.
#include <algorithm>
#include <cmath>
#include <vector>

#include "cpu/synth/synth_internal.hpp"

namespace tonekit::synth {
namespace {

constexpr float kHorizon = kNightDriveHorizon;
constexpr float kFocal = kNightDriveFocal;
constexpr float kEye = kNightDriveEye;
constexpr float kCurve = 0.0006f;      // road centre line X = kCurve * z^2 (bends right)
constexpr float kAmbient = 0.35f;      // moonless sky illuminance on the ground, lux
constexpr float kPi = 3.14159265f;
constexpr float kDeg = 57.2957795f;

// Road-relative lateral coordinates (m): the right lane is centred on the camera.
constexpr float kRoadLeft = -5.25f, kRoadRight = 1.75f;

struct Lamp {
  float xr, height, z;
};
constexpr Lamp kLamps[] = {{3.4f, 7.5f, 18.0f}, {3.4f, 7.5f, 52.0f}, {-6.8f, 7.5f, 95.0f}, {3.4f, 7.5f, 150.0f}};
// Lamps and the sign repeat every kRepeat metres as the camera drives on (the sequence).
constexpr float kRepeat = 160.0f;
constexpr float kLampIntensity = 500.0f;  // cd, downward
const Rgb kSodium{1.0f, 0.62f, 0.28f};

// Oncoming car in the left lane.
constexpr float kCarZ = 65.0f, kCarXr = -3.4f, kHeadlightY = 0.68f, kHeadlightHalfGap = 0.62f;
constexpr float kHeadlightPeak = 1.5e4f;
const Rgb kXenon{0.9f, 0.95f, 1.0f};

// Road sign on the right verge.
constexpr float kSignZ = 24.0f, kSignXr0 = 2.6f, kSignXr1 = 5.0f, kSignY0 = 1.9f, kSignY1 = 3.3f;

float road_x(float z) { return kCurve * z * z; }
// Where an object placed at z (the still) is after driving `travel` metres: slid toward the
// camera and wrapped round to the far end once it has passed (3 m in front of the camera).
float slide(float z, float travel) {
  if (travel == 0.0f) return z;
  float v = z - travel;
  return v - kRepeat * std::floor((v - 3.0f) / kRepeat);
}
float screen_x(float x, float z) { return x * kFocal / z; }
float screen_y(float y, float z) { return kHorizon - (y - kEye) * kFocal / z; }

// Low-beam intensity (cd) toward horizontal angle th and vertical angle tv (degrees): an
// asymmetric cutoff (higher on the right, ECE style) with a soft spread below it.
float low_beam_intensity(float th, float tv) {
  float cutoff = lerp(-0.9f, -0.35f, smoothstep(-2.0f, 2.0f, th));
  float t = tv - (cutoff - 1.0f);
  float vertical = t > 0.0f ? std::exp(-(t * t) * 4.0f) : std::exp(-(t * t) * (1.0f / 12.0f));
  float a = (th - 2.0f) * (1.0f / 9.0f), b = th * (1.0f / 22.0f);
  float horizontal = std::exp(-a * a) + 0.08f * std::exp(-b * b);
  return 1.3e6f * vertical * horizontal;
}

// atan to within 0.0015 rad (Rajan et al. 2006, "Efficient approximations for the arctangent
// function"), for |t| > 1 through atan(t) = pi/2 - atan(1/t): the beam needs two per pixel.
float fast_atan(float t) {
  float a = std::fabs(t);
  bool invert = a > 1.0f;
  if (invert) a = 1.0f / a;
  float r = 0.78539816f * a - a * (a - 1.0f) * (0.2447f + 0.0663f * a);
  if (invert) r = 1.57079633f - r;
  return t < 0.0f ? -r : r;
}

// Illuminance (lux) on the ground point (x, z) from our headlights (at x = 0, 0.65 m high).
float beam_illuminance(float x, float z) {
  float dh2 = x * x + z * z, dh = std::sqrt(dh2);
  float d2 = dh2 + 0.4225f, d = std::sqrt(d2);
  float tv = -fast_atan(0.65f / dh) * kDeg;
  float th = fast_atan(x / z) * kDeg;  // z > 0 on the ground
  return low_beam_intensity(th, tv) * 0.65f / (d2 * d);
}

Rgb shade_sky(const Frame& f, float sx, float sy, float tree_top, float sky_scale) {
  float h = kHorizon - sy;  // elevation in screen units
  float px = f.pixel;
  float L = (0.0025f + 0.012f * std::exp(-h * (1.0f / 0.06f))) *
            (0.8f + 0.4f * fbm(sx * 3.0f, sy * 6.0f, 3, px * 6.0f, 101u));
  Rgb sky = with_luminance(mix(Rgb{1.0f, 0.7f, 0.45f}, Rgb{0.45f, 0.55f, 1.0f}, smoothstep(0.0f, 0.25f, h)), L * sky_scale);

  if (h + px < tree_top) {
    // Under the tree line: only the trees show.
    float leaves = 0.0012f + 0.0018f * fbm(sx * 40.0f, sy * 40.0f, 4, px * 40.0f, 404u);
    return with_luminance(Rgb{0.55f, 0.7f, 0.6f}, leaves * sky_scale);
  }
  // Stars: one candidate per 0.025-unit cell, pixel-integrated so each keeps its flux.
  constexpr float kCell = 0.025f, kSigma = 0.0006f;
  float reach = 6.0f * kSigma + px;
  int cx0 = fast_floor((sx - reach) / kCell), cx1 = fast_floor((sx + reach) / kCell);
  int cy0 = fast_floor((sy - reach) / kCell), cy1 = fast_floor((sy + reach) / kCell);
  float stars = 0.0f;
  for (int cy = cy0; cy <= cy1; ++cy)
    for (int cx = cx0; cx <= cx1; ++cx) {
      std::uint32_t hsh = hash2(cx, cy, 202u);
      if (unit(hsh) > 0.4f) continue;
      float px_star = (static_cast<float>(cx) + unit(hash32(hsh + 1u))) * kCell;
      float py_star = (static_cast<float>(cy) + unit(hash32(hsh + 2u))) * kCell;
      float elevation = kHorizon - py_star;
      if (elevation <= 0.0f || std::fabs(px_star - sx) > reach || std::fabs(py_star - sy) > reach) continue;
      float peak = 0.2f * std::exp2(6.6f * unit(hash32(hsh + 3u))) * smoothstep(0.0f, 0.12f, elevation);
      stars += gaussian_pixel(sx, sy, px_star, py_star, kSigma, peak, px);
    }
  sky = sky + with_luminance(Rgb{0.95f, 0.97f, 1.0f}, 1.0f) * stars;

  // Tree line silhouette along the horizon.
  if (h < tree_top + px) {
    float cover = saturate((tree_top - h) / px + 0.5f);
    if (cover > 0.0f) {
      float leaves = 0.0012f + 0.0018f * fbm(sx * 40.0f, sy * 40.0f, 4, px * 40.0f, 404u);
      sky = mix(sky, with_luminance(Rgb{0.55f, 0.7f, 0.6f}, leaves * sky_scale), cover);
    }
  }
  return sky;
}

// Light that the state adds: sky ambient (lux) and the sodium lamps' intensity (cd).
struct Lighting {
  float ambient = kAmbient;
  float lamp_intensity = kLampIntensity;
  float sky_scale = 1.0f;
};

Rgb shade_ground(const Frame& f, float sx, float sy, const Lamp* lamps, const Lighting& light, float travel) {
  float px = f.pixel;
  float below = sy - kHorizon;
  float z = kFocal * kEye / below;
  if (z > 3000.0f) z = 3000.0f;
  float x = sx * z / kFocal;
  float xr = x - road_x(z);
  const float zt = z + travel;              // texture coordinate along the road: it slides by
  float dx = z / kFocal * px;               // pixel footprint across, m
  float dz = z * z / (kFocal * kEye) * px;  // pixel footprint along, m

  // Surfaces: asphalt with grain and patches, grass verge, painted lines.
  float on_road = box_coverage(xr, dx, kRoadLeft, kRoadRight);
  float fp = std::fmax(dx, dz);
  Rgb road_albedo, verge_albedo;
  if (on_road > 0.0f) {
    float grain = fbm(x * 4.0f, zt * 4.0f, 4, fp * 4.0f, 505u);
    float patches = fbm(x * 0.25f, zt * 0.25f, 2, fp * 0.25f, 606u);
    road_albedo = Rgb{1.0f, 1.0f, 1.0f} * ((0.05f + 0.07f * grain) * (0.75f + 0.5f * patches));
  }
  if (on_road < 1.0f) {
    float grass = fbm(x * 2.0f, zt * 2.0f, 4, fp * 2.0f, 707u);
    verge_albedo = Rgb{0.16f, 0.2f, 0.12f} * (0.1f + 0.3f * grass);
  }
  float centre_dash = box_coverage(xr, dx, -1.83f, -1.67f) * periodic_coverage(zt + 2.0f, dz, 9.0f, 3.0f);
  float edges = box_coverage(xr, dx, kRoadLeft + 0.1f, kRoadLeft + 0.25f) +
                box_coverage(xr, dx, kRoadRight - 0.2f, kRoadRight - 0.05f);
  float paint = saturate(centre_dash + edges);
  Rgb surface = mix(verge_albedo, road_albedo, on_road);
  Rgb paint_albedo{0.55f, 0.55f, 0.5f};

  // Light: sky ambient, our low beam (paint is retroreflective: 4x back toward us), lamps.
  float beam = beam_illuminance(x, z);
  Rgb lit = surface * ((light.ambient + beam) / kPi);
  lit = mix(lit, paint_albedo * ((light.ambient + 4.0f * beam) / kPi), paint);
  for (int i = 0; i < 4 && light.lamp_intensity > 0.0f; ++i) {
    const Lamp& lamp = lamps[i];
    float lx = lamp.xr + road_x(lamp.z) - x, lz = lamp.z - z;
    float d2 = lx * lx + lz * lz + lamp.height * lamp.height;
    float e = light.lamp_intensity * lamp.height / (d2 * std::sqrt(d2));
    lit = lit + (kSodium * (1.0f / luminance(kSodium))) * surface * (e / kPi) * (1.0f - paint) +
          (kSodium * (1.0f / luminance(kSodium))) * paint_albedo * (e / kPi) * paint;
  }

  // Distance haze toward the horizon hides the road's vanishing point.
  float haze = smoothstep(250.0f, 1500.0f, z);
  return mix(lit, with_luminance(Rgb{1.0f, 0.75f, 0.5f}, 0.01f), haze);
}

// A pseudo-legend of 3x5 block glyphs on the sign, faded to its mean when smaller than a pixel.
float sign_legend(float u, float v, float glyph_px) {
  auto line = [&](float v0, float v1, std::uint32_t seed) {
    if (v < v0 || v >= v1 || u < 0.1f || u >= 0.9f) return 0.0f;
    float cu = (u - 0.1f) / 0.08f, cv = (v - v0) / (v1 - v0);
    int ch = static_cast<int>(cu);
    float gu = (cu - static_cast<float>(ch)) * 4.0f;  // 3 columns + 1 gap
    if (gu >= 3.0f) return 0.0f;
    int bit = static_cast<int>(gu) + 3 * std::min(4, static_cast<int>(cv * 5.0f));
    return ((hash2(ch, 0, seed) >> bit) & 1u) ? 1.0f : 0.0f;
  };
  float sharp = line(0.22f, 0.44f, 11u) + line(0.56f, 0.78f, 12u);
  float keep = saturate(glyph_px - 1.0f);
  return lerp(0.3f, sharp, keep);
}

}  // namespace

void shade_night_drive(const Frame& f, int y, float* rgb) { shade_night_drive_state(f, y, rgb, NightDriveState{}); }

void shade_night_drive_state(const Frame& f, int y, float* rgb, const NightDriveState& state) {
  const float sy = f.sy(y), px = f.pixel;
  // The tree line's height depends on the column only: computed once per thread and size.
  thread_local std::vector<float> tree_top;
  thread_local int cached_w = -1, cached_h = -1;
  if (cached_w != f.width || cached_h != f.height) {
    tree_top.resize(static_cast<std::size_t>(f.width));
    for (int xi = 0; xi < f.width; ++xi)
      tree_top[static_cast<std::size_t>(xi)] = 0.012f + 0.035f * fbm(f.sx(xi) * 6.0f, 0.5f, 6, px * 6.0f, 303u);
    cached_w = f.width;
    cached_h = f.height;
  }
  // Which objects this row crosses (each with a pixel of margin): most rows skip most of them.
  auto crosses = [&](float top, float bottom) { return sy + px > top && sy - px < bottom; };
  constexpr float kGlareReach = 0.12f;  // beyond it the glare is < 0.3% of the unlit road
  // The state: where the lamps, the sign and the car are, and how much daylight there is.
  Lighting light;
  light.ambient = kAmbient + state.daylight * 2.0e4f;
  light.lamp_intensity = kLampIntensity * (1.0f - state.daylight);
  light.sky_scale = 1.0f + state.daylight * 3.0e5f;
  Lamp lamps[4];
  for (int i = 0; i < 4; ++i) lamps[i] = {kLamps[i].xr, kLamps[i].height, slide(kLamps[i].z, state.travel)};
  const float sign_z = slide(kSignZ, state.travel);
  const float car_z = state.car_z;
  const bool car_present = car_z > 1.0f;
  const bool lamps_lit = light.lamp_intensity > 0.0f;
  // The oncoming car's glare grows as it comes closer (1/d^2, capped when it is at our side).
  const float car_glare = 60.0f * std::fmin(100.0f, (kCarZ / car_z) * (kCarZ / car_z));
  bool pole_row[4], lamp_row[4];
  for (int i = 0; i < 4; ++i) {
    pole_row[i] = crosses(screen_y(lamps[i].height, lamps[i].z), screen_y(0.0f, lamps[i].z));
    lamp_row[i] = lamps_lit && std::fabs(sy - screen_y(lamps[i].height, lamps[i].z)) < kGlareReach + px;
  }
  const float sign_x0 = screen_x(kSignXr0 + road_x(sign_z), sign_z), sign_x1 = screen_x(kSignXr1 + road_x(sign_z), sign_z);
  const float sign_y0 = screen_y(kSignY1, sign_z), sign_y1 = screen_y(kSignY0, sign_z);
  const bool sign_row = crosses(sign_y0, screen_y(0.0f, sign_z));
  const float car_x = kCarXr + road_x(car_z);
  const bool car_row = car_present && crosses(screen_y(1.4f, car_z), screen_y(0.25f, car_z));
  const float lamp_y = screen_y(kHeadlightY, car_z), mirror_y = screen_y(-kHeadlightY, car_z);
  const bool headlight_row = car_present && std::fabs(sy - lamp_y) < kGlareReach + px;
  const bool reflection_row = car_present && sy > kHorizon && std::fabs(sy - mirror_y) < 6.0f * 0.012f + px;

  for (int xi = 0; xi < f.width; ++xi) {
    const float sx = f.sx(xi);
    Rgb c = sy < kHorizon ? shade_sky(f, sx, sy, tree_top[static_cast<std::size_t>(xi)], light.sky_scale)
                          : shade_ground(f, sx, sy, lamps, light, state.travel);

    // Lamp poles (dark, faintly lit), far to near.
    for (int i = 3; i >= 0; --i) {
      if (!pole_row[i]) continue;
      const Lamp& lamp = lamps[i];
      float lx = lamp.xr + road_x(lamp.z) + (lamp.xr > 0 ? 0.4f : -0.4f);
      float cover = box_coverage(sx, px, screen_x(lx - 0.08f, lamp.z), screen_x(lx + 0.08f, lamp.z));
      if (cover > 0.0f) cover *= box_coverage(sy, px, screen_y(lamp.height, lamp.z), screen_y(0.0f, lamp.z));
      if (cover > 0.0f) c = mix(c, with_luminance(Rgb{0.8f, 0.7f, 0.6f}, 0.03f), cover);
    }

    // Road sign: retroreflective green panel with a white border and legend.
    if (sign_row && sx + px > sign_x0 && sx - px < sign_x1) {
      const float x0 = sign_x0, x1 = sign_x1, y0 = sign_y0, y1 = sign_y1;
      float post = (box_coverage(sx, px, x0 + 0.15f * (x1 - x0), x0 + 0.17f * (x1 - x0)) +
                    box_coverage(sx, px, x0 + 0.83f * (x1 - x0), x0 + 0.85f * (x1 - x0))) *
                   box_coverage(sy, px, y1, screen_y(0.0f, sign_z));
      if (post > 0.0f) c = mix(c, with_luminance(Rgb{0.7f, 0.7f, 0.7f}, 0.8f), saturate(post));
      float cover = box_coverage(sx, px, x0, x1) * box_coverage(sy, px, y0, y1);
      if (cover > 0.0f) {
        float u = (sx - x0) / (x1 - x0), v = (sy - y0) / (y1 - y0);
        float border = (u < 0.03f || u > 0.97f || v < 0.06f || v > 0.94f) ? 1.0f : 0.0f;
        float legend = std::fmax(border, sign_legend(u, v, (x1 - x0) * 0.02f / px));
        float wear = 0.85f + 0.3f * fbm(u * 30.0f, v * 18.0f, 3, px / (x1 - x0) * 30.0f, 808u);
        Rgb panel = mix(with_luminance(Rgb{0.1f, 0.55f, 0.25f}, 25.0f), with_luminance(Rgb{1, 1, 0.95f}, 150.0f), legend);
        c = mix(c, panel * wear, cover);
      }
    }

    // Oncoming car: dark body and windscreen, then its headlights (additive).
    if (car_row) {
      float body = box_coverage(sx, px, screen_x(car_x - 0.9f, car_z), screen_x(car_x + 0.9f, car_z)) *
                   box_coverage(sy, px, screen_y(1.4f, car_z), screen_y(0.25f, car_z));
      if (body > 0.0f) {
        float screen = box_coverage(sx, px, screen_x(car_x - 0.7f, car_z), screen_x(car_x + 0.7f, car_z)) *
                       box_coverage(sy, px, screen_y(1.35f, car_z), screen_y(0.95f, car_z));
        Rgb paint = mix(with_luminance(Rgb{0.6f, 0.1f, 0.1f}, 0.05f), with_luminance(Rgb{0.5f, 0.6f, 0.7f}, 0.006f), screen);
        c = mix(c, paint, body);
      }
    }
    if (headlight_row || reflection_row) {
      float light = 0.0f, reflection = 0.0f, glare = 0.0f;
      for (float side : {-1.0f, 1.0f}) {
        float lx = screen_x(car_x + side * kHeadlightHalfGap, car_z);
        if (headlight_row) {
          light += gaussian_pixel(sx, sy, lx, lamp_y, 0.07f * kFocal / car_z, kHeadlightPeak, px);
          glare += glow(sx - lx, sy - lamp_y, 0.004f, car_glare, kGlareReach);
        }
        // Streaked reflection on the damp road below each headlight.
        if (reflection_row) reflection += gaussian_pixel(sx, sy, lx, mirror_y, 0.1f * kFocal / car_z, 0.012f, 40.0f, px);
      }
      c = c + kXenon * (1.0f / luminance(kXenon)) * (light + reflection + glare);
    }

    // Sodium lamp heads and their glare.
    for (int i = 0; i < 4; ++i) {
      if (!lamp_row[i]) continue;
      const Lamp& lamp = lamps[i];
      float lx = screen_x(lamp.xr + road_x(lamp.z), lamp.z), ly = screen_y(lamp.height, lamp.z);
      float head = gaussian_pixel(sx, sy, lx, ly, 0.12f * kFocal / lamp.z, 0.04f * kFocal / lamp.z, 2500.0f, px);
      float scale = 30.0f / lamp.z;
      float halo = glow(sx - lx, sy - ly, 0.006f, 3.0f * scale * scale, kGlareReach);
      c = c + kSodium * ((head + halo) / luminance(kSodium));
    }
    store(rgb, xi, c);
  }
}

}  // namespace tonekit::synth
