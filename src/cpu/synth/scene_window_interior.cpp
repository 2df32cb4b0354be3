// window-interior: a room 6 x 3 x 6 m seen from its front wall, ray cast per pixel. The back
// wall holds a window onto a sunny landscape; the sun (out of frame, high and to the right)
// throws the window's image, mullion shadows included, onto the floor and the left wall.
// Everything else is lit indirectly. Luminance budget (cd/m^2): room corners ~0.3, walls and
// furniture 0.5-5, window frame ~5, sun patch ~1e3, landscape 500-1500, sky 3e3-1e4.
#include <algorithm>
#include <cmath>

#include "cpu/synth/synth_internal.hpp"

namespace tonekit::synth {
namespace {

constexpr float kPi = 3.14159265f;
constexpr float kFocal = 0.9f;
constexpr float kCamX = 0.3f, kCamY = 1.45f;
constexpr float kRoomX = 3.0f, kRoomY = 3.0f, kRoomZ = 6.0f;
// Window opening on the back wall (Z = kRoomZ), its frame and mullions (m).
constexpr float kWinX0 = -1.7f, kWinX1 = 1.1f, kWinY0 = 0.8f, kWinY1 = 2.5f;
constexpr float kFrame = 0.08f, kMullionX = -0.3f, kMullionY = 1.75f, kMullion = 0.035f;
// Toward the sun (unnormalised) and the sunlight reaching the room (lux, after the glass).
constexpr float kSunX = 0.45f, kSunY = 0.9f, kSunZ = 1.0f;
constexpr float kSunLux = 25000.0f;
// Cabinet against the right wall.
constexpr float kCabX0 = 1.9f, kCabY1 = 0.85f, kCabZ0 = 1.8f, kCabZ1 = 4.2f;

struct Vec {
  float x, y, z;
};
inline Vec operator+(Vec a, Vec b) { return {a.x + b.x, a.y + b.y, a.z + b.z}; }
inline Vec operator*(Vec a, float k) { return {a.x * k, a.y * k, a.z * k}; }
inline float dot(Vec a, Vec b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
inline float length(Vec a) { return std::sqrt(dot(a, a)); }

enum class Surface { floor, ceiling, left, right, back, cabinet_top, cabinet_front, cabinet_side };

// Coverage of a soft-edged box [a, b] at v with edge width w.
float soft_box(float v, float a, float b, float w) { return saturate((v - a) / w + 0.5f) * saturate((b - v) / w + 0.5f); }

// How much of the window's glass (not frame or mullions) point (x, y) on the window plane sees.
float glass(float x, float y, float w) {
  float open = soft_box(x, kWinX0 + kFrame, kWinX1 - kFrame, w) * soft_box(y, kWinY0 + kFrame, kWinY1 - kFrame, w);
  float bars = std::fmax(soft_box(x, kMullionX - kMullion, kMullionX + kMullion, w),
                         soft_box(y, kMullionY - kMullion, kMullionY + kMullion, w));
  return open * (1.0f - bars);
}

// Direct sunlight on point p with normal n: trace toward the sun to the window plane.
float sunlight(Vec p, Vec n, float footprint) {
  const Vec s{kSunX, kSunY, kSunZ};
  float cos_i = dot(n, s) / length(s);
  if (cos_i <= 0.0f) return 0.0f;
  float t = (kRoomZ - p.z) / kSunZ;
  if (t <= 0.0f) return 0.0f;
  Vec q = p + s * t;
  // Penumbra: the sun's 0.5 degree disc plus diffusion in the glass, and the pixel footprint.
  float w = std::fmax(0.012f * t * length(s), footprint);
  return kSunLux * cos_i * glass(q.x, q.y, w);
}

// Sky and landscape seen through the window in direction d.
Rgb outside(Vec d, float footprint) {
  float horiz = std::sqrt(d.x * d.x + d.z * d.z);
  float e = d.y / horiz, a = d.x / d.z;
  float hill = -0.02f + 0.07f * fbm(a * 2.5f + 3.0f, 0.3f, 5, footprint * 2.5f, 11u);
  float land = saturate((hill - e) / footprint + 0.5f);
  // Sky: brighter toward the horizon and toward the sun (up and to the right). Each part is
  // evaluated only where it shows.
  Rgb sky, ground;
  if (land < 1.0f) {
    float toward_sun = std::exp(-((a - 0.45f) * (a - 0.45f) + (e - 0.6f) * (e - 0.6f)) * 4.0f);
    float L = 3000.0f + 2500.0f * std::exp(-std::fmax(e, 0.0f) * 6.0f) + 4000.0f * toward_sun;
    sky = with_luminance(mix(Rgb{0.75f, 0.85f, 1.0f}, Rgb{0.45f, 0.6f, 1.0f}, saturate(e * 2.0f)), L);
    float cover = smoothstep(0.0f, 0.08f, e);
    if (cover > 0.0f) cover *= smoothstep(0.5f, 0.68f, fbm(a * 2.0f + 0.25f * e, e * 6.0f, 5, footprint * 6.0f, 22u));
    if (cover > 0.0f) {
      float puff = 7000.0f + 5000.0f * fbm(a * 9.0f, e * 20.0f, 4, footprint * 20.0f, 33u);
      sky = mix(sky, with_luminance(Rgb{1.0f, 0.98f, 0.95f}, puff), cover);
    }
  }
  if (land > 0.0f) {
    // Hills: sunlit fields and woods with texture.
    float fields = fbm(a * 30.0f, e * 60.0f, 5, footprint * 60.0f, 44u);
    float woods = smoothstep(0.45f, 0.6f, fbm(a * 6.0f, e * 15.0f, 3, footprint * 15.0f, 55u));
    ground = mix(with_luminance(Rgb{0.55f, 0.7f, 0.3f}, 900.0f + 900.0f * fields),
                 with_luminance(Rgb{0.3f, 0.45f, 0.25f}, 350.0f + 400.0f * fields), woods);
  }
  return mix(sky, ground, land);
}

// Wooden floor boards running along Z, staggered joints, grain and gaps.
Rgb floor_albedo(float x, float z, float fp) {
  constexpr float kBoard = 0.18f;
  int board = fast_floor(x / kBoard);
  float offset = unit(hash2(board, 0, 61u)) * 1.2f;
  int piece = fast_floor((z + offset) / 1.2f);
  std::uint32_t h = hash2(board, piece, 62u);
  float tone = 0.8f + 0.4f * unit(h);
  float grain = value_noise(x * 90.0f, z * 5.0f + static_cast<float>(h % 97u), 63u);
  float keep = saturate(1.0f / (90.0f * fp) - 1.0f);
  float wood = tone * (0.85f + 0.3f * lerp(0.5f, grain, keep));
  float gap = std::fmax(periodic_coverage(x + 0.005f, fp, kBoard, 0.01f),
                        periodic_coverage(z + offset + 0.005f, fp, 1.2f, 0.01f) * 0.7f);
  return Rgb{0.52f, 0.33f, 0.18f} * (wood * (1.0f - 0.8f * gap));
}

// A striped woven rug on the floor.
Rgb rug_albedo(float x, float z, float fp, float& cover) {
  constexpr float x0 = -1.6f, x1 = 1.2f, z0 = 1.6f, z1 = 4.0f;
  cover = box_coverage(x, fp, x0, x1) * box_coverage(z, fp, z0, z1);
  if (cover <= 0.0f) return {};
  float u = (x - x0) / (x1 - x0), v = (z - z0) / (z1 - z0);
  float border = (u < 0.06f || u > 0.94f || v < 0.08f || v > 0.92f) ? 1.0f : 0.0f;
  float stripe = periodic_coverage(v * 12.0f, fp / (z1 - z0) * 12.0f, 1.0f, 0.5f);
  Rgb a = mix(Rgb{0.45f, 0.1f, 0.08f}, Rgb{0.1f, 0.15f, 0.4f}, stripe);
  a = mix(a, Rgb{0.6f, 0.5f, 0.3f}, border);
  float weave = fbm(x * 60.0f, z * 60.0f, 3, fp * 60.0f, 71u);
  return a * (0.75f + 0.5f * weave);
}

// Books on a shelf unit painted onto the left wall (z along the wall, y up).
Rgb shelf_albedo(float z, float y, float fp, float& cover) {
  constexpr float z0 = 2.6f, z1 = 5.2f, y1 = 2.2f, kShelf = 0.52f;
  cover = box_coverage(z, fp, z0, z1) * box_coverage(y, fp, 0.0f, y1);
  if (cover <= 0.0f) return {};
  Rgb wood{0.35f, 0.22f, 0.12f};
  if (z < z0 + 0.04f || z > z1 - 0.04f || y > y1 - 0.04f) return wood;
  float in_shelf = y - 0.05f;
  int level = fast_floor(in_shelf / kShelf);
  float local = in_shelf - static_cast<float>(level) * kShelf;
  if (local < 0.03f || level < 0) return wood * 0.9f;
  constexpr float kSlot = 0.045f;
  int slot = fast_floor((z - z0) / kSlot);
  std::uint32_t h = hash2(slot, level, 81u);
  float height = 0.28f + 0.18f * unit(h);
  if (unit(hash32(h)) < 0.08f || local > height) return Rgb{0.05f, 0.04f, 0.03f};  // shadowed back
  static const Rgb spines[] = {{0.5f, 0.08f, 0.06f}, {0.1f, 0.2f, 0.45f}, {0.12f, 0.35f, 0.15f},
                               {0.6f, 0.5f, 0.25f},  {0.25f, 0.1f, 0.3f}, {0.7f, 0.65f, 0.55f}};
  Rgb spine = spines[(h >> 5) % 6u] * (0.7f + 0.5f * unit(hash32(h + 7u)));
  // A title band on some spines, and the edge between books.
  float band = (h & 64u) ? box_coverage(local, fp, 0.6f * height, 0.68f * height) : 0.0f;
  float edge = periodic_coverage(z - z0, fp, kSlot, 0.004f);
  return mix(spine, Rgb{0.8f, 0.7f, 0.3f}, band) * (1.0f - 0.7f * edge);
}

// A framed painting on the right wall.
Rgb picture_albedo(float z, float y, float fp, float& cover) {
  constexpr float z0 = 4.4f, z1 = 5.6f, y0 = 1.3f, y1 = 2.1f;
  cover = box_coverage(z, fp, z0, z1) * box_coverage(y, fp, y0, y1);
  if (cover <= 0.0f) return {};
  if (z < z0 + 0.05f || z > z1 - 0.05f || y < y0 + 0.05f || y > y1 - 0.05f) return Rgb{0.12f, 0.08f, 0.05f};
  float n = fbm(z * 4.0f, y * 4.0f, 6, fp * 4.0f, 91u);
  float horizon = 1.6f + 0.1f * n;
  Rgb sky = mix(Rgb{0.7f, 0.5f, 0.3f}, Rgb{0.3f, 0.4f, 0.7f}, saturate((y - horizon) * 3.0f));
  Rgb land = mix(Rgb{0.15f, 0.3f, 0.1f}, Rgb{0.5f, 0.45f, 0.2f}, n);
  return (y > horizon ? sky : land) * (0.7f + 0.6f * fbm(z * 30.0f, y * 30.0f, 3, fp * 30.0f, 92u));
}

// Cabinet: ray-box intersection (slabs). Returns t or -1, and the face.
float hit_cabinet(Vec o, Vec d, Surface& face) {
  if (d.x <= 0.0f) return -1.0f;  // the cabinet stands to the camera's right
  float tmin = 0.0f, tmax = 1e9f;
  int axis_hit = -1;
  const float lo[3] = {kCabX0, 0.0f, kCabZ0}, hi[3] = {kRoomX, kCabY1, kCabZ1};
  const float oo[3] = {o.x, o.y, o.z}, dd[3] = {d.x, d.y, d.z};
  for (int a = 0; a < 3; ++a) {
    if (std::fabs(dd[a]) < 1e-9f) {
      if (oo[a] < lo[a] || oo[a] > hi[a]) return -1.0f;
      continue;
    }
    float t0 = (lo[a] - oo[a]) / dd[a], t1 = (hi[a] - oo[a]) / dd[a];
    if (t0 > t1) std::swap(t0, t1);
    if (t0 > tmin) { tmin = t0; axis_hit = a; }
    tmax = std::fmin(tmax, t1);
    if (tmin > tmax) return -1.0f;
  }
  if (axis_hit < 0) return -1.0f;
  face = axis_hit == 0 ? Surface::cabinet_front : (axis_hit == 1 ? Surface::cabinet_top : Surface::cabinet_side);
  return tmin;
}

// Indirect light (lux): a base level, the bounce off the sun patch and skylight from the
// window, darkened toward the room's edges (a cheap ambient-occlusion term).
float indirect(Vec p, Vec n) {
  const Vec patch{-1.1f, 0.0f, 4.2f}, window{-0.3f, 1.65f, kRoomZ};
  auto term = [&](Vec c, float power, float spread) {
    Vec v{c.x - p.x, c.y - p.y, c.z - p.z};
    float d2 = dot(v, v) + 1e-4f;
    float cos_i = std::fmax(0.0f, dot(n, v) / std::sqrt(d2));
    return power * (0.3f + 0.7f * cos_i) / (1.0f + d2 / spread);
  };
  float e = 2.0f + term(patch, 30.0f, 2.0f) + term(window, 14.0f, 6.0f);
  // Distance to the nearest other plane: each surface ignores its own plane.
  float edge;
  if (n.y != 0.0f) edge = std::fmin(kRoomX - std::fabs(p.x), kRoomZ - p.z);
  else if (n.x != 0.0f) edge = std::fmin(std::fmin(p.y, kRoomY - p.y), kRoomZ - p.z);
  else edge = std::fmin(std::fmin(p.y, kRoomY - p.y), kRoomX - std::fabs(p.x));
  return e * (0.45f + 0.55f * smoothstep(0.0f, 0.9f, edge));
}

}  // namespace

void shade_window_interior(const Frame& f, int y, float* rgb) {
  const float sy = f.sy(y);
  const Vec origin{kCamX, kCamY, 0.0f};
  for (int xi = 0; xi < f.width; ++xi) {
    const Vec d{f.sx(xi), 0.5f - sy, kFocal};
    // Nearest room plane.
    float t = (kRoomZ - origin.z) / d.z;
    Surface s = Surface::back;
    auto consider = [&](float tc, Surface sc) {
      if (tc > 0.0f && tc < t) { t = tc; s = sc; }
    };
    if (d.y < 0.0f) consider(-origin.y / d.y, Surface::floor);
    if (d.y > 0.0f) consider((kRoomY - origin.y) / d.y, Surface::ceiling);
    if (d.x < 0.0f) consider((-kRoomX - origin.x) / d.x, Surface::left);
    if (d.x > 0.0f) consider((kRoomX - origin.x) / d.x, Surface::right);
    Surface face;
    float tc = hit_cabinet(origin, d, face);
    if (tc > 0.0f) consider(tc, face);

    const Vec p = origin + d * t;
    const float dist = t * length(d);
    const float fp = dist * f.pixel / kFocal;  // pixel footprint on a facing surface, m
    Vec n{0, 0, -1};
    Rgb albedo{0.62f, 0.58f, 0.52f};  // warm white plaster
    auto plaster = [&] { return 0.93f + 0.14f * fbm(p.x * 8.0f + p.z * 8.0f, p.y * 8.0f, 3, fp * 8.0f, 7u); };
    Rgb c;
    bool through_window = false;
    switch (s) {
      case Surface::floor: {
        n = {0, 1, 0};
        float fpf = fp / std::fmax(0.15f, -d.y / length(d));
        float rug;
        Rgb r = rug_albedo(p.x, p.z, fpf, rug);
        albedo = mix(floor_albedo(p.x, p.z, fpf), r, rug);
        break;
      }
      case Surface::ceiling: n = {0, -1, 0}; albedo = Rgb{0.75f, 0.74f, 0.72f} * plaster(); break;
      case Surface::left: {
        n = {1, 0, 0};
        float cover;
        Rgb b = shelf_albedo(p.z, p.y, fp, cover);
        albedo = mix(albedo * plaster(), b, cover);
        break;
      }
      case Surface::right: {
        n = {-1, 0, 0};
        float cover;
        Rgb b = picture_albedo(p.z, p.y, fp, cover);
        albedo = mix(albedo * plaster(), b, cover);
        break;
      }
      case Surface::back: {
        float win = box_coverage(p.x, fp, kWinX0, kWinX1) * box_coverage(p.y, fp, kWinY0, kWinY1);
        float g = glass(p.x, p.y, fp);
        albedo = mix(albedo * plaster(), Rgb{0.8f, 0.8f, 0.78f}, win);  // frame paint
        if (g > 0.0f) {
          through_window = true;
          Rgb view = outside(d, f.pixel / kFocal) * 0.9f;
          float e = indirect(p, n) * 1.5f;
          c = mix(albedo * (e / kPi), view, g);
        }
        // Skirting board.
        if (p.y < 0.1f) albedo = Rgb{0.7f, 0.7f, 0.68f};
        break;
      }
      case Surface::cabinet_top: {
        n = {0, 1, 0};
        float grain = fbm(p.x * 4.0f, p.z * 60.0f, 5, fp * 60.0f, 17u);
        albedo = Rgb{0.4f, 0.25f, 0.14f} * (0.7f + 0.6f * grain);
        break;
      }
      case Surface::cabinet_front: {
        n = {-1, 0, 0};
        float drawer = periodic_coverage(p.y + 0.01f, fp, 0.28f, 0.012f) + periodic_coverage(p.z - kCabZ0, fp, 0.8f, 0.012f);
        float knob = 0.0f;
        for (int i = 0; i < 3; ++i)
          knob += box_coverage(p.z, fp, kCabZ0 + 0.37f + 0.8f * i, kCabZ0 + 0.43f + 0.8f * i) *
                  (box_coverage(p.y, fp, 0.13f, 0.16f) + box_coverage(p.y, fp, 0.41f, 0.44f) + box_coverage(p.y, fp, 0.69f, 0.72f));
        albedo = mix(Rgb{0.2f, 0.32f, 0.3f} * (0.9f + 0.2f * plaster()), Rgb{0.05f, 0.05f, 0.05f}, saturate(drawer));
        albedo = mix(albedo, Rgb{0.8f, 0.7f, 0.4f}, saturate(knob));
        break;
      }
      case Surface::cabinet_side: n = {0, 0, p.z < 3.0f ? -1.0f : 1.0f}; albedo = Rgb{0.18f, 0.28f, 0.26f}; break;
    }
    if (!through_window) {
      float e = indirect(p, n) + sunlight(p, n, fp);
      c = albedo * (e / kPi);
    }
    store(rgb, xi, c);
  }
}

}  // namespace tonekit::synth
