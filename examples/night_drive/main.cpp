// night_drive: a real-time HDR renderer of the thesis seed's night drive (issue 18 item 3). Renders
// with OpenGL through EGL (headless) into an RGBA16F colour buffer, tone maps each frame on the GPU
// through tonekit::GlPass (zero copy; reinhard-sat, glare and temporal adaptation by default) or,
// with --vulkan, through tonekit::VulkanPass with the frames handed over in Vulkan-allocated
// memory (vulkan_handover.hpp), and writes PNGs and/or y4m. Prints per-frame timings (render: GL
// timer query; tone map: the ToneMapper's CUDA events; submit: the host time of the glFlush that
// submits the drawn frame before the hand-over; map/unmap: host clock, with --vulkan the GL and
// CUDA semaphore calls before and after the frame) and a summary with
// medians and the frame rate, then (--throughput N) N more frames with no timing at all for the
// frame rate a display loop would see. --backend cpu tone maps a read-back on the CPU (no CUDA:
// Mesa's llvmpipe checks the scene).
#define GL_GLEXT_PROTOTYPES 1
#include <GL/gl.h>
#include <GL/glext.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "egl_context.hpp"
#include "frame_output.hpp"
#include "options.hpp"
#include "scene.hpp"
#include "window.hpp"
#include "tonekit/blur.hpp"
#include "tonekit/operators.hpp"
#include "tonekit/tonemap.hpp"
#if TONEKIT_NIGHT_DRIVE_CUDA
#include <cuda_runtime.h>

#include "tonekit/gl.hpp"
#endif
#if TONEKIT_NIGHT_DRIVE_VULKAN
#include "vulkan_handover.hpp"
#endif

using namespace tonekit;
using namespace night_drive;

namespace {

struct Options {
  std::string size = "1920x1080";
  int frames = 300;
  int fps = 30;
  int warmup = 10;
  int throughput = 0;
  std::string op = "reinhard-sat";
  std::vector<std::string> settings;
  GlareParams glare{0.1};
  bool no_night = false;                   // night vision is on by default (issue 36)
  std::vector<std::string> night_settings;  // --night-set NAME=VALUE
  bool no_temporal = false;
  std::string backend = "gl";
  bool vulkan = false;
  std::string handover = "auto";
  std::string png, y4m;
  int every = 1;
  bool quiet = false;
  double start = 0.0;
  bool window = false;    // --window: a window is required
  bool headless = false;  // --headless: never a window
  bool vsync = false;
  std::string cuda_schedule = "auto";
};

// The q-quantile (0..1) of v, nearest rank (element floor(q n) of the sorted values).
double percentile(std::vector<double> v, double q) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<std::size_t>(q * static_cast<double>(v.size())))];
}
double median(const std::vector<double>& v) { return percentile(v, 0.5); }

// GL timer queries, read a frame late so that reading never waits.
class GlTimer {
 public:
  GlTimer() { glGenQueries(2, q_); }
  ~GlTimer() { glDeleteQueries(2, q_); }
  void begin(int frame) { glBeginQuery(GL_TIME_ELAPSED, q_[frame & 1]); }
  void end() { glEndQuery(GL_TIME_ELAPSED); }
  double ms(int frame) {
    GLuint64 ns = 0;
    glGetQueryObjectui64v(q_[frame & 1], GL_QUERY_RESULT, &ns);
    return ns * 1e-6;
  }

 private:
  GLuint q_[2];
};

struct FrameTimes {
  std::vector<double> render, copy, tonemap, map, unmap, frame, submit;
  std::vector<double> pass;          // the pass's own calls (GL: map + unmap; Vulkan: CUDA's wait + signal)
  std::vector<double> handover;      // the rest of map + unmap: the renderer's own calls (--vulkan: GL's semaphores)
  std::vector<double> free_interop;  // map + unmap host ms in the throughput loop (no timer or event reads)
  std::vector<double> free_pass;     // the pass's own calls there
};

