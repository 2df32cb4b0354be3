// OpenGL pass: tone maps a renderer's HDR colour texture into a display
// texture with zero copies, through CUDA graphics interop. Built when the CUDA backend and the
// OpenGL headers are found (target tonekit_gl).
//
// The input texture (GL_TEXTURE_2D, GL_RGBA16F or GL_RGBA32F: the renderer's scene-linear
// BT.709 colour buffer) and the output texture (GL_RGBA8, or GL_SRGB8_ALPHA8 with immutable
// storage: it is written through a GL_RGBA8 view of the same storage) are registered once with
// CUDA. Each process() maps both on the caller's stream in one call, runs the ToneMapper reading
// and writing the textures' own memory through surface objects (ToneMapper::process_surfaces:
// no staging copy with glare on and a local operator; the measured fallbacks are listed there),
// and unmaps them. The output bytes are sRGB-encoded (gamma 0): GL_SRGB8_ALPHA8 samples them back
// to linear, a GL_RGBA8 texture holds display-ready values.
//
// Synchronisation with GL (no fence missing, no glFinish): the GL context that owns the textures
// must be current on the calling thread. cudaGraphicsMapResources orders the stream's work after
// every GL command issued before the call (the renderer's draw into the input texture), and
// cudaGraphicsUnmapResources orders every GL command issued after it (sampling or reading the
// output) after the stream's work issued before it; neither side waits on the host for the GPU.
// Between process()'s map and unmap GL must not touch either texture; it returns only after the
// unmap, so a single-threaded render loop meets that by construction.
//
// Host cost: map + unmap are the fewest calls CUDA-GL interop allows; what they cost depends on
// the GL driver's per-process state, not on the host or the CUDA scheduling mode
// (docs/performance.md, "Renderer interop"). A renderer that needs a host cost it can rely on
// can hand its frames over through VulkanPass, whose semaphore calls stay within the 0.02 ms goal.
#pragma once
#include <cstddef>
#include <memory>

#include "tonekit/tone_mapper.hpp"

namespace tonekit {

// The textures, and the look (the base, as ToneMapperConfig's; width, height and formats come from GL).
struct GlPassConfig : Look {
  unsigned input_texture = 0;   // GL texture name (GLuint)
  unsigned output_texture = 0;  // GL texture name (GLuint), the same size as the input
  bool timings = false;  // the ToneMapper's per-stage CUDA events
  int device = -1;       // -1: the CUDA device of the current GL context
};

// Host wall-clock of the last frame's interop calls (what the render thread pays).
struct GlInteropTimings {
  double map_ms = 0.0;    // cudaGraphicsMapResources + the mapped arrays (+ surface objects when they changed)
  double unmap_ms = 0.0;  // cudaGraphicsUnmapResources
};

class GlPass {
 public:
  // Needs a current GL context on a CUDA device. Errors: a texture that is not a 2D texture, of
  // another format or another size -> invalid_argument naming it; a software GL (no CUDA device
  // behind the context) -> no_device.
  static Result<std::unique_ptr<GlPass>> create(const GlPassConfig& config);
  ~GlPass();
  GlPass(const GlPass&) = delete;
  GlPass& operator=(const GlPass&) = delete;

  // One frame: map, tone map, unmap (asynchronous on `stream`; nullptr = the legacy default stream).
  Status process(CUstream_st* stream = nullptr, double dt_seconds = 0.0);
  // New textures (a resize): unregisters the old ones, registers these; another size recreates
  // the ToneMapper with the same look, keeping the temporal state. Synchronises.
  Status set_textures(unsigned input_texture, unsigned output_texture);

  ToneMapper& mapper();  // parameters, glare, temporal, timings, statistics
  int width() const;
  int height() const;
  GlInteropTimings interop_timings() const;

 private:
  struct Impl;
  explicit GlPass(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace tonekit
