// The one backend rule of the host entries (tonekit/tonemap.hpp's Backend): tone_map,
// tone_map_temporal, blur, apply_glare, quality::assess and auto_params decide where they run here.
#pragma once
#include <utility>

#include "tonekit/status.hpp"
#include "tonekit/tonemap.hpp"

namespace tonekit::api {

// cpu: the CPU. cuda: the GPU, no_device ("--backend cuda: why") where the build or the machine
// has none. automatic: the GPU when this build has CUDA and a device is present, else the CPU.
Result<Backend> choose_backend(Backend requested);

// A GPU failure the CPU may not share: anything but the caller's input errors (invalid_argument,
// bad_input), e.g. no cuFFT (unsupported), out of device memory.
inline bool gpu_cannot(const Status& s) {
  return s.code() != StatusCode::invalid_argument && s.code() != StatusCode::bad_input;
}

inline const Status& status_of(const Status& s) { return s; }
template <class T>
const Status& status_of(const Result<T>& r) {
  return r.status();
}

// choose_backend, then `gpu()` or `cpu()`; with `automatic`, a GPU that cannot run the request
// (gpu_cannot) leaves it to the CPU. *ran_on (optional): where the result (or the error) comes from.
template <class R, class Gpu, class Cpu>
R run_on_backend(Backend requested, Backend* ran_on, Gpu&& gpu, Cpu&& cpu) {
  Result<Backend> chosen = choose_backend(requested);
  if (!chosen.ok()) return chosen.status();
  if (*chosen == Backend::cuda) {
    R r = std::forward<Gpu>(gpu)();
    if (r.ok() || requested != Backend::automatic || !gpu_cannot(status_of(r))) {
      if (ran_on) *ran_on = Backend::cuda;
      return r;
    }
  }
  if (ran_on) *ran_on = Backend::cpu;
  return std::forward<Cpu>(cpu)();
}

}  // namespace tonekit::api
