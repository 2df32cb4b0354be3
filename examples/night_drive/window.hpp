// The renderer's window when a display exists (issue 18 item 3: "headless; a window when a
// display exists"): an X11 window with an OpenGL 4.5 core context through EGL's X11 platform,
// made current on the calling thread in place of the headless context. libX11 is opened at run
// time (dlopen), so the renderer has no link dependency on it and runs headless without it.
#pragma once
#include <EGL/egl.h>

#include <memory>
#include <string>

#include "tonekit/status.hpp"

namespace night_drive {

class Window {
 public:
  // Opens $DISPLAY (or `display_name`), a window of width x height titled `title`; vsync off
  // unless asked (the timings are the renderer's, not the display's refresh).
  static tonekit::Result<std::unique_ptr<Window>> open(int width, int height, const std::string& title, bool vsync,
                                                       const char* display_name = nullptr);
  ~Window();
  Window(const Window&) = delete;
  Window& operator=(const Window&) = delete;
  // Draws the RGBA8 (or any colour-renderable) texture `texture` (texture_width x texture_height)
  // scaled into the window, then swaps. GL commands only: ordered after the tone map's unmap.
  tonekit::Status present(unsigned texture, int texture_width, int texture_height);
  // Handles pending window events; false once the window was closed (its close button, Escape or q).
  bool open_still();

 private:
  struct Impl;
  explicit Window(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// True when a window can be tried: $DISPLAY is set.
bool display_available();

}  // namespace night_drive
