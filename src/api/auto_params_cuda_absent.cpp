// GpuAutoParams in a build without CUDA (-DTONEKIT_CUDA=OFF or no nvcc): create() reports no_device,
// as every CUDA entry point of such a build does (cuda_absent.cpp); callers search on the CPU.
#include "tonekit/auto_params_cuda.hpp"

namespace tonekit {
namespace {
Status no_cuda_build() { return {StatusCode::no_device, "GpuAutoParams: this build of tonekit has no CUDA backend"}; }
}  // namespace

struct GpuAutoParams::Impl {};
GpuAutoParams::GpuAutoParams(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
GpuAutoParams::~GpuAutoParams() = default;
Result<std::unique_ptr<GpuAutoParams>> GpuAutoParams::create(int) { return no_cuda_build(); }
Result<AutoResult> GpuAutoParams::search(const Image&, const Params&, const AutoBudget&) { return no_cuda_build(); }

}  // namespace tonekit
