#include "scene.hpp"

#define GL_GLEXT_PROTOTYPES 1
#include <GL/gl.h>
#include <GL/glext.h>

#include <cmath>
#include <string>

namespace night_drive {
namespace {

// A triangle that covers the screen, no vertex buffer.
const char* kVertex = R"(#version 450 core
out vec2 uv;
void main() {
  vec2 p = vec2((gl_VertexID << 1) & 2, gl_VertexID & 2);
  uv = p * 2.0 - 1.0;
  gl_Position = vec4(uv, 0.0, 1.0);
})";

// Units: metres, candela, lux, cd/m^2. x right, y up, z along the road. The test car drives in
// the right lane (x = 1.75) towards +z; the oncoming car in the left lane (x = -1.75).
const char* kFragment = R"(#version 450 core
in vec2 uv;
out vec4 colour;
uniform vec2 res;
uniform float cam_z;   // test car position
uniform float car_z;   // oncoming car's front
uniform float high;    // 1: high beam, 0: low beam
uniform float exit_z;  // tunnel exit
uniform float time;

const float PI = 3.14159265;
const vec3 SODIUM = vec3(1.0, 0.62, 0.28);
const vec3 HALOGEN = vec3(1.0, 0.93, 0.82);
const vec3 LED = vec3(0.9, 0.95, 1.0);
const float LAMP_SPACING = 35.0, LAMP_H = 8.0, LAMP_X = 3.3;

float hash(vec2 p) { return fract(sin(dot(p, vec2(127.1, 311.7))) * 43758.5453); }

// Headlight luminous intensity (cd) in the direction d (unit) of a lamp that points along
// `fwd` (+z or -z): ECE-like low beam with its cut-off 0.6 deg below the horizon, raised on the
// kerb side (15 deg kink), and a high beam's narrow hot spot.
float beam(vec3 d, float fwd, float high_on, float kerb_sign) {
  float dz = d.z * fwd;
  if (dz <= 0.0) return 0.0;
  float h = atan(d.x * fwd, dz);           // horizontal angle, + towards the kerb side for fwd=+1
  float v = atan(d.y, length(d.xz));       // vertical angle
  float cut = -0.0105 + (h * kerb_sign > 0.0 ? clamp(h * kerb_sign * 0.27, 0.0, 0.02) : 0.0);
  float low = 22000.0 * exp(-pow(h / 0.32, 2.0)) * smoothstep(cut + 0.004, cut - 0.004, v)
            * (1.0 + 0.6 * exp(-pow((v + 0.035) / 0.02, 2.0)));
  float hb = 70000.0 * exp(-pow(h / 0.11, 2.0) - pow((v + 0.004) / 0.035, 2.0));
  return low + high_on * hb;
}

// Illuminance on the road at p from one lamp at q with intensity I toward p.
float illum(vec3 p, vec3 q, float I) {
  vec3 l = q - p;
  float d2 = dot(l, l);
  return I * max(l.y, 0.0) / (sqrt(d2) * d2);
}

// Illuminance (lux, colour) on the road point p and the part from the test car's own lamps.
vec3 road_light(vec3 p, out float own) {
  vec3 e = vec3(0.0);
  own = 0.0;
  for (int s = -1; s <= 1; s += 2) {  // test car headlights, 2 m ahead of the eye
    vec3 q = vec3(1.75 + 0.75 * float(s), 0.65, cam_z + 2.0);
    vec3 d = normalize(p - q);
    float E = illum(p, q, beam(d, 1.0, high, 1.0));
    own += E;
    e += HALOGEN * E;
  }
  for (int s = -1; s <= 1; s += 2) {  // oncoming car's low beams, pointing -z, kerb at -x
    vec3 q = vec3(-1.75 + 0.75 * float(s), 0.65, car_z);
    vec3 d = normalize(p - q);
    e += LED * illum(p, q, beam(d, -1.0, 0.0, -1.0));
  }
  if (p.z > exit_z) {  // street lamps after the tunnel: 12000 cd, cos^3 law to a point below
    float k0 = floor((p.z - exit_z) / LAMP_SPACING);
    for (float k = k0 - 1.0; k <= k0 + 2.0; k += 1.0) {
      if (k < 0.0) continue;
      vec3 q = vec3(LAMP_X, LAMP_H, exit_z + 25.0 + k * LAMP_SPACING);
      vec3 d = normalize(p - q);
      float I = 12000.0 * pow(max(-d.y, 0.0), 0.8);
      e += SODIUM * illum(p, q, I);
    }
  } else {  // tunnel: ceiling lines of luminaires every 6 m, plus the even light of the walls
    float zl = floor(p.z / 6.0) * 6.0;
    for (float k = -1.0; k <= 2.0; k += 1.0)
      for (int s = -1; s <= 1; s += 2)
        e += SODIUM * illum(p, vec3(4.2 * float(s), 5.2, zl + 6.0 * k), 2500.0);
    e += SODIUM * 25.0;
  }
  return e;
}

// Road surface reflectance and markings at p (x across, z along).
vec3 road_albedo(vec3 p, out float retro) {
  retro = 0.0;
  float ax = abs(p.x);
  if (ax > 6.0) return vec3(0.04, 0.05, 0.035);                 // verge
  float grain = 0.85 + 0.3 * hash(floor(p.xz * 40.0));
  vec3 asphalt = vec3(0.075) * grain;
  bool dash = mod(p.z, 9.0) < 3.0;                              // centre line: 3 m dash, 6 m gap
  if (ax < 0.075 && dash) { retro = 1.0; return vec3(0.55); }
  if (abs(ax - 3.5) < 0.1) { retro = 1.0; return vec3(0.55); }  // edge lines
  return asphalt;
}

float sphere(vec3 o, vec3 d, vec3 c, float r) {
  vec3 oc = o - c;
  float b = dot(oc, d), q = dot(oc, oc) - r * r, h = b * b - q;
  if (h < 0.0) return -1.0;
  return -b - sqrt(h);
}

// Ray against an axis-aligned box: distance or -1.
float box(vec3 o, vec3 d, vec3 lo, vec3 hi) {
  vec3 inv = 1.0 / d;
  vec3 t0 = (lo - o) * inv, t1 = (hi - o) * inv;
  vec3 tn = min(t0, t1), tf = max(t0, t1);
  float a = max(max(tn.x, tn.y), tn.z), b = min(min(tf.x, tf.y), tf.z);
  return (a > 0.0 && a < b) ? a : -1.0;
}

vec3 sky(vec3 d) {
  float h = clamp(d.y, 0.0, 1.0);
  vec3 c = mix(vec3(0.02, 0.018, 0.03), vec3(0.002, 0.003, 0.008), pow(h, 0.35));
  vec2 cell = floor(vec2(atan(d.x, d.z), d.y) * 300.0);
  if (hash(cell) > 0.9985) c += vec3(0.5);
  return c;
}

void main() {
  float aspect = res.x / res.y;
  vec3 o = vec3(1.75, 1.2, cam_z);
  float f = tan(radians(50.0) * 0.5);
  vec3 d = normalize(vec3(uv.x * f * aspect, uv.y * f - 0.035, 1.0));
  float t_best = 1e9;
  vec3 L = vec3(0.0);

  // Road (y = 0).
  if (d.y < 0.0) {
    float t = -o.y / d.y;
    vec3 p = o + t * d;
    float retro, own;
    vec3 a = road_albedo(p, retro);
    vec3 E = road_light(p, own);
    // Diffuse (rho / pi), markings retroreflect the test car's own light back to the driver.
    L = a / PI * E + retro * 0.35 * own * HALOGEN;
    t_best = t;
  } else {
    L = sky(d);
  }
  // Tunnel: walls x = +-5.5, ceiling y = 5.5, up to exit_z (seen only from inside).
  if (o.z < exit_z) {
    float tw = d.x > 0.0 ? (5.5 - o.x) / d.x : (-5.5 - o.x) / d.x;
    float tc = d.y > 0.0 ? (5.5 - o.y) / d.y : 1e9;
    float t = min(tw, tc);
    vec3 p = o + t * d;
    if (t < t_best && p.z < exit_z) {
      t_best = t;
      float zl = mod(p.z, 6.0);
      if (tc < tw) {  // ceiling: two rows of luminaires
        bool lum = abs(abs(p.x) - 4.2) < 0.25 && zl < 1.5;
        L = lum ? SODIUM * 4000.0 : vec3(0.5, 0.45, 0.4) * (1.0 + 0.2 * hash(floor(p.xz * 4.0)));
      } else {        // walls: tiled, lit by the luminaires
        float tile = 0.85 + 0.15 * step(0.05, fract(p.y * 2.0)) * step(0.05, fract(p.z * 2.0));
        L = SODIUM * 9.0 * tile * (0.6 + 0.4 * smoothstep(0.0, 5.5, p.y));
      }
    } else if (t < t_best) {  // the opening: outside, around it the portal wall
      vec3 q = o + ((exit_z - o.z) / d.z) * d;
      if (q.y > 5.5 || abs(q.x) > 5.5) L = vec3(0.01);
    }
  }
  // Street lamp heads: small bright luminaires.
  float k0 = max(floor((o.z - exit_z - 25.0) / LAMP_SPACING), 0.0);
  for (float k = k0; k < k0 + 14.0; k += 1.0) {
    vec3 c = vec3(LAMP_X, LAMP_H, exit_z + 25.0 + k * LAMP_SPACING);
    float t = sphere(o, d, c, 0.25);
    if (t > 0.0 && t < t_best) { t_best = t; L = SODIUM * 10000.0; }
    // the pole
    float tp = box(o, d, vec3(LAMP_X + 1.8, 0.0, c.z - 0.08), vec3(LAMP_X + 1.96, LAMP_H, c.z + 0.08));
    if (tp > 0.0 && tp < t_best) { t_best = tp; L = vec3(0.02); }
  }
  // The oncoming car: a dark body and two headlights (1e5 cd/m^2 head-on).
  {
    float tb = box(o, d, vec3(-2.65, 0.25, car_z), vec3(-0.85, 1.45, car_z + 4.5));
    if (tb > 0.0 && tb < t_best) {
      t_best = tb;
      vec3 p = o + tb * d;
      float own;
      vec3 E = road_light(vec3(p.x, 0.0, p.z), own);
      L = vec3(0.03, 0.035, 0.04) * own / PI + vec3(0.002);
    }
    for (int s = -1; s <= 1; s += 2) {
      float th = sphere(o, d, vec3(-1.75 + 0.75 * float(s), 0.65, car_z - 0.01), 0.11);
      if (th > 0.0 && th < t_best + 0.2) { t_best = th; L = LED * 1.0e5; }
    }
  }
  colour = vec4(L, 1.0);
})";

