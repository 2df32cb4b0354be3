// cuFFT loaded at run time (dlopen of libcufft.so): tonekit_cuda and every binary linking it carry
// no link-time dependency on the 280 MB library. Users: the blur's fft method (blur/fft_blur.cu,
// single precision) and FSITM's log-Gabor responses (quality/fsitm_gpu.cu, double precision).
#pragma once
#include <cufft.h>

#include <string>

#include "tonekit/status.hpp"

namespace tonekit::cuda {

struct CufftApi {
  bool ok = false;         // the library and its single-precision entries (plan, R2C, C2R, stream, destroy)
  bool double_ok = false;  // ok, and the double-precision D2Z and Z2D
  std::string why;         // why not ok / double_ok
  decltype(&cufftPlanMany) plan_many = nullptr;
  decltype(&cufftExecR2C) exec_r2c = nullptr;
  decltype(&cufftExecC2R) exec_c2r = nullptr;
  decltype(&cufftExecD2Z) exec_d2z = nullptr;
  decltype(&cufftExecZ2D) exec_z2d = nullptr;
  decltype(&cufftSetStream) set_stream = nullptr;
  decltype(&cufftDestroy) destroy = nullptr;
};

// Loaded once (thread-safe); never unloaded.
const CufftApi& cufft();

// CUFFT_ALLOC_FAILED as out_of_memory, any other failure as runtime_error naming `what`.
Status cufft_status(cufftResult r, const char* what);

}  // namespace tonekit::cuda

// Returns the Status from the enclosing function when a cuFFT call fails.
#define TK_CUFFT(expr, what) \
  if (::tonekit::Status st_ = ::tonekit::cuda::cufft_status((expr), what); !st_.ok()) return st_
