// GpuQuality (include/tonekit/quality_cuda.hpp): the checks at the boundary, the scratch (grown to
// the largest frame, never per call once sized), the order of the TMQI, FSITM and colour launches
// on the caller's stream, and the one copy back of the results.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "cuda/check.hpp"
#include "cuda/quality/quality_gpu.hpp"
#include "cpu/quality/planes.hpp"
#include "tonekit/quality_cuda.hpp"

namespace tonekit::quality {
namespace {

bool has(GpuMetrics set, GpuMetrics m) { return (static_cast<unsigned>(set) & static_cast<unsigned>(m)) != 0; }

// One device allocation that grows (freeing the old one first) and never shrinks.
class GrowingBuffer {
 public:
  GrowingBuffer() = default;
  GrowingBuffer(const GrowingBuffer&) = delete;
  GrowingBuffer& operator=(const GrowingBuffer&) = delete;
  ~GrowingBuffer() { cudaFree(p_); }
  Status reserve(std::size_t bytes) {
    if (bytes <= bytes_) return {};
    cudaFree(p_);
    p_ = nullptr;
    bytes_ = 0;
    TK_CUDA_CHECK(cudaMalloc(&p_, bytes));
    bytes_ = bytes;
    return {};
  }
  template <class T>
  T* as() const {
    return static_cast<T*>(p_);
  }
  std::size_t bytes() const { return bytes_; }

 private:
  void* p_ = nullptr;
  std::size_t bytes_ = 0;
};

// The device view checks beyond check_pair's (which the callers run): device memory, a float32
// HDR, rows at least a row long and aligned to the channel type.
Status check_view(const ImageView& v, const char* which) {
  const std::string name = std::string("GpuQuality: the ") + which;
  if (v.space != MemorySpace::device) return invalid_argument(name + " view is not in device memory");
  if (!v.data) return invalid_argument(name + " view has no data");
  const std::size_t row = v.pixel_bytes() * static_cast<std::size_t>(v.width);
  if (v.row_stride_bytes != 0 && v.row_stride_bytes < row)
    return invalid_argument(name + " row stride " + std::to_string(v.row_stride_bytes) + " is shorter than a row (" +
                            std::to_string(row) + " bytes)");
  const std::size_t unit = bytes_per_channel(v.type);
  if (v.stride() % unit != 0 || reinterpret_cast<std::uintptr_t>(v.data) % unit != 0)
    return invalid_argument(name + " rows are not aligned to its " + std::to_string(unit) + "-byte channels");
  if (static_cast<std::int64_t>(v.width) * v.height > kMaxImagePixels)
    return invalid_argument(name + " image has more than " + std::to_string(kMaxImagePixels) + " pixels");
  return {};
}

Status check_hdr_view(const ImageView& hdr) {
  // check_pair's messages for the HDR's part (the LDR stand-in passes every check).
  if (Status s = detail::check_pair_shape(hdr.width, hdr.height, hdr.channels, hdr.width, hdr.height, 3, PixelType::u8);
      !s.ok())
    return s;
  if (hdr.type != PixelType::f32)
    return invalid_argument(std::string("GpuQuality: the HDR must hold float32 values (got ") +
                            pixel_type_name(hdr.type) + ")");
  return check_view(hdr, "HDR");
}

gpu::HdrSource hdr_source(const ImageView& v) {
  return {static_cast<const unsigned char*>(v.data), v.stride(), v.channels};
}
gpu::LdrSource ldr_source(const ImageView& v) {
  return {static_cast<const unsigned char*>(v.data), v.stride(), v.channels, v.type == PixelType::u16};
}

}  // namespace

struct GpuQuality::Impl {
  int device = 0;
  cudaStream_t own_stream = nullptr;  // the host entries' uploads and runs
  GrowingBuffer hdr_pyramid, ldr_pyramid, blocks;  // TMQI
  GrowingBuffer channels, hdr_phase, filters;      // FSITM
  GrowingBuffer colour_source, colour_keys, colour_partials;  // colour fidelity
  // Colour fidelity's decode tables (detail::shown_linear_table), uploaded on first use of each
  // LDR type; the host copies stay alive for the asynchronous upload.
  GrowingBuffer shown_u8, shown_u16;
  std::vector<double> shown_u8_host, shown_u16_host;
  GrowingBuffer work;                              // TMQI's moments and map, then FSITM's planes
  GrowingBuffer temp;                              // CUB
  GrowingBuffer hdr_staging, ldr_staging;          // host entries
  gpu::DeviceResults* results = nullptr;           // device
  gpu::DeviceResults* host_results = nullptr;      // pinned
  gpu::FsitmPlan fsitm;
  gpu::TmqiLayout layout;
  // The reference set by set_reference: its size and the metrics prepared (0: none).
  int ref_width = 0, ref_height = 0;
  unsigned ref_metrics = 0;