GLuint compile(GLenum type, const char* src, std::string& log) {
  GLuint s = glCreateShader(type);
  glShaderSource(s, 1, &src, nullptr);
  glCompileShader(s);
  GLint ok = 0;
  glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
  if (!ok) {
    char buf[4096];
    glGetShaderInfoLog(s, sizeof buf, nullptr, buf);
    log = buf;
    glDeleteShader(s);
    return 0;
  }
  return s;
}

}  // namespace

tonekit::Status Scene::create(int width, int height) {
  std::string log;
  const GLuint vs = compile(GL_VERTEX_SHADER, kVertex, log);
  if (!vs) return tonekit::Status{tonekit::StatusCode::runtime_error, "night drive vertex shader: " + log};
  const GLuint fs = compile(GL_FRAGMENT_SHADER, kFragment, log);
  if (!fs) {
    glDeleteShader(vs);
    return tonekit::Status{tonekit::StatusCode::runtime_error, "night drive fragment shader: " + log};
  }
  program_ = glCreateProgram();
  glAttachShader(program_, vs);
  glAttachShader(program_, fs);
  glLinkProgram(program_);
  glDeleteShader(vs);
  glDeleteShader(fs);
  GLint ok = 0;
  glGetProgramiv(program_, GL_LINK_STATUS, &ok);
  if (!ok) return tonekit::Status{tonekit::StatusCode::runtime_error, "night drive shaders do not link"};
  u_res_ = glGetUniformLocation(program_, "res");
  u_cam_z_ = glGetUniformLocation(program_, "cam_z");
  u_car_z_ = glGetUniformLocation(program_, "car_z");
  u_high_ = glGetUniformLocation(program_, "high");
  u_exit_ = glGetUniformLocation(program_, "exit_z");
  u_time_ = glGetUniformLocation(program_, "time");
  glCreateVertexArrays(1, &vao_);
  return resize(width, height);
}

