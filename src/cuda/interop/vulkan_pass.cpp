// tonekit::VulkanPass (include/tonekit/vulkan.hpp): CUDA external memory and semaphores around
// ToneMapper::process.
#include <cuda_runtime.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <string>

#include "cuda/check.hpp"
#include "tonekit/vulkan.hpp"

namespace tonekit {

struct VulkanPass::Impl {
  VulkanPassConfig cfg;
  std::unique_ptr<ToneMapper> mapper;
  cudaExternalMemory_t in_mem = nullptr, out_mem = nullptr;
  void* in_ptr = nullptr;
  void* out_ptr = nullptr;
  // Layout::images: the mipmapped arrays, their level 0 and its surface.
  cudaMipmappedArray_t in_mip = nullptr, out_mip = nullptr;
  cudaArray_t in_array = nullptr, out_array = nullptr;
  cudaSurfaceObject_t in_surface = 0, out_surface = 0;
  cudaExternalSemaphore_t wait = nullptr, signal = nullptr;
  int device = 0;
  VulkanInteropTimings timings;

  ~Impl() {
    mapper.reset();
    if (in_ptr) cudaFree(in_ptr);  // a mapped buffer is freed with cudaFree before its memory is destroyed
    if (out_ptr) cudaFree(out_ptr);
    if (in_surface) cudaDestroySurfaceObject(in_surface);
    if (out_surface) cudaDestroySurfaceObject(out_surface);
    if (in_mip) cudaFreeMipmappedArray(in_mip);  // likewise for a mapped mipmapped array
    if (out_mip) cudaFreeMipmappedArray(out_mip);
    if (in_mem) cudaDestroyExternalMemory(in_mem);
    if (out_mem) cudaDestroyExternalMemory(out_mem);
    if (wait) cudaDestroyExternalSemaphore(wait);
    if (signal) cudaDestroyExternalSemaphore(signal);
  }

  // The memory behind a handle (CUDA takes the descriptor).
  static Status import_external(const VulkanMemoryHandle& h, cudaExternalMemory_t& mem) {
    cudaExternalMemoryHandleDesc d{};
    d.type = cudaExternalMemoryHandleTypeOpaqueFd;
    d.handle.fd = h.fd;
    d.size = h.size;
    d.flags = h.dedicated ? cudaExternalMemoryDedicated : 0;
    TK_CUDA_CHECK(cudaImportExternalMemory(&mem, &d));
    return {};
  }

  static Status import_memory(const VulkanMemoryHandle& h, std::size_t frame_bytes, const char* role,
                              cudaExternalMemory_t& mem, void*& ptr) {
    if (h.fd < 0) return invalid_argument(std::string("VulkanPass: no ") + role + " memory (fd -1)");
    if (h.offset + frame_bytes > h.size)
      return invalid_argument(std::string("VulkanPass: the ") + role + " memory holds " + std::to_string(h.size) +
                              " bytes; the frame needs " + std::to_string(frame_bytes) + " from offset " +
                              std::to_string(h.offset));
    if (Status s = import_external(h, mem); !s.ok()) return s;
    cudaExternalMemoryBufferDesc b{};
    b.offset = h.offset;
    b.size = frame_bytes;
    TK_CUDA_CHECK(cudaExternalMemoryGetMappedBuffer(&ptr, mem, &b));
    return {};
  }

