// Surface reads and writes of the renderer interop passes (issue 18; tonekit/gl.hpp): the
// ToneMapper's process_surfaces() reads a half or float RGBA CUDA array (a mapped GL texture)
// through a surface object into the linear frame its passes read, and (global operators only)
// stores a linear RGBA8 frame through a surface object. Local operators write the output
// surface from their own map kernel (cuda_local::LocalMapArgs::out_surface): no pass here.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>

#include "tonekit/status.hpp"
#include "tonekit/video.hpp"

namespace tonekit::cuda {

// The width x height frame of `array_format` (rgba_f16 or rgba_f32) read through `surface` into
// a packed linear frame of `out_format` (rgba_f32 for the glare stage, else the array's own
// format: the samples' bits are copied, half -> float is exact).
Status launch_surface_to_linear(cudaSurfaceObject_t surface, InputFormat array_format, int width, int height,
                                void* out, InputFormat out_format, cudaStream_t s);
// A packed RGBA8 frame stored through `surface` (the global operators' measured fallback).
Status launch_rgba8_to_surface(const void* in, int width, int height, cudaSurfaceObject_t surface, cudaStream_t s);

}  // namespace tonekit::cuda
