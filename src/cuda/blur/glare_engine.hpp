// GlareEngine (internal: the ToneMapper's glare stage, include/tonekit/tone_mapper.hpp):
// apply_glare (tonekit/blur.hpp) as a fixed sequence of launches on one stream, in the style of
// BlurEngine: create() validates through plan_glare (the CPU's validator: same errors), plans the
// shared glare pyramid (blur/glare_pyramid.hpp; pyramid methods) or one BlurEngine per octave
// (other methods), and allocates all scratch once; run() adds the glare to one frame (in place, or
// from a source into an output) with no allocation and no host synchronisation: the log-average
// luminance and the threshold are reduced on the device and stay there. A band of a frame split
// between GPUs (frame_height > 0) gathers the key's rows and one pyramid level through its
// StatsExchange.
#pragma once
#include <cstddef>
#include <memory>

#include "tonekit/blur.hpp"
#include "tonekit/image.hpp"
#include "tonekit/status.hpp"

struct CUstream_st;

namespace tonekit {
class StatsExchange;  // tonekit/tone_mapper.hpp
}

namespace tonekit {

struct GlareEngineConfig {
  int width = 0;
  int height = 0;
  // Interleaved float channels, as apply_glare takes them: >= 3: RGB first (luminance from
  // them, light added to them, the rest such as alpha untouched); 1 or 2: grey (+ alpha).
  int channels = 4;
  GlareParams params;
  int device = -1;  // -1: the current device
  // Half RGBA frames in and out (run with a GlareSource; channels 4): the ToneMapper keeps a half
  // input half through the glare, so its passes read 8 bytes a pixel, not 16.
  bool half_frames = false;
  // A band of a larger frame (the ToneMapper's FramePart; shared-pyramid methods only): the
  // whole frame's rows, the frame row of this buffer's row 0, the buffer rows the part owns, and
  // the exchange that gathers the key's rows and the exchange level's rows between the parts.
  // frame_height 0: the buffer is the whole frame (the rest is ignored).
  int frame_height = 0;
  int frame_row0 = 0;
  int own_begin = 0, own_end = 0;
  StatsExchange* exchange = nullptr;
};

// A frame the glare reads: `channels` floats per pixel, or half RGBA (channels 4); rows `stride`
// bytes apart (0: packed). Or, `surface` non-zero (data then unused), a CUDA array of the frame's
// size, half (half true) or float RGBA, read through this cudaSurfaceObject_t (the ToneMapper's
// surface path: a GL texture or Vulkan image) once, by the key's pass, which also stores the
// texels into device_out for the rest of the glare: no copy pass of its own.
struct GlareSource {
  const void* data = nullptr;
  std::size_t stride = 0;
  bool half = false;
  unsigned long long surface = 0;
};

// What the last run computed on the device (read back for tests and logs).
struct GlareKey {
  double log_average = 0.0;  // exp(mean log(1e-6 + L)), as glare_log_average
  float threshold = 0.0f;    // params.threshold * log_average, in float as the bright pass uses it
};

class GlareEngine {
 public:
  static Result<std::unique_ptr<GlareEngine>> create(const GlareEngineConfig& config);
  ~GlareEngine();
  GlareEngine(const GlareEngine&) = delete;
  GlareEngine& operator=(const GlareEngine&) = delete;

  // device_image: width x height pixels of `channels` floats, tightly packed; modified in place.
  // Asynchronous on `stream` (nullptr = the legacy default stream). A no-op when !active().
  Status run(float* device_image, CUstream_st* stream = nullptr);
  // The same from a source frame into device_out (packed, the source's format: `channels`
  // floats, or half RGBA with half_frames): the source is read where it lies (rows `stride` bytes
  // apart) and never written unless it is device_out itself; no copy pass when the octaves share
  // a pyramid. Half frames add the light in float and round once (saturating at 65504).
  Status run(const GlareSource& in, void* device_out, CUstream_st* stream = nullptr);

  // False when the effect is off (strength 0 or radius * max(width, height) < 0.5): run() then
  // does nothing and nothing was allocated.
  bool active() const;
  // The last run's log-average and threshold (copies on `stream` and synchronises it).
  Status read_key(GlareKey& key, CUstream_st* stream = nullptr) const;
  const GlareEngineConfig& config() const;
  std::size_t scratch_bytes() const;  // device memory held, the blur engines' included

 private:
  struct Impl;
  explicit GlareEngine(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace tonekit
