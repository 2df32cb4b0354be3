// The CUDA entry points of a build without CUDA (-DTONEKIT_CUDA=OFF or no nvcc).
#include "api/cuda_entry.hpp"

namespace tonekit::cuda_entry {

bool available(std::string* why) {
  if (why) *why = "this build of tonekit has no CUDA backend (configured without CUDA)";
  return false;
}

Status tone_map_host(const Image&, const Params&, OutputFormat, OutputImage&, FrameStats*, MapTimings*) {
  return {StatusCode::no_device, "--backend cuda: this build of tonekit has no CUDA backend"};
}

}  // namespace tonekit::cuda_entry
