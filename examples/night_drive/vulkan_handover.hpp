// --vulkan (issue 18 item 3): the GL-rendered frames handed to tonekit::VulkanPass through
// Vulkan-allocated memory. Vulkan (tonekit::vkframes::VulkanDevice, no shaders) allocates the
// input (RGBA16F rows) and output (RGBA8 rows) buffers with exportable memory and two exportable
// binary semaphores. GL imports the input memory and both semaphores (GL_EXT_memory_object_fd,
// GL_EXT_semaphore_fd); each frame GL waits for `cuda_done` (the pass finished reading the last
// frame), copies its colour texture into the buffer (glGetTextureImage into the imported buffer
// bound as GL_PIXEL_PACK_BUFFER: one GPU copy, timed on its own), and signals `gl_done`; the pass
// waits for `gl_done`, tone maps into the output buffer, and signals `cuda_done`.
#pragma once
#include <memory>

#include "tonekit/status.hpp"
#include "tonekit/vulkan.hpp"

namespace night_drive {

class VulkanHandover {
 public:
  // A GL context must be current; `base` has the look (params, glare, temporal, timings).
  static tonekit::Result<std::unique_ptr<VulkanHandover>> create(int width, int height, const tonekit::VulkanPassConfig& base);
  ~VulkanHandover();
  // GL side of one frame: wait (after the first frame), copy `colour_texture` in, signal.
  void hand_over(unsigned colour_texture);
  tonekit::VulkanPass& pass();
  const char* vulkan_device() const;

 private:
  struct Impl;
  explicit VulkanHandover(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace night_drive
