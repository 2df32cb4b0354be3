// NightEngine (internal): apply_night (tonekit/night.hpp) on device frames, in the style of
// GlareEngine: create() validates through plan_night (the CPU's validator: same errors) and
// allocates all scratch once for its size (the half-resolution sanitised and blurred planes, the per-row sums, the
// frame's state, the acuity blur's BlurEngine); run() processes one frame on a stream with no
// allocation and no host synchronisation: the adapting luminance and the rod fraction are reduced
// on the device and stay there. The host entry (cuda_entry::apply_night_host) keeps one engine
// per size and parameters. The benchmark (bench/night_bench.cu) and the GPU tests use it directly.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>

#include "tonekit/night.hpp"
#include "tonekit/status.hpp"

struct CUstream_st;

namespace tonekit {

// A frame the stage reads where it lies: float RGB (channels 3) or RGBA (4), or half RGBA
// (half true); rows `stride` bytes apart (0: packed). RGB reads as RGBA with alpha 1.
struct NightSource {
  const void* data = nullptr;
  std::size_t stride = 0;
  int channels = 4;
  bool half = false;
};

struct NightEngineConfig {
  int width = 0;
  int height = 0;
  NightParams params;  // prepare_night's
  int device = -1;     // -1: the current device
};

class NightEngine {
 public:
  static Result<std::unique_ptr<NightEngine>> create(const NightEngineConfig& config);
  ~NightEngine();
  NightEngine(const NightEngine&) = delete;
  NightEngine& operator=(const NightEngine&) = delete;

  // Float RGBA frames, packed (width x 4 floats a row), 16-byte aligned; device_out may be
  // device_in (in place). Asynchronous on `stream` (nullptr = the legacy default stream).
  // Where the stage is the identity (off, or the frame's adapting luminance at or above
  // photopic) an in-place run writes nothing and an out-of-place run copies the frame.
  Status run(const float* device_in, float* device_out, CUstream_st* stream = nullptr, std::uint32_t frame = 0);
  // The same from any NightSource into a packed float RGBA frame distinct from it (the
  // ToneMapper's stage: the input, its glare frame or the decoded frame, read once per pass).
  // Only on an active engine (invalid_argument otherwise: the caller skips the stage).
  Status run(const NightSource& in, float* device_out, CUstream_st* stream = nullptr, std::uint32_t frame = 0);

  // False when the parameters make every frame the identity (off, strength 0, or a fixed
  // adaptation at or above photopic): run() then copies at most, and nothing was allocated.
  bool active() const;
  // The last run's adapting luminance, rod fraction and blur sigma (copies, synchronises `stream`).
  Status read_report(NightReport& report, CUstream_st* stream = nullptr) const;
  const NightEngineConfig& config() const;
  std::size_t scratch_bytes() const;  // device memory held, the blur engine's included
  // Device bytes one active run moves at the least (the frame read twice and written once, and
  // when blurring the half-resolution plane written and read): the benchmark's floor.
  std::size_t floor_bytes() const;

 private:
  struct Impl;
  explicit NightEngine(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace tonekit
