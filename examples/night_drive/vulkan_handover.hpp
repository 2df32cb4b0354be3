// --vulkan (issue 18 item 3): the GL-rendered frames handed to tonekit::VulkanPass through
// Vulkan-allocated memory, one of three ways (Handover):
// - images (zero copy; the default): Vulkan allocates the HDR colour buffer and the display
//   buffer as optimal-tiling images (RGBA16F and RGBA8, tonekit::vkframes::VulkanDevice::
//   create_image) in exportable memory, as a Vulkan renderer's colour attachments are. GL imports
//   the colour buffer's memory as a texture (GL_EXT_memory_object_fd, GL_OPTIMAL_TILING_EXT: the
//   layout Vulkan gave it) and the renderer draws into it; the pass imports both images as CUDA
//   mipmapped arrays and reads and writes them through surfaces (VulkanPassConfig::Layout::images).
// - rows (zero copy where the driver can render into a linear image; NVIDIA's Vulkan cannot for
//   RGBA16F): the colour buffer is a linear image and the pass reads it as rows of its pitch.
// - copy: Vulkan allocates a buffer; each frame GL copies its own colour texture into it
//   (glGetTextureImage into the imported buffer bound as GL_PIXEL_PACK_BUFFER), timed on its own.
// All three order the frame with two exportable binary semaphores imported into GL
// (GL_EXT_semaphore_fd) and CUDA: GL waits for `cuda_done` (the pass finished reading the last
// frame) before it writes the input again, and signals `gl_done` once the frame is written; the
// pass waits for `gl_done`, tone maps, and signals `cuda_done`. No host synchronisation anywhere.
// The Vulkan device is one per process and lives until exit: the NVIDIA driver's GL context does
// not survive vkDestroyInstance in the same process (measured: GL_NUM_EXTENSIONS reads 0 after).
#pragma once
#include <memory>

#include "tonekit/status.hpp"
#include "tonekit/vulkan.hpp"

namespace night_drive {

enum class Handover { images, rows, copy };
const char* handover_name(Handover h);

class VulkanHandover {
 public:
  // A GL context must be current; `base` has the look (params, glare, temporal, timings).
  // StatusCode::unsupported when this driver cannot hand over that way (images, rows).
  static tonekit::Result<std::unique_ptr<VulkanHandover>> create(int width, int height, const tonekit::VulkanPassConfig& base,
                                                                Handover mode);
  ~VulkanHandover();
  Handover mode() const;
  // images, rows: the texture to draw the frame into (GL_RGBA16F, its storage Vulkan's); 0 for copy.
  unsigned target_texture() const;
  // GL side of one frame, around the renderer's drawing. begin_frame: images, rows: GL waits
  // until the pass has read the last frame (none before the first). end_frame: images, rows: GL
  // signals the frame; copy: waits, copies `colour_texture` in, signals. The caller then flushes
  // GL (the frame's submission, which carries the signal to the GPU, so that CUDA's wait can be
  // met).
  void begin_frame();
  void end_frame(unsigned colour_texture);
  tonekit::VulkanPass& pass();
  const char* vulkan_device() const;
  std::size_t input_row_pitch() const;  // rows, copy: bytes between the input's rows as the pass reads them
  // The last frame's RGBA8 output into `rgba` (width x height x 4), on `stream`, synchronised.
  tonekit::Status read_output(unsigned char* rgba, CUstream_st* stream);

 private:
  struct Impl;
  explicit VulkanHandover(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace night_drive
