// Writes small valid files into DIR/exr, DIR/rgbe and DIR/pfm as the fuzzers' seed corpus: one
// per OpenEXR compression and layout (tiled, mip-mapped, luminance/chroma, multi-part, float and
// uint channels, offset data window), Radiance flat/RLE/old-RLE/EXPOSURE, PFM colour/grey/big-endian.
// Usage: make_fuzz_seeds DIR
#include <OpenEXR/ImfChannelList.h>
#include <OpenEXR/ImfFrameBuffer.h>
#include <OpenEXR/ImfHeader.h>
#include <OpenEXR/ImfMultiPartOutputFile.h>
#include <OpenEXR/ImfOutputFile.h>
#include <OpenEXR/ImfOutputPart.h>
#include <OpenEXR/ImfPartType.h>
#include <OpenEXR/ImfRgbaFile.h>
#include <OpenEXR/ImfTiledOutputFile.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "tonekit/io.hpp"

namespace fs = std::filesystem;

namespace {

constexpr int kWidth = 16;
constexpr int kHeight = 8;

std::vector<float> ramp(int width, int height, int channels) {
  std::vector<float> values(static_cast<std::size_t>(width) * height * channels);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = std::ldexp(1.0f + static_cast<float>(i % 13) / 13, static_cast<int>(i % 9) - 4);
  return values;
}

// B, G, R float slices over `values` (3 interleaved channels) for `window`.
Imf::FrameBuffer rgb_frame_buffer(std::vector<float>& values, const Imath::Box2i& window) {
  Imf::FrameBuffer frame_buffer;
  const int width = window.max.x - window.min.x + 1;
  const char* names[] = {"R", "G", "B"};
  for (int c = 0; c < 3; ++c)
    frame_buffer.insert(names[c], Imf::Slice::Make(Imf::FLOAT, values.data() + c, window, 12, 12 * static_cast<std::size_t>(width)));
  return frame_buffer;
}

void write_scanline(const fs::path& path, Imf::Compression compression, Imf::PixelType type,
                    const Imath::Box2i& data_window = Imath::Box2i({0, 0}, {kWidth - 1, kHeight - 1})) {
  Imf::Header header(Imath::Box2i({0, 0}, {kWidth - 1, kHeight - 1}), data_window);
  header.compression() = compression;
  for (const char* name : {"R", "G", "B"}) header.channels().insert(name, Imf::Channel(type));
  if (type == Imf::UINT) {
    // Uint channels need uint slices.
    const int width = data_window.max.x - data_window.min.x + 1, height = data_window.max.y - data_window.min.y + 1;
    std::vector<unsigned> values(static_cast<std::size_t>(width) * height * 3, 7);
    Imf::FrameBuffer frame_buffer;
    const char* names[] = {"R", "G", "B"};
    for (int c = 0; c < 3; ++c)
      frame_buffer.insert(names[c], Imf::Slice::Make(Imf::UINT, values.data() + c, data_window, 12, 12 * static_cast<std::size_t>(width)));
    Imf::OutputFile file(path.c_str(), header);
    file.setFrameBuffer(frame_buffer);
    file.writePixels(height);
    return;
  }
  const int width = data_window.max.x - data_window.min.x + 1, height = data_window.max.y - data_window.min.y + 1;
  std::vector<float> values = ramp(width, height, 3);
  std::vector<half> halves(values.begin(), values.end());
  Imf::FrameBuffer frame_buffer;
  const char* names[] = {"R", "G", "B"};
  for (int c = 0; c < 3; ++c) {
    if (type == Imf::HALF)
      frame_buffer.insert(names[c], Imf::Slice::Make(Imf::HALF, halves.data() + c, data_window, 6, 6 * static_cast<std::size_t>(width)));
    else
      frame_buffer.insert(names[c], Imf::Slice::Make(Imf::FLOAT, values.data() + c, data_window, 12, 12 * static_cast<std::size_t>(width)));
  }
  Imf::OutputFile file(path.c_str(), header);
  file.setFrameBuffer(frame_buffer);
  file.writePixels(height);
}

void write_tiled(const fs::path& path, Imf::LevelMode mode) {
  Imf::Header header(kWidth, kHeight);
  header.setTileDescription(Imf::TileDescription(8, 4, mode));
  for (const char* name : {"R", "G", "B"}) header.channels().insert(name, Imf::Channel(Imf::FLOAT));
  Imf::TiledOutputFile file(path.c_str(), header);
  for (int ly = 0; ly < file.numYLevels(); ++ly)
    for (int lx = 0; lx < file.numXLevels(); ++lx) {
      if (mode == Imf::MIPMAP_LEVELS && lx != ly) continue;
      const Imath::Box2i window = file.dataWindowForLevel(lx, ly);
      std::vector<float> values = ramp(window.max.x - window.min.x + 1, window.max.y - window.min.y + 1, 3);
      file.setFrameBuffer(rgb_frame_buffer(values, window));
      file.writeTiles(0, file.numXTiles(lx) - 1, 0, file.numYTiles(ly) - 1, lx, ly);
    }
}

void write_luminance_chroma(const fs::path& path, Imf::RgbaChannels channels) {
  std::vector<Imf::Rgba> pixels(kWidth * kHeight, Imf::Rgba(0.6f, 0.3f, 0.1f, 0.5f));
  Imf::RgbaOutputFile file(path.c_str(), kWidth, kHeight, channels, 1, Imath::V2f(0, 0), 1, Imf::INCREASING_Y,
                           Imf::PIZ_COMPRESSION);
  file.setFrameBuffer(pixels.data(), 1, kWidth);
  file.writePixels(kHeight);
}

void write_multipart(const fs::path& path) {
  std::vector<Imf::Header> headers(2, Imf::Header(kWidth, kHeight));
  for (int part = 0; part < 2; ++part) {
    headers[part].setName(part == 0 ? "beauty" : "copy");
    headers[part].setType(Imf::SCANLINEIMAGE);
    for (const char* name : {"R", "G", "B"}) headers[part].channels().insert(name, Imf::Channel(Imf::FLOAT));
  }
  Imf::MultiPartOutputFile file(path.c_str(), headers.data(), 2);
  std::vector<float> values = ramp(kWidth, kHeight, 3);
  for (int part = 0; part < 2; ++part) {
    Imf::OutputPart output(file, part);
    output.setFrameBuffer(rgb_frame_buffer(values, headers[part].dataWindow()));
    output.writePixels(kHeight);
  }
}

void write_bytes(const fs::path& path, const std::string& bytes) { std::ofstream(path, std::ios::binary) << bytes; }

tonekit::Image test_image(int width, int height, int channels) {
  tonekit::Image image(width, height, channels);
  image.pixels = ramp(width, height, channels);
  return image;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s DIR\n", argv[0]);
    return 2;
  }
  const fs::path root = argv[1];
  for (const char* sub : {"exr", "rgbe", "pfm"}) fs::create_directories(root / sub);
  try {
    const struct {
      Imf::Compression compression;
      const char* name;
    } compressions[] = {{Imf::NO_COMPRESSION, "none"}, {Imf::RLE_COMPRESSION, "rle"},     {Imf::ZIPS_COMPRESSION, "zips"},
                        {Imf::ZIP_COMPRESSION, "zip"},  {Imf::PIZ_COMPRESSION, "piz"},     {Imf::PXR24_COMPRESSION, "pxr24"},
                        {Imf::B44_COMPRESSION, "b44"},  {Imf::B44A_COMPRESSION, "b44a"},   {Imf::DWAA_COMPRESSION, "dwaa"},
                        {Imf::DWAB_COMPRESSION, "dwab"}};
    for (const auto& c : compressions) write_scanline(root / "exr" / (std::string(c.name) + ".exr"), c.compression, Imf::HALF);
    write_scanline(root / "exr" / "float_zip.exr", Imf::ZIP_COMPRESSION, Imf::FLOAT);
    write_scanline(root / "exr" / "uint_none.exr", Imf::NO_COMPRESSION, Imf::UINT);
    write_scanline(root / "exr" / "window.exr", Imf::NO_COMPRESSION, Imf::HALF, Imath::Box2i({-2, 3}, {9, 6}));
    write_tiled(root / "exr" / "tiled.exr", Imf::ONE_LEVEL);
    write_tiled(root / "exr" / "mipmap.exr", Imf::MIPMAP_LEVELS);
    write_tiled(root / "exr" / "ripmap.exr", Imf::RIPMAP_LEVELS);
    write_luminance_chroma(root / "exr" / "yca.exr", Imf::WRITE_YCA);
    write_luminance_chroma(root / "exr" / "y.exr", Imf::WRITE_Y);
    write_multipart(root / "exr" / "multipart.exr");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "make_fuzz_seeds: OpenEXR: %s\n", e.what());
    return 1;
  }

  namespace io = tonekit::io;
  bool ok = io::write_hdr((root / "rgbe" / "rle.hdr").string(), test_image(kWidth, kHeight, 3)).ok() &&
            io::write_hdr((root / "rgbe" / "flat.hdr").string(), test_image(5, 3, 3)).ok() &&
            io::write_pfm((root / "pfm" / "rgb.pfm").string(), test_image(kWidth, kHeight, 3)).ok() &&
            io::write_pfm((root / "pfm" / "grey.pfm").string(), test_image(5, 3, 1)).ok();
  write_bytes(root / "rgbe" / "old_rle_exposure.hdr",
              std::string("#?RGBE\nEXPOSURE=0.5\n\n-Y 2 +X 20\n") + std::string("\x80\x40\x20\x81\x01\x01\x01\x13", 8) +
                  std::string("\x10\x20\x30\x82\x01\x01\x01\x13", 8));
  write_bytes(root / "pfm" / "big_endian.pfm", std::string("PF\n1 1\n1.0\n") + std::string("\x3f\xc0\x00\x00\x40\x00\x00\x00\x00\x00\x00\x00", 12));
  if (!ok) {
    std::fprintf(stderr, "make_fuzz_seeds: a tonekit writer failed\n");
    return 1;
  }
  return 0;
}
