// night-drive sequence: the still night drive set in motion, a tunnel, daylight and a cut.
// Script (u = frame / count):
//   [0, 0.45)     night: the camera drives 100 m; the oncoming car comes from 110 m and passes
//                 (its headlights grow from points to a glare that fills a tenth of the frame);
//                 street lamps and the sign slide by.
//   [0.45, 0.75)  tunnel: lit walls and ceiling strips (~1-2000 cd/m^2); the exit portal, with
//                 daylight beyond, comes from 150 m to the camera. Its size goes as 1/distance,
//                 so the frame turns from dark to daylight within the last few frames.
//   [0.75, 0.85)  daylight on the same road (sky ~1e3-5e3, road ~500 cd/m^2).
//   [0.85, 1)     hard cut to the window-interior scene.
// The frame key (log-average) thus steps up by ~9 stops at the tunnel exit and jumps at the
// cut: what temporal adaptation must follow without flicker, and reset on.
#include <algorithm>
#include <cmath>
#include <vector>

#include "cpu/synth/synth_internal.hpp"
#include "tonekit/synth.hpp"

namespace tonekit::synth {
namespace {

constexpr float kNightEnd = 0.45f, kTunnelEnd = 0.75f, kDayEnd = 0.85f;
constexpr float kNightTravel = 100.0f;                          // m driven during the night part
constexpr float kCarStart = 110.0f, kCarEnd = -2.0f;            // oncoming car distance, m
constexpr float kPortalStart = 150.0f, kPortalEnd = -1.0f;      // tunnel exit distance, m
constexpr float kTunnelLeft = -6.0f, kTunnelRight = 2.75f, kTunnelTop = 5.5f;  // m, camera at x = 0
constexpr float kPi = 3.14159265f;

struct Moment {
  enum Phase { night, tunnel, day, cut } phase;
  NightDriveState drive;   // night and day, and the view through the portal
  float portal = 0.0f;     // tunnel: distance of the exit, m
};

Moment moment_at(int index, int count) {
  const float u = static_cast<float>(index) / static_cast<float>(count);
  Moment m{Moment::night, {}, 0.0f};
  if (u < kNightEnd) {
    const float v = u / kNightEnd;
    m.drive.travel = kNightTravel * v;
    m.drive.car_z = lerp(kCarStart, kCarEnd, v);
    return m;
  }
  // From the tunnel on: daylight outside, the car long gone, the road still moving.
  m.drive.car_z = 0.0f;
  m.drive.daylight = 1.0f;
  m.drive.travel = kNightTravel + 300.0f * (u - kNightEnd);
  if (u < kTunnelEnd) {
    m.phase = Moment::tunnel;
    m.portal = lerp(kPortalStart, kPortalEnd, (u - kNightEnd) / (kTunnelEnd - kNightEnd));
    if (m.portal <= 0.0f) m.phase = Moment::day;
  } else {
    m.phase = u < kDayEnd ? Moment::day : Moment::cut;
  }
  return m;
}

// Tunnel interior at the point a pixel's ray hits (world x, height y, distance z), cd/m^2:
// tiled walls and asphalt lit by the ceiling strips (~60 lux), the strips themselves, and
// daylight spilling in near the portal.
Rgb shade_tunnel_surface(float x, float y, float z, float portal, float travel, float dz) {
  const float zt = z + travel;
  const float spill = 2.0e4f * std::exp(-(portal - z) / 8.0f);  // lux near the exit
  const float lux = 60.0f + spill;
  if (y >= kTunnelTop - 1e-3f) {  // ceiling: light strips along the centre, 4 m lit in every 6
    const float strip = box_coverage(x, dz, -2.4f, -1.6f) * periodic_coverage(zt, dz, 6.0f, 4.0f);
    const Rgb concrete = with_luminance(Rgb{0.9f, 0.9f, 0.85f}, 0.35f * lux / kPi);
    return mix(concrete, with_luminance(Rgb{1.0f, 0.95f, 0.85f}, 2000.0f), strip);
  }
  if (y <= 1e-3f) {  // floor: asphalt with the dashed centre line
    const float paint = box_coverage(x, dz, -1.83f, -1.67f) * periodic_coverage(zt + 2.0f, dz, 9.0f, 3.0f);
    const float grain = fbm(x * 4.0f, zt * 4.0f, 3, dz * 4.0f, 909u);
    return with_luminance(Rgb{1, 1, 1}, lerp((0.05f + 0.06f * grain), 0.5f, paint) * lux / kPi);
  }
  // Walls: pale tiles 1.2 m high in rows, with darker joints.
  const float joints = periodic_coverage(y, dz, 0.3f, 0.02f) + periodic_coverage(zt, dz, 0.3f, 0.02f);
  const float albedo = lerp(0.55f, 0.2f, saturate(joints)) * (y < 1.2f ? 0.6f : 1.0f);
  return with_luminance(Rgb{0.95f, 0.92f, 0.85f}, albedo * lux / kPi);
}

void shade_tunnel(const Frame& f, int y, float* rgb, const Moment& m) {
  // The view out of the portal is the daylight road: shade the row once, then keep the pixels
  // whose ray leaves the tunnel.
  shade_night_drive_state(f, y, rgb, m.drive);
  const float sy = f.sy(y), px = f.pixel;
  const float dy = (kNightDriveHorizon - sy) / kNightDriveFocal;  // rise per metre of depth
  for (int xi = 0; xi < f.width; ++xi) {
    const float dx = f.sx(xi) / kNightDriveFocal;
    float z = 1e30f;
    float hit_y = 0.0f, hit_x = 0.0f;
    if (dy < 0.0f && kNightDriveEye / -dy < z) z = kNightDriveEye / -dy, hit_y = 0.0f;
    if (dy > 0.0f && (kTunnelTop - kNightDriveEye) / dy < z) z = (kTunnelTop - kNightDriveEye) / dy, hit_y = kTunnelTop;
    if (dx < 0.0f && kTunnelLeft / dx < z) z = kTunnelLeft / dx, hit_y = kNightDriveEye + dy * z;
    if (dx > 0.0f && kTunnelRight / dx < z) z = kTunnelRight / dx, hit_y = kNightDriveEye + dy * z;
    if (z > m.portal) continue;  // through the exit: daylight
    hit_x = dx * z;
    const float footprint = z * px / kNightDriveFocal * (1.0f + z / 10.0f);  // grows at grazing angles
    store(rgb, xi, shade_tunnel_surface(hit_x, hit_y, z, m.portal, m.drive.travel, footprint));
  }
}

}  // namespace

const std::vector<SequenceInfo>& all_sequences() {
  static const std::vector<SequenceInfo> list{
      {"night-drive",
       "the night drive in motion: an oncoming car's headlights approach and pass, street lamps slide by; "
       "then a tunnel whose exit turns dark to daylight within a few frames, daylight, and a hard cut to "
       "the window-interior scene"},
  };
  return list;
}

const SequenceInfo* find_sequence(std::string_view id) {
  for (const SequenceInfo& s : all_sequences())
    if (id == s.id) return &s;
  return nullptr;
}

const char* sequence_phase(std::string_view id, int frame_index, int frame_count) {
  if (!find_sequence(id) || frame_count < 1 || frame_index < 0 || frame_index >= frame_count) return "";
  switch (moment_at(frame_index, frame_count).phase) {
    case Moment::night: return "night";
    case Moment::tunnel: return "tunnel";
    case Moment::day: return "day";
    case Moment::cut: return "cut";
  }
  return "";
}

Result<Image> render_sequence_frame(std::string_view id, int frame_index, int frame_count, int width, int height,
                                    unsigned threads) {
  if (!find_sequence(id)) {
    std::string known;
    for (const SequenceInfo& s : all_sequences()) known += (known.empty() ? "" : ", ") + std::string(s.id);
    return invalid_argument("unknown sequence '" + std::string(id) + "' (known: " + known + ")");
  }
  if (frame_count < 1 || frame_index < 0 || frame_index >= frame_count)
    return invalid_argument("frame " + std::to_string(frame_index) + " is outside a sequence of " +
                            std::to_string(frame_count) + " frames");
  Result<Image> image = new_synthetic_image(width, height, "frame",
                                            "sequence " + std::string(id) + " frame " + std::to_string(frame_index) +
                                                "/" + std::to_string(frame_count));
  if (!image.ok()) return image;
  const Frame frame = make_frame(width, height);
  const Moment m = moment_at(frame_index, frame_count);
  render_rows(frame, [&](int y, float* rgb) {
    switch (m.phase) {
      case Moment::night:
      case Moment::day: shade_night_drive_state(frame, y, rgb, m.drive); break;
      case Moment::tunnel: shade_tunnel(frame, y, rgb, m); break;
      case Moment::cut: shade_window_interior(frame, y, rgb); break;
    }
  }, *image, threads);
  return image;
}

}  // namespace tonekit::synth