  // An optimal-tiling image: its memory, then a one-level mipmapped array of `format` on it (a
  // colour attachment: the driver may keep it compressed), its level 0 and a surface on that.
  static Status import_image(const VulkanMemoryHandle& h, int w, int hgt, cudaChannelFormatDesc format, const char* role,
                             cudaExternalMemory_t& mem, cudaMipmappedArray_t& mip, cudaArray_t& array,
                             cudaSurfaceObject_t& surface) {
    if (h.fd < 0) return invalid_argument(std::string("VulkanPass: no ") + role + " image memory (fd -1)");
    const std::size_t texel = (format.x + format.y + format.z + format.w) / 8;
    if (h.offset + texel * std::size_t(w) * hgt > h.size)
      return invalid_argument(std::string("VulkanPass: the ") + role + " image's memory holds " + std::to_string(h.size) +
                              " bytes from offset " + std::to_string(h.offset) + ", less than a " + std::to_string(w) +
                              "x" + std::to_string(hgt) + " image's " + std::to_string(texel * std::size_t(w) * hgt));
    if (Status s = import_external(h, mem); !s.ok()) return s;
    cudaExternalMemoryMipmappedArrayDesc m{};
    m.offset = h.offset;
    m.formatDesc = format;
    m.extent = make_cudaExtent(std::size_t(w), std::size_t(hgt), 0);
    m.flags = cudaArraySurfaceLoadStore | cudaArrayColorAttachment;
    m.numLevels = 1;
    TK_CUDA_CHECK(cudaExternalMemoryGetMappedMipmappedArray(&mip, mem, &m));
    TK_CUDA_CHECK(cudaGetMipmappedArrayLevel(&array, mip, 0));
    cudaResourceDesc r{};
    r.resType = cudaResourceTypeArray;
    r.res.array.array = array;
    TK_CUDA_CHECK(cudaCreateSurfaceObject(&surface, &r));
    return {};
  }

  static Status import_semaphore(int fd, cudaExternalSemaphore_t& sem) {
    cudaExternalSemaphoreHandleDesc d{};
    d.type = cudaExternalSemaphoreHandleTypeOpaqueFd;
    d.handle.fd = fd;
    TK_CUDA_CHECK(cudaImportExternalSemaphore(&sem, &d));
    return {};
  }

