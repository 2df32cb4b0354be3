// MultiGpuToneMapper in a build without CUDA or without NCCL's header (include/tonekit/multi_gpu.hpp):
// create() says why; plan_bands and operator_context_rows (api/frame_bands.cpp) still work.
#include "tonekit/multi_gpu.hpp"

namespace tonekit {
namespace {
Status no_nccl() { return unsupported("MultiGpuToneMapper: this build has no CUDA or no NCCL (nccl.h was not found)"); }
}  // namespace

struct MultiGpuToneMapper::Impl {
  std::vector<FrameBand> plans;
};
MultiGpuToneMapper::MultiGpuToneMapper(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
MultiGpuToneMapper::~MultiGpuToneMapper() = default;
Result<std::unique_ptr<MultiGpuToneMapper>> MultiGpuToneMapper::create(const MultiGpuConfig&) { return no_nccl(); }
const std::vector<FrameBand>& MultiGpuToneMapper::bands() const { return impl_->plans; }
Status MultiGpuToneMapper::process(const std::vector<BandBuffers>&, double) { return no_nccl(); }
Status MultiGpuToneMapper::process_host(const void*, std::size_t, void*, std::size_t, double) { return no_nccl(); }
Status MultiGpuToneMapper::synchronize() { return no_nccl(); }
Status MultiGpuToneMapper::set_params(const Params&) { return no_nccl(); }
Status MultiGpuToneMapper::read_stats(FrameStats&, FrameStats*) { return no_nccl(); }
Status MultiGpuToneMapper::read_temporal_state(int, TemporalState&) { return no_nccl(); }
Status MultiGpuToneMapper::read_timings(MultiGpuTimings&) { return no_nccl(); }

}  // namespace tonekit
