// The streamed host API (docs/architecture.md, "On the GPU"; the video seed's texture
// pool): host frames in, host frames out, through `slots` frames in flight, each slot with
// its own stream, device buffers, ToneMapper and pinned staging buffers, so the upload of one
// frame, the kernels of another and the download of a third overlap.
#pragma once
#include <cuda_runtime.h>

#include <memory>
#include <vector>

#include "tonekit/tone_mapper.hpp"

namespace tonekit::cuda {

class HostPipeline {
 public:
  // cfg describes every frame (packed rows); slots >= 2.
  static Result<std::unique_ptr<HostPipeline>> create(const ToneMapperConfig& cfg, int slots = 3);
  ~HostPipeline();

  // Maps count frames: in[i] -> out[i], host memory, packed rows. With `pinned` the host
  // buffers are page-locked (cudaMallocHost / cudaHostRegister) and are copied from and to
  // directly; otherwise each frame goes through the slot's pinned staging buffers, the host
  // copies overlapping the device work of the other slots. Returns when all are done.
  Status run(const void* const* in, void* const* out, int count, bool pinned);

  // Statistics and device timings of the last frame run (timings when cfg.timings).
  Status last_stats(FrameStats& stats);
  Status last_timings(StageTimings& t);

  std::size_t in_frame_bytes() const { return in_bytes_; }
  std::size_t out_frame_bytes() const { return out_bytes_; }

 private:
  struct Slot {
    std::unique_ptr<ToneMapper> mapper;
    cudaStream_t stream = nullptr;
    cudaEvent_t done = nullptr;
    void* d_in = nullptr;
    void* d_out = nullptr;
    void* h_in = nullptr;   // pinned staging
    void* h_out = nullptr;  // pinned staging
    void* user_out = nullptr;  // where h_out goes when the frame retires
  };
  HostPipeline() = default;
  Status retire(Slot& s, bool pinned);
  std::vector<Slot> slots_;
  std::size_t in_bytes_ = 0, out_bytes_ = 0;
  int last_slot_ = -1;
};

}  // namespace tonekit::cuda
