// The CUDA entry points of a build without CUDA (-DTONEKIT_CUDA=OFF or no nvcc).
#include "api/cuda_entry.hpp"
#include "tonekit/device_frames.hpp"

namespace tonekit {
namespace {
Status no_cuda_build() { return {StatusCode::no_device, "--backend cuda: this build of tonekit has no CUDA backend"}; }
}  // namespace

namespace cuda_entry {

bool available(std::string* why) {
  if (why) *why = "this build of tonekit has no CUDA backend (configured without CUDA)";
  return false;
}

void start_in_background() {}
bool start_finished() { return true; }
void wait_for_start() {}

bool device_memory_info(std::size_t*, std::size_t*) { return false; }

int device_count() { return 0; }
Status use_device(int) { return no_cuda_build(); }
Status create_context() { return no_cuda_build(); }
int current_device() { return -1; }

Status tone_map_host(const ImageView&, const Params&, OutputFormat, OutputImage&, FrameStats*, MapTimings*,
                     const TemporalStep*) {
  return no_cuda_build();
}

Result<Image> blur_host(const Image&, const BlurPlan&) { return no_cuda_build(); }
Status apply_glare_host(Image&, const GlareParams&) { return no_cuda_build(); }
Status apply_night_host(Image&, const NightParams&, std::uint32_t, NightReport*) { return no_cuda_build(); }

}  // namespace cuda_entry

struct DeviceFrameMapper::Impl {};
DeviceFrameMapper::DeviceFrameMapper(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
DeviceFrameMapper::~DeviceFrameMapper() = default;
Result<std::unique_ptr<DeviceFrameMapper>> DeviceFrameMapper::create(const ToneMapperConfig&, int) { return no_cuda_build(); }
std::size_t DeviceFrameMapper::input_bytes() const { return 0; }
std::size_t DeviceFrameMapper::output_bytes() const { return 0; }
int DeviceFrameMapper::frames_in_flight() const { return 0; }
Status DeviceFrameMapper::submit(const void*, void*, double) { return no_cuda_build(); }
Status DeviceFrameMapper::submit_device(const FramePlanes&, void*, double) { return no_cuda_build(); }
int DeviceFrameMapper::pending() const { return 0; }
Status DeviceFrameMapper::complete_oldest() { return no_cuda_build(); }
bool DeviceFrameMapper::oldest_ready() const { return true; }
bool DeviceFrameMapper::lock_host_buffer(void*, std::size_t) { return false; }
void DeviceFrameMapper::unlock_host_buffer(void*) {}
Status DeviceFrameMapper::map(const void*, void*, double) { return no_cuda_build(); }
Status DeviceFrameMapper::read_stats(FrameStats&, FrameStats*) { return no_cuda_build(); }
Status DeviceFrameMapper::read_temporal_state(TemporalState&) { return no_cuda_build(); }
Status DeviceFrameMapper::set_params(const Params&) { return no_cuda_build(); }

}  // namespace tonekit
