// The renderer's headless OpenGL 4.5 core context through EGL (issue 18 item 3): on NVIDIA the
// GPU's EGL device (EGL_EXT_platform_device, no X server), else the default display with a
// surfaceless context (Mesa's llvmpipe here: software GL, enough to check the scene renders).
// The example's own code, not the library's (target tonekit_egl, which the interop tests share).
#pragma once
#include <EGL/egl.h>

#include <string>

#include "tonekit/status.hpp"

namespace tonekit::egl {

class EglContext {
 public:
  // Makes the context current on the calling thread. `device_index`: which EGL device (-1: the
  // first that gives a context).
  tonekit::Status create(int device_index = -1);
  ~EglContext();
  const std::string& renderer() const { return renderer_; }  // GL_RENDERER
  void* proc(const char* name) const;                       // eglGetProcAddress

 private:
  EGLDisplay display_ = EGL_NO_DISPLAY;
  EGLContext context_ = EGL_NO_CONTEXT;
  std::string renderer_;
};

}  // namespace tonekit::egl
