// Host-image entry of the CUDA local operators, for src/cuda/cuda_entry.cu (integrator: route
// params.op().locality == Locality::local here): upload, LocalToneMapper, download.
#pragma once
#include "tonekit/image.hpp"
#include "tonekit/operators.hpp"
#include "tonekit/status.hpp"
#include "tonekit/tonemap.hpp"

namespace tonekit::cuda_local {

Status tone_map_host(const Image& input, const Params& params, OutputFormat format, OutputImage& out,
                     FrameStats* stats, MapTimings* timings);

}  // namespace tonekit::cuda_local
