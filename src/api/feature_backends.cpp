// blur, apply_glare, apply_night, quality::assess and auto_params on a Backend (the one rule: api/backend_rule.hpp).
// The GPU sides are the public device classes; GpuQuality and GpuAutoParams are kept per device.
#include <memory>
#include <mutex>

#include "api/backend_rule.hpp"
#include "api/cuda_entry.hpp"
#include "tonekit/auto_params.hpp"
#include "tonekit/auto_params_cuda.hpp"
#include "tonekit/blur.hpp"
#include "tonekit/night.hpp"
#include "tonekit/quality.hpp"
#include "tonekit/quality_cuda.hpp"

namespace tonekit {
namespace {

// One T (GpuQuality, GpuAutoParams) per CUDA device, the calling thread's current one
// (use_cuda_device), created at its first use and kept for the process: leaked on purpose, as
// tone_map's cached mapper (freeing device memory from a static destructor races the CUDA
// runtime's own teardown at exit). One caller at a time uses it (T is not thread-safe). A device
// that reports `unsupported` (no cuFFT) stays so: later requests get that status at once (on
// automatic, the CPU).
template <class T>
class PerDevice {
 public:
  template <class R, class Use>
  R use(Use&& use_object) {
    const int device = cuda_entry::current_device();
    if (device < 0 || device >= kDevices)
      return Status{StatusCode::no_device, "no current CUDA device (or beyond the 64 this build keeps)"};
    Slot& slot = slots_[device];
    std::lock_guard lock(slot.mutex);
    if (!slot.unsupported.ok()) return slot.unsupported;
    if (!slot.object) {
      auto created = T::create();
      if (!created.ok()) return remember(slot, created.status());
      slot.object = std::move(*created);
    }
    R r = use_object(*slot.object);
    if (!r.ok()) remember(slot, r.status());
    return r;
  }

  static PerDevice& instance() {
    static PerDevice* kept = new PerDevice;  // leaked on purpose (above)
    return *kept;
  }

 private:
  static constexpr int kDevices = 64;
  struct Slot {
    std::mutex mutex;
    std::unique_ptr<T> object;
    Status unsupported;
  };
  static const Status& remember(Slot& slot, const Status& s) {
    if (s.code() == StatusCode::unsupported) slot.unsupported = s;
    return s;
  }
  Slot slots_[kDevices];
};

}  // namespace

Result<Image> blur(const Image& in, const BlurPlan& plan, Backend backend, Backend* ran_on) {
  return api::run_on_backend<Result<Image>>(
      backend, ran_on, [&] { return cuda_entry::blur_host(in, plan); }, [&] { return blur(in, plan); });
}

Status apply_glare(Image& image, const GlareParams& params, Backend backend, Backend* ran_on) {
  // The GPU writes the image back only after its last kernel, so a failure leaves it as it was.
  return api::run_on_backend<Status>(
      backend, ran_on, [&] { return cuda_entry::apply_glare_host(image, params); }, [&] { return apply_glare(image, params); });
}

Status apply_night(Image& image, const NightParams& params, Backend backend, Backend* ran_on, std::uint32_t frame,
                   NightReport* report) {
  // As glare: the GPU writes the image back only after its last kernel.
  return api::run_on_backend<Status>(
      backend, ran_on, [&] { return cuda_entry::apply_night_host(image, params, frame, report); },
      [&] { return apply_night(image, params, frame, report); });
}

Result<quality::QualityReport> quality::assess(const Image& hdr, const OutputImage& ldr, Backend backend,
                                               Backend* ran_on) {
  auto on_gpu = [&]() -> Result<QualityReport> {
    // The input checks first: a bad pair is the caller's error on either backend.
    if (Status s = check_pair(hdr, ldr); !s.ok()) return s;
    return PerDevice<GpuQuality>::instance().use<Result<QualityReport>>([&](GpuQuality& gpu) -> Result<QualityReport> {
      auto scores = gpu.score(hdr, ldr, GpuMetrics::all);
      if (!scores.ok()) return scores.status();
      return QualityReport{scores->tmqi, scores->fsitm, scores->colour};
    });
  };
  return api::run_on_backend<Result<QualityReport>>(backend, ran_on, on_gpu, [&] { return assess(hdr, ldr); });
}

Result<AutoResult> auto_params(const Image& hdr, const Params& start, const AutoBudget& budget, Backend backend) {
  auto on_gpu = [&] {
    return PerDevice<GpuAutoParams>::instance().use<Result<AutoResult>>(
        [&](GpuAutoParams& gpu) { return gpu.search(hdr, start, budget); });
  };
  return api::run_on_backend<Result<AutoResult>>(backend, nullptr, on_gpu, [&] { return auto_params(hdr, start, budget); });
}

}  // namespace tonekit
