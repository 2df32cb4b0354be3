// night_drive's window (window.hpp): Xlib through dlopen, EGL on the X11 platform, a blit of the
// tone-mapped texture into the window's framebuffer per frame.
#include "window.hpp"

#include <EGL/eglext.h>
#include <X11/Xlib.h>
#include <X11/keysym.h>
#include <dlfcn.h>
#define GL_GLEXT_PROTOTYPES 1
#include <GL/gl.h>
#include <GL/glext.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <type_traits>

// Xlib's macros that collide with tonekit's names (tonekit::Status).
#undef Status

namespace night_drive {
namespace {

using tonekit::Status;
using tonekit::StatusCode;

// The Xlib calls used, from libX11.so.6.
struct Xlib {
  Display* (*open_display)(const char*) = nullptr;
  int (*close_display)(Display*) = nullptr;
  ::Window (*create_simple_window)(Display*, ::Window, int, int, unsigned, unsigned, unsigned, unsigned long,
                                   unsigned long) = nullptr;
  int (*destroy_window)(Display*, ::Window) = nullptr;
  int (*store_name)(Display*, ::Window, const char*) = nullptr;
  Atom (*intern_atom)(Display*, const char*, Bool) = nullptr;
  int (*set_wm_protocols)(Display*, ::Window, Atom*, int) = nullptr;  // Xlib's Status
  int (*select_input)(Display*, ::Window, long) = nullptr;
  int (*map_window)(Display*, ::Window) = nullptr;
  int (*pending)(Display*) = nullptr;
  int (*next_event)(Display*, XEvent*) = nullptr;
  KeySym (*lookup_keysym)(XKeyEvent*, int) = nullptr;
  int (*default_screen)(Display*) = nullptr;
  ::Window (*root_window)(Display*, int) = nullptr;
  std::string why;
};

const Xlib& xlib() {
  static const Xlib api = [] {
    Xlib x;
    void* lib = dlopen("libX11.so.6", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      x.why = "libX11.so.6 not found";
      return x;
    }
    auto sym = [&](auto& fn, const char* name) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(lib, name));
      if (!fn && x.why.empty()) x.why = std::string("libX11 lacks ") + name;
    };
    sym(x.open_display, "XOpenDisplay");
    sym(x.close_display, "XCloseDisplay");
    sym(x.create_simple_window, "XCreateSimpleWindow");
    sym(x.destroy_window, "XDestroyWindow");
    sym(x.store_name, "XStoreName");
    sym(x.intern_atom, "XInternAtom");
    sym(x.set_wm_protocols, "XSetWMProtocols");
    sym(x.select_input, "XSelectInput");
    sym(x.map_window, "XMapWindow");
    sym(x.pending, "XPending");
    sym(x.next_event, "XNextEvent");
    sym(x.lookup_keysym, "XLookupKeysym");
    sym(x.default_screen, "XDefaultScreen");
    sym(x.root_window, "XRootWindow");
    return x;
  }();
  return api;
}

Status egl_error(const char* what) {
  return Status{StatusCode::runtime_error, std::string("window: ") + what + " failed (EGL error 0x" +
                                               std::to_string(eglGetError()) + ")"};
}

}  // namespace

struct Window::Impl {
  Display* x = nullptr;
  ::Window window = 0;
  Atom wm_delete = 0;
  EGLDisplay display = EGL_NO_DISPLAY;
  EGLContext context = EGL_NO_CONTEXT;
  EGLSurface surface = EGL_NO_SURFACE;
  int width = 0, height = 0;
  GLuint read_fbo = 0;
  unsigned attached = 0;  // the texture attached to read_fbo
  bool open = true;

  ~Impl() {
    if (read_fbo) glDeleteFramebuffers(1, &read_fbo);
    if (display != EGL_NO_DISPLAY) {
      eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
      if (surface != EGL_NO_SURFACE) eglDestroySurface(display, surface);
      if (context != EGL_NO_CONTEXT) eglDestroyContext(display, context);
      eglTerminate(display);
    }
    if (x) {
      if (window) xlib().destroy_window(x, window);
      xlib().close_display(x);
    }
  }
};

bool display_available() {
  const char* d = std::getenv("DISPLAY");
  return d && *d;
}

