// Validation shared by the device classes (GlobalPass, LocalPass of the ToneMapper): frame size, output
// channels, device presence at create(); buffers, strides and alignment at process().
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "tonekit/tone_mapper.hpp"

namespace tonekit::cuda {

// `who` names the class in the messages (always "ToneMapper": the public class).
inline Status check_frame_config(const char* who, int width, int height, const OutputFormat& output) {
  if (width <= 0 || height <= 0 || width > kMaxImageSide || height > kMaxImageSide ||
      static_cast<std::int64_t>(width) * height > kMaxImagePixels)
    return invalid_argument(std::string(who) + ": image size " + std::to_string(width) + "x" + std::to_string(height) +
                            " out of range");
  if (output.channels != 3 && output.channels != 4)
    return invalid_argument(std::string(who) + ": output must have 3 or 4 channels");
  return {};
}

inline Status check_device_present() {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0) {
    cudaGetLastError();
    return Status{StatusCode::no_device,
                  std::string("no CUDA device: ") + (e != cudaSuccess ? cudaGetErrorString(e) : "no GPU present")};
  }
  return {};
}

// Fills packed strides (0) and checks both buffers: non-null, rows long enough, aligned to the
// channel size.
inline Status check_frame_buffers(const char* who, InputFormat input, const OutputFormat& output, int width,
                                  const void* device_in, std::size_t& in_stride, const void* device_out,
                                  std::size_t& out_stride) {
  if (!device_in || !device_out) return invalid_argument(std::string(who) + "::process: null buffer");
  const std::size_t in_row = input_pixel_bytes(input) * static_cast<std::size_t>(width);
  const std::size_t out_channel = bytes_per_channel(output.type);
  const std::size_t out_row = out_channel * output.channels * static_cast<std::size_t>(width);
  if (in_stride == 0) in_stride = in_row;
  if (out_stride == 0) out_stride = out_row;
  if (in_stride < in_row || out_stride < out_row)
    return invalid_argument(std::string(who) + "::process: row stride smaller than a row");
  const std::size_t in_align = input == InputFormat::rgba_f16 ? 2 : 4;
  if (reinterpret_cast<std::uintptr_t>(device_in) % in_align || in_stride % in_align ||
      reinterpret_cast<std::uintptr_t>(device_out) % out_channel || out_stride % out_channel)
    return invalid_argument(std::string(who) + "::process: buffers and strides must be aligned to the channel size");
  return {};
}

}  // namespace tonekit::cuda
