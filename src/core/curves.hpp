// Global tone curves, L_w (world luminance, sanitised) -> L_d (display luminance, [0, 1]), for
// every backend: the one dispatch from a frame's prepared curve to its operator's code
// (core/operators/). The CPU chunk loop, the CUDA map kernels and the CPU video path all call
// visit_curve; no other code switches on the operator.
#pragma once
#include <cstddef>

#include "core/colour_modes.hpp"
#include "core/hd.hpp"
#include "core/operators/registry.hpp"

namespace tonekit::core {

// Index of an operator in GlobalOperators; -1: none (a local operator).
template <class Op>
constexpr int global_operator_index = index_in<Op>(GlobalOperators{});

template <class... Ops>
constexpr std::size_t max_curve_bytes(OperatorList<Ops...>) {
  std::size_t m = 8;
  ((m = sizeof(typename Ops::template Curve<double>) > m ? sizeof(typename Ops::template Curve<double>) : m), ...);
  return m;
}
template <class... Ops>
constexpr std::size_t max_settings_bytes(OperatorList<Ops...>) {
  std::size_t m = 8;
  ((m = sizeof(typename Ops::Settings) > m ? sizeof(typename Ops::Settings) : m), ...);
  return m;
}

// A frame's curve: which operator, and its constants (Op::Curve<T>). T = double as `prepare`
// derives them; T = float as the map passes evaluate them (cast once per chunk or block). Trivial
// (no initialisers), so that kernels can keep it in shared memory: prepare_curve_hd and
// cast_curve set every field.
template <class T>
struct PreparedCurve {
  int op;  // index in GlobalOperators; -1: none
  OperatorBytes<max_curve_bytes(GlobalOperators{})> constants;
};
using CurveSettings = PreparedCurve<double>;

// f(curve) with the frame's Op::Curve<T>; nothing when op is -1.
template <class T, class F>
TK_HD void visit_curve(const PreparedCurve<T>& c, F&& f) {
  visit_operator<GlobalOperators>(c.op, [&](auto op) {
    using Op = decltype(op);
    f(c.constants.template get<typename Op::template Curve<T>>());
  });
}

// The frame's colour mode (core/colour_modes.hpp): kModeLuminance for curves without one.
template <class T>
TK_HD int curve_colour_mode(const PreparedCurve<T>& c) {
  int mode = kModeLuminance;
  visit_curve(c, [&](const auto& curve) { mode = colour_mode_of(curve); });
  return mode;
}

template <class U, class T>
TK_HD PreparedCurve<U> cast_curve(const PreparedCurve<T>& c) {
  PreparedCurve<U> out;
  out.op = c.op;
  visit_curve(c, [&](const auto& curve) { out.constants.set(curve.template cast<U>()); });
  return out;
}

// The curve at one luminance (tests, scalar paths). The loops visit once and call the curve.
template <class T, class C>
TK_HD T apply_curve(const PreparedCurve<C>& c, T lw) {
  T ld = T(0);
  visit_curve(c, [&](const auto& curve) { ld = T(curve.template cast<T>()(lw)); });
  return ld;
}

}  // namespace tonekit::core
