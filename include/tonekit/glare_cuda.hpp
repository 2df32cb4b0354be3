// Glare / bloom on the GPU for host images: cuda_apply_glare() (upload, run, download;
// synchronises), in every build (without CUDA it reports no_device). On the device, glare is
// part of the one pipeline: ToneMapperConfig::glare (tonekit/tone_mapper.hpp).
#pragma once
#include <cstddef>
#include <memory>

#include "tonekit/blur.hpp"
#include "tonekit/image.hpp"
#include "tonekit/status.hpp"

struct CUstream_st;  // cudaStream_t without cuda_runtime.h

namespace tonekit {


// Host convenience, apply_glare on the GPU: same parameters, same validation and errors, any
// channel count apply_glare takes; result within float rounding of the CPU's (tested in
// tests/gpu/test_gpu_glare.cpp). Synchronises.
Status cuda_apply_glare(Image& image, const GlareParams& params);

}  // namespace tonekit
