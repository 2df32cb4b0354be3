// tonekit::GlPass (include/tonekit/gl.hpp): CUDA graphics interop around
// ToneMapper::process_surfaces. Synchronisation is the interop API's own (stated in gl.hpp).
#define GL_GLEXT_PROTOTYPES 1
#include <GL/gl.h>
#include <GL/glext.h>
#include <cuda_gl_interop.h>
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <string>

#include "cuda/check.hpp"
#include "tonekit/gl.hpp"

namespace tonekit {
namespace {

std::string hex(int v) {
  char b[16];
  std::snprintf(b, sizeof b, "0x%04X", static_cast<unsigned>(v));
  return b;
}

const char* gl_format_name(int f) {
  switch (f) {
    case GL_RGBA16F: return "GL_RGBA16F";
    case GL_RGBA32F: return "GL_RGBA32F";
    case GL_RGBA8: return "GL_RGBA8";
    case GL_SRGB8_ALPHA8: return "GL_SRGB8_ALPHA8";
    case GL_RGB8: return "GL_RGB8";
    case GL_RGB16F: return "GL_RGB16F";
    case GL_RGB32F: return "GL_RGB32F";
    case GL_R11F_G11F_B10F: return "GL_R11F_G11F_B10F";
    case GL_RGBA16: return "GL_RGBA16";
    default: return "another format";
  }
}

// Format and size of level 0 of a 2D texture (GL 4.5 direct state access).
struct TextureInfo {
  int format = 0, width = 0, height = 0;
  bool immutable = false;
};

Status query_texture(unsigned tex, const char* role, TextureInfo& info) {
  while (glGetError() != GL_NO_ERROR) {
  }
  if (tex == 0 || !glIsTexture(tex))
    return invalid_argument(std::string("GlPass: the ") + role + " texture " + std::to_string(tex) +
                            " is not a GL texture name");
  GLint target = 0, immutable = 0;
  glGetTextureParameteriv(tex, GL_TEXTURE_TARGET, &target);
  glGetTextureLevelParameteriv(tex, 0, GL_TEXTURE_INTERNAL_FORMAT, &info.format);
  glGetTextureLevelParameteriv(tex, 0, GL_TEXTURE_WIDTH, &info.width);
  glGetTextureLevelParameteriv(tex, 0, GL_TEXTURE_HEIGHT, &info.height);
  glGetTextureParameteriv(tex, GL_TEXTURE_IMMUTABLE_FORMAT, &immutable);
  if (const GLenum e = glGetError(); e != GL_NO_ERROR)
    return invalid_argument(std::string("GlPass: querying the ") + role + " texture " + std::to_string(tex) +
                            " failed (GL error " + hex(static_cast<int>(e)) + "; is a GL 4.5 context current?)");
  if (target != GL_TEXTURE_2D)
    return invalid_argument(std::string("GlPass: the ") + role + " texture " + std::to_string(tex) +
                            " is not a GL_TEXTURE_2D");
  info.immutable = immutable != 0;
  return {};
}

struct Registered {
  cudaGraphicsResource_t resource = nullptr;
  unsigned view = 0;  // the GL_RGBA8 view of a GL_SRGB8_ALPHA8 output (ours)
  cudaArray_t array = nullptr;
  cudaSurfaceObject_t surface = 0;

  void release() {
    if (surface) cudaDestroySurfaceObject(surface);
    if (resource) cudaGraphicsUnregisterResource(resource);
    if (view) glDeleteTextures(1, &view);
    *this = Registered{};
  }
};

}  // namespace

struct GlPass::Impl {
  GlPassConfig cfg;
  std::unique_ptr<ToneMapper> mapper;
  InputFormat input = InputFormat::rgba_f16;
  int width = 0, height = 0;
  Registered in, out;
  GlInteropTimings last{};

  ~Impl() {
    in.release();
    out.release();
  }

