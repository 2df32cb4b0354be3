// PNG reader (libpng 1.6) for display images: the code values as stored (no gamma conversion),
// 8 or 16 bits per channel; palette and grey are expanded to RGB, alpha kept (RGBA). Used by
// `tonekit quality` and `tonekit compare` to read tone-mapped outputs back.
#include <png.h>

#include <bit>
#include <csetjmp>
#include <cstring>
#include <string>
#include <vector>

#include "file_bytes.hpp"
#include "tonekit/io.hpp"

namespace tonekit::io {
namespace {

struct PngInput {
  const std::uint8_t* data = nullptr;
  std::size_t size = 0, offset = 0;
  std::string error;
};

// libpng reports errors through this, which must not return: it longjmps back to decode().
[[noreturn]] void on_error(png_structp png, png_const_charp message) {
  auto* input = static_cast<PngInput*>(png_get_error_ptr(png));
  if (input != nullptr) input->error = message;
  png_longjmp(png, 1);
}

void on_warning(png_structp, png_const_charp) {}

void on_read(png_structp png, png_bytep out, png_size_t length) {
  auto* input = static_cast<PngInput*>(png_get_io_ptr(png));
  if (input->size - input->offset < length) png_error(png, "file is truncated");
  std::memcpy(out, input->data + input->offset, length);
  input->offset += length;
}

// Everything with a destructor is created by the caller, so the longjmp skips none. `image`
// is allocated after the header is read; rows point into it.
bool decode(PngInput& input, OutputImage& image, std::vector<png_bytep>& rows) {
  png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &input, on_error, on_warning);
  if (png == nullptr) {
    input.error = "cannot create libpng read struct";
    return false;
  }
  png_infop info = png_create_info_struct(png);
  if (info == nullptr || setjmp(png_jmpbuf(png))) {
    if (input.error.empty()) input.error = "cannot create libpng info struct";
    png_destroy_read_struct(&png, info != nullptr ? &info : nullptr, nullptr);
    return false;
  }
  png_set_read_fn(png, &input, on_read);
  png_read_info(png, info);
  const png_uint_32 width = png_get_image_width(png, info), height = png_get_image_height(png, info);
  if (width == 0 || height == 0 || width > kMaxImageSide || height > kMaxImageSide ||
      static_cast<std::int64_t>(width) * height > kMaxImagePixels)
    png_error(png, "image size out of range");
  png_set_expand(png);  // palette -> RGB, grey < 8 bits -> 8 bits, tRNS -> alpha
  png_set_gray_to_rgb(png);
  const int bit_depth = png_get_bit_depth(png, info) == 16 ? 16 : 8;
  if (bit_depth == 16 && std::endian::native == std::endian::little) png_set_swap(png);
  png_read_update_info(png, info);
  const int channels = png_get_channels(png, info);
  if (channels != 3 && channels != 4) png_error(png, "unexpected channel count");
  image.allocate(static_cast<int>(width), static_cast<int>(height), channels,
                 bit_depth == 16 ? PixelType::u16 : PixelType::u8);
  const std::size_t row_bytes = static_cast<std::size_t>(width) * channels * (bit_depth / 8);
  rows.resize(height);
  for (png_uint_32 y = 0; y < height; ++y) rows[y] = image.bytes.data() + y * row_bytes;
  png_read_image(png, rows.data());
  png_read_end(png, nullptr);
  png_destroy_read_struct(&png, &info, nullptr);
  return true;
}

}  // namespace

Result<OutputImage> read_png(const std::string& path) {
  auto file = read_file_bytes(path);
  if (!file.ok()) return file.status();
  if (file->bytes.size() < 8 || png_sig_cmp(file->bytes.data(), 0, 8) != 0)
    return bad_input(path + ": not a PNG file");
  PngInput input{file->bytes.data(), file->bytes.size(), 0, {}};
  OutputImage image;
  std::vector<png_bytep> rows;
  if (!decode(input, image, rows)) return bad_input(path + ": " + input.error);
  return image;
}

}  // namespace tonekit::io