Window::Window(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Window::~Window() = default;

tonekit::Result<std::unique_ptr<Window>> Window::open(int width, int height, const std::string& title, bool vsync,
                                                       const char* display_name) {
  const Xlib& X = xlib();
  if (!X.why.empty()) return Status{StatusCode::unsupported, "window: " + X.why};
  auto m = std::make_unique<Impl>();
  m->width = width;
  m->height = height;
  m->x = X.open_display(display_name);
  if (!m->x) return Status{StatusCode::unsupported, "window: cannot open the X display (DISPLAY is not reachable)"};
  const int screen = X.default_screen(m->x);
  m->window = X.create_simple_window(m->x, X.root_window(m->x, screen), 0, 0, static_cast<unsigned>(width),
                                     static_cast<unsigned>(height), 0, 0, 0);
  X.store_name(m->x, m->window, title.c_str());
  m->wm_delete = X.intern_atom(m->x, "WM_DELETE_WINDOW", False);
  X.set_wm_protocols(m->x, m->window, &m->wm_delete, 1);
  X.select_input(m->x, m->window, KeyPressMask | StructureNotifyMask);
  X.map_window(m->x, m->window);

  auto platform_display = reinterpret_cast<PFNEGLGETPLATFORMDISPLAYEXTPROC>(eglGetProcAddress("eglGetPlatformDisplayEXT"));
  m->display = platform_display ? platform_display(EGL_PLATFORM_X11_KHR, m->x, nullptr)
                                : eglGetDisplay(reinterpret_cast<EGLNativeDisplayType>(m->x));
  if (m->display == EGL_NO_DISPLAY) return egl_error("eglGetPlatformDisplay (X11)");
  EGLint major = 0, minor = 0;
  if (!eglInitialize(m->display, &major, &minor)) return egl_error("eglInitialize");
  if (!eglBindAPI(EGL_OPENGL_API)) return egl_error("eglBindAPI");
  const EGLint config_attribs[] = {EGL_SURFACE_TYPE, EGL_WINDOW_BIT, EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT,
                                   EGL_RED_SIZE, 8, EGL_GREEN_SIZE, 8, EGL_BLUE_SIZE, 8, EGL_NONE};
  EGLConfig config = nullptr;
  EGLint n = 0;
  if (!eglChooseConfig(m->display, config_attribs, &config, 1, &n) || n < 1) return egl_error("eglChooseConfig (window)");
  const EGLint ctx_attribs[] = {EGL_CONTEXT_MAJOR_VERSION, 4, EGL_CONTEXT_MINOR_VERSION, 5,
                                EGL_CONTEXT_OPENGL_PROFILE_MASK, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT, EGL_NONE};
  m->context = eglCreateContext(m->display, config, EGL_NO_CONTEXT, ctx_attribs);
  if (m->context == EGL_NO_CONTEXT) return egl_error("eglCreateContext (OpenGL 4.5 core)");
  m->surface = eglCreateWindowSurface(m->display, config, static_cast<EGLNativeWindowType>(m->window), nullptr);
  if (m->surface == EGL_NO_SURFACE) return egl_error("eglCreateWindowSurface");
  if (!eglMakeCurrent(m->display, m->surface, m->surface, m->context)) return egl_error("eglMakeCurrent");
  eglSwapInterval(m->display, vsync ? 1 : 0);
  glCreateFramebuffers(1, &m->read_fbo);
  return std::unique_ptr<Window>(new Window(std::move(m)));
}

Status Window::present(unsigned texture, int texture_width, int texture_height) {
  Impl& m = *impl_;
  if (m.attached != texture) {
    glNamedFramebufferTexture(m.read_fbo, GL_COLOR_ATTACHMENT0, texture, 0);
    glNamedFramebufferReadBuffer(m.read_fbo, GL_COLOR_ATTACHMENT0);
    m.attached = texture;
  }
  // The frame scaled to fit the window, centred, the rest black.
  const double scale = std::min(double(m.width) / texture_width, double(m.height) / texture_height);
  const int w = static_cast<int>(texture_width * scale), h = static_cast<int>(texture_height * scale);
  const int x0 = (m.width - w) / 2, y0 = (m.height - h) / 2;
  glBindFramebuffer(GL_DRAW_FRAMEBUFFER, 0);
  glViewport(0, 0, m.width, m.height);
  glClearColor(0, 0, 0, 1);
  glClear(GL_COLOR_BUFFER_BIT);
  glBlitNamedFramebuffer(m.read_fbo, 0, 0, 0, texture_width, texture_height, x0, y0, x0 + w, y0 + h,
                         GL_COLOR_BUFFER_BIT, GL_LINEAR);
  if (const GLenum e = glGetError(); e != GL_NO_ERROR)
    return Status{StatusCode::runtime_error, "window: the blit failed (GL error 0x" + std::to_string(e) + ")"};
  if (!eglSwapBuffers(m.display, m.surface)) return egl_error("eglSwapBuffers");
  return {};
}

bool Window::open_still() {
  Impl& m = *impl_;
  const Xlib& X = xlib();
  while (m.open && X.pending(m.x) > 0) {
    XEvent e;
    X.next_event(m.x, &e);
    if (e.type == ClientMessage && static_cast<Atom>(e.xclient.data.l[0]) == m.wm_delete) m.open = false;
    if (e.type == KeyPress) {
      const KeySym k = X.lookup_keysym(&e.xkey, 0);
      if (k == XK_Escape || k == XK_q) m.open = false;
    }
    if (e.type == ConfigureNotify) {
      m.width = e.xconfigure.width;
      m.height = e.xconfigure.height;
    }
  }
  return m.open;
}

}  // namespace night_drive
