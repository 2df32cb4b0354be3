// Image views (non-owning, host or device memory, any row stride) and the owning host image
// that readers return. Pixel data is interleaved: channel c of pixel (x, y) is at
// data + y * row_stride_bytes + (x * channels + c) * bytes_per_channel(type).
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace tonekit {

enum class PixelType : std::uint8_t { f32, f16, u8, u16 };
enum class MemorySpace : std::uint8_t { host, device };

constexpr std::size_t bytes_per_channel(PixelType t) {
  return t == PixelType::f32 ? 4 : (t == PixelType::u8 ? 1 : 2);
}
const char* pixel_type_name(PixelType t);

// std::allocator, but resize() leaves new bytes unset instead of zero-filling them: a writer that
// sets every byte (the map, a decoder) would otherwise write a 4K output twice, the zero fill
// being 4 % of a whole EXR -> PNG process (issue 33). assign(n, 0) and vector(n, 0) still fill.
template <class T>
struct UninitialisedAllocator : std::allocator<T> {
  using value_type = T;
  template <class U>
  struct rebind {
    using other = UninitialisedAllocator<U>;
  };
  UninitialisedAllocator() noexcept = default;
  template <class U>
  UninitialisedAllocator(const UninitialisedAllocator<U>&) noexcept {}
  template <class U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};
template <class T, class U>
bool operator==(const UninitialisedAllocator<T>&, const UninitialisedAllocator<U>&) noexcept { return true; }

// The bytes of an OutputImage; compares equal to a std::vector of the same bytes.
using ByteBuffer = std::vector<std::uint8_t, UninitialisedAllocator<std::uint8_t>>;
inline bool operator==(const ByteBuffer& a, const std::vector<std::uint8_t>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end());
}

struct ImageView {
  void* data = nullptr;
  int width = 0;
  int height = 0;
  int channels = 0;              // 1 (grey), 3 (RGB) or 4 (RGBA)
  PixelType type = PixelType::f32;
  std::size_t row_stride_bytes = 0;  // 0 means tightly packed
  MemorySpace space = MemorySpace::host;

  std::size_t pixel_bytes() const { return bytes_per_channel(type) * static_cast<std::size_t>(channels); }
  std::size_t stride() const {
    return row_stride_bytes ? row_stride_bytes : pixel_bytes() * static_cast<std::size_t>(width);
  }
  std::size_t size_bytes() const { return stride() * static_cast<std::size_t>(height); }
  template <class T>
  T* row(int y) const {
    return reinterpret_cast<T*>(static_cast<unsigned char*>(data) + stride() * static_cast<std::size_t>(y));
  }
};

// What a reader learned about the file beyond the pixels (printed by `tonekit info`).
struct ImageMetadata {
  std::string format;             // "OpenEXR", "Radiance RGBE", "PFM", "PNG", ...
  std::string compression;        // "PIZ", "ZIP", "RLE", "none", ...
  std::string source_pixel_type;  // "half", "float", "uint", "rgbe", ...
  std::string source_channels;    // "R,G,B,A", "Y,RY,BY", ...
  double exposure = 1.0;          // Radiance EXPOSURE header product (already divided out)
  bool tiled = false;
  std::vector<std::string> notes; // anything noteworthy the reader did (e.g. "exposure applied")
  int width = 0;                  // pixels the reader returns (probe_image has no Image to ask)
  int height = 0;
};

// Owning host image in float32, interleaved, tightly packed. Readers return RGB (3) or
// RGBA (4) channels; grey sources are expanded to RGB.
struct Image {
  int width = 0;
  int height = 0;
  int channels = 0;
  std::vector<float> pixels;
  ImageMetadata meta;

  Image() = default;
  Image(int w, int h, int c) : width(w), height(h), channels(c), pixels(static_cast<std::size_t>(w) * h * c) {}
  float* row(int y) { return pixels.data() + static_cast<std::size_t>(y) * width * channels; }
  const float* row(int y) const { return pixels.data() + static_cast<std::size_t>(y) * width * channels; }
  ImageView view() {
    return ImageView{pixels.data(), width, height, channels, PixelType::f32, 0, MemorySpace::host};
  }
  ImageView view() const {
    return ImageView{const_cast<float*>(pixels.data()), width, height, channels, PixelType::f32, 0, MemorySpace::host};
  }
};

// An 8- or 16-bit (or float) display image produced by tone mapping, ready for a writer.
struct OutputImage {
  int width = 0;
  int height = 0;
  int channels = 0;
  PixelType type = PixelType::u8;
  ByteBuffer bytes;
  ImageView view() {
    return ImageView{bytes.data(), width, height, channels, type, 0, MemorySpace::host};
  }
  ImageView view() const {
    return ImageView{const_cast<std::uint8_t*>(bytes.data()), width, height, channels, type, 0, MemorySpace::host};
  }
  void allocate(int w, int h, int c, PixelType t) {
    width = w; height = h; channels = c; type = t;
    bytes.assign(static_cast<std::size_t>(w) * h * c * bytes_per_channel(t), 0);
  }
  // As allocate, for a writer that sets every byte: a buffer of the same size keeps what it
  // held (no zero fill, no fresh pages: a batch reuses its buffers), a larger one only fills its
  // growth.
  void allocate_for_overwrite(int w, int h, int c, PixelType t) {
    width = w; height = h; channels = c; type = t;
    bytes.resize(static_cast<std::size_t>(w) * h * c * bytes_per_channel(t));
  }
};

// Largest accepted image side and pixel count: 8K is 7680x4320; 32K x 32K leaves room for
// panoramas while rejecting headers that claim gigabytes.
constexpr int kMaxImageSide = 32768;
constexpr std::int64_t kMaxImagePixels = std::int64_t{1} << 28;

}  // namespace tonekit
