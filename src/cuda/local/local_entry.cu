// Host images through LocalToneMapper (local_entry.hpp): one frame, synchronous; float RGB or
// RGBA input as is (no conversion pass), the output downloaded into `out`.
#include <cuda_runtime.h>

#include <chrono>
#include <string>

#include "cuda/check.hpp"
#include "cuda/local/local_entry.hpp"
#include "tonekit/local_tone_mapper.hpp"

namespace tonekit::cuda_local {

Status tone_map_host(const Image& input, const Params& params, OutputFormat format, OutputImage& out,
                     FrameStats* stats, MapTimings* timings) {
  const auto t0 = std::chrono::steady_clock::now();
  if (input.channels != 3 && input.channels != 4)
    return unsupported("--backend cuda: input must have 3 or 4 channels (has " + std::to_string(input.channels) + ")");
  LocalToneMapperConfig cfg;
  cfg.width = input.width;
  cfg.height = input.height;
  cfg.input = input.channels == 4 ? InputFormat::rgba_f32 : InputFormat::rgb_f32;
  cfg.output = format;
  cfg.params = params;
  cfg.timings = timings != nullptr;
  auto mapper = LocalToneMapper::create(cfg);
  if (!mapper.ok()) return mapper.status();
  out.allocate(input.width, input.height, format.channels, format.type);
  const std::size_t in_bytes = input.pixels.size() * sizeof(float);
  struct Buffers {
    void* in = nullptr;
    void* out = nullptr;
    ~Buffers() {
      cudaFree(in);
      cudaFree(out);
    }
  } b;
  TK_CUDA_CHECK(cudaMalloc(&b.in, in_bytes));
  TK_CUDA_CHECK(cudaMalloc(&b.out, out.bytes.size()));
  TK_CUDA_CHECK(cudaMemcpy(b.in, input.pixels.data(), in_bytes, cudaMemcpyHostToDevice));
  if (Status s = mapper.value()->process(b.in, 0, b.out, 0, nullptr); !s.ok()) return s;
  TK_CUDA_CHECK(cudaMemcpy(out.bytes.data(), b.out, out.bytes.size(), cudaMemcpyDeviceToHost));
  if (stats)
    if (Status s = mapper.value()->read_stats(*stats); !s.ok()) return s;
  if (timings) {
    LocalStageTimings t;
    if (Status s = mapper.value()->read_timings(t); !s.ok()) return s;
    timings->stats_ms = t.stats_ms;
    timings->map_ms = t.local_ms + t.map_ms;
    timings->total_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  }
  return {};
}

}  // namespace tonekit::cuda_local
