// Host API entry: validates the request once and dispatches to a backend.
#include <cmath>
#include <string>

#include "api/backend_rule.hpp"
#include "api/cuda_entry.hpp"
#include "tonekit/temporal.hpp"
#include "tonekit/tonemap.hpp"

namespace tonekit {

const char* backend_name(Backend b) {
  switch (b) {
    case Backend::cpu: return "cpu";
    case Backend::cuda: return "cuda";
    case Backend::automatic: return "auto";
  }
  return "?";
}

Result<Backend> parse_backend(std::string_view text) {
  if (text == "cpu") return Backend::cpu;
  if (text == "cuda") return Backend::cuda;
  if (text == "auto") return Backend::automatic;
  return invalid_argument("unknown backend '" + std::string(text) + "' (known: cpu, cuda, auto)");
}

Result<Backend> api::choose_backend(Backend requested) {
  if (requested == Backend::automatic) return cuda_entry::available() ? Backend::cuda : Backend::cpu;
  if (requested == Backend::cuda) {
    std::string why;
    if (!cuda_entry::available(&why)) return Status{StatusCode::no_device, "--backend cuda: " + why};
  }
  return requested;
}

bool cuda_available() { return cuda_entry::available(); }

int cuda_device_count() { return cuda_entry::device_count(); }

bool cuda_memory_info(std::size_t* used, std::size_t* total) { return cuda_entry::device_memory_info(used, total); }

Status use_cuda_device(int device) { return cuda_entry::use_device(device); }

void start_cuda_in_background() { cuda_entry::start_in_background(); }
bool cuda_start_finished() { return cuda_entry::start_finished(); }
void wait_for_cuda_start() { cuda_entry::wait_for_start(); }

Status prepare_backend(Backend backend) {
  if (backend == Backend::cpu || (backend == Backend::automatic && !cuda_entry::available())) return {};
  return cuda_entry::create_context();
}

double FrameStats::dynamic_range_stops() const {
  if (!(max_luminance > 0) || !(min_positive_luminance > 0)) return 0.0;
  return std::log2(max_luminance / min_positive_luminance);
}

namespace {

// The checks both host entries make, then the backend `automatic` stands for.
Result<Backend> host_request(const ImageView& input, OutputFormat format, Backend backend) {
  if (input.width <= 0 || input.height <= 0 || input.data == nullptr || input.space != MemorySpace::host)
    return invalid_argument("tone_map: empty input image, or not in host memory");
  if (input.channels != 3 && input.channels != 4) return invalid_argument("tone_map: input must have 3 or 4 channels");
  if (input.type != PixelType::f32 && input.type != PixelType::f16)
    return invalid_argument("tone_map: input must be float or half");
  if (format.channels != 3 && format.channels != 4) return invalid_argument("tone_map: output must have 3 or 4 channels");
  return api::choose_backend(backend);
}

}  // namespace

Status tone_map(const ImageView& input, const Params& params, OutputFormat format, Backend backend, OutputImage& out,
                FrameStats* stats, MapTimings* timings) {
  auto b = host_request(input, format, backend);
  if (!b.ok()) return b.status();
  if (*b == Backend::cuda) return cuda_entry::tone_map_host(input, params, format, out, stats, timings);
  out.allocate_for_overwrite(input.width, input.height, format.channels, format.type);  // every byte is written
  return cpu::tone_map(input, params, out.view(), stats, timings);
}

Status tone_map_temporal(const ImageView& input, const Params& params, OutputFormat format, Backend backend,
                         TemporalState& state, const TemporalParams& temporal, double dt, OutputImage& out,
                         FrameStats* stats, MapTimings* timings) {
  if (!(dt >= 0.0) || !std::isfinite(dt)) return invalid_argument("tone_map_temporal: dt must be a finite number >= 0");
  auto b = host_request(input, format, backend);
  if (!b.ok()) return b.status();
  if (*b == Backend::cuda) {
    const cuda_entry::TemporalStep step{&state, &temporal, dt};
    return cuda_entry::tone_map_host(input, params, format, out, stats, timings, &step);
  }
  // The state changes only if the frame maps: a failure leaves the caller's as it was.
  TemporalState next = state;
  const cpu::CurveStatsHook hook = [&](const FrameStats& own) { return temporal_update(next, own, temporal, dt); };
  out.allocate_for_overwrite(input.width, input.height, format.channels, format.type);  // every byte is written
  if (Status s = cpu::tone_map(input, params, out.view(), stats, timings, &hook); !s.ok()) return s;
  state = next;
  return {};
}

Status tone_map(const Image& input, const Params& params, OutputFormat format, Backend backend, OutputImage& out,
                FrameStats* stats, MapTimings* timings) {
  if (input.width <= 0 || input.height <= 0 || input.pixels.size() != static_cast<std::size_t>(input.width) * input.height * input.channels)
    return invalid_argument("tone_map: empty or inconsistent input image");
  return tone_map(input.view(), params, format, backend, out, stats, timings);
}

}  // namespace tonekit
