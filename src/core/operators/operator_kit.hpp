// What a global operator file defines, and the pieces it builds on. A global operator is one
// header in this folder (reinhard.hpp is a short example) holding one struct:
//
//   struct FooOperator : GlobalOperator {
//     static const OperatorDesc& descriptor();          // id, title, citation, parameters, ranges
//     struct Settings { double ...; };                   // its parameters as plain data
//     static Settings settings_from(const Params&);      // the name-keyed values, read once
//     template <class T> struct Curve {                  // the curve's constants, and the curve
//       T ...;
//       TK_HD T operator()(T lw) const;                  // L_w -> L_d, the same code on CPU and GPU
//       template <class U> TK_HD Curve<U> cast() const;  // double constants -> float for the kernels
//     };
//     TK_HD static Curve<double> prepare(const Settings&, const CurveStats&, const float* table);
//   };
//
// and one line in operators/global_operators.hpp. `prepare` runs where the frame's statistics are
// (on the device for the CUDA backend), in double; the kernels evaluate Curve<float>. Nothing
// else in the code names an operator: every backend reaches the curves through core/curves.hpp.
#pragma once
#include <math.h>
#include <string.h>

#include <cstddef>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/colour.hpp"
#include "core/hd.hpp"
#include "tonekit/operators.hpp"
#include "tonekit/temporal.hpp"

