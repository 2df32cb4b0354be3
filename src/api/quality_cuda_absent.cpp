// GpuQuality in a build without CUDA (-DTONEKIT_CUDA=OFF or no nvcc): create() reports no_device,
// as every CUDA entry point of such a build does (cuda_absent.cpp); callers fall back to the CPU.
#include "tonekit/quality_cuda.hpp"

namespace tonekit::quality {
namespace {
Status no_cuda_build() { return {StatusCode::no_device, "GpuQuality: this build of tonekit has no CUDA backend"}; }
}  // namespace

struct GpuQuality::Impl {};
GpuQuality::GpuQuality(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
GpuQuality::~GpuQuality() = default;
Result<std::unique_ptr<GpuQuality>> GpuQuality::create(int) { return no_cuda_build(); }
Result<GpuScores> GpuQuality::score(const Image&, const OutputImage&, GpuMetrics) { return no_cuda_build(); }
Result<GpuScores> GpuQuality::score(const ImageView&, const ImageView&, CUstream_st*, GpuMetrics) {
  return no_cuda_build();
}
Status GpuQuality::set_reference(const Image&, GpuMetrics) { return no_cuda_build(); }
Status GpuQuality::set_reference(const ImageView&, CUstream_st*, GpuMetrics) { return no_cuda_build(); }
Result<GpuScores> GpuQuality::score_against_reference(const OutputImage&, GpuMetrics) { return no_cuda_build(); }
Result<GpuScores> GpuQuality::score_against_reference(const ImageView&, CUstream_st*, GpuMetrics) {
  return no_cuda_build();
}
std::size_t GpuQuality::scratch_bytes() const { return 0; }

}  // namespace tonekit::quality
