// DeviceFrameMapper (include/tonekit/device_frames.hpp): a ring of frame slots over three
// streams. Frame n: upload on `upload` -> event -> ToneMapper::process on `compute` (frames in
// order, so one temporal state) -> event -> download on `download` -> the slot's `done` event.
#include <cuda_runtime.h>

#include <cstdlib>
#include <cstring>
#include <vector>

#include "cuda/check.hpp"
#include "tonekit/device_frames.hpp"

namespace tonekit {
namespace {

// Page-locked host memory from malloc + cudaHostRegister: for a 25 MB frame ~2 ms on the H100
// host, against 15-28 ms for cudaMallocHost (build/probe startup_probe, 2026-11-26), which
// matters to a stream's start.
struct PinnedBuffer {
  void* data = nullptr;
  std::size_t bytes = 0;
  Status allocate(std::size_t n) {
    constexpr std::size_t kPage = 4096;
    bytes = (n + kPage - 1) / kPage * kPage;
    data = std::aligned_alloc(kPage, bytes);
    if (!data) return {StatusCode::out_of_memory, "out of host memory for frame staging"};
    TK_CUDA_CHECK(cudaHostRegister(data, bytes, cudaHostRegisterPortable));
    registered = true;
    return {};
  }
  ~PinnedBuffer() {
    if (registered) cudaHostUnregister(data);
    std::free(data);
  }
  bool registered = false;
};

bool page_locked(const void* p) {
  cudaPointerAttributes a{};
  if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  return a.type == cudaMemoryTypeHost;
}

}  // namespace

struct DeviceFrameMapper::Impl {
  struct Slot {
    void* d_in = nullptr;
    void* d_out = nullptr;
    PinnedBuffer h_in, h_out;  // staging, allocated at the first frame that needs it
    cudaEvent_t uploaded = nullptr, mapped = nullptr, done = nullptr;
    void* user_out = nullptr;
    bool staged_out = false;
  };
  std::unique_ptr<ToneMapper> mapper;
  cudaStream_t upload = nullptr, compute = nullptr, download = nullptr;
  std::vector<Slot> slots;
  std::vector<void*> locked;  // lock_host_buffer's, unlocked at the end
  int head = 0;     // the oldest pending slot
  int pending = 0;
  std::size_t in_bytes = 0, out_bytes = 0;

  // The frame's kernels on `compute` once its input is on the device, then its download into
  // host_out (or the slot's staging) on `download`; the slot is pending from here.
  Status map_and_download(Slot& s, const FramePlanes& device_in, void* host_out, double dt) {
    if (Status st = mapper->process(device_in, s.d_out, 0, compute, dt); !st.ok()) return st;
    TK_CUDA_CHECK(cudaEventRecord(s.mapped, compute));
    TK_CUDA_CHECK(cudaStreamWaitEvent(download, s.mapped, 0));
    TK_CUDA_CHECK(cudaMemcpyAsync(s.staged_out ? s.h_out.data : host_out, s.d_out, out_bytes, cudaMemcpyDeviceToHost,
                                  download));
    TK_CUDA_CHECK(cudaEventRecord(s.done, download));
    s.user_out = host_out;
    ++pending;
    return {};
  }

