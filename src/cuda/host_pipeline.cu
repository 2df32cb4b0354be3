#include "cuda/host_pipeline.hpp"

#include <cstring>

#include "cuda/check.hpp"

namespace tonekit::cuda {

Result<std::unique_ptr<HostPipeline>> HostPipeline::create(const ToneMapperConfig& cfg, int slots) {
  if (slots < 2) return invalid_argument("HostPipeline: at least two frames in flight");
  std::unique_ptr<HostPipeline> p(new HostPipeline());
  p->in_bytes_ = input_pixel_bytes(cfg.input) * cfg.width * static_cast<std::size_t>(cfg.height);
  p->out_bytes_ = bytes_per_channel(cfg.output.type) * cfg.output.channels * static_cast<std::size_t>(cfg.width) * cfg.height;
  p->slots_.resize(slots);
  for (Slot& s : p->slots_) {
    auto m = ToneMapper::create(cfg);
    if (!m.ok()) return m.status();
    s.mapper = std::move(m.value());
    TK_CUDA_CHECK(cudaStreamCreateWithFlags(&s.stream, cudaStreamNonBlocking));
    TK_CUDA_CHECK(cudaEventCreateWithFlags(&s.done, cudaEventDisableTiming));
    TK_CUDA_CHECK(cudaMalloc(&s.d_in, p->in_bytes_));
    TK_CUDA_CHECK(cudaMalloc(&s.d_out, p->out_bytes_));
    TK_CUDA_CHECK(cudaMallocHost(&s.h_in, p->in_bytes_));
    TK_CUDA_CHECK(cudaMallocHost(&s.h_out, p->out_bytes_));
  }
  return Result<std::unique_ptr<HostPipeline>>(std::move(p));
}

HostPipeline::~HostPipeline() {
  for (Slot& s : slots_) {
    if (s.stream) cudaStreamSynchronize(s.stream);
    s.mapper.reset();
    cudaFree(s.d_in);
    cudaFree(s.d_out);
    cudaFreeHost(s.h_in);
    cudaFreeHost(s.h_out);
    if (s.done) cudaEventDestroy(s.done);
    if (s.stream) cudaStreamDestroy(s.stream);
  }
}

Status HostPipeline::retire(Slot& s, bool pinned) {
  if (!s.user_out) return {};
  TK_CUDA_CHECK(cudaEventSynchronize(s.done));
  if (!pinned) std::memcpy(s.user_out, s.h_out, out_bytes_);
  s.user_out = nullptr;
  return {};
}

Status HostPipeline::run(const void* const* in, void* const* out, int count, bool pinned) {
  const int n = static_cast<int>(slots_.size());
  Status failure;
  for (int f = 0; f < count && failure.ok(); ++f) {
    const int k = f % n;
    Slot& s = slots_[k];
    if (Status st = retire(s, pinned); !st.ok()) { failure = st; break; }
    const void* src = in[f];
    if (!pinned) {
      std::memcpy(s.h_in, in[f], in_bytes_);
      src = s.h_in;
    }
    void* dst = pinned ? out[f] : s.h_out;
    auto enqueue = [&]() -> Status {
      TK_CUDA_CHECK(cudaMemcpyAsync(s.d_in, src, in_bytes_, cudaMemcpyHostToDevice, s.stream));
      if (Status st = s.mapper->process(s.d_in, 0, s.d_out, 0, s.stream); !st.ok()) return st;
      TK_CUDA_CHECK(cudaMemcpyAsync(dst, s.d_out, out_bytes_, cudaMemcpyDeviceToHost, s.stream));
      TK_CUDA_CHECK(cudaEventRecord(s.done, s.stream));
      return {};
    };
    failure = enqueue();
    s.user_out = out[f];
    last_slot_ = k;
  }
  for (Slot& s : slots_) {
    Status st = retire(s, pinned);
    if (failure.ok() && !st.ok()) failure = st;
  }
  return failure;
}

Status HostPipeline::last_stats(FrameStats& stats) {
  if (last_slot_ < 0) return invalid_argument("HostPipeline: no frame run");
  return slots_[last_slot_].mapper->read_stats(stats);
}

Status HostPipeline::last_timings(StageTimings& t) {
  if (last_slot_ < 0) return invalid_argument("HostPipeline: no frame run");
  return slots_[last_slot_].mapper->read_timings(t);
}

}  // namespace tonekit::cuda
