// OpenEXR reader on top of the OpenEXR 3.1 library. The usual render output (one scanline part,
// ZIP or ZIPS, half or float R, G, B (A)) is decoded by exr_fast_reader.cpp (OpenEXRCore with
// ISA-L's inflate); other files, and any it cannot decode, come here. RGB(A) files go through the
// generic FrameBuffer interface with FLOAT slices, so float and uint channels keep float precision and
// every compression, scanline or tiled layout (level 0 of mip-mapped files) and the first part
// of multi-part files read the same way. Luminance/chroma files (Y, RY, BY, possibly subsampled)
// go through Imf::RgbaInputFile, which reconstructs RGB from them (using the file's
// chromaticities). Grey files with only Y come back as R = G = B = Y, in float.
#include <OpenEXR/ImfChannelList.h>
#include <OpenEXR/ImfFrameBuffer.h>
#include <OpenEXR/ImfInputPart.h>
#include <OpenEXR/ImfMultiPartInputFile.h>
#include <OpenEXR/ImfRgbaFile.h>
#include <OpenEXR/ImfStdIO.h>
#include <OpenEXR/ImfThreading.h>

#include <algorithm>
#include <cstring>
#include <mutex>
#include <thread>

#include "exr_fast_reader.hpp"
#include "exr_headers.hpp"
#include "exr_streams.hpp"
#include "input_checks.hpp"

