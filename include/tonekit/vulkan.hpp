// Vulkan pass: tone maps frames that live in a Vulkan application's memory.
// The application allocates the input and output with exportable memory
// (VkExportMemoryAllocateInfo, VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT) and two binary
// semaphores with exportable handles (VkExportSemaphoreCreateInfo, OPAQUE_FD), and hands over
// their file descriptors (vkGetMemoryFdKHR, vkGetSemaphoreFdKHR). The pass imports them into CUDA
// once (cudaImportExternalMemory + cudaExternalMemoryGetMappedBuffer: plain device pointers that
// ToneMapper::process reads and writes; cudaImportExternalSemaphore). Each process() waits on the
// `wait` semaphore on the stream (the application's queue signalled it once the input was
// written), tone maps, and signals the `signal` semaphore (the application's next submission
// that reads the output or rewrites the input waits on it): no host synchronisation.
// No Vulkan headers here: the pass needs CUDA only (target tonekit_vulkan); the application
// brings the Vulkan side. The frames are either linear rows (a VkBuffer, or a VkImage with
// VK_IMAGE_TILING_LINEAR and its row pitch as the stride: cudaExternalMemoryGetMappedBuffer,
// ToneMapper::process) or, with `images`, a renderer's own colour attachments: VkImages with
// VK_IMAGE_TILING_OPTIMAL (input VK_FORMAT_R16G16B16A16_SFLOAT or R32G32B32A32_SFLOAT, output
// VK_FORMAT_R8G8B8A8_UNORM; 2D, one level, one layer), imported as CUDA mipmapped arrays
// (cudaExternalMemoryGetMappedMipmappedArray, flagged as colour attachments) and read and
// written through surface objects (ToneMapper::process_surfaces): no copy on either side.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "tonekit/tone_mapper.hpp"

struct cudaArray;

namespace tonekit {

// A VkDeviceMemory exported as an opaque file descriptor. The pass owns `fd` once create()
// succeeds (CUDA closes it with the import); on failure the caller still owns it.
struct VulkanMemoryHandle {
  int fd = -1;
  std::size_t size = 0;    // the allocation's size (VkMemoryAllocateInfo::allocationSize)
  std::size_t offset = 0;  // the frame's offset in it (the buffer's memory offset)
  bool dedicated = false;  // allocated with VkMemoryDedicatedAllocateInfo
};

// The frames, and the look (the base, as ToneMapperConfig's).
struct VulkanPassConfig : Look {
  int width = 0;
  int height = 0;
  // rows: linear memory (the strides apply); images: optimal-tiling VkImages (input rgba_f16 or
  // rgba_f32, output u8 x 4; the strides are ignored).
  enum class Layout { rows, images };
  Layout layout = Layout::rows;
  InputFormat input = InputFormat::rgba_f16;  // rgba_f16, rgba_f32 or rgb_f32 (scene-linear BT.709)
  std::size_t input_stride = 0;               // bytes between rows, 0 = packed
  VulkanMemoryHandle input_memory;
  OutputFormat output{PixelType::u8, 4};
  std::size_t output_stride = 0;
  VulkanMemoryHandle output_memory;
  int wait_semaphore_fd = -1;    // -1: no wait (the caller orders the work itself); owned as the memory fds
  int signal_semaphore_fd = -1;  // -1: no signal
  // VkPhysicalDeviceIDProperties::deviceUUID of the Vulkan device; all zero: use `device`.
  std::array<std::uint8_t, 16> device_uuid{};
  int device = -1;  // CUDA device when no UUID is given (-1: the current one)
  bool timings = false;
};

// Host time of the last process()'s semaphore operations (steady clock): what the pass adds to
// the calling thread beyond ToneMapper::process.
struct VulkanInteropTimings {
  double wait_ms = 0.0;    // cudaWaitExternalSemaphoresAsync (enqueued on the stream)
  double signal_ms = 0.0;  // cudaSignalExternalSemaphoresAsync
};

class VulkanPass {
 public:
  static Result<std::unique_ptr<VulkanPass>> create(const VulkanPassConfig& config);
  ~VulkanPass();
  VulkanPass(const VulkanPass&) = delete;
  VulkanPass& operator=(const VulkanPass&) = delete;

  // One frame: wait, tone map, signal (asynchronous on `stream`).
  Status process(CUstream_st* stream = nullptr, double dt_seconds = 0.0);

  ToneMapper& mapper();
  const void* input_device_pointer() const;  // the imported memory, for tests and read-backs (rows)
  void* output_device_pointer();
  cudaArray* input_array() const;  // the imported images' level 0 (images), for tests and read-backs
  cudaArray* output_array() const;
  int cuda_device() const;
  VulkanInteropTimings interop_timings() const;

 private:
  struct Impl;
  explicit VulkanPass(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace tonekit
