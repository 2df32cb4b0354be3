// JPEG writer (libjpeg / libjpeg-turbo): 8-bit baseline, RGB (alpha dropped: JPEG has none)
// or greyscale, 4:2:0 chroma subsampling (the library default), encoded into memory.
// jpeglib.h uses FILE and size_t without including their headers.
#include <cstddef>
#include <cstdio>
#include <jpeglib.h>

#include <csetjmp>
#include <cstdlib>
#include <vector>

#include "input_checks.hpp"
#include "tonekit/io.hpp"

namespace tonekit::io {
namespace {

struct ErrorManager {
  jpeg_error_mgr base;  // first member: libjpeg hands us a pointer to it
  std::jmp_buf jump;
  char message[JMSG_LENGTH_MAX];
};

// libjpeg's default error_exit calls exit(); ours longjmps back to encode() instead.
[[noreturn]] void on_error(j_common_ptr info) {
  auto* errors = reinterpret_cast<ErrorManager*>(info->err);
  (*info->err->format_message)(info, errors->message);
  std::longjmp(errors->jump, 1);
}

// Destructible objects live in the caller (see write_jpeg), so the longjmp skips none.
// `row` is scratch for one RGB row when the image has alpha to drop.
bool encode(const OutputImage& image, int quality, std::vector<JSAMPLE>& row, unsigned char** out,
            unsigned long* out_size, ErrorManager& errors) {
  jpeg_compress_struct info{};
  info.err = jpeg_std_error(&errors.base);
  errors.base.error_exit = on_error;
  if (setjmp(errors.jump)) {
    jpeg_destroy_compress(&info);
    return false;
  }
  jpeg_create_compress(&info);
  jpeg_mem_dest(&info, out, out_size);
  info.image_width = static_cast<JDIMENSION>(image.width);
  info.image_height = static_cast<JDIMENSION>(image.height);
  info.input_components = image.channels == 1 ? 1 : 3;
  info.in_color_space = image.channels == 1 ? JCS_GRAYSCALE : JCS_RGB;
  jpeg_set_defaults(&info);
  jpeg_set_quality(&info, quality, TRUE);
  jpeg_start_compress(&info, TRUE);
  const std::size_t stride = static_cast<std::size_t>(image.width) * static_cast<std::size_t>(image.channels);
  while (info.next_scanline < info.image_height) {
    const JSAMPLE* source = image.bytes.data() + info.next_scanline * stride;
    if (image.channels == 4) {
      for (int x = 0; x < image.width; ++x)
        for (int c = 0; c < 3; ++c) row[static_cast<std::size_t>(x) * 3 + c] = source[x * 4 + c];
      source = row.data();
    }
    JSAMPROW rows[1] = {const_cast<JSAMPROW>(source)};
    jpeg_write_scanlines(&info, rows, 1);
  }
  jpeg_finish_compress(&info);
  jpeg_destroy_compress(&info);
  return true;
}

}  // namespace

Status write_jpeg(const std::string& path, const OutputImage& image, int quality) {
  if (image.type != PixelType::u8)
    return invalid_argument(path + ": JPEG is 8-bit only; got a " + (image.type == PixelType::u16 ? "16-bit" : "float") +
                            " image (write PNG for 16 bits)");
  if (quality < 1 || quality > 100)
    return invalid_argument(path + ": JPEG quality " + std::to_string(quality) + " out of range 1..100");
  if (Status status = check_writable(path, image); !status.ok()) return status;
  if (image.width > JPEG_MAX_DIMENSION || image.height > JPEG_MAX_DIMENSION)
    return invalid_argument(path + ": JPEG cannot hold " + std::to_string(image.width) + "x" +
                            std::to_string(image.height) + " pixels (at most " + std::to_string(JPEG_MAX_DIMENSION) + " a side)");
  std::string bytes;
  try {
    std::vector<JSAMPLE> row(static_cast<std::size_t>(image.width) * 3);
    ErrorManager errors{};
    unsigned char* out = nullptr;
    unsigned long out_size = 0;
    const bool ok = encode(image, quality, row, &out, &out_size, errors);
    if (ok) bytes.assign(reinterpret_cast<const char*>(out), out_size);
    std::free(out);  // jpeg_mem_dest's buffer is malloc'ed and ours to free
    if (!ok) return Status(StatusCode::runtime_error, path + ": libjpeg: " + one_line(errors.message));
  } catch (const std::bad_alloc&) {
    return Status(StatusCode::out_of_memory, path + ": out of memory while encoding JPEG");
  }
  return write_file_atomically(path, bytes);
}

}  // namespace tonekit::io