Scene::~Scene() {
  if (fbo_) glDeleteFramebuffers(1, &fbo_);
  if (colour_) glDeleteTextures(1, &colour_);
  if (vao_) glDeleteVertexArrays(1, &vao_);
  if (program_) glDeleteProgram(program_);
}

tonekit::Status Scene::resize(int width, int height) {
  width_ = width;
  height_ = height;
  external_ = 0;  // a caller's target has its own size: back to the scene's own buffer
  return make_target();
}

tonekit::Status Scene::use_target(unsigned texture) {
  external_ = texture;
  return make_target();
}

tonekit::Status Scene::make_target() {
  if (fbo_) glDeleteFramebuffers(1, &fbo_);
  if (colour_) glDeleteTextures(1, &colour_);
  colour_ = 0;
  if (!external_) {
    glCreateTextures(GL_TEXTURE_2D, 1, &colour_);
    glTextureStorage2D(colour_, 1, GL_RGBA16F, width_, height_);
  }
  glCreateFramebuffers(1, &fbo_);
  glNamedFramebufferTexture(fbo_, GL_COLOR_ATTACHMENT0, colour_texture(), 0);
  if (glCheckNamedFramebufferStatus(fbo_, GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE)
    return tonekit::Status{tonekit::StatusCode::runtime_error, "night drive: the RGBA16F framebuffer is incomplete"};
  if (const GLenum e = glGetError(); e != GL_NO_ERROR)
    return tonekit::Status{tonekit::StatusCode::runtime_error, "night drive: GL error " + std::to_string(e) +
                                                                   " creating the colour buffer"};
  return {};
}

bool Scene::high_beam(double t) const {
  const double gap = timeline.oncoming_start - timeline.oncoming_speed * t - timeline.speed * t;
  return gap > timeline.dip_distance || gap < -2.0;  // dipped while the other car is near, back on once passed
}

void Scene::render(double t) {
  glBindFramebuffer(GL_FRAMEBUFFER, fbo_);
  glViewport(0, 0, width_, height_);
  glUseProgram(program_);
  glUniform2f(u_res_, static_cast<float>(width_), static_cast<float>(height_));
  glUniform1f(u_cam_z_, static_cast<float>(timeline.speed * t));
  glUniform1f(u_car_z_, static_cast<float>(timeline.oncoming_start - timeline.oncoming_speed * t));
  glUniform1f(u_high_, high_beam(t) ? 1.0f : 0.0f);
  glUniform1f(u_exit_, static_cast<float>(timeline.tunnel_exit));
  glUniform1f(u_time_, static_cast<float>(t));
  glBindVertexArray(vao_);
  glDrawArrays(GL_TRIANGLES, 0, 3);
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
}

}  // namespace night_drive
