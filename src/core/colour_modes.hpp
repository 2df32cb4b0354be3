// How a curve's output becomes a colour: the colour modes of the display-referred curves
// (core/operators/bt2390.hpp and the others that carry a `mode`), one TK_HD definition the map
// paths share (the CPU chunk loop and fused video path through cpu::map_colour_chunk, the CUDA map
// and map + encode kernels). A curve without a `mode` member, every operator before them, is
// mapped in luminance mode by today's code path, byte for byte.
//   luminance: L_d = f(L_w), C_out = L_d (C / L_w)^s (core::reconstruct_channel): hue and
//              saturation kept, bright saturated colours may leave [0, 1] and clip.
//   rgb:       C_out = f(C) per channel: highlights desaturate towards white as channels
//              saturate (the film look, and what FFmpeg's `tonemap` does); hue shifts.
//   max-rgb:   M = max(R, G, B), C_out = f(M) (C / M)^s: hue kept and no channel exceeds f(M) <= 1,
//              so nothing clips, but saturated colours darken (the curve reads the brightest channel).
//   hybrid:    luminance mode blended into rgb mode by the display luminance:
//              w = clamp((f(L_w) - 0.18) / (1 - 0.18), 0, 1), C_out = (1 - w) C_lum + w C_rgb:
//              shadows and mid-tones (below display grey 0.18) exactly as luminance mode,
//              highlights rolling into per-channel mapping at white.
// Black (L_w <= 0) stays black in every mode (the sanitising policy's promise), even where the
// curve lifts its blacks (target_black > 0).
#pragma once
#include <type_traits>
#include <utility>

#include "core/colour.hpp"
#include "core/hd.hpp"

namespace tonekit::core {

enum ColourMode : int { kModeLuminance = 0, kModeRgb = 1, kModeMaxRgb = 2, kModeHybrid = 3 };
// The mode parameter's names, in ColourMode order (ParamDesc::choices).
constexpr const char* kColourModeNames = "luminance,rgb,max-rgb,hybrid";
// Display luminance where hybrid mode starts to blend into per-channel mapping.
constexpr double kHybridStart = 0.18;

// Whether an operator's Curve<T> carries a colour mode (an `int mode` member).
template <class C, class = void>
struct HasColourMode : std::false_type {};
template <class C>
struct HasColourMode<C, std::void_t<decltype(std::declval<const C&>().mode)>> : std::true_type {};

template <class C>
TK_HD int colour_mode_of(const C& curve) {
  if constexpr (HasColourMode<C>::value) return curve.mode;
  else return kModeLuminance;
}

// One pixel's display RGB (linear, relative to the target peak) from its sanitised scene RGB and
// luminance lw, by the curve's mode (above); `saturation` is s of the luminance and max-rgb forms
// (rgb mode has no s; hybrid's luminance half uses it).
template <class T, class C>
TK_HD void map_colour_mode(const C& curve, int mode, T& r, T& g, T& b, T lw, T saturation) {
  if (mode == kModeLuminance) {
    const T ld = curve(lw);
    r = reconstruct_channel(r, lw, ld, saturation);
    g = reconstruct_channel(g, lw, ld, saturation);
    b = reconstruct_channel(b, lw, ld, saturation);
    return;
  }
  if (!(lw > T(0))) {
    r = g = b = T(0);
    return;
  }
  if (mode == kModeMaxRgb) {
    const T m = r > g ? (r > b ? r : b) : (g > b ? g : b);
    const T md = curve(m);
    r = reconstruct_channel(r, m, md, saturation);
    g = reconstruct_channel(g, m, md, saturation);
    b = reconstruct_channel(b, m, md, saturation);
    return;
  }
  const T cr = curve(r), cg = curve(g), cb = curve(b);
  if (mode == kModeRgb) {
    r = cr;
    g = cg;
    b = cb;
    return;
  }
  const T ld = curve(lw);  // hybrid
  T w = (ld - T(kHybridStart)) * T(1.0 / (1.0 - kHybridStart));
  w = clamp01(w);
  const T lr = reconstruct_channel(r, lw, ld, saturation), lg = reconstruct_channel(g, lw, ld, saturation),
          lb = reconstruct_channel(b, lw, ld, saturation);
  r = lr + w * (cr - lr);
  g = lg + w * (cg - lg);
  b = lb + w * (cb - lb);
}

}  // namespace tonekit::core
