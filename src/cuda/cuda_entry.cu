// The host API's CUDA entry points (src/api/cuda_entry.hpp): device detection for
// `--backend auto|cuda`, and whole-image mapping through the streamed host pipeline.
#include <cuda_runtime.h>

#include <chrono>
#include <mutex>
#include <string>

#include "api/cuda_entry.hpp"
#include "cuda/host_pipeline.hpp"

namespace tonekit::cuda_entry {

bool available(std::string* why) {
  static std::once_flag once;
  static bool ok = false;
  static std::string reason;
  std::call_once(once, [] {
    int count = 0;
    const cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess) {
      cudaGetLastError();
      reason = std::string("no CUDA device (") + cudaGetErrorString(e) + ")";
    } else if (count == 0) {
      reason = "no CUDA device present";
    } else {
      ok = true;
    }
  });
  if (!ok && why) *why = reason;
  return ok;
}

Status tone_map_host(const Image& input, const Params& params, OutputFormat format, OutputImage& out, FrameStats* stats,
                     MapTimings* timings) {
  const auto t0 = std::chrono::steady_clock::now();
  if (input.channels != 3 && input.channels != 4)
    return unsupported("--backend cuda: input must have 3 or 4 channels (has " + std::to_string(input.channels) + ")");
  ToneMapperConfig cfg;
  cfg.width = input.width;
  cfg.height = input.height;
  cfg.input = input.channels == 4 ? InputFormat::rgba_f32 : InputFormat::rgb_f32;
  cfg.output = format;
  cfg.params = params;
  cfg.timings = timings != nullptr;
  auto pipe = cuda::HostPipeline::create(cfg, 2);
  if (!pipe.ok()) return pipe.status();
  out.allocate(input.width, input.height, format.channels, format.type);
  const void* in_ptr = input.pixels.data();
  void* out_ptr = out.bytes.data();
  if (Status s = pipe.value()->run(&in_ptr, &out_ptr, 1, false); !s.ok()) return s;
  if (stats)
    if (Status s = pipe.value()->last_stats(*stats); !s.ok()) return s;
  if (timings) {
    StageTimings t;
    if (Status s = pipe.value()->last_timings(t); !s.ok()) return s;
    timings->stats_ms = t.stats_ms + t.histogram_ms;
    timings->map_ms = t.local_ms + t.map_ms;
    timings->total_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  }
  return {};
}

}  // namespace tonekit::cuda_entry