  ~Impl() {
    fsitm.release();
    cudaFree(results);
    cudaFreeHost(host_results);
    if (own_stream) cudaStreamDestroy(own_stream);
  }

  // Buffers, plans and filters for width x height and the metrics asked for.
  Status size_for(int width, int height, GpuMetrics which, cudaStream_t s) {
    const std::size_t n = static_cast<std::size_t>(width) * height;
    layout = gpu::tmqi_layout(width, height);
    std::size_t work_doubles = 0;
    if (has(which, GpuMetrics::tmqi)) {
      if (Status st = hdr_pyramid.reserve(layout.pyramid * sizeof(double)); !st.ok()) return st;
      if (Status st = ldr_pyramid.reserve(layout.pyramid * sizeof(double)); !st.ok()) return st;
      if (Status st = blocks.reserve(layout.blocks * sizeof(double)); !st.ok()) return st;
      work_doubles = layout.moments + layout.map;
    }
    if (has(which, GpuMetrics::fsitm)) {
      const std::size_t plane = gpu::channel_plane_stride(width, height);
      if (Status st = channels.reserve(3 * plane * sizeof(double)); !st.ok()) return st;
      if (Status st = hdr_phase.reserve(3 * plane * sizeof(double)); !st.ok()) return st;
      work_doubles = std::max(work_doubles, gpu::FsitmPlan::work_doubles(width, height));
      const std::size_t filter_bytes = gpu::FsitmPlan::filter_floats(width, height) * sizeof(float);
      const bool moved = filter_bytes > filters.bytes();
      if (Status st = filters.reserve(filter_bytes); !st.ok()) return st;
      if (moved || fsitm.width() != width || fsitm.height() != height)
        if (Status st = fsitm.build(width, height, filters.as<float>(), s); !st.ok()) return st;
    }
    if (Status st = work.reserve(work_doubles * sizeof(double)); !st.ok()) return st;
    auto temp_bytes = gpu::reduce_temp_bytes(n);
    if (!temp_bytes.ok()) return temp_bytes.status();
    std::size_t temp_needed = *temp_bytes;
    if (has(which, GpuMetrics::colour)) {
      if (Status st = colour_source.reserve(gpu::colour_source_floats(width, height) * sizeof(float)); !st.ok())
        return st;
      if (Status st = colour_keys.reserve(gpu::colour_key_doubles(width, height) * sizeof(double)); !st.ok()) return st;
      if (Status st = colour_partials.reserve(gpu::colour_partial_count(width, height) * sizeof(gpu::ColourSums));
          !st.ok())
        return st;
      auto colour_temp = gpu::colour_temp_bytes(width, height);
      if (!colour_temp.ok()) return colour_temp.status();
      temp_needed = std::max(temp_needed, *colour_temp);
    }
    return temp.reserve(temp_needed);
  }

