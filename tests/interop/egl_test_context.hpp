// One headless EGL context for a whole interop test binary (current on the test thread), shared
// by the GL pass and hand-over tests: null, with the reason in `why`, where none can be made.
#pragma once
#include <string>

#include "egl_context.hpp"

namespace tonekit::interop_test {

inline egl::EglContext* egl_test_context(std::string& why) {
  static egl::EglContext* ctx = nullptr;
  static std::string reason;
  static bool tried = false;
  if (!tried) {
    tried = true;
    auto* c = new egl::EglContext();
    if (Status s = c->create(); !s.ok()) {
      reason = "no EGL OpenGL 4.5 context: " + s.message();
      delete c;
    } else {
      ctx = c;
    }
  }
  why = reason;
  return ctx;
}

}  // namespace tonekit::interop_test
