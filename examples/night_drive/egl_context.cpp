#include "egl_context.hpp"

#include <EGL/eglext.h>
#define GL_GLEXT_PROTOTYPES 1
#include <GL/gl.h>

#include <vector>

namespace tonekit::egl {
namespace {

EGLContext make_context(EGLDisplay display) {
  EGLint major = 0, minor = 0;
  if (!eglInitialize(display, &major, &minor)) return EGL_NO_CONTEXT;
  if (!eglBindAPI(EGL_OPENGL_API)) return EGL_NO_CONTEXT;
  const EGLint config_attribs[] = {EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT, EGL_NONE};
  EGLConfig config = nullptr;
  EGLint n = 0;
  if (!eglChooseConfig(display, config_attribs, &config, 1, &n) || n < 1) {
    // Surfaceless displays may offer no pbuffer config: any OpenGL one will do (we render to FBOs).
    const EGLint any[] = {EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT, EGL_NONE};
    if (!eglChooseConfig(display, any, &config, 1, &n) || n < 1) config = nullptr;
  }
  const EGLint ctx_attribs[] = {EGL_CONTEXT_MAJOR_VERSION, 4, EGL_CONTEXT_MINOR_VERSION, 5,
                                EGL_CONTEXT_OPENGL_PROFILE_MASK, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT, EGL_NONE};
  EGLContext ctx = eglCreateContext(display, config, EGL_NO_CONTEXT, ctx_attribs);
  if (ctx == EGL_NO_CONTEXT) return ctx;
  if (!eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, ctx)) {  // EGL_KHR_surfaceless_context
    eglDestroyContext(display, ctx);
    return EGL_NO_CONTEXT;
  }
  return ctx;
}

}  // namespace

tonekit::Status EglContext::create(int device_index) {
  auto query_devices = reinterpret_cast<PFNEGLQUERYDEVICESEXTPROC>(eglGetProcAddress("eglQueryDevicesEXT"));
  auto platform_display = reinterpret_cast<PFNEGLGETPLATFORMDISPLAYEXTPROC>(eglGetProcAddress("eglGetPlatformDisplayEXT"));
  if (query_devices && platform_display) {
    EGLint n = 0;
    query_devices(0, nullptr, &n);
    std::vector<EGLDeviceEXT> devices(n > 0 ? n : 0);
    if (n > 0) query_devices(n, devices.data(), &n);
    for (EGLint i = 0; i < n && context_ == EGL_NO_CONTEXT; ++i) {
      if (device_index >= 0 && i != device_index) continue;
      EGLDisplay d = platform_display(EGL_PLATFORM_DEVICE_EXT, devices[i], nullptr);
      if (d == EGL_NO_DISPLAY) continue;
      EGLContext c = make_context(d);
      if (c != EGL_NO_CONTEXT) {
        display_ = d;
        context_ = c;
      } else {
        eglTerminate(d);
      }
    }
  }
  if (context_ == EGL_NO_CONTEXT) {
    EGLDisplay d = eglGetDisplay(EGL_DEFAULT_DISPLAY);
    if (d != EGL_NO_DISPLAY) {
      EGLContext c = make_context(d);
      if (c != EGL_NO_CONTEXT) {
        display_ = d;
        context_ = c;
      }
    }
  }
  if (context_ == EGL_NO_CONTEXT)
    return tonekit::Status{tonekit::StatusCode::no_device,
                           "EGL: no OpenGL 4.5 core context (EGL error 0x" + std::to_string(eglGetError()) + ")"};
  const char* r = reinterpret_cast<const char*>(glGetString(GL_RENDERER));
  renderer_ = r ? r : "?";
  return {};
}

EglContext::~EglContext() {
  if (display_ != EGL_NO_DISPLAY) {
    eglMakeCurrent(display_, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    if (context_ != EGL_NO_CONTEXT) eglDestroyContext(display_, context_);
    eglTerminate(display_);
  }
}

void* EglContext::proc(const char* name) const { return reinterpret_cast<void*>(eglGetProcAddress(name)); }

}  // namespace tonekit::egl
