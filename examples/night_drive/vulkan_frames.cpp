// A headless Vulkan device for the interop frames (vulkan_frames.hpp). Every Vulkan call is
// checked; errors name the call and the VkResult.
#include "vulkan_frames.hpp"

#include <cstring>
#include <vector>

namespace tonekit::vkframes {
namespace {

Status vk_error(VkResult r, const char* what) {
  return Status{StatusCode::runtime_error, std::string("Vulkan: ") + what + " failed (VkResult " + std::to_string(r) + ")"};
}

}  // namespace

#define TK_VK_CHECK(expr)                                     \
  do {                                                        \
    const VkResult tk_vk_r_ = (expr);                         \
    if (tk_vk_r_ != VK_SUCCESS) return vk_error(tk_vk_r_, #expr); \
  } while (0)

Result<std::unique_ptr<VulkanDevice>> VulkanDevice::create(const std::array<std::uint8_t, 16>& prefer_uuid) {
  std::unique_ptr<VulkanDevice> d(new VulkanDevice());
  VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.pApplicationName = "tonekit";
  app.apiVersion = VK_API_VERSION_1_1;
  VkInstanceCreateInfo ici{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  ici.pApplicationInfo = &app;
  if (const VkResult r = vkCreateInstance(&ici, nullptr, &d->instance_); r != VK_SUCCESS)
    return Status{StatusCode::no_device, "Vulkan: no instance (vkCreateInstance: VkResult " + std::to_string(r) +
                                             "; is a Vulkan driver installed?)"};
  std::uint32_t n = 0;
  TK_VK_CHECK(vkEnumeratePhysicalDevices(d->instance_, &n, nullptr));
  if (n == 0) return Status{StatusCode::no_device, "Vulkan: no physical device"};
  std::vector<VkPhysicalDevice> phys(n);
  TK_VK_CHECK(vkEnumeratePhysicalDevices(d->instance_, &n, phys.data()));
  for (VkPhysicalDevice p : phys) {
    VkPhysicalDeviceIDProperties id{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES};
    VkPhysicalDeviceProperties2 props{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
    props.pNext = &id;
    vkGetPhysicalDeviceProperties2(p, &props);
    const bool match = std::memcmp(id.deviceUUID, prefer_uuid.data(), 16) == 0;
    if (!d->physical_ || match) {
      d->physical_ = p;
      std::memcpy(d->uuid_.data(), id.deviceUUID, 16);
      d->name_ = props.properties.deviceName;
    }
    if (match) break;
  }
  std::uint32_t qn = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(d->physical_, &qn, nullptr);
  std::vector<VkQueueFamilyProperties> qf(qn);
  vkGetPhysicalDeviceQueueFamilyProperties(d->physical_, &qn, qf.data());
  std::uint32_t family = 0;
  while (family < qn && !(qf[family].queueFlags & (VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT))) ++family;
  if (family == qn) return Status{StatusCode::no_device, "Vulkan: no graphics or compute queue"};
  const float priority = 1.0f;
  VkDeviceQueueCreateInfo qci{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  qci.queueFamilyIndex = family;
  qci.queueCount = 1;
  qci.pQueuePriorities = &priority;
  const char* exts[] = {VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME, VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME};
  VkDeviceCreateInfo dci{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
  dci.queueCreateInfoCount = 1;
  dci.pQueueCreateInfos = &qci;
  dci.enabledExtensionCount = 2;
  dci.ppEnabledExtensionNames = exts;
  if (const VkResult r = vkCreateDevice(d->physical_, &dci, nullptr, &d->device_); r != VK_SUCCESS)
    return Status{StatusCode::no_device, "Vulkan: " + d->name_ + " has no external memory/semaphore fd support "
                                         "(vkCreateDevice: VkResult " + std::to_string(r) + ")"};
  vkGetDeviceQueue(d->device_, family, 0, &d->queue_);
  d->get_memory_fd_ = reinterpret_cast<PFN_vkGetMemoryFdKHR>(vkGetDeviceProcAddr(d->device_, "vkGetMemoryFdKHR"));
  d->get_semaphore_fd_ =
      reinterpret_cast<PFN_vkGetSemaphoreFdKHR>(vkGetDeviceProcAddr(d->device_, "vkGetSemaphoreFdKHR"));
  if (!d->get_memory_fd_ || !d->get_semaphore_fd_)
    return Status{StatusCode::no_device, "Vulkan: vkGetMemoryFdKHR / vkGetSemaphoreFdKHR missing"};
  VkFenceCreateInfo fci{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  TK_VK_CHECK(vkCreateFence(d->device_, &fci, nullptr, &d->fence_));
  return d;
}

VulkanDevice::~VulkanDevice() {
  if (device_) {
    vkDeviceWaitIdle(device_);
    if (fence_) vkDestroyFence(device_, fence_, nullptr);
    vkDestroyDevice(device_, nullptr);
  }
  if (instance_) vkDestroyInstance(instance_, nullptr);
}

Result<ExportedBuffer> VulkanDevice::create_buffer(VkDeviceSize bytes) {
  ExportedBuffer b;
  VkExternalMemoryBufferCreateInfo ext{VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO};
  ext.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
  VkBufferCreateInfo bci{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  bci.pNext = &ext;
  bci.size = bytes;
  bci.usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT | VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
  bci.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  TK_VK_CHECK(vkCreateBuffer(device_, &bci, nullptr, &b.buffer));
  VkMemoryRequirements req;
  vkGetBufferMemoryRequirements(device_, b.buffer, &req);
  VkMemoryDedicatedAllocateInfo dedicated{VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO};
  dedicated.buffer = b.buffer;
  if (Status s = allocate_exportable(req, dedicated, b.memory); !s.ok()) {
    vkDestroyBuffer(device_, b.buffer, nullptr);
    return s;
  }
  b.size = req.size;
  if (const VkResult r = vkBindBufferMemory(device_, b.buffer, b.memory, 0); r != VK_SUCCESS) {
    destroy_buffer(b);
    return vk_error(r, "vkBindBufferMemory");
  }
  return b;
}

void VulkanDevice::destroy_buffer(ExportedBuffer& b) {
  if (b.buffer) vkDestroyBuffer(device_, b.buffer, nullptr);
  if (b.memory) vkFreeMemory(device_, b.memory, nullptr);
  b = ExportedBuffer{};
}

Result<std::uint32_t> VulkanDevice::device_local_type(std::uint32_t allowed_types) const {
  VkPhysicalDeviceMemoryProperties mp;
  vkGetPhysicalDeviceMemoryProperties(physical_, &mp);
  for (std::uint32_t i = 0; i < mp.memoryTypeCount; ++i)
    if ((allowed_types & (1u << i)) && (mp.memoryTypes[i].propertyFlags & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT)) return i;
  for (std::uint32_t i = 0; i < mp.memoryTypeCount; ++i)
    if (allowed_types & (1u << i)) return i;  // software devices: any type the resource allows
  return Status{StatusCode::runtime_error, "Vulkan: no memory type for the resource"};
}

Status VulkanDevice::allocate_exportable(const VkMemoryRequirements& req, const VkMemoryDedicatedAllocateInfo& dedicated,
                                         VkDeviceMemory& memory) {
  auto type = device_local_type(req.memoryTypeBits);
  if (!type.ok()) return type.status();
  VkExportMemoryAllocateInfo exp{VK_STRUCTURE_TYPE_EXPORT_MEMORY_ALLOCATE_INFO};
  exp.pNext = &dedicated;
  exp.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
  VkMemoryAllocateInfo mai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  mai.pNext = &exp;
  mai.allocationSize = req.size;
  mai.memoryTypeIndex = *type;
  TK_VK_CHECK(vkAllocateMemory(device_, &mai, nullptr, &memory));
  return {};
}

Result<VulkanMemoryHandle> VulkanDevice::export_fd(VkDeviceMemory memory, VkDeviceSize size, VkDeviceSize offset) {
  VkMemoryGetFdInfoKHR gi{VK_STRUCTURE_TYPE_MEMORY_GET_FD_INFO_KHR};
  gi.memory = memory;
  gi.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
  VulkanMemoryHandle h;
  TK_VK_CHECK(get_memory_fd_(device_, &gi, &h.fd));
  h.size = size;
  h.offset = offset;
  h.dedicated = true;
  return h;
}

Result<VulkanMemoryHandle> VulkanDevice::export_memory(const ExportedBuffer& b) { return export_fd(b.memory, b.size, 0); }

Result<VulkanMemoryHandle> VulkanDevice::export_memory(const ExportedImage& i) {
  return export_fd(i.memory, i.size, i.offset);
}

Result<ExportedImage> VulkanDevice::create_image(int width, int height, VkFormat format, VkImageTiling tiling) {
  const bool linear = tiling == VK_IMAGE_TILING_LINEAR;
  const std::string kind = linear ? "linear" : "optimal-tiling";
  if (width < 1 || height < 1) return invalid_argument("Vulkan: empty " + kind + " image");
  VkFormatProperties fp;
  vkGetPhysicalDeviceFormatProperties(physical_, format, &fp);
  const VkFormatFeatureFlags features = linear ? fp.linearTilingFeatures : fp.optimalTilingFeatures;
  if (!(features & VK_FORMAT_FEATURE_COLOR_ATTACHMENT_BIT))
    return Status{StatusCode::unsupported, "Vulkan: " + name_ + " cannot render into a " + kind + " image of format " +
                                               std::to_string(format)};
  VkImageUsageFlags usage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_SAMPLED_BIT |
                            VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT;
  if (features & VK_FORMAT_FEATURE_STORAGE_IMAGE_BIT) usage |= VK_IMAGE_USAGE_STORAGE_BIT;
  // Exportable as an opaque fd with this tiling and usage?
  VkPhysicalDeviceExternalImageFormatInfo ext_info{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_IMAGE_FORMAT_INFO};
  ext_info.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
  VkPhysicalDeviceImageFormatInfo2 fi{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_IMAGE_FORMAT_INFO_2};
  fi.pNext = &ext_info;
  fi.format = format;
  fi.type = VK_IMAGE_TYPE_2D;
  fi.tiling = tiling;
  fi.usage = usage;
  VkExternalImageFormatProperties ext_props{VK_STRUCTURE_TYPE_EXTERNAL_IMAGE_FORMAT_PROPERTIES};
  VkImageFormatProperties2 props{VK_STRUCTURE_TYPE_IMAGE_FORMAT_PROPERTIES_2};
  props.pNext = &ext_props;
  if (const VkResult r = vkGetPhysicalDeviceImageFormatProperties2(physical_, &fi, &props); r != VK_SUCCESS)
    return Status{StatusCode::unsupported, "Vulkan: " + name_ + " has no exportable " + kind + " colour-attachment image of format " +
                                               std::to_string(format) + " (VkResult " + std::to_string(r) + ")"};
  if (!(ext_props.externalMemoryProperties.externalMemoryFeatures & VK_EXTERNAL_MEMORY_FEATURE_EXPORTABLE_BIT))
    return Status{StatusCode::unsupported, "Vulkan: " + kind + " images of format " + std::to_string(format) +
                                               " are not exportable as opaque fds on " + name_};
  if (std::uint32_t(width) > props.imageFormatProperties.maxExtent.width ||
      std::uint32_t(height) > props.imageFormatProperties.maxExtent.height)
    return Status{StatusCode::unsupported, "Vulkan: a " + kind + " image is at most " +
                                               std::to_string(props.imageFormatProperties.maxExtent.width) + "x" +
                                               std::to_string(props.imageFormatProperties.maxExtent.height) + " on " + name_};
  ExportedImage img;
  VkExternalMemoryImageCreateInfo ext{VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_IMAGE_CREATE_INFO};
  ext.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
  VkImageCreateInfo ici{VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO};
  ici.pNext = &ext;
  ici.imageType = VK_IMAGE_TYPE_2D;
  ici.format = format;
  ici.extent = {std::uint32_t(width), std::uint32_t(height), 1};
  ici.mipLevels = 1;
  ici.arrayLayers = 1;
  ici.samples = VK_SAMPLE_COUNT_1_BIT;
  ici.tiling = tiling;
  ici.usage = usage;
  ici.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  ici.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
  TK_VK_CHECK(vkCreateImage(device_, &ici, nullptr, &img.image));
  VkMemoryRequirements req;
  vkGetImageMemoryRequirements(device_, img.image, &req);
  VkMemoryDedicatedAllocateInfo dedicated{VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO};
  dedicated.image = img.image;
  if (Status s = allocate_exportable(req, dedicated, img.memory); !s.ok()) {
    destroy_image(img);
    return s;
  }
  img.size = req.size;
  if (const VkResult r = vkBindImageMemory(device_, img.image, img.memory, 0); r != VK_SUCCESS) {
    destroy_image(img);
    return vk_error(r, "vkBindImageMemory");
  }
  if (linear) {  // an optimal image has no layout to query: the driver's own, at offset 0
    VkImageSubresource sub{VK_IMAGE_ASPECT_COLOR_BIT, 0, 0};
    VkSubresourceLayout layout;
    vkGetImageSubresourceLayout(device_, img.image, &sub, &layout);
    img.offset = layout.offset;
    img.row_pitch = layout.rowPitch;
  }
  return img;
}

void VulkanDevice::destroy_image(ExportedImage& i) {
  if (i.image) vkDestroyImage(device_, i.image, nullptr);
  if (i.memory) vkFreeMemory(device_, i.memory, nullptr);
  i = ExportedImage{};
}

Result<VkSemaphore> VulkanDevice::create_semaphore() {
  VkExportSemaphoreCreateInfo exp{VK_STRUCTURE_TYPE_EXPORT_SEMAPHORE_CREATE_INFO};
  exp.handleTypes = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT;
  VkSemaphoreCreateInfo sci{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
  sci.pNext = &exp;
  VkSemaphore s = VK_NULL_HANDLE;
  TK_VK_CHECK(vkCreateSemaphore(device_, &sci, nullptr, &s));
  return s;
}

Result<int> VulkanDevice::export_semaphore(VkSemaphore s) {
  VkSemaphoreGetFdInfoKHR gi{VK_STRUCTURE_TYPE_SEMAPHORE_GET_FD_INFO_KHR};
  gi.semaphore = s;
  gi.handleType = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT;
  int fd = -1;
  TK_VK_CHECK(get_semaphore_fd_(device_, &gi, &fd));
  return fd;
}

void VulkanDevice::destroy_semaphore(VkSemaphore s) {
  if (s) vkDestroySemaphore(device_, s, nullptr);
}

Status VulkanDevice::signal(VkSemaphore s) {
  VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  si.signalSemaphoreCount = 1;
  si.pSignalSemaphores = &s;
  TK_VK_CHECK(vkQueueSubmit(queue_, 1, &si, VK_NULL_HANDLE));
  return {};
}

Status VulkanDevice::wait_idle_after(VkSemaphore s) {
  const VkPipelineStageFlags stage = VK_PIPELINE_STAGE_ALL_COMMANDS_BIT;
  VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  si.waitSemaphoreCount = 1;
  si.pWaitSemaphores = &s;
  si.pWaitDstStageMask = &stage;
  TK_VK_CHECK(vkQueueSubmit(queue_, 1, &si, fence_));
  TK_VK_CHECK(vkWaitForFences(device_, 1, &fence_, VK_TRUE, 10'000'000'000ull));
  TK_VK_CHECK(vkResetFences(device_, 1, &fence_));
  return {};
}

}  // namespace tonekit::vkframes
