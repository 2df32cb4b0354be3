// The Vulkan side of tonekit::VulkanPass for the night-drive renderer and the interop tests: a
// headless Vulkan device (no surface, no shaders) that allocates linear frames in exportable
// memory and binary semaphores with exportable handles, exports their file descriptors, and
// submits the empty batches that signal or wait on them. The example's own code (target
// tonekit_vulkan_frames, which the interop tests share; not installed): an application brings
// its own Vulkan code; this is the smallest honest one.
#pragma once
#include <vulkan/vulkan.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "tonekit/status.hpp"
#include "tonekit/vulkan.hpp"

namespace tonekit::vkframes {

struct ExportedBuffer {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  VkDeviceSize size = 0;  // the allocation's size
};

// A 2D image in its own exportable memory. Linear tiling: rows of `row_pitch` bytes from
// `offset`, the layout another API (GL with GL_LINEAR_TILING_EXT, CUDA as plain rows) sees too;
// optimal tiling: the driver's layout (GL with GL_OPTIMAL_TILING_EXT, CUDA as a mipmapped array),
// row_pitch 0.
struct ExportedImage {
  VkImage image = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  VkDeviceSize size = 0;  // the allocation's size
  VkDeviceSize offset = 0;
  VkDeviceSize row_pitch = 0;
};

class VulkanDevice {
 public:
  // An instance (Vulkan 1.1) and a device with external memory/semaphore fd support; the
  // physical device whose UUID is `prefer_uuid` when one matches (the CUDA device), else the first.
  static Result<std::unique_ptr<VulkanDevice>> create(const std::array<std::uint8_t, 16>& prefer_uuid);
  ~VulkanDevice();
  VulkanDevice(const VulkanDevice&) = delete;
  VulkanDevice& operator=(const VulkanDevice&) = delete;

  // A buffer of `bytes` in device-local memory allocated dedicated and exportable as OPAQUE_FD.
  Result<ExportedBuffer> create_buffer(VkDeviceSize bytes);
  void destroy_buffer(ExportedBuffer& b);
  // A new descriptor of the buffer's memory (each import takes one).
  Result<VulkanMemoryHandle> export_memory(const ExportedBuffer& b);
  // A width x height image of `format` with `tiling`, usable as a colour attachment (and sampled,
  // copied, and a storage image where the format allows), in dedicated device-local memory
  // exportable as OPAQUE_FD; a linear one's row pitch from vkGetImageSubresourceLayout.
  // StatusCode::unsupported when the device cannot render into (or export) such an image.
  Result<ExportedImage> create_image(int width, int height, VkFormat format, VkImageTiling tiling);
  void destroy_image(ExportedImage& i);
  // A new descriptor of the image's memory, with the image's offset in it.
  Result<VulkanMemoryHandle> export_memory(const ExportedImage& i);
  // A binary semaphore exportable as OPAQUE_FD, and a new descriptor of it.
  Result<VkSemaphore> create_semaphore();
  Result<int> export_semaphore(VkSemaphore s);
  void destroy_semaphore(VkSemaphore s);
  // Empty submissions on the device's queue: signal `s`; wait on `s` then wait on the host for it.
  Status signal(VkSemaphore s);
  Status wait_idle_after(VkSemaphore s);

  const std::array<std::uint8_t, 16>& uuid() const { return uuid_; }
  const std::string& name() const { return name_; }

 private:
  VulkanDevice() = default;
  VkInstance instance_ = VK_NULL_HANDLE;
  VkPhysicalDevice physical_ = VK_NULL_HANDLE;
  Result<std::uint32_t> device_local_type(std::uint32_t allowed_types) const;
  // Dedicated (to `dedicated`'s buffer or image) device-local memory exportable as OPAQUE_FD.
  Status allocate_exportable(const VkMemoryRequirements& req, const VkMemoryDedicatedAllocateInfo& dedicated,
                             VkDeviceMemory& memory);
  Result<VulkanMemoryHandle> export_fd(VkDeviceMemory memory, VkDeviceSize size, VkDeviceSize offset);
  VkDevice device_ = VK_NULL_HANDLE;
  VkQueue queue_ = VK_NULL_HANDLE;
  VkFence fence_ = VK_NULL_HANDLE;
  PFN_vkGetMemoryFdKHR get_memory_fd_ = nullptr;
  PFN_vkGetSemaphoreFdKHR get_semaphore_fd_ = nullptr;
  std::array<std::uint8_t, 16> uuid_{};
  std::string name_;
};

}  // namespace tonekit::vkframes