  Status register_textures(unsigned input_texture, unsigned output_texture, TextureInfo& ti) {
    TextureInfo to;
    if (Status s = query_texture(input_texture, "input", ti); !s.ok()) return s;
    if (Status s = query_texture(output_texture, "output", to); !s.ok()) return s;
    if (ti.format != GL_RGBA16F && ti.format != GL_RGBA32F)
      return invalid_argument("GlPass: the input texture " + std::to_string(input_texture) + " is " +
                              gl_format_name(ti.format) + " (" + hex(ti.format) +
                              "); it must be GL_RGBA16F or GL_RGBA32F");
    if (to.format != GL_RGBA8 && to.format != GL_SRGB8_ALPHA8)
      return invalid_argument("GlPass: the output texture " + std::to_string(output_texture) + " is " +
                              gl_format_name(to.format) + " (" + hex(to.format) +
                              "); it must be GL_RGBA8 or GL_SRGB8_ALPHA8");
    if (ti.width != to.width || ti.height != to.height)
      return invalid_argument("GlPass: the input texture is " + std::to_string(ti.width) + "x" +
                              std::to_string(ti.height) + ", the output " + std::to_string(to.width) + "x" +
                              std::to_string(to.height) + "; they must be the same size");
    if (ti.width < 1 || ti.height < 1) return invalid_argument("GlPass: the textures have no storage (level 0 is empty)");
    Registered ni, no;
    unsigned out_name = output_texture;
    if (to.format == GL_SRGB8_ALPHA8) {
      // CUDA registers GL_RGBA8 but not GL_SRGB8_ALPHA8: a view reinterprets the same storage.
      if (!to.immutable)
        return invalid_argument("GlPass: a GL_SRGB8_ALPHA8 output texture needs immutable storage (glTexStorage2D) "
                                "so that it can be written through a GL_RGBA8 view");
      glGenTextures(1, &no.view);
      glTextureView(no.view, GL_TEXTURE_2D, output_texture, GL_RGBA8, 0, 1, 0, 1);
      if (const GLenum e = glGetError(); e != GL_NO_ERROR) {
        no.release();
        return invalid_argument("GlPass: glTextureView of the output texture failed (GL error " +
                                hex(static_cast<int>(e)) + ")");
      }
      out_name = no.view;
    }
    auto fail = [&](Status s) {
      ni.release();
      no.release();
      return s;
    };
    auto reg = [](cudaGraphicsResource_t* r, unsigned tex) -> Status {
      TK_CUDA_CHECK(cudaGraphicsGLRegisterImage(r, tex, GL_TEXTURE_2D, cudaGraphicsRegisterFlagsSurfaceLoadStore));
      return {};
    };
    if (Status s = reg(&ni.resource, input_texture); !s.ok()) return fail(s);
    if (Status s = reg(&no.resource, out_name); !s.ok()) return fail(s);
    auto flags = [](cudaGraphicsResource_t r, unsigned f) -> Status {
      TK_CUDA_CHECK(cudaGraphicsResourceSetMapFlags(r, f));
      return {};
    };
    if (Status s = flags(ni.resource, cudaGraphicsMapFlagsReadOnly); !s.ok()) return fail(s);
    if (Status s = flags(no.resource, cudaGraphicsMapFlagsWriteDiscard); !s.ok()) return fail(s);
    in.release();
    out.release();
    in = ni;
    out = no;
    return {};
  }

  ToneMapperConfig mapper_config() const {
    ToneMapperConfig c;
    c.width = width;
    c.height = height;
    c.input = input;
    c.output = OutputFormat{PixelType::u8, 4};
    c.device = cfg.device;
    c.timings = cfg.timings;
    static_cast<Look&>(c) = cfg;
    return c;
  }

