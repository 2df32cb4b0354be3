// GlPass (issue 18 item 4) on the GPU host: the bytes of the zero-copy pass against
// ToneMapper::process on the same pixels copied with cudaMemcpy, many frames with no leak,
// re-registration on resize, wrong formats. Skips with the reason when there is no GPU, no EGL
// or the GL context is not on a CUDA device (the no-GPU CI).
#define GL_GLEXT_PROTOTYPES 1
#include <GL/gl.h>
#include <GL/glext.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <vector>

#include "gpu/gpu_test_support.hpp"
#include "interop/interop_test_support.hpp"
#include "interop/egl_test_context.hpp"
#include "tonekit/gl.hpp"
#include "tonekit/synth.hpp"

namespace tonekit {
namespace {

// One EGL context for the whole binary (current on the test thread).
egl::EglContext* context(std::string& why) { return interop_test::egl_test_context(why); }

#define REQUIRE_GL()                                         \
  do {                                                       \
    REQUIRE_GPU();                                           \
    std::string why_gl_;                                     \
    if (!context(why_gl_)) GTEST_SKIP() << why_gl_;          \
  } while (0)

// A night-drive HDR frame (synthetic, with headlights: values to 1e5) as float RGBA.
std::vector<float> hdr_rgba(int w, int h) {
  auto img = synth::render_scene("night-drive", w, h);
  std::vector<float> v(std::size_t(w) * h * 4, 1.0f);
  if (!img.ok()) return v;
  for (std::size_t i = 0; i < std::size_t(w) * h; ++i)
    for (int c = 0; c < 3; ++c) v[i * 4 + c] = img->pixels[i * img->channels + c];
  v[7] = -1.0f;  // a bad pixel or two: the statistics count them the same way
  v[12] = 1e30f;
  return v;
}

GLuint make_texture(GLenum format, int w, int h, const void* data = nullptr, GLenum type = GL_FLOAT) {
  GLuint t = 0;
  glCreateTextures(GL_TEXTURE_2D, 1, &t);
  glTextureStorage2D(t, 1, format, w, h);
  if (data) glTextureSubImage2D(t, 0, 0, 0, w, h, GL_RGBA, type, data);
  return t;
}

struct Case {
  const char* op;
  GLenum format;
  double glare;
  bool temporal;
  bool night = false;  // night vision (prepare_night's defaults) after the glare
};

GlPassConfig pass_config(const Case& k, GLuint in, GLuint out) {
  GlPassConfig c;
  c.input_texture = in;
  c.output_texture = out;
  c.params = *prepare_params(k.op, {});
  c.glare.strength = k.glare;
  if (k.night) c.night = *prepare_night();
  c.temporal = k.temporal;
  return c;
}

// The pass's output texture against process() on the input texture's own bytes (read back and
// copied to the device with cudaMemcpy), frame after frame with the same time steps.
void expect_same_bytes(const Case& k, int w, int h, int frames) {
  const std::vector<float> src = hdr_rgba(w, h);
  const GLuint in = make_texture(k.format, w, h, src.data());
  const GLuint out = make_texture(GL_RGBA8, w, h);
  auto pass = GlPass::create(pass_config(k, in, out));
  ASSERT_TRUE(pass.ok()) << pass.status().message();
  const bool half = k.format == GL_RGBA16F;
  const std::size_t in_bytes = std::size_t(w) * h * (half ? 8 : 16);
  std::vector<unsigned char> texels(in_bytes);
  glGetTextureImage(in, 0, GL_RGBA, half ? GL_HALF_FLOAT : GL_FLOAT, static_cast<GLsizei>(in_bytes), texels.data());
  ToneMapperConfig rc = (*pass)->mapper().config();
  auto ref = ToneMapper::create(rc);
  ASSERT_TRUE(ref.ok()) << ref.status().message();
  void *d_in = nullptr, *d_out = nullptr;
  CUDA_OK(cudaMalloc(&d_in, in_bytes));
  CUDA_OK(cudaMalloc(&d_out, std::size_t(w) * h * 4));
  CUDA_OK(cudaMemcpy(d_in, texels.data(), in_bytes, cudaMemcpyHostToDevice));
  std::vector<unsigned char> got(std::size_t(w) * h * 4), want(got.size());
  for (int f = 0; f < frames; ++f) {
    ASSERT_OK((*pass)->process(nullptr, 1.0 / 30));
    ASSERT_OK((*ref)->process(d_in, 0, d_out, 0, nullptr, 1.0 / 30));
  }
  glGetTextureImage(out, 0, GL_RGBA, GL_UNSIGNED_BYTE, static_cast<GLsizei>(got.size()), got.data());
  CUDA_OK(cudaMemcpy(want.data(), d_out, want.size(), cudaMemcpyDeviceToHost));
  std::size_t differ = 0;
  for (std::size_t i = 0; i < got.size(); ++i) differ += got[i] != want[i];
  EXPECT_EQ(differ, 0u) << k.op << " glare " << k.glare << (k.night ? " night" : "") << (half ? " RGBA16F " : " RGBA32F ") << w << "x" << h
                        << (((*pass)->mapper().surfaces_zero_copy()) ? " (zero copy)" : " (fallback)");
  cudaFree(d_in);
  cudaFree(d_out);
  pass->reset();
  glDeleteTextures(1, &in);
  glDeleteTextures(1, &out);
  EXPECT_EQ(glGetError(), static_cast<GLenum>(GL_NO_ERROR));
}

TEST(InteropGl, SameBytesAsProcess) {
  REQUIRE_GL();
  const Case cases[] = {
      {"reinhard-sat", GL_RGBA16F, 0.1, true},   // the renderer's default: zero copy
      {"reinhard-sat", GL_RGBA32F, 0.1, false},  // zero copy, float texture
      {"reinhard-sat", GL_RGBA16F, 0.0, true},   // fallback: glare off
      {"reinhard-local", GL_RGBA16F, 0.1, false},
      {"drago-local", GL_RGBA32F, 0.1, false},
      {"reinhard", GL_RGBA16F, 0.1, true},       // fallback: a global operator
      {"histeq", GL_RGBA32F, 0.0, false},
      {"reinhard-sat", GL_RGBA16F, 0.1, true, true},  // the night_drive example's default
      {"reinhard", GL_RGBA32F, 0.0, false, true},     // night vision on the fallback path
  };
  for (const Case& k : cases) expect_same_bytes(k, 333, 197, 3);  // odd sizes: partial tiles and blocks
  expect_same_bytes(cases[0], 1920, 1080, 2);
}

TEST(InteropGl, SrgbOutputThroughView) {
  REQUIRE_GL();
  const int w = 64, h = 48;
  const std::vector<float> src = hdr_rgba(w, h);
  const GLuint in = make_texture(GL_RGBA16F, w, h, src.data());
  const GLuint srgb = make_texture(GL_SRGB8_ALPHA8, w, h);
  const GLuint rgba8 = make_texture(GL_RGBA8, w, h);
  auto a = GlPass::create(pass_config({"reinhard-sat", GL_RGBA16F, 0.1, false}, in, srgb));
  ASSERT_TRUE(a.ok()) << a.status().message();
  auto b = GlPass::create(pass_config({"reinhard-sat", GL_RGBA16F, 0.1, false}, in, rgba8));
  ASSERT_TRUE(b.ok()) << b.status().message();
  ASSERT_OK((*a)->process());
  ASSERT_OK((*b)->process());
  std::vector<unsigned char> x(std::size_t(w) * h * 4), y(x.size());
  // The stored bytes, not decoded: read through a GL_RGBA8 view of the sRGB texture.
  GLuint view = 0;
  glGenTextures(1, &view);
  glTextureView(view, GL_TEXTURE_2D, srgb, GL_RGBA8, 0, 1, 0, 1);
  glGetTextureImage(view, 0, GL_RGBA, GL_UNSIGNED_BYTE, static_cast<GLsizei>(x.size()), x.data());
  glGetTextureImage(rgba8, 0, GL_RGBA, GL_UNSIGNED_BYTE, static_cast<GLsizei>(y.size()), y.data());
  EXPECT_EQ(x, y);
  a->reset();
  b->reset();
  GLuint del[] = {view, in, srgb, rgba8};
  glDeleteTextures(4, del);
}

TEST(InteropGl, WrongFormatsAreClearErrors) {
  REQUIRE_GL();
  const int w = 32, h = 16;
  const GLuint rgba8 = make_texture(GL_RGBA8, w, h);
  const GLuint half = make_texture(GL_RGBA16F, w, h);
  const GLuint other = make_texture(GL_RGBA16F, w + 1, h);
  GLuint srgb_mutable = 0;
  glCreateTextures(GL_TEXTURE_2D, 1, &srgb_mutable);
  glTextureParameteri(srgb_mutable, GL_TEXTURE_MAX_LEVEL, 0);
  glBindTexture(GL_TEXTURE_2D, srgb_mutable);
  glTexImage2D(GL_TEXTURE_2D, 0, GL_SRGB8_ALPHA8, w, h, 0, GL_RGBA, GL_UNSIGNED_BYTE, nullptr);
  glBindTexture(GL_TEXTURE_2D, 0);
  const Case k{"reinhard-sat", GL_RGBA16F, 0.1, false};
  auto expect_error = [&](GLuint in, GLuint out, const char* needle) {
    auto p = GlPass::create(pass_config(k, in, out));
    ASSERT_FALSE(p.ok()) << needle;
    EXPECT_EQ(p.status().code(), StatusCode::invalid_argument);
    EXPECT_NE(p.status().message().find(needle), std::string::npos) << p.status().message();
  };
  expect_error(rgba8, rgba8, "must be GL_RGBA16F or GL_RGBA32F");
  expect_error(half, half, "must be GL_RGBA8 or GL_SRGB8_ALPHA8");
  expect_error(other, rgba8, "same size");
  expect_error(half, srgb_mutable, "immutable storage");
  expect_error(12345, rgba8, "not a GL texture name");
  GLuint del[] = {rgba8, half, other, srgb_mutable};
  glDeleteTextures(4, del);
  while (glGetError() != GL_NO_ERROR) {
  }
}

TEST(InteropGl, ManyFramesNoLeak) {
  REQUIRE_GL();
  const int w = 1920, h = 1080;
  const std::vector<float> src = hdr_rgba(w, h);
  const GLuint in = make_texture(GL_RGBA16F, w, h, src.data());
  const GLuint out = make_texture(GL_RGBA8, w, h);
  auto pass = GlPass::create(pass_config({"reinhard-sat", GL_RGBA16F, 0.1, true}, in, out));
  ASSERT_TRUE(pass.ok()) << pass.status().message();
  ASSERT_OK((*pass)->process(nullptr, 1.0 / 60));
  CUDA_OK(cudaDeviceSynchronize());
  std::size_t free_before = 0, free_after = 0, total = 0;
  CUDA_OK(cudaMemGetInfo(&free_before, &total));
  for (int f = 0; f < 1000; ++f) ASSERT_OK((*pass)->process(nullptr, 1.0 / 60));
  glFinish();
  CUDA_OK(cudaDeviceSynchronize());
  CUDA_OK(cudaMemGetInfo(&free_after, &total));
  // No growth: the memory in use after 1000 frames is at most what it was after the first (H100,
  // driver 580: 5.4 MB more free after the loop than before it; the interop driver gives back
  // what its first map took, so equality is too strict).
  EXPECT_GE(free_after, free_before) << "device memory in use grew over 1000 frames";
  pass->reset();
  glDeleteTextures(1, &in);
  glDeleteTextures(1, &out);
}

TEST(InteropGl, ResizeReregisters) {
  REQUIRE_GL();
  const Case k{"reinhard-sat", GL_RGBA16F, 0.1, false};
  GLuint in = make_texture(GL_RGBA16F, 320, 200, hdr_rgba(320, 200).data());
  GLuint out = make_texture(GL_RGBA8, 320, 200);
  auto pass = GlPass::create(pass_config(k, in, out));
  ASSERT_TRUE(pass.ok()) << pass.status().message();
  ASSERT_OK((*pass)->process());
  const int w = 641, h = 359;
  const std::vector<float> src = hdr_rgba(w, h);
  const GLuint in2 = make_texture(GL_RGBA16F, w, h, src.data());
  const GLuint out2 = make_texture(GL_RGBA8, w, h);
  ASSERT_OK((*pass)->set_textures(in2, out2));
  EXPECT_EQ((*pass)->width(), w);
  EXPECT_EQ((*pass)->height(), h);
  glDeleteTextures(1, &in);  // the old textures are no longer registered
  glDeleteTextures(1, &out);
  ASSERT_OK((*pass)->process());
  std::vector<unsigned char> texels(std::size_t(w) * h * 8), got(std::size_t(w) * h * 4), want(got.size());
  glGetTextureImage(in2, 0, GL_RGBA, GL_HALF_FLOAT, static_cast<GLsizei>(texels.size()), texels.data());
  glGetTextureImage(out2, 0, GL_RGBA, GL_UNSIGNED_BYTE, static_cast<GLsizei>(got.size()), got.data());
  auto ref = ToneMapper::create((*pass)->mapper().config());
  ASSERT_OK(ref);
  void *d_in = nullptr, *d_out = nullptr;
  CUDA_OK(cudaMalloc(&d_in, texels.size()));
  CUDA_OK(cudaMalloc(&d_out, want.size()));
  CUDA_OK(cudaMemcpy(d_in, texels.data(), texels.size(), cudaMemcpyHostToDevice));
  ASSERT_OK((*ref)->process(d_in, 0, d_out, 0));
  CUDA_OK(cudaMemcpy(want.data(), d_out, want.size(), cudaMemcpyDeviceToHost));
  EXPECT_EQ(got, want);
  cudaFree(d_in);
  cudaFree(d_out);
  pass->reset();
  glDeleteTextures(1, &in2);
  glDeleteTextures(1, &out2);
}

// Measurement, not a check (run with --gtest_also_run_disabled_tests): at 3840x2160 the pass's
// frame against ToneMapper::process on linear memory, GPU time by CUDA events around the whole
// call (nothing pending in GL, so the map waits for nothing), and the host time of map + unmap.
TEST(InteropGl, DISABLED_Overhead4K) {
  REQUIRE_GL();
  const int w = 3840, h = 2160, n = 200;
  const std::vector<float> src = hdr_rgba(w, h);
  for (const Case& k : {Case{"reinhard-sat", GL_RGBA16F, 0.1, true}, Case{"reinhard-sat", GL_RGBA16F, 0.0, true}}) {
    const GLuint in = make_texture(GL_RGBA16F, w, h, src.data());
    const GLuint out = make_texture(GL_RGBA8, w, h);
    auto pass = GlPass::create(pass_config(k, in, out));
    ASSERT_TRUE(pass.ok()) << pass.status().message();
    auto ref = ToneMapper::create((*pass)->mapper().config());
    ASSERT_OK(ref);
    std::vector<unsigned char> texels(std::size_t(w) * h * 8);
    glGetTextureImage(in, 0, GL_RGBA, GL_HALF_FLOAT, static_cast<GLsizei>(texels.size()), texels.data());
    void *d_in = nullptr, *d_out = nullptr;
    CUDA_OK(cudaMalloc(&d_in, texels.size()));
    CUDA_OK(cudaMalloc(&d_out, std::size_t(w) * h * 4));
    CUDA_OK(cudaMemcpy(d_in, texels.data(), texels.size(), cudaMemcpyHostToDevice));
    cudaStream_t s;
    CUDA_OK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    cudaEvent_t e0, e1;
    CUDA_OK(cudaEventCreate(&e0));
    CUDA_OK(cudaEventCreate(&e1));
    std::vector<double> gl_ms, lin_ms, map_ms, unmap_ms;
    for (int i = 0; i < n + 10; ++i) {
      float a = 0, b = 0;
      CUDA_OK(cudaEventRecord(e0, s));
      ASSERT_OK((*pass)->process(s, 1.0 / 60));
      CUDA_OK(cudaEventRecord(e1, s));
      CUDA_OK(cudaEventSynchronize(e1));
      CUDA_OK(cudaEventElapsedTime(&a, e0, e1));
      const GlInteropTimings it = (*pass)->interop_timings();
      CUDA_OK(cudaEventRecord(e0, s));
      ASSERT_OK((*ref)->process(d_in, 0, d_out, 0, s, 1.0 / 60));
      CUDA_OK(cudaEventRecord(e1, s));
      CUDA_OK(cudaEventSynchronize(e1));
      CUDA_OK(cudaEventElapsedTime(&b, e0, e1));
      if (i < 10) continue;
      gl_ms.push_back(a);
      lin_ms.push_back(b);
      map_ms.push_back(it.map_ms);
      unmap_ms.push_back(it.unmap_ms);
    }
    auto med = [](std::vector<double> v) {
      std::sort(v.begin(), v.end());
      return v[v.size() / 2];
    };
    std::printf("overhead4k op=%s glare=%.1f zero_copy=%d | GPU ms: GlPass %.4f, process() on linear memory %.4f, "
                "difference %.4f | host ms: map %.4f unmap %.4f\n",
                k.op, k.glare, (*pass)->mapper().surfaces_zero_copy() ? 1 : 0, med(gl_ms), med(lin_ms),
                med(gl_ms) - med(lin_ms), med(map_ms), med(unmap_ms));
    // Where the difference goes: the ToneMapper's own stage events inside the pass (surface read
    // in the glare stage, surface store in the map) against the linear run's; what is left of
    // the pass's time beyond its stages is the driver's map / unmap work on the stream.
    (*pass)->mapper().enable_timings(true);
    (*ref)->enable_timings(true);
    std::vector<double> gl_total, gl_stages, lin_stages, gl_glare, lin_glare, gl_map, lin_map;
    for (int i = 0; i < 60; ++i) {
      float a = 0;
      CUDA_OK(cudaEventRecord(e0, s));
      ASSERT_OK((*pass)->process(s, 1.0 / 60));
      CUDA_OK(cudaEventRecord(e1, s));
      CUDA_OK(cudaEventSynchronize(e1));
      CUDA_OK(cudaEventElapsedTime(&a, e0, e1));
      StageTimings g, l;
      ASSERT_OK((*pass)->mapper().read_timings(g));
      ASSERT_OK((*ref)->process(d_in, 0, d_out, 0, s, 1.0 / 60));
      ASSERT_OK((*ref)->read_timings(l));
      gl_total.push_back(a);
      gl_stages.push_back(g.glare_ms + g.stats_ms + g.local_ms + g.map_ms);
      lin_stages.push_back(l.glare_ms + l.stats_ms + l.local_ms + l.map_ms);
      gl_glare.push_back(g.glare_ms);
      lin_glare.push_back(l.glare_ms);
      gl_map.push_back(g.map_ms);
      lin_map.push_back(l.map_ms);
    }
    std::printf("overhead4k split op=%s glare=%.1f | GPU ms: pass %.4f = stages %.4f + map/unmap and the rest %.4f | "
                "glare stage %.4f (linear %.4f), map stage %.4f (linear %.4f), all stages linear %.4f\n",
                k.op, k.glare, med(gl_total), med(gl_stages), med(gl_total) - med(gl_stages), med(gl_glare),
                med(lin_glare), med(gl_map), med(lin_map), med(lin_stages));
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    cudaStreamDestroy(s);
    cudaFree(d_in);
    cudaFree(d_out);
    pass->reset();
    glDeleteTextures(1, &in);
    glDeleteTextures(1, &out);
  }
}

}  // namespace
}  // namespace tonekit