  // The CUDA device whose UUID is the Vulkan device's (both name the same GPU).
  Status pick_device() {
    int count = 0;
    TK_CUDA_CHECK(cudaGetDeviceCount(&count));
    const std::array<std::uint8_t, 16> zero{};
    if (cfg.device_uuid == zero) {
      if (cfg.device >= 0) device = cfg.device;
      else TK_CUDA_CHECK(cudaGetDevice(&device));
      return {};
    }
    for (int d = 0; d < count; ++d) {
      cudaDeviceProp p{};
      TK_CUDA_CHECK(cudaGetDeviceProperties(&p, d));
      if (std::memcmp(p.uuid.bytes, cfg.device_uuid.data(), 16) == 0) {
        device = d;
        return {};
      }
    }
    return Status{StatusCode::no_device, "VulkanPass: no CUDA device has the Vulkan device's UUID"};
  }
};

VulkanPass::VulkanPass(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
VulkanPass::~VulkanPass() = default;

Result<std::unique_ptr<VulkanPass>> VulkanPass::create(const VulkanPassConfig& config) {
  if (Status s = cuda::select_device(-1, "VulkanPass"); !s.ok()) return s;
  if (config.width < 1 || config.height < 1) return invalid_argument("VulkanPass: empty frame");
  auto impl = std::make_unique<Impl>();
  impl->cfg = config;
  if (Status s = impl->pick_device(); !s.ok()) return s;
  TK_CUDA_CHECK(cudaSetDevice(impl->device));
  ToneMapperConfig c;
  c.width = config.width;
  c.height = config.height;
  c.input = config.input;
  c.output = config.output;
  c.device = impl->device;
  c.timings = config.timings;
  static_cast<Look&>(c) = config;
  auto m = ToneMapper::create(c);  // validates the size and formats before anything is imported
  if (!m.ok()) return m.status();
  impl->mapper = std::move(m.value());
  if (config.layout == VulkanPassConfig::Layout::images) {
    if (config.input != InputFormat::rgba_f16 && config.input != InputFormat::rgba_f32)
      return invalid_argument("VulkanPass: an image input must be rgba_f16 or rgba_f32 (VK_FORMAT_R16G16B16A16_SFLOAT / R32G32B32A32_SFLOAT)");
    if (!(config.output.type == PixelType::u8 && config.output.channels == 4))
      return invalid_argument("VulkanPass: an image output must be u8 x 4 (VK_FORMAT_R8G8B8A8_UNORM)");
    const cudaChannelFormatDesc in_format =
        config.input == InputFormat::rgba_f16 ? cudaCreateChannelDescHalf4() : cudaCreateChannelDesc<float4>();
    if (Status s = Impl::import_image(config.input_memory, config.width, config.height, in_format, "input",
                                      impl->in_mem, impl->in_mip, impl->in_array, impl->in_surface);
        !s.ok())
      return s;
    if (Status s = Impl::import_image(config.output_memory, config.width, config.height, cudaCreateChannelDesc<uchar4>(),
                                      "output", impl->out_mem, impl->out_mip, impl->out_array, impl->out_surface);
        !s.ok())
      return s;
  } else {
    const std::size_t in_row = input_pixel_bytes(config.input) * static_cast<std::size_t>(config.width);
    const std::size_t out_row = bytes_per_channel(config.output.type) * config.output.channels * std::size_t(config.width);
    const std::size_t in_stride = config.input_stride ? config.input_stride : in_row;
    const std::size_t out_stride = config.output_stride ? config.output_stride : out_row;
    const std::size_t in_bytes = in_stride * (config.height - 1) + in_row;
    const std::size_t out_bytes = out_stride * (config.height - 1) + out_row;
    // Each import takes its descriptor; a failure leaves the ones not yet imported to the caller.
    if (Status s = Impl::import_memory(config.input_memory, in_bytes, "input", impl->in_mem, impl->in_ptr); !s.ok())
      return s;
    if (Status s = Impl::import_memory(config.output_memory, out_bytes, "output", impl->out_mem, impl->out_ptr); !s.ok())
      return s;
  }
  if (config.wait_semaphore_fd >= 0)
    if (Status s = Impl::import_semaphore(config.wait_semaphore_fd, impl->wait); !s.ok()) return s;
  if (config.signal_semaphore_fd >= 0)
    if (Status s = Impl::import_semaphore(config.signal_semaphore_fd, impl->signal); !s.ok()) return s;
  return std::unique_ptr<VulkanPass>(new VulkanPass(std::move(impl)));
}

Status VulkanPass::process(CUstream_st* stream, double dt) {
  Impl& m = *impl_;
  using clock = std::chrono::steady_clock;
  const auto ms = [](clock::time_point a, clock::time_point b) { return std::chrono::duration<double, std::milli>(b - a).count(); };
  m.timings = {};
  if (m.wait) {
    cudaExternalSemaphoreWaitParams w{};  // binary semaphore: no value
    const auto t0 = clock::now();
    TK_CUDA_CHECK(cudaWaitExternalSemaphoresAsync(&m.wait, &w, 1, stream));
    m.timings.wait_ms = ms(t0, clock::now());
  }
  const Status st = m.in_surface ? m.mapper->process_surfaces(m.in_surface, m.out_surface, stream, dt)
                                 : m.mapper->process(m.in_ptr, m.cfg.input_stride, m.out_ptr, m.cfg.output_stride, stream, dt);
  if (m.signal) {  // signalled even when the frame failed, so the application's queue never waits forever
    cudaExternalSemaphoreSignalParams p{};
    const auto t0 = clock::now();
    TK_CUDA_CHECK(cudaSignalExternalSemaphoresAsync(&m.signal, &p, 1, stream));
    m.timings.signal_ms = ms(t0, clock::now());
  }
  return st;
}

ToneMapper& VulkanPass::mapper() { return *impl_->mapper; }
const void* VulkanPass::input_device_pointer() const { return impl_->in_ptr; }
void* VulkanPass::output_device_pointer() { return impl_->out_ptr; }
int VulkanPass::cuda_device() const { return impl_->device; }
VulkanInteropTimings VulkanPass::interop_timings() const { return impl_->timings; }
cudaArray* VulkanPass::input_array() const { return impl_->in_array; }
cudaArray* VulkanPass::output_array() const { return impl_->out_array; }

}  // namespace tonekit
