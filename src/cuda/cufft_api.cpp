// The run-time cuFFT loader of cufft_api.hpp.
#include "cuda/cufft_api.hpp"

#include <dlfcn.h>

#include <mutex>

namespace tonekit::cuda {

const CufftApi& cufft() {
  static CufftApi api;
  static std::once_flag once;
  std::call_once(once, [] {
    void* lib = nullptr;
    for (const char* name : {"libcufft.so.12", "libcufft.so.13", "libcufft.so.11", "libcufft.so"})
      if ((lib = dlopen(name, RTLD_NOW | RTLD_LOCAL))) break;
    if (!lib) {
      api.why = "cuFFT (libcufft.so) not found on the library path";
      return;
    }
    api.plan_many = reinterpret_cast<decltype(api.plan_many)>(dlsym(lib, "cufftPlanMany"));
    api.exec_r2c = reinterpret_cast<decltype(api.exec_r2c)>(dlsym(lib, "cufftExecR2C"));
    api.exec_c2r = reinterpret_cast<decltype(api.exec_c2r)>(dlsym(lib, "cufftExecC2R"));
    api.exec_d2z = reinterpret_cast<decltype(api.exec_d2z)>(dlsym(lib, "cufftExecD2Z"));
    api.exec_z2d = reinterpret_cast<decltype(api.exec_z2d)>(dlsym(lib, "cufftExecZ2D"));
    api.set_stream = reinterpret_cast<decltype(api.set_stream)>(dlsym(lib, "cufftSetStream"));
    api.destroy = reinterpret_cast<decltype(api.destroy)>(dlsym(lib, "cufftDestroy"));
    api.ok = api.plan_many && api.exec_r2c && api.exec_c2r && api.set_stream && api.destroy;
    api.double_ok = api.ok && api.exec_d2z && api.exec_z2d;
    if (!api.ok) api.why = "cuFFT loaded but a symbol is missing";
    else if (!api.double_ok) api.why = "cuFFT loaded but its double-precision transforms are missing";
  });
  return api;
}

Status cufft_status(cufftResult r, const char* what) {
  if (r == CUFFT_SUCCESS) return {};
  if (r == CUFFT_ALLOC_FAILED) return {StatusCode::out_of_memory, std::string("cuFFT out of memory in ") + what};
  return {StatusCode::runtime_error, std::string(what) + " failed: cufftResult " + std::to_string(static_cast<int>(r))};
}

}  // namespace tonekit::cuda