  // The decode table of `type` on the device (uploaded once per engine and type).
  Status upload_shown_table(PixelType type, cudaStream_t s) {
    const bool u16 = type == PixelType::u16;
    std::vector<double>& host = u16 ? shown_u16_host : shown_u8_host;
    GrowingBuffer& device_table = u16 ? shown_u16 : shown_u8;
    if (!host.empty()) return {};
    std::vector<double> table = detail::shown_linear_table(type);
    if (Status st = device_table.reserve(table.size() * sizeof(double)); !st.ok()) return st;
    TK_CUDA_CHECK(cudaMemcpyAsync(device_table.as<void>(), table.data(), table.size() * sizeof(double),
                                  cudaMemcpyHostToDevice, s));
    host = std::move(table);  // the same storage: moving a vector keeps its buffer
    return {};
  }

  gpu::ColourBuffers colour_buffers() const {
    return {colour_source.as<float>(), colour_keys.as<double>(), colour_partials.as<gpu::ColourSums>(),
            shown_u8.as<double>(), shown_u16.as<double>()};
  }

  gpu::TmqiBuffers tmqi_buffers() const {
    return {hdr_pyramid.as<double>(), ldr_pyramid.as<double>(), work.as<double>(),
            work.as<double>() + layout.moments, blocks.as<double>()};
  }
  gpu::ReduceTemp reduce_temp() const { return {temp.as<void>(), temp.bytes()}; }

  Status set_reference(const ImageView& hdr, cudaStream_t s, GpuMetrics which) {
    ref_metrics = 0;
    if (Status st = check_hdr_view(hdr); !st.ok()) return st;
    TK_CUDA_CHECK(cudaSetDevice(device));
    const int width = hdr.width, height = hdr.height;
    if (Status st = size_for(width, height, which, s); !st.ok()) return st;
    const bool tmqi = has(which, GpuMetrics::tmqi), fsitm_too = has(which, GpuMetrics::fsitm);
    const std::size_t plane = gpu::channel_plane_stride(width, height);
    if (has(which, GpuMetrics::colour))
      if (Status st = gpu::colour_reference(hdr_source(hdr), width, height, colour_source.as<float>(), s); !st.ok())
        return st;
    if (tmqi || fsitm_too)
      if (Status st = gpu::hdr_planes(hdr_source(hdr), width, height, tmqi ? hdr_pyramid.as<double>() : nullptr,
                                      fsitm_too ? channels.as<double>() : nullptr, s);
          !st.ok())
        return st;
    if (tmqi)
      if (Status st = gpu::tmqi_hdr(layout, tmqi_buffers(), results, reduce_temp(), s); !st.ok()) return st;
    if (fsitm_too)
      for (int c = 0; c < 3; ++c)
        if (Status st = fsitm.hdr_phase(c, channels.as<double>() + c * plane, hdr_phase.as<double>() + c * plane,
                                        work.as<double>(), results, reduce_temp(), s);
            !st.ok())
          return st;
    // The caller may release the HDR once this returns.
    TK_CUDA_CHECK(cudaStreamSynchronize(s));
    ref_width = width;
    ref_height = height;
    ref_metrics = static_cast<unsigned>(which);
    return {};
  }

