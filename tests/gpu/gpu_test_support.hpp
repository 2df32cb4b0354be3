// Shared by the GPU test files: skip with the printed reason when no CUDA device is present (the
// no-GPU CI passes the GPU tests by skipping), and check CUDA calls inside tests.
#pragma once
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>

#include "core/half.hpp"
#include "tonekit/image.hpp"
#include "tonekit/tone_mapper.hpp"

namespace tonekit::gpu_test {

// Sample i of an output image as a number (codes for u8 / u16, values for f16 / f32).
inline double output_sample(const OutputImage& img, std::size_t i) {
  const unsigned char* b = img.bytes.data();
  switch (img.type) {
    case PixelType::u8: return b[i];
    case PixelType::u16: { std::uint16_t v; std::memcpy(&v, b + 2 * i, 2); return v; }
    case PixelType::f16: { std::uint16_t v; std::memcpy(&v, b + 2 * i, 2); return core::half_to_float(v); }
    case PixelType::f32: { float v; std::memcpy(&v, b + 4 * i, 4); return v; }
  }
  return 0;
}

// A ToneMapper config for a w x h frame of `input`, operator `op` with its defaults, `output`.
inline ToneMapperConfig mapper_config(int w, int h, InputFormat input, OutputFormat output, const char* op) {
  ToneMapperConfig cfg;
  cfg.width = w;
  cfg.height = h;
  cfg.input = input;
  cfg.output = output;
  cfg.params = prepare_params(op).value();
  return cfg;
}

inline bool gpu_present(std::string& why) {
  int n = 0;
  const cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess || n == 0) {
    why = e != cudaSuccess ? std::string("no CUDA device: ") + cudaGetErrorString(e) : "no CUDA device present";
    cudaGetLastError();
    return false;
  }
  return true;
}

}  // namespace tonekit::gpu_test

#define REQUIRE_GPU()                                               \
  do {                                                              \
    std::string why_;                                               \
    if (!::tonekit::gpu_test::gpu_present(why_)) GTEST_SKIP() << why_; \
  } while (0)

#define CUDA_OK(expr) ASSERT_EQ((expr), cudaSuccess) << #expr << ": " << cudaGetErrorString(cudaGetLastError())
