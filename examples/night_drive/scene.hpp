// The night drive (issue 18 item 3; the thesis seed's Virtual Night Drive, ch. 3.1): a road with
// lane markers, street lamps, an oncoming car whose headlights approach and pass, the test car's
// own low/high beam pattern on the road (dipped while the other car is near), and a tunnel exit.
// Rendered analytically per pixel in one GLSL fragment shader (ray against road, tunnel, lamp
// heads and the car) into an RGBA16F colour buffer in cd/m^2: scene-linear HDR, about 8 decades
// from the night sky (2e-3) to a headlight seen head-on (1e5).
#pragma once
#include "tonekit/status.hpp"

namespace night_drive {

struct SceneTimeline {
  double speed = 22.0;          // m/s, the test car (80 km/h)
  double oncoming_speed = 25.0; // m/s
  double oncoming_start = 260.0;  // m ahead at t = 0
  double tunnel_exit = 40.0;      // m: the camera leaves the tunnel at t = tunnel_exit / speed
  double dip_distance = 200.0;    // high beam dipped while the oncoming car is nearer than this
};

class Scene {
 public:
  tonekit::Status create(int width, int height);  // a GL context must be current
  ~Scene();
  tonekit::Status resize(int width, int height);  // the scene's own colour buffer at the new size
  // Draws into `texture` (GL_RGBA16F, width() x height(), owned by the caller: --vulkan's zero-copy
  // hand-over, a texture on Vulkan memory) instead of the scene's own colour buffer, which is freed.
  tonekit::Status use_target(unsigned texture);
  // Draws the frame at time t (s) into the colour texture.
  void render(double t);
  bool high_beam(double t) const;
  unsigned colour_texture() const { return external_ ? external_ : colour_; }  // GL_RGBA16F
  int width() const { return width_; }
  int height() const { return height_; }
  SceneTimeline timeline;

 private:
  tonekit::Status make_target();
  unsigned program_ = 0, vao_ = 0, fbo_ = 0, colour_ = 0, external_ = 0;
  int width_ = 0, height_ = 0;
  int u_res_ = -1, u_cam_z_ = -1, u_car_z_ = -1, u_high_ = -1, u_exit_ = -1, u_time_ = -1;
};

}  // namespace night_drive