namespace tonekit::core {

// The statistics the curves read (a subset of tonekit::FrameStats).
struct CurveStats {
  double log_average = 0.0;
  double min_luminance = 0.0;
  double max_luminance = 0.0;
  double min_positive_luminance = 0.0;
};

// The statistics the curves read from a frame's: L_max is the frame's peak (the robust peak when
// one was derived, else the brightest pixel). The one conversion both backends use.
TK_HD CurveStats curve_stats_hd(const FrameStats& f) {
  CurveStats c;
  c.log_average = f.log_average;
  c.min_luminance = f.min_luminance;
  c.max_luminance = f.peak_luminance > 0.0 ? f.peak_luminance : f.max_luminance;
  c.min_positive_luminance = f.min_positive_luminance;
  return c;
}

// Reinhard 2002 ("Parameter estimation for photographic tone reproduction", Eq 1) automatic key.
TK_HD double estimate_key_hd(const CurveStats& s) {
  double lmin = s.min_positive_luminance > 0 ? s.min_positive_luminance : kLogDelta;
  double lmax = s.max_luminance;
  if (!(lmax > lmin) || !(s.log_average > 0)) return 0.18;
  double l2min = log2(lmin), l2max = log2(lmax), l2avg = log2(s.log_average);
  return 0.18 * pow(4.0, (2.0 * l2avg - l2min - l2max) / (l2max - l2min));
}

// The histogram range over log luminance of the positive pixels (histeq, the robust peak).
TK_HD void histogram_range_hd(const CurveStats& s, double& log_min, double& inv_log_range) {
  log_min = 0.0;
  inv_log_range = 0.0;
  if (s.max_luminance > 0 && s.min_positive_luminance > 0) {
    log_min = log(s.min_positive_luminance);
    double range = log(s.max_luminance) - log_min;
    inv_log_range = range > 0 ? 1.0 / range : 0.0;
  }
}

// The robust peak's parameter (core/robust_peak.hpp): every operator whose curve reads L_max takes it.
ParamDesc peak_percentile_param();

// The display-referred curves (bt2390, bt2446a, hable, mobius, spline: the curves video tools
// offer). Units: scene-linear 1.0 = reference_white cd/m^2 (default 203, BT.2408's diffuse white:
// the video path's convention, tonekit/video.hpp InputColour::reference_white, so a PQ or HLG
// frame's cd/m^2 come back exactly when both are the same); the output L_d is display light over
// target_peak (1.0 = the display's peak). The source peak is source_peak cd/m^2 when given, else
// the frame's L_max (the brightest pixel, or the robust peak: peak_percentile) in cd/m^2.
struct DisplayTarget {
  double target_peak = 100.0;
  double target_black = 0.0;
  double source_peak = 0.0;  // 0: from the frame
  double reference_white = 203.0;
  int mode = 0;  // core/colour_modes.hpp
};
// An operator's own parameters followed by target_peak, target_black, source_peak,
// reference_white, mode and peak_percentile.
std::vector<ParamDesc> display_curve_params(std::vector<ParamDesc> own);
// The scene-referred looks (aces, agx, neutral): their own parameters followed by exposure and mode.
std::vector<ParamDesc> look_curve_params(std::vector<ParamDesc> own);
DisplayTarget display_target_from(const Params& p);
// The looks' settings (look_curve_params).
struct LookSettings {
  double exposure = 1.0;
  int mode = 0;
};
LookSettings look_settings_from(const Params& p);

// The source peak in cd/m^2: the given one, else the frame's L_max (at least the target's peak:
// a frame dimmer than the display, or black, is not expanded).
TK_HD double source_peak_cd_hd(const DisplayTarget& d, const CurveStats& st) {
  const double peak = d.source_peak > 0 ? d.source_peak : st.max_luminance * d.reference_white;
  return peak > d.target_peak ? peak : d.target_peak;
}

// The defaults a global operator inherits.
struct GlobalOperator {
  // Bins of the log-luminance histogram the operator's `prepare` reads as its `table` (the
  // equalisation table, mid-ranks of the bins); 0: it reads none.
  template <class Settings>
  static int histogram_bins(const Settings&) {
    return 0;
  }
};

// The scene-referred looks (aces, agx, neutral): their settings are exposure and mode.
struct LookOperator : GlobalOperator {
  using Settings = LookSettings;
  static Settings settings_from(const Params& p) { return look_settings_from(p); }
};

// A list of operator types; global_operators.hpp holds the one list of global operators.
template <class... Ops>
struct OperatorList {
  static constexpr int size = static_cast<int>(sizeof...(Ops));
};

// f(Op{}, index) for the operator at `index`; false when the index is out of the list.
template <class F, class... Ops, std::size_t... I>
TK_HD bool visit_operator_at(int index, OperatorList<Ops...>, std::index_sequence<I...>, F&& f) {
  return ((index == static_cast<int>(I) && (f(Ops{}), true)) || ...);
}
template <class List, class F>
TK_HD bool visit_operator(int index, F&& f) {
  return visit_operator_at(index, List{}, std::make_index_sequence<List::size>{}, static_cast<F&&>(f));
}

// f(Op{}, index) for each operator of the list in order, until one returns true; whether one did.
template <class F, class... Ops, std::size_t... I>
bool visit_all_at(OperatorList<Ops...>, std::index_sequence<I...>, F&& f) {
  return (f(Ops{}, static_cast<int>(I)) || ...);
}
template <class List, class F>
bool visit_all(F&& f) {
  return visit_all_at(List{}, std::make_index_sequence<List::size>{}, static_cast<F&&>(f));
}

// The position of Op in a list (a compile error when it is not in it).
template <class Op, class... Ops>
constexpr int index_in(OperatorList<Ops...>) {
  int index = -1, i = 0;
  ((std::is_same_v<Op, Ops> ? (index = i, ++i) : ++i), ...);
  return index;
}

// Plain bytes holding one operator's struct (its Settings or its Curve<T>): trivially copyable,
// so it lives in kernel arguments and device memory; read and written through memcpy.
template <std::size_t N>
struct OperatorBytes {
  alignas(8) unsigned char bytes[N];
  template <class C>
  TK_HD C get() const {
    static_assert(sizeof(C) <= N, "operator struct larger than its storage");
    C c;
    memcpy(static_cast<void*>(&c), bytes, sizeof(C));
    return c;
  }
  template <class C>
  TK_HD void set(const C& c) {
    static_assert(sizeof(C) <= N, "operator struct larger than its storage");
    memcpy(bytes, static_cast<const void*>(&c), sizeof(C));
  }
};

}  // namespace tonekit::core