namespace tonekit::io {
namespace {

// OpenEXR decodes chunks in parallel only when its global thread pool has threads, and the
// pool starts empty. Give it one thread per core, once, unless the application already chose.
int exr_threads() {
  static std::once_flag once;
  std::call_once(once, [] {
    if (Imf::globalThreadCount() == 0) Imf::setGlobalThreadCount(static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
  });
  return Imf::globalThreadCount();
}

bool has_channel(const Imf::Header& header, const char* name) { return header.channels().findChannel(name) != nullptr; }

bool has_rgb(const Imf::Header& header) {
  return has_channel(header, "R") || has_channel(header, "G") || has_channel(header, "B");
}

// Y with chroma (RY, BY) and no R, G, B: the layout only RgbaInputFile converts.
bool is_luminance_chroma(const Imf::Header& header) {
  return !has_rgb(header) && has_channel(header, "Y") && (has_channel(header, "RY") || has_channel(header, "BY"));
}

// Y alone: read like R, G, B (keeping float precision) and replicated.
bool is_grey(const Imf::Header& header) { return !has_rgb(header) && has_channel(header, "Y") && !is_luminance_chroma(header); }

Result<Image> read_rgba_channels(const std::string& name, Imf::MultiPartInputFile& file, const Imf::Header& header) {
  const bool grey = is_grey(header);
  if (!grey && !has_rgb(header)) {
    std::string names;
    for (auto channel = header.channels().begin(); channel != header.channels().end(); ++channel) {
      if (!names.empty()) names += ',';
      names += channel.name();
    }
    return unsupported(name + ": OpenEXR file has no R, G, B or Y channel (channels: " + printable_excerpt(names, 200) + ")");
  }
  for (const char* channel_name : {"R", "G", "B", "A", "Y"}) {
    const Imf::Channel* channel = header.channels().findChannel(channel_name);
    if (channel != nullptr && (channel->xSampling != 1 || channel->ySampling != 1))
      return unsupported(name + ": OpenEXR channel " + channel_name + " is subsampled, which is not supported");
  }
  const bool alpha = has_channel(header, "A");
  const Imath::Box2i& window = header.dataWindow();
  const int width = window.max.x - window.min.x + 1;
  const int height = window.max.y - window.min.y + 1;
  const int channels = alpha ? 4 : 3;
  Image image(width, height, channels);

  // Absent colour channels read as 0 and absent alpha as 1 (opaque): Slice's fill value.
  Imf::FrameBuffer frame_buffer;
  const std::size_t x_stride = sizeof(float) * static_cast<std::size_t>(channels);
  const std::size_t y_stride = x_stride * static_cast<std::size_t>(width);
  const char* const names[] = {grey ? "Y" : "R", "G", "B", "A"};
  for (int c = 0; c < channels; ++c) {
    if (grey && (c == 1 || c == 2)) continue;
    frame_buffer.insert(names[c], Imf::Slice::Make(Imf::FLOAT, image.pixels.data() + c, window, x_stride, y_stride, 1, 1,
                                                   c == 3 ? 1.0 : 0.0));
  }
  Imf::InputPart part(file, 0);
  part.setFrameBuffer(frame_buffer);
  part.readPixels(window.min.y, window.max.y);
  if (grey) {
    for (std::size_t i = 0; i < image.pixels.size(); i += static_cast<std::size_t>(channels))
      image.pixels[i + 1] = image.pixels[i + 2] = image.pixels[i];
  }
  return image;
}

// Whether the fast path (exr_fast_reader.cpp: OpenEXRCore with ISA-L's inflate) may take the
// file: one part with R, G and B (it checks the rest itself). Its chunks run on OpenEXR's pool.
bool fast_path_candidate(const Imf::Header& header, std::size_t parts) {
  if (parts != 1 || !has_channel(header, "R") || !has_channel(header, "G") || !has_channel(header, "B")) return false;
  exr_threads();
  return true;
}

// The fast path into a float image of the data window; false leaves the file to
// read_rgba_channels.
bool read_rgba_fast(const std::uint8_t* data, std::size_t size, const Imf::Header& header, std::size_t parts,
                    Result<Image>& image) {
  if (!fast_path_candidate(header, parts)) return false;
  const Imath::Box2i& window = header.dataWindow();
  const int width = window.max.x - window.min.x + 1;
  const int height = window.max.y - window.min.y + 1;
  const int channels = has_channel(header, "A") ? 4 : 3;
  Image fast(width, height, channels);
  if (!read_exr_fast(data, size, PixelType::f32, width, height, channels, reinterpret_cast<std::uint8_t*>(fast.pixels.data())))
    return false;
  image = std::move(fast);
  return true;
}

Result<Image> read_luminance_chroma(const std::string& name, const std::uint8_t* data, std::size_t size,
                                    const Imf::Header& header) {
  MemoryIStream stream(name, data, size);
  Imf::RgbaInputFile file(stream, exr_threads());
  const Imath::Box2i& window = header.dataWindow();
  const int width = window.max.x - window.min.x + 1;
  const int height = window.max.y - window.min.y + 1;
  std::vector<Imf::Rgba> rgba(static_cast<std::size_t>(width) * static_cast<std::size_t>(height));
  // The frame buffer's base is addressed with absolute data-window coordinates; compute the
  // (out-of-range) base address in integers, as Slice::Make does, to avoid pointer overflow.
  const auto origin = static_cast<std::intptr_t>(window.min.x) + static_cast<std::intptr_t>(window.min.y) * width;
  auto* base = reinterpret_cast<Imf::Rgba*>(reinterpret_cast<std::intptr_t>(rgba.data()) -
                                            origin * static_cast<std::intptr_t>(sizeof(Imf::Rgba)));
  file.setFrameBuffer(base, 1, static_cast<std::size_t>(width));
  file.readPixels(window.min.y, window.max.y);

  const bool alpha = has_channel(header, "A");
  const int channels = alpha ? 4 : 3;
  Image image(width, height, channels);
  for (std::size_t i = 0; i < rgba.size(); ++i) {
    float* out = image.pixels.data() + i * static_cast<std::size_t>(channels);
    out[0] = rgba[i].r;
    out[1] = rgba[i].g;
    out[2] = rgba[i].b;
    if (alpha) out[3] = rgba[i].a;
  }
  return image;
}

Result<Image> decode(const std::string& name, const std::uint8_t* data, std::size_t size, const ReadLimits& limits) {
  MemoryIStream stream(name, data, size);
  auto headers = read_exr_headers(name, stream, size, limits);
  if (!headers.ok()) return headers.status();
  const Imf::Header& header = headers->parts[0];

  Result<Image> image = Status();
  if (is_luminance_chroma(header)) {
    image = read_luminance_chroma(name, data, size, header);
  } else if (!read_rgba_fast(data, size, header, headers->parts.size(), image)) {
    stream.seekg(0);
    Imf::MultiPartInputFile file(stream, exr_threads());
    image = read_rgba_channels(name, file, header);
  }
  if (!image.ok()) return image;
  image->meta = exr_metadata(*headers);
  if (is_luminance_chroma(header)) image->meta.notes.push_back("luminance/chroma (Y, RY, BY) converted to RGB");
  if (is_grey(header)) image->meta.notes.push_back("grey (Y only) replicated to R, G, B");
  return image;
}

// A half RGB(A) file into half RGBA: the same FrameBuffer read with HALF slices, no widening.
// Both paths write every byte of `out` (absent channels get their fill values), so its buffer is
// reused as it is.
Status decode_half(const std::string& name, const std::uint8_t* data, std::size_t size, const ReadLimits& limits,
                   HalfImage& out) {
  MemoryIStream stream(name, data, size);
  auto headers = read_exr_headers(name, stream, size, limits);
  if (!headers.ok()) return headers.status();
  const Imf::Header& header = headers->parts[0];
  if (!has_rgb(header)) return unsupported(name + ": not an RGB OpenEXR file (grey, luminance/chroma or no colour)");
  for (const char* channel_name : {"R", "G", "B", "A"}) {
    const Imf::Channel* channel = header.channels().findChannel(channel_name);
    if (channel == nullptr) continue;
    if (channel->type != Imf::HALF) return unsupported(name + ": channel " + channel_name + " is not stored as half");
    if (channel->xSampling != 1 || channel->ySampling != 1)
      return unsupported(name + ": OpenEXR channel " + channel_name + " is subsampled, which is not supported");
  }
  const Imath::Box2i& window = header.dataWindow();
  out.file_channels = has_channel(header, "A") ? 4 : 3;
  out.pixels.allocate_for_overwrite(window.max.x - window.min.x + 1, window.max.y - window.min.y + 1, 4, PixelType::f16);
  if (fast_path_candidate(header, headers->parts.size()) &&
      read_exr_fast(data, size, PixelType::f16, out.pixels.width, out.pixels.height, 4, out.pixels.bytes.data()))
    return {};
  constexpr std::size_t x_stride = 4 * sizeof(std::uint16_t);
  const std::size_t y_stride = x_stride * static_cast<std::size_t>(out.pixels.width);
  auto* base = reinterpret_cast<std::uint16_t*>(out.pixels.bytes.data());
  Imf::FrameBuffer frame_buffer;
  const char* const names[] = {"R", "G", "B", "A"};
  for (int c = 0; c < 4; ++c)  // absent colour channels read as 0 and absent alpha as 1 (opaque)
    frame_buffer.insert(names[c], Imf::Slice::Make(Imf::HALF, base + c, window, x_stride, y_stride, 1, 1, c == 3 ? 1.0 : 0.0));
  stream.seekg(0);
  Imf::MultiPartInputFile file(stream, exr_threads());
  Imf::InputPart part(file, 0);
  part.setFrameBuffer(frame_buffer);
  part.readPixels(window.min.y, window.max.y);
  return {};
}

}  // namespace

Status read_exr_half_memory(const std::string& name, const std::uint8_t* data, std::size_t size, const ReadLimits& limits,
                            HalfImage& out) {
  Status status;
  try {
    status = decode_half(name, data, size, limits, out);
  } catch (...) {
    status = exr_exception_status(name);
  }
  if (!status.ok()) out = HalfImage();
  return status;
}

Result<HalfImage> read_exr_half_memory(const std::string& name, const std::uint8_t* data, std::size_t size,
                                       const ReadLimits& limits) {
  HalfImage out;
  if (Status s = read_exr_half_memory(name, data, size, limits, out); !s.ok()) return s;
  return out;
}

Result<Image> read_exr_memory(const std::string& name, const std::uint8_t* data, std::size_t size,
                              const ReadLimits& limits) {
  try {
    return decode(name, data, size, limits);
  } catch (...) {
    return exr_exception_status(name);
  }
}

Result<ImageMetadata> probe_exr_file(const std::string& path, std::uint64_t file_size) {
  try {
    Imf::StdIFStream stream(path.c_str());
    auto headers = read_exr_headers(path, stream, file_size, ReadLimits{});
    if (!headers.ok()) return headers.status();
    return exr_metadata(*headers);
  } catch (...) {
    return exr_exception_status(path);
  }
}

}  // namespace tonekit::io
