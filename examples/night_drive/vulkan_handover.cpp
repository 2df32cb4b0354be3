#include "vulkan_handover.hpp"

#include <EGL/egl.h>
#define GL_GLEXT_PROTOTYPES 1
#include <GL/gl.h>
#include <GL/glext.h>
#include <cuda_runtime.h>
#include <unistd.h>

#include <array>
#include <cstring>
#include <string>

#include "vulkan_frames.hpp"

namespace night_drive {
namespace {

template <class F>
bool load(F& f, const char* name) {
  f = reinterpret_cast<F>(eglGetProcAddress(name));
  return f != nullptr;
}

bool has_gl_extension(const char* name) {
  GLint n = 0;
  glGetIntegerv(GL_NUM_EXTENSIONS, &n);
  for (GLint i = 0; i < n; ++i)
    if (std::strcmp(reinterpret_cast<const char*>(glGetStringi(GL_EXTENSIONS, i)), name) == 0) return true;
  return false;
}

// The process's Vulkan device (see the header: never destroyed while GL may still run).
tonekit::Result<tonekit::vkframes::VulkanDevice*> shared_device(const std::array<std::uint8_t, 16>& uuid) {
  static tonekit::vkframes::VulkanDevice* device = nullptr;
  if (!device) {
    auto vk = tonekit::vkframes::VulkanDevice::create(uuid);
    if (!vk.ok()) return vk.status();
    device = vk.value().release();
  }
  if (device->uuid() != uuid) return tonekit::Status{tonekit::StatusCode::no_device, "--vulkan: no Vulkan device is the CUDA device"};
  return device;
}

}  // namespace

const char* handover_name(Handover h) {
  switch (h) {
    case Handover::images: return "images";
    case Handover::rows: return "rows";
    case Handover::copy: return "copy";
  }
  return "?";
}

struct VulkanHandover::Impl {
  Handover mode = Handover::images;
  int width = 0, height = 0;
  tonekit::vkframes::VulkanDevice* vk = nullptr;
  tonekit::vkframes::ExportedBuffer in, out;  // copy: `in` is the buffer GL copies into; copy, rows: `out`
  tonekit::vkframes::ExportedImage colour, display;  // images: both; rows: `colour` (linear)
  VkSemaphore gl_done = VK_NULL_HANDLE, cuda_done = VK_NULL_HANDLE;
  std::unique_ptr<tonekit::VulkanPass> pass;
  GLuint memory = 0, buffer = 0, texture = 0, sem_gl_done = 0, sem_cuda_done = 0;
  std::size_t bytes = 0, row_pitch = 0;
  bool first = true;
  PFNGLTEXTURESTORAGEMEM2DEXTPROC texture_storage = nullptr;
  PFNGLCREATEMEMORYOBJECTSEXTPROC create_memory = nullptr;
  PFNGLMEMORYOBJECTPARAMETERIVEXTPROC memory_parameter = nullptr;
  PFNGLIMPORTMEMORYFDEXTPROC import_memory = nullptr;
  PFNGLNAMEDBUFFERSTORAGEMEMEXTPROC buffer_storage = nullptr;
  PFNGLDELETEMEMORYOBJECTSEXTPROC delete_memory = nullptr;
  PFNGLGENSEMAPHORESEXTPROC gen_semaphores = nullptr;
  PFNGLIMPORTSEMAPHOREFDEXTPROC import_semaphore = nullptr;
  PFNGLWAITSEMAPHOREEXTPROC wait_semaphore = nullptr;
  PFNGLSIGNALSEMAPHOREEXTPROC signal_semaphore = nullptr;
  PFNGLDELETESEMAPHORESEXTPROC delete_semaphores = nullptr;

