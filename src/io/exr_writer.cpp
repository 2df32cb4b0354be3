// OpenEXR writer: scanline file, ZIP compression (lossless, 16-line blocks: the usual choice
// for final images), channels R,G,B(,A), or Y for grey, as half or float.
#include <OpenEXR/ImfChannelList.h>
#include <OpenEXR/ImfFrameBuffer.h>
#include <OpenEXR/ImfHeader.h>
#include <OpenEXR/ImfOutputFile.h>
#include <OpenEXR/ImfThreading.h>

#include <new>
#include <vector>

#include <Imath/half.h>

#include "exr_streams.hpp"
#include "input_checks.hpp"
#include "tonekit/io.hpp"

namespace tonekit::io {
namespace {

// Encodes into memory. OpenEXR converts pixel types only when reading, so for half output the
// image is first converted here (Imath::half rounds to nearest; values beyond half's range,
// 65504, become infinity).
std::string encode(const std::string& path, const Image& image, bool half) {
  Imf::Header header(image.width, image.height);
  header.compression() = Imf::ZIP_COMPRESSION;
  const char* const rgba_names[] = {"R", "G", "B", "A"};
  const char* const grey_names[] = {"Y"};
  const char* const* names = image.channels == 1 ? grey_names : rgba_names;

  std::vector<Imath::half> halves;
  if (half) halves.assign(image.pixels.begin(), image.pixels.end());
  const Imf::PixelType type = half ? Imf::HALF : Imf::FLOAT;
  const char* const base = half ? reinterpret_cast<const char*>(halves.data()) : reinterpret_cast<const char*>(image.pixels.data());
  const std::size_t value_bytes = half ? sizeof(Imath::half) : sizeof(float);
  const std::size_t x_stride = value_bytes * static_cast<std::size_t>(image.channels);
  const std::size_t y_stride = x_stride * static_cast<std::size_t>(image.width);
  Imf::FrameBuffer frame_buffer;
  for (int c = 0; c < image.channels; ++c) {
    header.channels().insert(names[c], Imf::Channel(type));
    frame_buffer.insert(names[c], Imf::Slice(type, const_cast<char*>(base + value_bytes * static_cast<std::size_t>(c)), x_stride, y_stride));
  }
  MemoryOStream stream(path);
  {
    // The file's destructor writes the offset table, so it must end before the bytes are taken.
    Imf::OutputFile file(stream, header, Imf::globalThreadCount());
    file.setFrameBuffer(frame_buffer);
    file.writePixels(image.height);
  }
  return stream.bytes();
}

}  // namespace

Status write_exr(const std::string& path, const Image& image, bool half) {
  if (Status status = check_writable(path, image); !status.ok()) return status;
  std::string bytes;
  try {
    bytes = encode(path, image, half);
  } catch (const std::bad_alloc&) {
    return Status(StatusCode::out_of_memory, path + ": out of memory while encoding OpenEXR");
  } catch (const std::exception& e) {
    return Status(StatusCode::runtime_error, path + ": OpenEXR: " + one_line(e.what()));
  }
  return write_file_atomically(path, bytes);
}

}  // namespace tonekit::io