  Result<GpuScores> score(const ImageView& ldr, cudaStream_t s, GpuMetrics which) {
    if (ref_metrics == 0) return invalid_argument("GpuQuality: no reference HDR image (set_reference first)");
    if ((static_cast<unsigned>(which) & ~ref_metrics) != 0)
      return invalid_argument("GpuQuality: a metric was asked for that the reference was not prepared for");
    if (Status st = detail::check_pair_shape(ref_width, ref_height, 3, ldr.width, ldr.height, ldr.channels, ldr.type);
        !st.ok())
      return st;
    if (Status st = check_view(ldr, "tone-mapped"); !st.ok()) return st;
    TK_CUDA_CHECK(cudaSetDevice(device));
    const bool tmqi = has(which, GpuMetrics::tmqi), fsitm_too = has(which, GpuMetrics::fsitm);
    const bool colour = has(which, GpuMetrics::colour);
    const int width = ldr.width, height = ldr.height;
    if (colour) {
      if (Status st = upload_shown_table(ldr.type, s); !st.ok()) return st;
      if (Status st = gpu::colour_score(ldr_source(ldr), width, height, colour_buffers(), results, reduce_temp(), s);
          !st.ok())
        return st;
    }
    const std::size_t n = static_cast<std::size_t>(width) * height, plane = gpu::channel_plane_stride(width, height);
    if (tmqi || fsitm_too)
      if (Status st = gpu::ldr_planes(ldr_source(ldr), width, height, tmqi ? ldr_pyramid.as<double>() : nullptr,
                                      fsitm_too ? channels.as<double>() : nullptr, s);
          !st.ok())
        return st;
    if (tmqi)
      if (Status st = gpu::tmqi_ldr(layout, tmqi_buffers(), results, reduce_temp(), s); !st.ok()) return st;
    if (fsitm_too) {
      TK_CUDA_CHECK(cudaMemsetAsync(results->agree, 0, sizeof(results->agree), s));
      for (int c = 0; c < 3; ++c)
        if (Status st = fsitm.ldr_agree(c, channels.as<double>() + c * plane, hdr_phase.as<double>() + c * plane,
                                        work.as<double>(), results, s);
            !st.ok())
          return st;
    }
    TK_CUDA_CHECK(cudaMemcpyAsync(host_results, results, sizeof(gpu::DeviceResults), cudaMemcpyDeviceToHost, s));
    TK_CUDA_CHECK(cudaStreamSynchronize(s));
    GpuScores out;
    if (tmqi) out.tmqi = gpu::tmqi_finish(layout, *host_results);
    if (fsitm_too) {
      for (int c = 0; c < 3; ++c)
        out.fsitm.channel[c] = static_cast<double>(host_results->agree[c]) / static_cast<double>(n);
      out.fsitm.mean = (out.fsitm.channel[0] + out.fsitm.channel[1] + out.fsitm.channel[2]) / 3.0;
    }
    if (colour) out.colour = gpu::colour_finish(*host_results);
    return out;
  }

  // Host images through the staging buffers on the own stream.
  Result<ImageView> upload_hdr(const Image& hdr) {
    if (hdr.pixels.size() != static_cast<std::size_t>(hdr.width) * hdr.height * hdr.channels)
      return invalid_argument("image buffer does not match its size");
    const std::size_t bytes = hdr.pixels.size() * sizeof(float);
    TK_CUDA_CHECK(cudaSetDevice(device));
    if (Status st = hdr_staging.reserve(bytes); !st.ok()) return st;
    TK_CUDA_CHECK(cudaMemcpyAsync(hdr_staging.as<void>(), hdr.pixels.data(), bytes, cudaMemcpyHostToDevice, own_stream));
    return ImageView{hdr_staging.as<void>(), hdr.width, hdr.height, hdr.channels, PixelType::f32, 0, MemorySpace::device};
  }
  Result<ImageView> upload_ldr(const OutputImage& ldr) {
    if (ldr.bytes.size() !=
        static_cast<std::size_t>(ldr.width) * ldr.height * ldr.channels * bytes_per_channel(ldr.type))
      return invalid_argument("image buffer does not match its size");
    TK_CUDA_CHECK(cudaSetDevice(device));
    if (Status st = ldr_staging.reserve(ldr.bytes.size()); !st.ok()) return st;
    TK_CUDA_CHECK(cudaMemcpyAsync(ldr_staging.as<void>(), ldr.bytes.data(), ldr.bytes.size(), cudaMemcpyHostToDevice,
                                  own_stream));
    return ImageView{ldr_staging.as<void>(), ldr.width, ldr.height, ldr.channels, ldr.type, 0, MemorySpace::device};
  }

