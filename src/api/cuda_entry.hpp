// What the host API needs from the CUDA backend. Implemented in src/cuda when the build has
// CUDA, and by api/cuda_absent.cpp otherwise.
#pragma once
#include <cstddef>
#include <cstdint>

#include "tonekit/blur.hpp"
#include "tonekit/night.hpp"
#include "tonekit/temporal.hpp"
#include "tonekit/tonemap.hpp"

namespace tonekit::cuda_entry {

// True when a CUDA device can be used; `why` says why not otherwise.
bool available(std::string* why = nullptr);

// CUDA's start-up (detection and context) on a detached thread; start_finished() never blocks,
// wait_for_start() waits for a start-up that was launched (tonemap.hpp: start_cuda_in_background).
void start_in_background();
bool start_finished();
void wait_for_start();

// Device memory in use and in total (cudaMemGetInfo, the thesis' getMemUsage) for the studio's
// status line; false when no device can be asked (no CUDA build, no device, or the call failed).
bool device_memory_info(std::size_t* used, std::size_t* total);

// CUDA devices present (0 when none can be used).
int device_count();
// Makes `device` the calling thread's current device (checked against device_count()).
Status use_device(int device);

// Creates the CUDA context (the first CUDA call pays for it; prepare_backend() calls this early).
Status create_context();
// The calling thread's current device (-1 when none can be asked).
int current_device();

// One frame's temporal step for tone_map_host: the state before the frame (seeds the device's,
// or resets it when not seeded), replaced by the state after it.
struct TemporalStep {
  TemporalState* state = nullptr;
  const TemporalParams* params = nullptr;
  double dt = 0.0;
};

// Whole-image tone mapping of a host image (float RGB/RGBA or half RGBA view) through one
// cached device mapper; with `temporal`, temporal adaptation on the device.
Status tone_map_host(const ImageView& input, const Params& params, OutputFormat format, OutputImage& out,
                     FrameStats* stats, MapTimings* timings, const TemporalStep* temporal = nullptr);

// blur() of a host image on the device (tonekit/blur.hpp, Backend::cuda): upload, one BlurEngine,
// download; synchronises. 1 and 4 channels as they are; 2 and 3 travel as RGBA (the spare
// channels 0, dropped again).
Result<Image> blur_host(const Image& in, const BlurPlan& plan);

// apply_glare() of a host image on the device (Backend::cuda): the same parameters, checks and
// errors, any channel count apply_glare takes; upload, one GlareEngine, download; synchronises.
// The image is written only after the last kernel, so a failure leaves it as it was.
Status apply_glare_host(Image& image, const GlareParams& params);

// apply_night() of a host image on the device (Backend::cuda): the same checks and errors; one
// NightEngine and frame buffer kept while the size and parameters stay the same; upload (RGB as
// RGBA), run, download; synchronises. The image is written only after the last kernel.
Status apply_night_host(Image& image, const NightParams& params, std::uint32_t frame, NightReport* report);

}  // namespace tonekit::cuda_entry