  ~Impl() {
    for (cudaStream_t s : {upload, compute, download})
      if (s) cudaStreamSynchronize(s);
    mapper.reset();
    for (Slot& s : slots) {
      cudaFree(s.d_in);
      cudaFree(s.d_out);
      for (cudaEvent_t e : {s.uploaded, s.mapped, s.done})
        if (e) cudaEventDestroy(e);
    }
    for (cudaStream_t s : {upload, compute, download})
      if (s) cudaStreamDestroy(s);
    for (void* p : locked) cudaHostUnregister(p);
    cudaGetLastError();  // memory freed while locked is the caller's bug; do not leave it to the next call
  }
};

DeviceFrameMapper::DeviceFrameMapper(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
DeviceFrameMapper::~DeviceFrameMapper() = default;

Result<std::unique_ptr<DeviceFrameMapper>> DeviceFrameMapper::create(const ToneMapperConfig& config, int frames_in_flight) {
  if (frames_in_flight < 1) return invalid_argument("DeviceFrameMapper: at least one frame in flight");
  auto m = ToneMapper::create(config);
  if (!m.ok()) return m.status();
  auto impl = std::make_unique<Impl>();
  impl->mapper = std::move(m.value());
  impl->in_bytes = frame_bytes(config.input, config.width, config.height);
  impl->out_bytes = output_frame_bytes(config.output_layout, config.width, config.height, config.output.channels,
                                       bytes_per_channel(config.output.type));
  for (cudaStream_t* s : {&impl->upload, &impl->compute, &impl->download})
    TK_CUDA_CHECK(cudaStreamCreateWithFlags(s, cudaStreamNonBlocking));
  impl->slots.resize(static_cast<std::size_t>(frames_in_flight));
  for (Impl::Slot& s : impl->slots) {
    TK_CUDA_CHECK(cudaMalloc(&s.d_in, impl->in_bytes));
    TK_CUDA_CHECK(cudaMalloc(&s.d_out, impl->out_bytes));
    for (cudaEvent_t* e : {&s.uploaded, &s.mapped, &s.done})
      TK_CUDA_CHECK(cudaEventCreateWithFlags(e, cudaEventDisableTiming));
  }
  return std::unique_ptr<DeviceFrameMapper>(new DeviceFrameMapper(std::move(impl)));
}

std::size_t DeviceFrameMapper::input_bytes() const { return impl_->in_bytes; }
std::size_t DeviceFrameMapper::output_bytes() const { return impl_->out_bytes; }
int DeviceFrameMapper::frames_in_flight() const { return static_cast<int>(impl_->slots.size()); }
int DeviceFrameMapper::pending() const { return impl_->pending; }

Status DeviceFrameMapper::submit(const void* host_in, void* host_out, double dt) {
  Impl& m = *impl_;
  if (m.pending == static_cast<int>(m.slots.size()))
    if (Status s = complete_oldest(); !s.ok()) return s;
  const int index = (m.head + m.pending) % static_cast<int>(m.slots.size());
  Impl::Slot& s = m.slots[static_cast<std::size_t>(index)];
  // The slot's previous frame has completed (its `done` was waited for), so its buffers are free.
  const void* src = host_in;
  if (!page_locked(host_in)) {
    if (!s.h_in.data)
      if (Status st = s.h_in.allocate(m.in_bytes); !st.ok()) return st;
    std::memcpy(s.h_in.data, host_in, m.in_bytes);
    src = s.h_in.data;
  }
  s.staged_out = !page_locked(host_out);
  if (s.staged_out && !s.h_out.data)
    if (Status st = s.h_out.allocate(m.out_bytes); !st.ok()) return st;
  const ToneMapperConfig& c = m.mapper->config();
  TK_CUDA_CHECK(cudaMemcpyAsync(s.d_in, src, m.in_bytes, cudaMemcpyHostToDevice, m.upload));
  TK_CUDA_CHECK(cudaEventRecord(s.uploaded, m.upload));
  TK_CUDA_CHECK(cudaStreamWaitEvent(m.compute, s.uploaded, 0));
  return m.map_and_download(s, packed_planes(c.input, s.d_in, c.width, c.height), host_out, dt);
}

Status DeviceFrameMapper::submit_device(const FramePlanes& device_in, void* host_out, double dt) {
  Impl& m = *impl_;
  if (m.pending == static_cast<int>(m.slots.size()))
    if (Status s = complete_oldest(); !s.ok()) return s;
  const int index = (m.head + m.pending) % static_cast<int>(m.slots.size());
  Impl::Slot& s = m.slots[static_cast<std::size_t>(index)];
  s.staged_out = !page_locked(host_out);
  if (s.staged_out && !s.h_out.data)
    if (Status st = s.h_out.allocate(m.out_bytes); !st.ok()) return st;
  // The compute stream is non-blocking, so it does not wait for the legacy default stream by
  // itself: the `uploaded` event, recorded there, orders the decoder's copy before the kernels.
  TK_CUDA_CHECK(cudaEventRecord(s.uploaded, cudaStreamLegacy));
  TK_CUDA_CHECK(cudaStreamWaitEvent(m.compute, s.uploaded, 0));
  return m.map_and_download(s, device_in, host_out, dt);
}

Status DeviceFrameMapper::complete_oldest() {
  Impl& m = *impl_;
  if (m.pending == 0) return {};
  Impl::Slot& s = m.slots[static_cast<std::size_t>(m.head)];
  const cudaError_t e = cudaEventSynchronize(s.done);
  // The frame leaves the ring even when it failed, so that a caller draining after an error ends.
  void* user_out = s.user_out;
  s.user_out = nullptr;
  m.head = (m.head + 1) % static_cast<int>(m.slots.size());
  --m.pending;
  if (e != cudaSuccess) return cuda::cuda_error_status(e, "cudaEventSynchronize (a frame's download)", __FILE__, __LINE__);
  if (s.staged_out) std::memcpy(user_out, s.h_out.data, m.out_bytes);
  return {};
}

bool DeviceFrameMapper::oldest_ready() const {
  const Impl& m = *impl_;
  if (m.pending == 0) return true;
  const cudaError_t e = cudaEventQuery(m.slots[static_cast<std::size_t>(m.head)].done);
  if (e == cudaErrorNotReady) {
    cudaGetLastError();
    return false;
  }
  return true;  // done, or failed: complete_oldest() reports which
}

bool DeviceFrameMapper::lock_host_buffer(void* p, std::size_t bytes) {
  if (!p || bytes == 0 || page_locked(p)) return page_locked(p);
  if (cudaHostRegister(p, bytes, cudaHostRegisterPortable) != cudaSuccess) {
    cudaGetLastError();  // e.g. a page shared with a buffer locked already: staging it is
    return false;
  }
  impl_->locked.push_back(p);
  return true;
}

void DeviceFrameMapper::unlock_host_buffer(void* p) {
  auto& locked = impl_->locked;
  for (std::size_t i = 0; i < locked.size(); ++i)
    if (locked[i] == p) {
      if (cudaHostUnregister(p) != cudaSuccess) cudaGetLastError();
      locked.erase(locked.begin() + static_cast<std::ptrdiff_t>(i));
      return;
    }
}

Status DeviceFrameMapper::map(const void* host_in, void* host_out, double dt) {
  if (Status s = submit(host_in, host_out, dt); !s.ok()) return s;
  while (impl_->pending > 0)
    if (Status s = complete_oldest(); !s.ok()) return s;
  return {};
}

Status DeviceFrameMapper::read_stats(FrameStats& stats, FrameStats* adapted) {
  return impl_->mapper->read_stats(stats, adapted);
}

Status DeviceFrameMapper::read_temporal_state(TemporalState& state) { return impl_->mapper->read_temporal_state(state); }

// The passes read the parameters when a frame is enqueued (kernel arguments), so frames already in
// flight keep theirs.
Status DeviceFrameMapper::set_params(const Params& params) { return impl_->mapper->set_params(params); }

}  // namespace tonekit
