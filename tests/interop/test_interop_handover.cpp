// The night-drive renderer's Vulkan hand-over (examples/night_drive/vulkan_handover.*, issue 18)
// on the GPU host, each way it offers. images: GL draws the scene into an optimal-tiling Vulkan
// image that VulkanPass reads as a CUDA array (and writes an RGBA8 Vulkan image); rows: into a
// linear Vulkan image read as rows of its pitch; copy: GL copies its frame into a Vulkan buffer.
// Each frame: the input CUDA sees equals the texels GL reads back, bit for bit (GL and CUDA lay
// the memory out as Vulkan does), and the pass's output equals ToneMapper::process on those
// texels copied with cudaMemcpy, over frames with temporal adaptation and glare. Awkward, 1080p
// and 4K sizes; the outputs are poisoned before each frame. Many hand-overs in one process (the
// shared Vulkan device keeps GL alive). Skips with the reason without a GPU, an EGL context,
// Vulkan with external fds, or a way the driver cannot offer (rows: NVIDIA cannot render into a
// linear RGBA16F image).
#include <EGL/egl.h>
#define GL_GLEXT_PROTOTYPES 1
#include <GL/gl.h>
#include <GL/glext.h>
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "gpu/gpu_test_support.hpp"
#include "interop/egl_test_context.hpp"
#include "interop/interop_test_support.hpp"
#include "scene.hpp"
#include "tonekit/tone_mapper.hpp"
#include "vulkan_handover.hpp"