// Host speed at this moment: microseconds for a fixed chain of 2^20 dependent integer steps
// (median of 7). The interop figures are host time; this says how fast the host ran them.
double host_probe_us() {
  std::vector<double> t;
  volatile std::uint64_t sink = 0;
  for (int k = 0; k < 7; ++k) {
    std::uint64_t x = 0x9E3779B97F4A7C15ull + static_cast<std::uint64_t>(k);
    const auto a = std::chrono::steady_clock::now();
    for (int i = 0; i < (1 << 20); ++i) x = x * 6364136223846793005ull + 1442695040888963407ull;
    const auto b = std::chrono::steady_clock::now();
    sink = sink + x;
    t.push_back(std::chrono::duration<double, std::micro>(b - a).count());
  }
  return median(t);
}

int run(const Options& o) {
  auto size = parse_size(o.size);
  if (!size.ok()) return report(size.status());
  const int W = size->first, H = size->second;
  const std::string backend = o.vulkan ? "vulkan" : o.backend;
  if (backend != "gl" && backend != "vulkan" && backend != "cpu" && backend != "none")
    return report(invalid_argument("--backend must be gl, vulkan, cpu or none (render only)"));
  if (o.handover != "auto" && o.handover != "images" && o.handover != "rows" && o.handover != "copy")
    return report(invalid_argument("--handover must be auto, images, rows or copy"));
  if (o.cuda_schedule != "auto" && o.cuda_schedule != "spin" && o.cuda_schedule != "yield" &&
      o.cuda_schedule != "blocking")
    return report(invalid_argument("--cuda-schedule must be auto, spin, yield or blocking"));
  // Thesis 7.1: night driving scenes want a key of 0.72-1.0; --set key=... overrides it. Only
  // for operators that have a key (local-laplacian, the display curves have none).
  std::vector<std::string> settings;
  if (const OperatorDesc* desc = find_operator(o.op))
    for (const ParamDesc* p : all_params(*desc))
      if (std::string(p->name) == "key") settings.push_back("key=0.72");
  settings.insert(settings.end(), o.settings.begin(), o.settings.end());
  auto params = params_from_settings(o.op, settings);
  if (!params.ok()) return report(params.status());
  auto night = night_from_settings(o.no_night, o.night_settings);
  if (!night.ok()) return report(night.status());

  // A window when a display exists (or --window), else the headless context. The window shows
  // the frames scaled to fit 1920x1080.
  egl::EglContext gl;
  std::unique_ptr<night_drive::Window> window;
  if (!o.headless && (o.window || night_drive::display_available())) {
    const double fit = std::min({1.0, 1920.0 / W, 1080.0 / H});
    auto w = night_drive::Window::open(std::max(1, int(W * fit)), std::max(1, int(H * fit)), "tonekit night_drive",
                                       o.vsync);
    if (w.ok()) {
      window = std::move(w.value());
      std::fprintf(stderr, "night_drive: window %dx%d on %s (close it, Escape or q to stop)\n", std::max(1, int(W * fit)),
                   std::max(1, int(H * fit)), std::getenv("DISPLAY") ? std::getenv("DISPLAY") : "the default display");
    } else if (o.window) {
      return report(w.status());
    } else {
      std::fprintf(stderr, "night_drive: no window (%s): headless\n", w.status().message().c_str());
    }
  }
  if (!window)
    if (Status s = gl.create(); !s.ok()) return report(s);
  const char* gl_renderer = reinterpret_cast<const char*>(glGetString(GL_RENDERER));
  const std::string renderer = gl_renderer ? gl_renderer : "?";
  night_drive::Scene scene;
  if (Status s = scene.create(W, H); !s.ok()) return report(s);
  std::fprintf(stderr, "night_drive: %dx%d, GL %s, backend %s, %s, glare %.3g, night %s, temporal %s\n", W, H,
               renderer.c_str(), backend.c_str(), o.op.c_str(), o.glare.strength, night->on ? "on" : "off",
               o.no_temporal || backend == "cpu" ? "off" : "on");  // the CPU mode maps each frame on its own
  night_drive::FrameOutput output;
  if (Status s = output.open(o.png, o.y4m, W, H, o.fps); !s.ok()) return report(s);

  GLuint display = 0;  // the tone-mapped RGBA8 texture (gl backend)
  glCreateTextures(GL_TEXTURE_2D, 1, &display);
  glTextureStorage2D(display, 1, GL_RGBA8, W, H);

#if TONEKIT_NIGHT_DRIVE_CUDA
  std::unique_ptr<GlPass> glpass;
  cudaStream_t stream = nullptr;
  if (o.cuda_schedule != "auto" && (backend == "gl" || backend == "vulkan")) {
    // Before the first CUDA call creates the device's context (cudaSetDeviceFlags' rule).
    const unsigned flags = o.cuda_schedule == "spin"    ? cudaDeviceScheduleSpin
                           : o.cuda_schedule == "yield" ? cudaDeviceScheduleYield
                                                        : cudaDeviceScheduleBlockingSync;
    if (const cudaError_t e = cudaSetDeviceFlags(flags); e != cudaSuccess)
      return report(Status{StatusCode::runtime_error, std::string("--cuda-schedule: cudaSetDeviceFlags failed: ") +
                                                          cudaGetErrorString(e)});
  }
  cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
  if (backend == "gl") {
    GlPassConfig c;
    c.input_texture = scene.colour_texture();
    c.output_texture = display;
    c.params = *params;
    c.glare = o.glare;
    c.night = *night;
    c.temporal = !o.no_temporal;
    c.timings = true;
    auto p = GlPass::create(c);
    if (!p.ok()) return report(p.status());
    glpass = std::move(p.value());
    std::fprintf(stderr, "night_drive: GL pass %s\n",
                 glpass->mapper().surfaces_zero_copy() ? "zero copy" : "with a staging pass (see ToneMapper::process_surfaces)");
  }
#if TONEKIT_NIGHT_DRIVE_VULKAN
  std::unique_ptr<night_drive::VulkanHandover> vkpass;
  if (backend == "vulkan") {
    VulkanPassConfig c;
    c.params = *params;
    c.glare = o.glare;
    c.night = *night;
    c.temporal = !o.no_temporal;
    c.timings = true;
    using night_drive::Handover;
    // auto: the first way this driver can: images (zero copy), rows (zero copy), copy.
    std::vector<Handover> ways{Handover::images, Handover::rows, Handover::copy};
    if (o.handover == "images") ways = {Handover::images};
    if (o.handover == "rows") ways = {Handover::rows};
    if (o.handover == "copy") ways = {Handover::copy};
    Result<std::unique_ptr<night_drive::VulkanHandover>> p = Status{StatusCode::unsupported, "no hand-over tried"};
    for (Handover way : ways) {
      p = night_drive::VulkanHandover::create(W, H, c, way);
      if (p.ok() || p.status().code() != StatusCode::unsupported || o.handover != "auto") break;
      std::fprintf(stderr, "night_drive: no %s hand-over here (%s)\n", night_drive::handover_name(way),
                   p.status().message().c_str());
    }
    if (!p.ok()) return report(p.status());
    vkpass = std::move(p.value());
    if (vkpass->mode() != Handover::copy)
      if (Status s = scene.use_target(vkpass->target_texture()); !s.ok()) return report(s);
    const char* how = vkpass->mode() == Handover::images ? "zero copy: GL draws into a Vulkan image the pass reads as a CUDA array"
                      : vkpass->mode() == Handover::rows ? "zero copy: GL draws into a linear Vulkan image the pass reads as rows"
                                                         : "GL frames copied into Vulkan memory";
    std::fprintf(stderr, "night_drive: Vulkan pass on %s, hand-over %s (%s)\n", vkpass->vulkan_device(),
                 night_drive::handover_name(vkpass->mode()), how);
  }
#else
  if (backend == "vulkan") return report(invalid_argument("--vulkan: this build has no Vulkan (libvulkan-dev)"));
#endif
#else
  if (backend == "gl" || backend == "vulkan")
    return report(Status{StatusCode::no_device, "this build has no CUDA: use --backend cpu (or none)"});
#endif

  const double probe_before = host_probe_us();
  GlTimer render_timer, copy_timer;
  FrameTimes ft;
  std::vector<std::uint8_t> rgba(std::size_t(W) * H * 4);
  const double dt = 1.0 / o.fps;
  const int total = o.warmup + o.frames;
  if (!o.quiet)
    std::fprintf(stderr, "%6s %6s %5s %10s %10s %10s %10s %10s %8s\n", "frame", "t_s", "beam", "render_ms", "copy_ms",
                 "tonemap_ms", "map_ms", "unmap_ms", "frame_ms");
  using clock = std::chrono::steady_clock;
  auto last = clock::now();
  // One frame; `timed`: timer queries, the ToneMapper's events and the frame's output.
  bool closed = false;  // the window was closed: the run ends early
  auto one_frame = [&](int i, bool timed) -> Status {
    const double t = o.start + std::max(0, i - o.warmup) * dt;
    double map_ms = 0, unmap_ms = 0, pass_ms = 0, tm_ms = 0;
#if TONEKIT_NIGHT_DRIVE_VULKAN
    if (vkpass) {  // images, rows: GL waits for the pass to be done with the last frame before drawing
      const auto h0 = clock::now();
      vkpass->begin_frame();
      map_ms = std::chrono::duration<double, std::milli>(clock::now() - h0).count();
    }
#endif
    if (timed) render_timer.begin(i);
    scene.render(t);
    if (timed) render_timer.end();
    // The frame's submission (glFlush), timed on its own: the renderer submits the frame it drew
    // before the hand-over (a display would at its swap), so the interop calls below have no GL
    // commands of the renderer's to submit. Vulkan: after GL's semaphore signal, which it carries.
    double submit_ms = 0;
    auto submit = [&] {
      const auto f0 = clock::now();
      glFlush();
      submit_ms = std::chrono::duration<double, std::milli>(clock::now() - f0).count();
    };
#if TONEKIT_NIGHT_DRIVE_VULKAN
    if (!vkpass) submit();
#else
    submit();
#endif
    const bool write = timed && output.active() && i >= o.warmup && (i - o.warmup) % o.every == 0;
#if TONEKIT_NIGHT_DRIVE_CUDA
    if (glpass) {
      if (Status s = glpass->process(stream, dt); !s.ok()) return s;
      map_ms = glpass->interop_timings().map_ms;
      unmap_ms = glpass->interop_timings().unmap_ms;
      pass_ms = map_ms + unmap_ms;
      if (timed) {
        StageTimings st;
        if (Status s = glpass->mapper().read_timings(st); !s.ok()) return s;
        tm_ms = st.total_ms;
      }
      if (write) glGetTextureImage(display, 0, GL_RGBA, GL_UNSIGNED_BYTE, static_cast<GLsizei>(rgba.size()), rgba.data());
    }
#if TONEKIT_NIGHT_DRIVE_VULKAN
    if (vkpass) {
      // Host time: GL's wait/signal (+ the copy's enqueue in copy mode) and CUDA's semaphore calls.
      if (timed) copy_timer.begin(i);
      const auto h0 = clock::now();
      vkpass->end_frame(scene.colour_texture());
      unmap_ms = std::chrono::duration<double, std::milli>(clock::now() - h0).count();
      if (timed) copy_timer.end();
      submit();
      if (Status s = vkpass->pass().process(stream, dt); !s.ok()) return s;
      const VulkanInteropTimings vt = vkpass->pass().interop_timings();
      map_ms += vt.wait_ms;
      unmap_ms += vt.signal_ms;
      pass_ms = vt.wait_ms + vt.signal_ms;
      if (timed) {
        StageTimings st;
        if (Status s = vkpass->pass().mapper().read_timings(st); !s.ok()) return s;
        tm_ms = st.total_ms;
      }
      if (write)
        if (Status s = vkpass->read_output(rgba.data(), stream); !s.ok()) return s;
    }
#endif
#endif
    if (backend == "cpu") {  // read back, glare, map on the CPU (temporal adaptation: not in this mode)
      const auto c0 = clock::now();
      Image hdr(W, H, 4);
      glGetTextureImage(scene.colour_texture(), 0, GL_RGBA, GL_FLOAT, static_cast<GLsizei>(hdr.pixels.size() * 4),
                        hdr.pixels.data());
      if (Status s = apply_glare(hdr, o.glare); !s.ok()) return s;
      if (night->on)
        if (Status s = apply_night(hdr, *night, static_cast<std::uint32_t>(i)); !s.ok()) return s;
      OutputImage out;
      if (Status s = tone_map(hdr, *params, OutputFormat{PixelType::u8, 4}, Backend::cpu, out); !s.ok()) return s;
      rgba.assign(out.bytes.begin(), out.bytes.end());
      tm_ms = std::chrono::duration<double, std::milli>(clock::now() - c0).count();
    }
    if (write)
      if (Status s = output.write(rgba, (i - o.warmup) / o.every); !s.ok()) return s;
    if (window) {  // GL commands after the pass's unmap: ordered after the tone map
      unsigned shown = display;
      if (backend == "cpu") glTextureSubImage2D(display, 0, 0, 0, W, H, GL_RGBA, GL_UNSIGNED_BYTE, rgba.data());
      if (backend == "none") shown = scene.colour_texture();  // the HDR buffer, clipped
      if (backend != "vulkan")
        if (Status s = window->present(shown, W, H); !s.ok()) return s;
      if (!window->open_still()) closed = true;
    }
    if (!timed && i >= total) {
      ft.free_interop.push_back(map_ms + unmap_ms);
      ft.free_pass.push_back(pass_ms);
    }
    if (timed) {
      const auto now = clock::now();
      const double frame_ms = std::chrono::duration<double, std::milli>(now - last).count();
      last = now;
      const double render_ms = render_timer.ms(i);
      const double copy_ms = backend == "vulkan" ? copy_timer.ms(i) : 0.0;
      if (i >= o.warmup) {
        ft.render.push_back(render_ms);
        ft.copy.push_back(copy_ms);
        ft.tonemap.push_back(tm_ms);
        ft.map.push_back(map_ms);
        ft.unmap.push_back(unmap_ms);
        ft.pass.push_back(pass_ms);
        ft.handover.push_back(map_ms + unmap_ms - pass_ms);
        ft.submit.push_back(submit_ms);
        ft.frame.push_back(frame_ms);
      }
      if (!o.quiet && i >= o.warmup)
        std::fprintf(stderr, "%6d %6.3f %5s %10.3f %10.3f %10.3f %10.4f %10.4f %8.3f\n", i - o.warmup, t,
                     scene.high_beam(t) ? "high" : "low", render_ms, copy_ms, tm_ms, map_ms, unmap_ms, frame_ms);
    }
    return {};
  };
  for (int i = 0; i < total && !closed; ++i)
    if (Status s = one_frame(i, true); !s.ok()) return report(s);
  double throughput_fps = 0.0;
  if (o.throughput > 0) {  // no timer queries, no event reads, no read-backs: the loop a display would run
#if TONEKIT_NIGHT_DRIVE_CUDA
    if (glpass) glpass->mapper().enable_timings(false);
#if TONEKIT_NIGHT_DRIVE_VULKAN
    if (vkpass) vkpass->pass().mapper().enable_timings(false);
#endif
#endif
    glFinish();
#if TONEKIT_NIGHT_DRIVE_CUDA
    cudaStreamSynchronize(stream);
#endif
    const auto t0 = clock::now();
    for (int i = 0; i < o.throughput && !closed; ++i)
      if (Status s = one_frame(total + i, false); !s.ok()) return report(s);
    glFinish();
#if TONEKIT_NIGHT_DRIVE_CUDA
    cudaStreamSynchronize(stream);
#endif
    throughput_fps = o.throughput / std::chrono::duration<double>(clock::now() - t0).count();
  }
  if (Status s = output.close(); !s.ok()) return report(s);
  const double probe_after = host_probe_us();
  const double fm = median(ft.frame);
  std::fprintf(stderr,
               "summary %dx%d backend=%s op=%s glare=%.3g night=%s temporal=%s frames=%zu | median ms: render %.3f copy %.3f "
               "tonemap %.3f submit %.4f map %.4f unmap %.4f interop %.4f frame %.3f | fps %.1f (timed loop) %.1f (throughput, %d "
               "frames; interop host ms there: median %.4f, 90th percentile %.4f)\n",
               W, H, backend.c_str(), o.op.c_str(), o.glare.strength, night->on ? "on" : "off",
               o.no_temporal || backend == "cpu" ? "off" : "on",
               ft.frame.size(),
               median(ft.render), median(ft.copy), median(ft.tonemap), median(ft.submit), median(ft.map), median(ft.unmap),
               median(ft.map) + median(ft.unmap), fm, fm > 0 ? 1000.0 / fm : 0.0, throughput_fps, o.throughput,
               median(ft.free_interop), percentile(ft.free_interop, 0.9));
  // The pass's own calls apart from the renderer's hand-over (--vulkan: GL's semaphore wait and
  // signal, which a Vulkan renderer folds into its own vkQueueSubmit), and the host's speed.
  std::fprintf(stderr,
               "summary-interop %dx%d backend=%s | pass calls host ms: median %.4f (timed loop), median %.4f, 90th "
               "percentile %.4f (throughput) | renderer hand-over host ms: median %.4f (timed loop) | host probe us: "
               "%.0f before, %.0f after | cuda schedule %s\n",
               W, H, backend.c_str(), median(ft.pass), median(ft.free_pass), percentile(ft.free_pass, 0.9),
               median(ft.handover), probe_before, probe_after, o.cuda_schedule.c_str());
#if TONEKIT_NIGHT_DRIVE_CUDA
  glpass.reset();
  if (stream) cudaStreamDestroy(stream);
#endif
  glDeleteTextures(1, &display);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"night_drive: real-time HDR night-drive renderer tone mapped by tonekit (issue 18)"};
  Options o;
  app.add_option("--size", o.size, "WxH")->capture_default_str();
  app.add_option("--frames", o.frames, "frames timed and written")->capture_default_str();
  app.add_option("--fps", o.fps, "simulation rate: time step 1/fps and the y4m rate")->capture_default_str();
  app.add_option("--start", o.start, "scene time of the first frame, s (the car passes at about 5.5 s)")->capture_default_str();
  app.add_option("--warmup", o.warmup, "frames rendered before timing")->capture_default_str();
  app.add_option("--throughput", o.throughput, "then N frames with no timing or read-back: frame rate")->capture_default_str();
  app.add_option("--op", o.op, "operator id (tonekit ops)")->capture_default_str();
  app.add_option("--set", o.settings, "operator parameter NAME=VALUE (repeatable; key=0.72 is set first where the operator has a key)");
  add_glare_options(&app, o.glare);
  app.add_flag("--no-night", o.no_night,
               "night vision off (on by default after the glare: rods and cones by the adapting luminance, blue shift, "
               "acuity loss; tonekit/night.hpp)");
  app.add_option("--night-set", o.night_settings,
                 "night vision parameter NAME=VALUE (repeatable; tonekit::night_params(): strength, scene_cd_per_unit, "
                 "adaptation, photopic, scotopic, blue_shift, acuity, noise)");
  app.add_flag("--no-temporal", o.no_temporal, "temporal adaptation off");
  app.add_option("--backend", o.backend, "gl (GlPass, zero copy), vulkan, cpu (read back, CPU map), none (render only)")
      ->capture_default_str();
  app.add_flag("--vulkan", o.vulkan, "same as --backend vulkan: frames handed over in Vulkan memory to VulkanPass");
  app.add_option("--handover", o.handover,
                 "vulkan: images (GL draws into a Vulkan image, CUDA reads it as an array: zero copy), rows (into a "
                 "linear Vulkan image, read as rows: zero copy), copy (GL copies each frame into a Vulkan buffer), auto "
                 "(the first of these the driver can)")
      ->capture_default_str();
  app.add_option("--png", o.png, "write frames as PNGs: a %d pattern such as out/night.%04d.png");
  app.add_option("--y4m", o.y4m, "write frames as y4m (8-bit 4:2:0, BT.709 limited): a file or - for stdout");
  app.add_option("--every", o.every, "write every Nth frame")->capture_default_str();
  app.add_flag("--quiet", o.quiet, "no per-frame lines, the summary only");
  app.add_flag("--window", o.window, "show the frames in a window (default when $DISPLAY is set; an error without one)");
  app.add_flag("--headless", o.headless, "no window even when a display exists");
  app.add_option("--cuda-schedule", o.cuda_schedule,
                 "how CUDA's host threads wait for the GPU: auto (CUDA's choice), spin, yield, blocking "
                 "(cudaSetDeviceFlags)")
      ->capture_default_str();
  app.add_flag("--vsync", o.vsync, "the window swaps on the display's refresh (default off: the timings are the renderer's)");
  CLI11_PARSE(app, argc, argv);
  if (o.frames < 1 || o.fps < 1 || o.every < 1 || o.warmup < 0 || o.throughput < 0) {
    std::fprintf(stderr, "night_drive: --frames, --fps, --every must be >= 1 and --warmup, --throughput >= 0\n");
    return 1;
  }
  return run(o);
}