  // The surface object of a mapped resource: the array may move between maps, so it is looked
  // up each frame and the surface recreated only when it did.
  static Status surface_of(Registered& r) {
    cudaArray_t a = nullptr;
    TK_CUDA_CHECK(cudaGraphicsSubResourceGetMappedArray(&a, r.resource, 0, 0));
    if (a == r.array && r.surface) return {};
    if (r.surface) TK_CUDA_CHECK(cudaDestroySurfaceObject(r.surface));
    r.surface = 0;
    cudaResourceDesc d{};
    d.resType = cudaResourceTypeArray;
    d.res.array.array = a;
    TK_CUDA_CHECK(cudaCreateSurfaceObject(&r.surface, &d));
    r.array = a;
    return {};
  }
};

GlPass::GlPass(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
GlPass::~GlPass() = default;

Result<std::unique_ptr<GlPass>> GlPass::create(const GlPassConfig& config) {
  if (Status s = cuda::select_device(-1, "GlPass"); !s.ok()) return s;
  // The CUDA device behind the current GL context (none: a software renderer, or no context).
  unsigned count = 0;
  int devices[4] = {};
  if (cudaGLGetDevices(&count, devices, 4, cudaGLDeviceListAll) != cudaSuccess || count == 0) {
    cudaGetLastError();
    return Status{StatusCode::no_device,
                  "GlPass: the current GL context is not on a CUDA device (no context current, or a software renderer)"};
  }
  auto impl = std::make_unique<Impl>();
  impl->cfg = config;
  if (impl->cfg.device < 0) impl->cfg.device = devices[0];
  TK_CUDA_CHECK(cudaSetDevice(impl->cfg.device));
  TextureInfo ti;
  if (Status s = impl->register_textures(config.input_texture, config.output_texture, ti); !s.ok()) return s;
  impl->input = ti.format == GL_RGBA16F ? InputFormat::rgba_f16 : InputFormat::rgba_f32;
  impl->width = ti.width;
  impl->height = ti.height;
  auto m = ToneMapper::create(impl->mapper_config());
  if (!m.ok()) return m.status();
  impl->mapper = std::move(m.value());
  return std::unique_ptr<GlPass>(new GlPass(std::move(impl)));
}

Status GlPass::process(CUstream_st* stream, double dt) {
  Impl& m = *impl_;
  using clock = std::chrono::steady_clock;
  cudaGraphicsResource_t res[2] = {m.in.resource, m.out.resource};
  const auto t0 = clock::now();
  TK_CUDA_CHECK(cudaGraphicsMapResources(2, res, stream));
  Status st = Impl::surface_of(m.in);
  if (st.ok()) st = Impl::surface_of(m.out);
  const auto t1 = clock::now();
  if (st.ok()) st = m.mapper->process_surfaces(m.in.surface, m.out.surface, stream, dt);
  const auto t2 = clock::now();
  // Unmapped whatever happened, so GL gets its textures back.
  const cudaError_t e = cudaGraphicsUnmapResources(2, res, stream);
  const auto t3 = clock::now();
  m.last.map_ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
  m.last.unmap_ms = std::chrono::duration<double, std::milli>(t3 - t2).count();
  if (!st.ok()) return st;
  TK_CUDA_CHECK(e);
  return {};
}

Status GlPass::set_textures(unsigned input_texture, unsigned output_texture) {
  Impl& m = *impl_;
  TK_CUDA_CHECK(cudaDeviceSynchronize());  // no frame in flight reads the old textures
  TextureInfo ti;
  if (Status s = m.register_textures(input_texture, output_texture, ti); !s.ok()) return s;
  const InputFormat input = ti.format == GL_RGBA16F ? InputFormat::rgba_f16 : InputFormat::rgba_f32;
  m.cfg.input_texture = input_texture;
  m.cfg.output_texture = output_texture;
  if (ti.width == m.width && ti.height == m.height && input == m.input) return {};
  // Another size or format: a new ToneMapper with the current look and the temporal state.
  // The look as set_params / set_glare / set_temporal left it since create().
  static_cast<Look&>(m.cfg) = m.mapper->config();
  TemporalState state{};
  const bool keep = m.cfg.temporal;
  if (keep)
    if (Status s = m.mapper->read_temporal_state(state); !s.ok()) return s;
  m.width = ti.width;
  m.height = ti.height;
  m.input = input;
  m.mapper.reset();  // its memory back before the new one takes its own
  auto mapper = ToneMapper::create(m.mapper_config());
  if (!mapper.ok()) return mapper.status();
  m.mapper = std::move(mapper.value());
  if (keep) return m.mapper->seed_temporal(state);
  return {};
}

ToneMapper& GlPass::mapper() { return *impl_->mapper; }
int GlPass::width() const { return impl_->width; }
int GlPass::height() const { return impl_->height; }
GlInteropTimings GlPass::interop_timings() const { return impl_->last; }

}  // namespace tonekit