namespace tonekit {
namespace {

using night_drive::Handover;

egl::EglContext* context(std::string& why) { return interop_test::egl_test_context(why); }

struct Device {
  void* in = nullptr;
  void* out = nullptr;
  cudaStream_t stream = nullptr;
  ~Device() {
    if (stream) cudaStreamSynchronize(stream);
    cudaFree(in);
    cudaFree(out);
    if (stream) cudaStreamDestroy(stream);
  }
};

void check_handover(Handover mode, int w, int h) {
  VulkanPassConfig c;
  c.params = *prepare_params("reinhard-sat", {{"key", "0.72"}});
  c.glare.strength = 0.1;
  c.temporal = true;
  auto hv = night_drive::VulkanHandover::create(w, h, c, mode);
  if (!hv.ok() && (hv.status().code() == StatusCode::unsupported || hv.status().code() == StatusCode::no_device))
    GTEST_SKIP() << hv.status().message();
  ASSERT_OK(hv);
  night_drive::VulkanHandover& v = *hv.value();
  ASSERT_EQ(v.mode(), mode);
  night_drive::Scene scene;
  ASSERT_OK(scene.create(w, h));
  if (mode != Handover::copy) {
    ASSERT_NE(v.target_texture(), 0u);
    ASSERT_OK(scene.use_target(v.target_texture()));
    ASSERT_EQ(scene.colour_texture(), v.target_texture());
    ASSERT_GE(v.input_row_pitch(), std::size_t(w) * 8);
  }
  const bool images = mode == Handover::images;
  ToneMapperConfig rc;
  rc.width = w;
  rc.height = h;
  rc.input = InputFormat::rgba_f16;
  rc.output = {PixelType::u8, 4};
  rc.params = c.params;
  rc.glare = c.glare;
  rc.temporal = true;
  auto ref = ToneMapper::create(rc);
  ASSERT_OK(ref);
  Device d;
  const std::size_t row = std::size_t(w) * 8, in_bytes = row * h, out_bytes = std::size_t(w) * h * 4;
  ASSERT_EQ(cudaMalloc(&d.in, in_bytes), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&d.out, out_bytes), cudaSuccess);
  ASSERT_EQ(cudaStreamCreateWithFlags(&d.stream, cudaStreamNonBlocking), cudaSuccess);
  const double dt = 1.0 / 30;
  for (int frame = 0; frame < 3; ++frame) {
    const std::string what = std::string(night_drive::handover_name(mode)) + " " + std::to_string(w) + "x" +
                             std::to_string(h) + " frame " + std::to_string(frame);
    v.begin_frame();
    scene.render(5.0 + frame * dt);  // the oncoming car near: headlights in view
    v.end_frame(scene.colour_texture());
    if (images) {  // poisoned
      std::vector<unsigned char> poison(out_bytes, 0xAB);
      ASSERT_EQ(cudaMemcpy2DToArrayAsync(v.pass().output_array(), 0, 0, poison.data(), std::size_t(w) * 4, std::size_t(w) * 4,
                                         h, cudaMemcpyHostToDevice, d.stream),
                cudaSuccess);
      ASSERT_EQ(cudaStreamSynchronize(d.stream), cudaSuccess);
    } else {
      ASSERT_EQ(cudaMemsetAsync(v.pass().output_device_pointer(), 0xAB, out_bytes, d.stream), cudaSuccess);
    }
    ASSERT_OK(v.pass().process(d.stream, dt));

    std::vector<std::uint16_t> texels(std::size_t(w) * h * 4), rows(texels.size());
    glGetTextureImage(scene.colour_texture(), 0, GL_RGBA, GL_HALF_FLOAT, static_cast<GLsizei>(in_bytes), texels.data());
    ASSERT_EQ(glGetError(), GLenum(GL_NO_ERROR)) << what;
    ASSERT_EQ(images ? cudaMemcpy2DFromArrayAsync(rows.data(), row, v.pass().input_array(), 0, 0, row, h,
                                                  cudaMemcpyDeviceToHost, d.stream)
                     : cudaMemcpy2DAsync(rows.data(), row, v.pass().input_device_pointer(), v.input_row_pitch(), row, h,
                                         cudaMemcpyDeviceToHost, d.stream),
              cudaSuccess);
    ASSERT_EQ(cudaStreamSynchronize(d.stream), cudaSuccess);
    std::size_t lit = 0;
    for (std::uint16_t t : texels) lit += (t & 0x7fff) != 0;
    ASSERT_GT(lit, texels.size() / 2) << what << ": the scene drew nothing";
    EXPECT_EQ(std::memcmp(texels.data(), rows.data(), in_bytes), 0) << what << ": CUDA's rows are not GL's texels";

    std::vector<unsigned char> got(out_bytes), want(out_bytes);
    ASSERT_OK(v.read_output(got.data(), d.stream));
    ASSERT_EQ(cudaMemcpyAsync(d.in, texels.data(), in_bytes, cudaMemcpyHostToDevice, d.stream), cudaSuccess);
    ASSERT_EQ(cudaMemsetAsync(d.out, 0xCD, out_bytes, d.stream), cudaSuccess);
    ASSERT_OK(ref.value()->process(d.in, 0, d.out, 0, d.stream, dt));
    ASSERT_EQ(cudaMemcpyAsync(want.data(), d.out, out_bytes, cudaMemcpyDeviceToHost, d.stream), cudaSuccess);
    ASSERT_EQ(cudaStreamSynchronize(d.stream), cudaSuccess);
    EXPECT_EQ(got, want) << what;
  }
}

class InteropHandover : public ::testing::TestWithParam<std::pair<int, int>> {
 protected:
  void SetUp() override {
    REQUIRE_GPU();
    std::string why;
    if (!context(why)) GTEST_SKIP() << why;
  }
};

TEST_P(InteropHandover, ImagesSameBytesAsProcess) { check_handover(Handover::images, GetParam().first, GetParam().second); }
TEST_P(InteropHandover, RowsSameBytesAsProcess) { check_handover(Handover::rows, GetParam().first, GetParam().second); }
TEST_P(InteropHandover, CopySameBytesAsProcess) { check_handover(Handover::copy, GetParam().first, GetParam().second); }

INSTANTIATE_TEST_SUITE_P(Sizes, InteropHandover,
                         ::testing::Values(std::pair{333, 197}, std::pair{1920, 1080}, std::pair{3840, 2160}),
                         [](const auto& info) {
                           return std::to_string(info.param.first) + "x" + std::to_string(info.param.second);
                         });

}  // namespace
}  // namespace tonekit
