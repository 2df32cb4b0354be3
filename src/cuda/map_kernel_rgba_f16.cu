// The map kernels of rgba_f16 input (map_kernel.cuh): every output format and operator.
#include "cuda/map_kernel.cuh"

namespace tonekit::cuda {

Status launch_map_rgba_f16(OutputFormat out, const FrameGeometry& g, void* d_out, std::size_t out_stride, const DeviceFrame* frame,
                      const MapColour& colour, bool reverse, bool programmatic, cudaStream_t s) {
  return launch_map_in<InF16x4>(out, g, d_out, out_stride, frame, colour, reverse, programmatic, s);
}

}  // namespace tonekit::cuda
