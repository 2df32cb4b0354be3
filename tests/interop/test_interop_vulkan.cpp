// VulkanPass (issue 18 item 4) on the GPU host: frames in Vulkan-allocated exportable memory,
// with Vulkan semaphores ordering the frame, give the same bytes as ToneMapper::process on the
// same pixels copied with cudaMemcpy; many frames and passes with no leak; a too-small memory is
// a clear error. Skips with the reason without a GPU or a Vulkan device with external fd support.
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <array>
#include <cstring>
#include <tuple>
#include <vector>

#include "gpu/gpu_test_support.hpp"
#include "interop/interop_test_support.hpp"
#include "vulkan_frames.hpp"
#include "tonekit/synth.hpp"
#include "tonekit/vulkan.hpp"

namespace tonekit {
namespace {

std::array<std::uint8_t, 16> cuda_uuid() {
  std::array<std::uint8_t, 16> u{};
  cudaDeviceProp p{};
  if (cudaGetDeviceProperties(&p, 0) == cudaSuccess) std::memcpy(u.data(), p.uuid.bytes, 16);
  return u;
}

#define REQUIRE_VULKAN(dev)                                                                   \
  REQUIRE_GPU();                                                                              \
  auto dev##_r = vkframes::VulkanDevice::create(cuda_uuid());                                 \
  if (!dev##_r.ok()) GTEST_SKIP() << "no Vulkan device: " << dev##_r.status().message();      \
  if (dev##_r.value()->uuid() != cuda_uuid()) GTEST_SKIP() << "no Vulkan device is the CUDA device"; \
  vkframes::VulkanDevice& dev = *dev##_r.value()

struct Frames {
  vkframes::VulkanDevice& vk;
  vkframes::ExportedBuffer in, out;
  VkSemaphore ready = VK_NULL_HANDLE, done = VK_NULL_HANDLE;
  ~Frames() {
    vk.destroy_buffer(in);
    vk.destroy_buffer(out);
    vk.destroy_semaphore(ready);
    vk.destroy_semaphore(done);
  }
};

Result<std::unique_ptr<VulkanPass>> make_pass(Frames& f, int w, int h, std::size_t in_bytes, const char* op, double glare,
                                              bool temporal) {
  VulkanPassConfig c;
  c.width = w;
  c.height = h;
  c.input = InputFormat::rgba_f16;
  c.params = *prepare_params(op, {});
  c.glare.strength = glare;
  c.temporal = temporal;
  c.device_uuid = f.vk.uuid();
  auto a = f.vk.export_memory(f.in);
  auto b = f.vk.export_memory(f.out);
  auto s0 = f.vk.export_semaphore(f.ready);
  auto s1 = f.vk.export_semaphore(f.done);
  if (!a.ok() || !b.ok() || !s0.ok() || !s1.ok()) return Status{StatusCode::runtime_error, "export failed"};
  (void)in_bytes;
  c.input_memory = *a;
  c.output_memory = *b;
  c.wait_semaphore_fd = *s0;
  c.signal_semaphore_fd = *s1;
  auto p = VulkanPass::create(c);
  if (!p.ok())
    for (int fd : {a->fd, b->fd, *s0, *s1}) close(fd);  // failed imports leave the descriptors to us
  return p;
}

std::vector<__half> night_half(int w, int h) {
  auto img = synth::render_scene("night-drive", w, h);
  std::vector<__half> v(std::size_t(w) * h * 4, __float2half(1.0f));
  if (!img.ok()) return v;
  for (std::size_t i = 0; i < std::size_t(w) * h; ++i)
    for (int c = 0; c < 3; ++c) v[i * 4 + c] = __float2half(img->pixels[i * img->channels + c]);
  return v;
}

TEST(InteropVulkan, SameBytesAsProcess) {
  REQUIRE_VULKAN(vk);
  for (auto [op, glare, temporal] : {std::tuple{"reinhard-sat", 0.1, true}, std::tuple{"reinhard", 0.0, false}}) {
    const int w = 333, h = 197;
    const std::size_t in_bytes = std::size_t(w) * h * 8, out_bytes = std::size_t(w) * h * 4;
    Frames f{vk};
    auto in = vk.create_buffer(in_bytes);
    auto out = vk.create_buffer(out_bytes);
    auto r = vk.create_semaphore();
    auto d = vk.create_semaphore();
    ASSERT_TRUE(in.ok() && out.ok() && r.ok() && d.ok());
    f.in = *in, f.out = *out, f.ready = *r, f.done = *d;
    auto pass = make_pass(f, w, h, in_bytes, op, glare, temporal);
    ASSERT_TRUE(pass.ok()) << pass.status().message();
    const std::vector<__half> src = night_half(w, h);
    CUDA_OK(cudaMemcpy(const_cast<void*>((*pass)->input_device_pointer()), src.data(), in_bytes, cudaMemcpyHostToDevice));
    auto ref = ToneMapper::create((*pass)->mapper().config());
    ASSERT_OK(ref);
    void *d_in = nullptr, *d_out = nullptr;
    CUDA_OK(cudaMalloc(&d_in, in_bytes));
    CUDA_OK(cudaMalloc(&d_out, out_bytes));
    CUDA_OK(cudaMemcpy(d_in, src.data(), in_bytes, cudaMemcpyHostToDevice));
    cudaStream_t s;
    CUDA_OK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    for (int frame = 0; frame < 3; ++frame) {
      ASSERT_OK(vk.signal(f.ready));                 // the application's queue: input written
      ASSERT_OK((*pass)->process(s, 1.0 / 30));       // waits `ready`, maps, signals `done`
      ASSERT_OK(vk.wait_idle_after(f.done));          // the application waits for the output
      ASSERT_OK((*ref)->process(d_in, 0, d_out, 0, s, 1.0 / 30));
    }
    CUDA_OK(cudaStreamSynchronize(s));
    std::vector<unsigned char> got(out_bytes), want(out_bytes);
    CUDA_OK(cudaMemcpy(got.data(), (*pass)->output_device_pointer(), out_bytes, cudaMemcpyDeviceToHost));
    CUDA_OK(cudaMemcpy(want.data(), d_out, out_bytes, cudaMemcpyDeviceToHost));
    EXPECT_EQ(got, want) << op;
    cudaStreamDestroy(s);
    cudaFree(d_in);
    cudaFree(d_out);
    pass->reset();
  }
}

TEST(InteropVulkan, ManyFramesAndPassesNoLeak) {
  REQUIRE_VULKAN(vk);
  const int w = 1920, h = 1080;
  const std::size_t in_bytes = std::size_t(w) * h * 8, out_bytes = std::size_t(w) * h * 4;
  auto cycle = [&](int frames) {
    Frames f{vk};
    f.in = *vk.create_buffer(in_bytes);
    f.out = *vk.create_buffer(out_bytes);
    f.ready = *vk.create_semaphore();
    f.done = *vk.create_semaphore();
    auto pass = make_pass(f, w, h, in_bytes, "reinhard-sat", 0.1, true);
    ASSERT_TRUE(pass.ok()) << pass.status().message();
    for (int i = 0; i < frames; ++i) {
      ASSERT_OK(vk.signal(f.ready));
      ASSERT_OK((*pass)->process(nullptr, 1.0 / 60));
      ASSERT_OK(vk.wait_idle_after(f.done));
    }
    CUDA_OK(cudaDeviceSynchronize());
  };
  cycle(5);  // first-use allocations (CUDA context, module loads) happen before the measurement
  std::size_t before = 0, after = 0, total = 0;
  CUDA_OK(cudaMemGetInfo(&before, &total));
  for (int k = 0; k < 10; ++k) cycle(50);
  CUDA_OK(cudaMemGetInfo(&after, &total));
  EXPECT_EQ(before, after) << "device memory changed over 10 passes x 50 frames";
}

TEST(InteropVulkan, TooSmallMemoryIsAClearError) {
  REQUIRE_VULKAN(vk);
  Frames f{vk};
  f.in = *vk.create_buffer(1024);
  f.out = *vk.create_buffer(1024);
  f.ready = *vk.create_semaphore();
  f.done = *vk.create_semaphore();
  auto pass = make_pass(f, 640, 480, 1024, "reinhard-sat", 0.0, false);
  ASSERT_FALSE(pass.ok());
  EXPECT_EQ(pass.status().code(), StatusCode::invalid_argument);
  EXPECT_NE(pass.status().message().find("the frame needs"), std::string::npos) << pass.status().message();
}

// Layout::images takes a renderer's colour attachments: other formats, a missing memory and an
// image smaller than the frame are clear errors before anything is imported or run.
TEST(InteropVulkan, ImagesLayoutBadConfigsAreClearErrors) {
  REQUIRE_VULKAN(vk);
  VulkanPassConfig c;
  c.width = 320;
  c.height = 200;
  c.layout = VulkanPassConfig::Layout::images;
  c.params = *prepare_params("reinhard", {});
  c.device_uuid = vk.uuid();
  c.input = InputFormat::rgb_f32;
  auto p = VulkanPass::create(c);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().code(), StatusCode::invalid_argument);
  EXPECT_NE(p.status().message().find("rgba_f16 or rgba_f32"), std::string::npos) << p.status().message();
  c.input = InputFormat::rgba_f16;
  c.output = {PixelType::u8, 3};
  p = VulkanPass::create(c);
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find("u8 x 4"), std::string::npos) << p.status().message();
  c.output = {PixelType::u8, 4};
  p = VulkanPass::create(c);  // no memory handed over
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find("no input image memory"), std::string::npos) << p.status().message();
  auto small = vk.create_image(64, 64, VK_FORMAT_R16G16B16A16_SFLOAT, VK_IMAGE_TILING_OPTIMAL);
  if (!small.ok()) GTEST_SKIP() << small.status().message();
  vkframes::ExportedImage img = *small;
  auto h = vk.export_memory(img);
  ASSERT_TRUE(h.ok());
  c.width = 3840;
  c.height = 2160;
  c.input_memory = *h;
  p = VulkanPass::create(c);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().code(), StatusCode::invalid_argument);
  EXPECT_NE(p.status().message().find("less than a 3840x2160 image"), std::string::npos) << p.status().message();
  close(h->fd);  // not imported: still the caller's
  vk.destroy_image(img);
}

}  // namespace
}  // namespace tonekit