  ~Impl() {
    if (pass) cudaDeviceSynchronize();
    pass.reset();
    if (buffer) glDeleteBuffers(1, &buffer);
    if (texture) glDeleteTextures(1, &texture);
    if (memory && delete_memory) delete_memory(1, &memory);
    if (sem_gl_done && delete_semaphores) delete_semaphores(1, &sem_gl_done);
    if (sem_cuda_done && delete_semaphores) delete_semaphores(1, &sem_cuda_done);
    glFinish();  // GL's last use of the Vulkan memory is over before Vulkan frees it (teardown only)
    if (vk) {
      vk->destroy_semaphore(gl_done);
      vk->destroy_semaphore(cuda_done);
      vk->destroy_buffer(in);
      vk->destroy_buffer(out);
      vk->destroy_image(colour);
      vk->destroy_image(display);
    }
  }
};

VulkanHandover::VulkanHandover(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
VulkanHandover::~VulkanHandover() = default;

tonekit::Result<std::unique_ptr<VulkanHandover>> VulkanHandover::create(int width, int height,
                                                                       const tonekit::VulkanPassConfig& base, Handover mode) {
  using tonekit::Status;
  auto m = std::make_unique<Impl>();
  m->mode = mode;
  m->width = width;
  m->height = height;
  if (!has_gl_extension("GL_EXT_memory_object_fd") || !has_gl_extension("GL_EXT_semaphore_fd"))
    return Status{tonekit::StatusCode::no_device, "--vulkan: this GL lacks GL_EXT_memory_object_fd / GL_EXT_semaphore_fd"};
  if (!load(m->create_memory, "glCreateMemoryObjectsEXT") || !load(m->memory_parameter, "glMemoryObjectParameterivEXT") ||
      !load(m->import_memory, "glImportMemoryFdEXT") || !load(m->buffer_storage, "glNamedBufferStorageMemEXT") ||
      !load(m->delete_memory, "glDeleteMemoryObjectsEXT") || !load(m->gen_semaphores, "glGenSemaphoresEXT") ||
      !load(m->import_semaphore, "glImportSemaphoreFdEXT") || !load(m->wait_semaphore, "glWaitSemaphoreEXT") ||
      !load(m->signal_semaphore, "glSignalSemaphoreEXT") || !load(m->delete_semaphores, "glDeleteSemaphoresEXT") ||
      !load(m->texture_storage, "glTextureStorageMem2DEXT"))
    return Status{tonekit::StatusCode::no_device, "--vulkan: GL external memory/semaphore entry points missing"};
  int dev = 0;
  cudaDeviceProp prop{};
  if (cudaGetDevice(&dev) != cudaSuccess || cudaGetDeviceProperties(&prop, dev) != cudaSuccess)
    return Status{tonekit::StatusCode::no_device, "--vulkan: no CUDA device"};
  std::array<std::uint8_t, 16> uuid{};
  std::memcpy(uuid.data(), prop.uuid.bytes, 16);
  auto vk = shared_device(uuid);
  if (!vk.ok()) return vk.status();
  m->vk = *vk;
  m->bytes = std::size_t(width) * height * 8;
  m->row_pitch = std::size_t(width) * 8;
  if (mode == Handover::copy) {
    auto in = m->vk->create_buffer(m->bytes);
    if (!in.ok()) return in.status();
    m->in = *in;
  } else {
    auto colour = m->vk->create_image(width, height, VK_FORMAT_R16G16B16A16_SFLOAT,
                                      mode == Handover::images ? VK_IMAGE_TILING_OPTIMAL : VK_IMAGE_TILING_LINEAR);
    if (!colour.ok()) return colour.status();
    m->colour = *colour;
    if (mode == Handover::rows) m->row_pitch = m->colour.row_pitch;
  }
  if (mode == Handover::images) {
    auto display = m->vk->create_image(width, height, VK_FORMAT_R8G8B8A8_UNORM, VK_IMAGE_TILING_OPTIMAL);
    if (!display.ok()) return display.status();
    m->display = *display;
  } else {
    auto out = m->vk->create_buffer(std::size_t(width) * height * 4);
    if (!out.ok()) return out.status();
    m->out = *out;
  }
  auto gd = m->vk->create_semaphore();
  if (!gd.ok()) return gd.status();
  m->gl_done = *gd;
  auto cd = m->vk->create_semaphore();
  if (!cd.ok()) return cd.status();
  m->cuda_done = *cd;

  // GL: the input memory and both semaphores (each import takes its own descriptor).
  auto gl_mem = mode == Handover::copy ? m->vk->export_memory(m->in) : m->vk->export_memory(m->colour);
  if (!gl_mem.ok()) return gl_mem.status();
  m->create_memory(1, &m->memory);
  const GLint dedicated = GL_TRUE;
  m->memory_parameter(m->memory, GL_DEDICATED_MEMORY_OBJECT_EXT, &dedicated);
  m->import_memory(m->memory, gl_mem->size, GL_HANDLE_TYPE_OPAQUE_FD_EXT, gl_mem->fd);
  if (mode == Handover::copy) {
    glCreateBuffers(1, &m->buffer);
    m->buffer_storage(m->buffer, static_cast<GLsizeiptr>(m->bytes), m->memory, 0);
  } else {
    // The texture's parameters match the Vulkan image's (format, size, one level, tiling): the
    // condition under which GL lays the memory out as Vulkan does (EXT_external_objects).
    glCreateTextures(GL_TEXTURE_2D, 1, &m->texture);
    glTextureParameteri(m->texture, GL_TEXTURE_TILING_EXT,
                        mode == Handover::images ? GL_OPTIMAL_TILING_EXT : GL_LINEAR_TILING_EXT);
    m->texture_storage(m->texture, 1, GL_RGBA16F, width, height, m->memory, gl_mem->offset);
  }
  for (auto [vs, gs] : {std::pair{m->gl_done, &m->sem_gl_done}, std::pair{m->cuda_done, &m->sem_cuda_done}}) {
    auto fd = m->vk->export_semaphore(vs);
    if (!fd.ok()) return fd.status();
    m->gen_semaphores(1, gs);
    m->import_semaphore(*gs, GL_HANDLE_TYPE_OPAQUE_FD_EXT, *fd);
  }
  if (const GLenum e = glGetError(); e != GL_NO_ERROR)
    return Status{tonekit::StatusCode::runtime_error, "--vulkan: GL import of Vulkan memory/semaphores failed (GL error " +
                                                          std::to_string(e) + ")"};

  // CUDA: both frames and both semaphores, through the pass.
  tonekit::VulkanPassConfig c = base;
  c.width = width;
  c.height = height;
  c.input = tonekit::InputFormat::rgba_f16;
  c.output = tonekit::OutputFormat{tonekit::PixelType::u8, 4};
  c.device_uuid = uuid;
  c.layout = mode == Handover::images ? tonekit::VulkanPassConfig::Layout::images : tonekit::VulkanPassConfig::Layout::rows;
  c.input_stride = mode == Handover::images ? 0 : m->row_pitch;
  auto cin = mode == Handover::copy ? m->vk->export_memory(m->in) : m->vk->export_memory(m->colour);
  if (!cin.ok()) return cin.status();
  auto cout = mode == Handover::images ? m->vk->export_memory(m->display) : m->vk->export_memory(m->out);
  if (!cout.ok()) {
    close(cin->fd);
    return cout.status();
  }
  auto wfd = m->vk->export_semaphore(m->gl_done);
  auto sfd = m->vk->export_semaphore(m->cuda_done);
  c.input_memory = *cin;
  c.output_memory = *cout;
  c.wait_semaphore_fd = wfd.ok() ? *wfd : -1;
  c.signal_semaphore_fd = sfd.ok() ? *sfd : -1;
  if (c.wait_semaphore_fd < 0 || c.signal_semaphore_fd < 0)
    return Status{tonekit::StatusCode::runtime_error, "--vulkan: exporting the semaphores failed"};
  auto pass = tonekit::VulkanPass::create(c);
  if (!pass.ok()) return pass.status();
  m->pass = std::move(pass.value());
  return std::unique_ptr<VulkanHandover>(new VulkanHandover(std::move(m)));
}

void VulkanHandover::begin_frame() {
  Impl& m = *impl_;
  if (m.mode == Handover::copy || m.first) return;
  // GENERAL: CUDA has no layouts of its own. (COLOR_ATTACHMENT, or no texture barrier at all,
  // measured the same on the H100: the GPU work of the hand-over is the same either way.)
  const GLenum layout = GL_LAYOUT_GENERAL_EXT;
  m.wait_semaphore(m.sem_cuda_done, 0, nullptr, 1, &m.texture, &layout);
}

void VulkanHandover::end_frame(unsigned colour_texture) {
  Impl& m = *impl_;
  if (m.mode != Handover::copy) {
    const GLenum layout = GL_LAYOUT_GENERAL_EXT;
    m.signal_semaphore(m.sem_gl_done, 0, nullptr, 1, &m.texture, &layout);
  } else {
    if (!m.first) m.wait_semaphore(m.sem_cuda_done, 1, &m.buffer, 0, nullptr, nullptr);
    glBindBuffer(GL_PIXEL_PACK_BUFFER, m.buffer);
    glGetTextureImage(colour_texture, 0, GL_RGBA, GL_HALF_FLOAT, static_cast<GLsizei>(m.bytes), nullptr);
    glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
    m.signal_semaphore(m.sem_gl_done, 1, &m.buffer, 0, nullptr, nullptr);
  }
  m.first = false;  // the caller's glFlush carries the signal to the GPU before CUDA waits on it
}

tonekit::Status VulkanHandover::read_output(unsigned char* rgba, CUstream_st* stream) {
  Impl& m = *impl_;
  const std::size_t row = std::size_t(m.width) * 4;
  const cudaError_t e =
      m.mode == Handover::images
          ? cudaMemcpy2DFromArrayAsync(rgba, row, m.pass->output_array(), 0, 0, row, m.height, cudaMemcpyDeviceToHost, stream)
          : cudaMemcpyAsync(rgba, m.pass->output_device_pointer(), row * m.height, cudaMemcpyDeviceToHost, stream);
  if (e != cudaSuccess || cudaStreamSynchronize(stream) != cudaSuccess)
    return tonekit::Status{tonekit::StatusCode::runtime_error, "read-back of the Vulkan output failed"};
  return {};
}

Handover VulkanHandover::mode() const { return impl_->mode; }
unsigned VulkanHandover::target_texture() const { return impl_->texture; }
std::size_t VulkanHandover::input_row_pitch() const { return impl_->row_pitch; }
tonekit::VulkanPass& VulkanHandover::pass() { return *impl_->pass; }
const char* VulkanHandover::vulkan_device() const { return impl_->vk->name().c_str(); }

}  // namespace night_drive
