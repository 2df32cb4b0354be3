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

#include "interop/vulkan_frames.hpp"

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

}  // namespace

struct VulkanHandover::Impl {
  std::unique_ptr<tonekit::vkframes::VulkanDevice> vk;
  tonekit::vkframes::ExportedBuffer in, out;
  VkSemaphore gl_done = VK_NULL_HANDLE, cuda_done = VK_NULL_HANDLE;
  std::unique_ptr<tonekit::VulkanPass> pass;
  GLuint memory = 0, buffer = 0, sem_gl_done = 0, sem_cuda_done = 0;
  std::size_t bytes = 0;
  bool first = true;
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
    if (memory && delete_memory) delete_memory(1, &memory);
    if (sem_gl_done && delete_semaphores) delete_semaphores(1, &sem_gl_done);
    if (sem_cuda_done && delete_semaphores) delete_semaphores(1, &sem_cuda_done);
    glFinish();  // GL's last use of the Vulkan memory is over before Vulkan frees it (teardown only)
    if (vk) {
      vk->destroy_semaphore(gl_done);
      vk->destroy_semaphore(cuda_done);
      vk->destroy_buffer(in);
      vk->destroy_buffer(out);
    }
  }
};

VulkanHandover::VulkanHandover(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
VulkanHandover::~VulkanHandover() = default;

tonekit::Result<std::unique_ptr<VulkanHandover>> VulkanHandover::create(int width, int height,
                                                                       const tonekit::VulkanPassConfig& base) {
  using tonekit::Status;
  auto m = std::make_unique<Impl>();
  if (!has_gl_extension("GL_EXT_memory_object_fd") || !has_gl_extension("GL_EXT_semaphore_fd"))
    return Status{tonekit::StatusCode::no_device, "--vulkan: this GL lacks GL_EXT_memory_object_fd / GL_EXT_semaphore_fd"};
  if (!load(m->create_memory, "glCreateMemoryObjectsEXT") || !load(m->memory_parameter, "glMemoryObjectParameterivEXT") ||
      !load(m->import_memory, "glImportMemoryFdEXT") || !load(m->buffer_storage, "glNamedBufferStorageMemEXT") ||
      !load(m->delete_memory, "glDeleteMemoryObjectsEXT") || !load(m->gen_semaphores, "glGenSemaphoresEXT") ||
      !load(m->import_semaphore, "glImportSemaphoreFdEXT") || !load(m->wait_semaphore, "glWaitSemaphoreEXT") ||
      !load(m->signal_semaphore, "glSignalSemaphoreEXT") || !load(m->delete_semaphores, "glDeleteSemaphoresEXT"))
    return Status{tonekit::StatusCode::no_device, "--vulkan: GL external memory/semaphore entry points missing"};
  int dev = 0;
  cudaDeviceProp prop{};
  if (cudaGetDevice(&dev) != cudaSuccess || cudaGetDeviceProperties(&prop, dev) != cudaSuccess)
    return Status{tonekit::StatusCode::no_device, "--vulkan: no CUDA device"};
  std::array<std::uint8_t, 16> uuid{};
  std::memcpy(uuid.data(), prop.uuid.bytes, 16);
  auto vk = tonekit::vkframes::VulkanDevice::create(uuid);
  if (!vk.ok()) return vk.status();
  m->vk = std::move(vk.value());
  if (m->vk->uuid() != uuid) return Status{tonekit::StatusCode::no_device, "--vulkan: no Vulkan device is the CUDA device"};
  m->bytes = std::size_t(width) * height * 8;
  auto in = m->vk->create_buffer(m->bytes);
  if (!in.ok()) return in.status();
  m->in = *in;
  auto out = m->vk->create_buffer(std::size_t(width) * height * 4);
  if (!out.ok()) return out.status();
  m->out = *out;
  auto gd = m->vk->create_semaphore();
  if (!gd.ok()) return gd.status();
  m->gl_done = *gd;
  auto cd = m->vk->create_semaphore();
  if (!cd.ok()) return cd.status();
  m->cuda_done = *cd;

  // GL: the input memory and both semaphores (each import takes its own descriptor).
  auto gl_mem = m->vk->export_memory(m->in);
  if (!gl_mem.ok()) return gl_mem.status();
  m->create_memory(1, &m->memory);
  const GLint dedicated = GL_TRUE;
  m->memory_parameter(m->memory, GL_DEDICATED_MEMORY_OBJECT_EXT, &dedicated);
  m->import_memory(m->memory, gl_mem->size, GL_HANDLE_TYPE_OPAQUE_FD_EXT, gl_mem->fd);
  glCreateBuffers(1, &m->buffer);
  m->buffer_storage(m->buffer, static_cast<GLsizeiptr>(m->bytes), m->memory, 0);
  for (auto [vs, gs] : {std::pair{m->gl_done, &m->sem_gl_done}, std::pair{m->cuda_done, &m->sem_cuda_done}}) {
    auto fd = m->vk->export_semaphore(vs);
    if (!fd.ok()) return fd.status();
    m->gen_semaphores(1, gs);
    m->import_semaphore(*gs, GL_HANDLE_TYPE_OPAQUE_FD_EXT, *fd);
  }
  if (const GLenum e = glGetError(); e != GL_NO_ERROR)
    return Status{tonekit::StatusCode::runtime_error, "--vulkan: GL import of Vulkan memory/semaphores failed (GL error " +
                                                          std::to_string(e) + ")"};

  // CUDA: both buffers and both semaphores, through the pass.
  tonekit::VulkanPassConfig c = base;
  c.width = width;
  c.height = height;
  c.input = tonekit::InputFormat::rgba_f16;
  c.output = tonekit::OutputFormat{tonekit::PixelType::u8, 4};
  c.device_uuid = uuid;
  auto cin = m->vk->export_memory(m->in);
  if (!cin.ok()) return cin.status();
  auto cout = m->vk->export_memory(m->out);
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

void VulkanHandover::hand_over(unsigned colour_texture) {
  Impl& m = *impl_;
  if (!m.first) m.wait_semaphore(m.sem_cuda_done, 1, &m.buffer, 0, nullptr, nullptr);
  m.first = false;
  glBindBuffer(GL_PIXEL_PACK_BUFFER, m.buffer);
  glGetTextureImage(colour_texture, 0, GL_RGBA, GL_HALF_FLOAT, static_cast<GLsizei>(m.bytes), nullptr);
  glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
  m.signal_semaphore(m.sem_gl_done, 1, &m.buffer, 0, nullptr, nullptr);
  glFlush();  // the signal must reach the GPU before CUDA waits on it
}

tonekit::VulkanPass& VulkanHandover::pass() { return *impl_->pass; }
const char* VulkanHandover::vulkan_device() const { return impl_->vk->name().c_str(); }

}  // namespace night_drive