  std::size_t bytes() const {
    return hdr_pyramid.bytes() + ldr_pyramid.bytes() + blocks.bytes() + channels.bytes() + hdr_phase.bytes() +
           filters.bytes() + work.bytes() + temp.bytes() + hdr_staging.bytes() + ldr_staging.bytes() +
           colour_source.bytes() + colour_keys.bytes() + colour_partials.bytes() + shown_u8.bytes() +
           shown_u16.bytes() + sizeof(gpu::DeviceResults);
  }
};

GpuQuality::GpuQuality(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
GpuQuality::~GpuQuality() = default;

Result<std::unique_ptr<GpuQuality>> GpuQuality::create(int device) {
  if (Status st = cuda::select_device(device, "GpuQuality"); !st.ok()) return st;
  auto impl = std::make_unique<Impl>();
  TK_CUDA_CHECK(cudaGetDevice(&impl->device));
  TK_CUDA_CHECK(cudaStreamCreateWithFlags(&impl->own_stream, cudaStreamNonBlocking));
  TK_CUDA_CHECK(cudaMalloc(&impl->results, sizeof(gpu::DeviceResults)));
  TK_CUDA_CHECK(cudaMallocHost(&impl->host_results, sizeof(gpu::DeviceResults)));
  return std::unique_ptr<GpuQuality>(new GpuQuality(std::move(impl)));
}

Result<GpuScores> GpuQuality::score(const Image& hdr, const OutputImage& ldr, GpuMetrics which) {
  if (Status st = check_pair(hdr, ldr); !st.ok()) return st;
  if (Status st = set_reference(hdr, which); !st.ok()) return st;
  return score_against_reference(ldr, which);
}

Result<GpuScores> GpuQuality::score(const ImageView& hdr, const ImageView& ldr, CUstream_st* stream,
                                    GpuMetrics which) {
  if (Status st = detail::check_pair_shape(hdr.width, hdr.height, hdr.channels, ldr.width, ldr.height, ldr.channels,
                                           ldr.type);
      !st.ok())
    return st;
  if (Status st = check_view(ldr, "tone-mapped"); !st.ok()) return st;
  if (Status st = impl_->set_reference(hdr, stream, which); !st.ok()) return st;
  return impl_->score(ldr, stream, which);
}

Status GpuQuality::set_reference(const Image& hdr, GpuMetrics which) {
  impl_->ref_metrics = 0;
  if (Status st = detail::check_pair_shape(hdr.width, hdr.height, hdr.channels, hdr.width, hdr.height, 3,
                                           PixelType::u8);
      !st.ok())
    return st;
  auto view = impl_->upload_hdr(hdr);
  if (!view.ok()) return view.status();
  return impl_->set_reference(*view, impl_->own_stream, which);
}

Status GpuQuality::set_reference(const ImageView& hdr, CUstream_st* stream, GpuMetrics which) {
  return impl_->set_reference(hdr, stream, which);
}

Result<GpuScores> GpuQuality::score_against_reference(const OutputImage& ldr, GpuMetrics which) {
  if (impl_->ref_metrics != 0)  // the checks before the upload (without a reference, score() says so)
    if (Status st = detail::check_pair_shape(impl_->ref_width, impl_->ref_height, 3, ldr.width, ldr.height,
                                             ldr.channels, ldr.type);
        !st.ok())
      return st;
  auto view = impl_->upload_ldr(ldr);
  if (!view.ok()) return view.status();
  return impl_->score(*view, impl_->own_stream, which);
}

Result<GpuScores> GpuQuality::score_against_reference(const ImageView& ldr, CUstream_st* stream, GpuMetrics which) {
  return impl_->score(ldr, stream, which);
}

std::size_t GpuQuality::scratch_bytes() const { return impl_->bytes(); }

}  // namespace tonekit::quality
