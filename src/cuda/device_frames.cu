// DeviceFrameMapper (include/tonekit/device_frames.hpp): pinned staging, one stream, one ToneMapper.
#include <cuda_runtime.h>

#include <cstring>

#include "cuda/check.hpp"
#include "tonekit/device_frames.hpp"

namespace tonekit {

struct DeviceFrameMapper::Impl {
  std::unique_ptr<ToneMapper> mapper;
  cudaStream_t stream = nullptr;
  void* d_in = nullptr;
  void* d_out = nullptr;
  void* h_in = nullptr;  // pinned
  void* h_out = nullptr;  // pinned
  std::size_t in_bytes = 0, out_bytes = 0;

  ~Impl() {
    if (stream) cudaStreamSynchronize(stream);
    mapper.reset();
    cudaFree(d_in);
    cudaFree(d_out);
    cudaFreeHost(h_in);
    cudaFreeHost(h_out);
    if (stream) cudaStreamDestroy(stream);
  }
};

DeviceFrameMapper::DeviceFrameMapper(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
DeviceFrameMapper::~DeviceFrameMapper() = default;

Result<std::unique_ptr<DeviceFrameMapper>> DeviceFrameMapper::create(const ToneMapperConfig& config) {
  auto m = ToneMapper::create(config);
  if (!m.ok()) return m.status();
  auto impl = std::make_unique<Impl>();
  impl->mapper = std::move(m.value());
  impl->in_bytes = frame_bytes(config.input, config.width, config.height);
  impl->out_bytes = output_frame_bytes(config.output_layout, config.width, config.height, config.output.channels,
                                       bytes_per_channel(config.output.type));
  TK_CUDA_CHECK(cudaStreamCreateWithFlags(&impl->stream, cudaStreamNonBlocking));
  TK_CUDA_CHECK(cudaMalloc(&impl->d_in, impl->in_bytes));
  TK_CUDA_CHECK(cudaMalloc(&impl->d_out, impl->out_bytes));
  TK_CUDA_CHECK(cudaMallocHost(&impl->h_in, impl->in_bytes));
  TK_CUDA_CHECK(cudaMallocHost(&impl->h_out, impl->out_bytes));
  return std::unique_ptr<DeviceFrameMapper>(new DeviceFrameMapper(std::move(impl)));
}

std::size_t DeviceFrameMapper::input_bytes() const { return impl_->in_bytes; }
std::size_t DeviceFrameMapper::output_bytes() const { return impl_->out_bytes; }

Status DeviceFrameMapper::map(const void* host_in, void* host_out, double dt) {
  Impl& m = *impl_;
  const ToneMapperConfig& c = m.mapper->config();
  std::memcpy(m.h_in, host_in, m.in_bytes);
  TK_CUDA_CHECK(cudaMemcpyAsync(m.d_in, m.h_in, m.in_bytes, cudaMemcpyHostToDevice, m.stream));
  if (Status s = m.mapper->process(packed_planes(c.input, m.d_in, c.width, c.height), m.d_out, 0, m.stream, dt); !s.ok())
    return s;
  TK_CUDA_CHECK(cudaMemcpyAsync(m.h_out, m.d_out, m.out_bytes, cudaMemcpyDeviceToHost, m.stream));
  TK_CUDA_CHECK(cudaStreamSynchronize(m.stream));
  std::memcpy(host_out, m.h_out, m.out_bytes);
  return {};
}

Status DeviceFrameMapper::read_stats(FrameStats& stats, FrameStats* adapted) {
  return impl_->mapper->read_stats(stats, adapted);
}

Status DeviceFrameMapper::read_temporal_state(TemporalState& state) { return impl_->mapper->read_temporal_state(state); }

}  // namespace tonekit
