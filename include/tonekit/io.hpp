// Image I/O: the only code that touches files. Readers return float RGB/RGBA; writers pick
// the format from the extension and write atomically (temporary file, then rename), so a
// failed write leaves no output file.
#pragma once
#include <span>
#include <string>
#include <string_view>

#include "tonekit/image.hpp"
#include "tonekit/status.hpp"

namespace tonekit::io {

// Reads OpenEXR (.exr), Radiance RGBE (.hdr, .pic), PFM (.pfm), picking the reader from
// the file's magic bytes (not the extension).
Result<Image> read_image(const std::string& path);

// Reads only enough to describe the file (dimensions, channels, compression). Used by info.
Result<ImageMetadata> probe_image(const std::string& path);
// A half RGB(A) OpenEXR file (the usual render output) kept half: RGBA half pixels (an absent
// alpha reads as 1), never widened to float, so the mapping reads 8 bytes a pixel instead of 12
// and the CUDA backend uploads two thirds of the bytes. `file_channels` is the file's: 3 without alpha, 4 with. Files with float or uint
// colour channels, grey or luminance/chroma EXRs, and other formats: StatusCode::unsupported
// (read_image reads them); damaged files fail as read_image's do.
struct HalfImage {
  OutputImage pixels;  // PixelType::f16, 4 channels
  int file_channels = 3;
};
Result<HalfImage> read_half_rgba(const std::string& path);
// The same into `into`, reusing its buffer when it has the room (a batch's decoders: no fresh
// 66 MB zero-filled for each 4K image). On failure `into` holds no image.
Status read_half_rgba(const std::string& path, HalfImage& into);

// Reads a PNG display image as stored: 8- or 16-bit code values (no gamma applied), RGB or
// RGBA (grey and palette expanded). Tone-mapped outputs read back for the quality metrics.
Result<OutputImage> read_png(const std::string& path);

// HDR writers: float input image (3 or 4 channels).
Status write_exr(const std::string& path, const Image& image, bool half = true);
Status write_hdr(const std::string& path, const Image& image);
Status write_pfm(const std::string& path, const Image& image);

// Display writers: u8 or u16 image (PNG 8/16 bit; JPEG 8 bit only). `level` is zlib's
// 0 (stored) .. 9 (smallest); the default is the fastest that still compresses (README table).
constexpr int kDefaultPngLevel = 1;
Status write_png(const std::string& path, const OutputImage& image, int level = kDefaultPngLevel);
Status write_jpeg(const std::string& path, const OutputImage& image, int quality = 92);
// The PNG bytes write_png would write, in memory (the studio serves them).
Result<std::string> encode_png(const OutputImage& image);

// Which kind of output an extension asks for.
enum class OutputKind { png, jpeg, exr, hdr, pfm, unknown };
OutputKind output_kind_for(const std::string& path);

// Writes `content` (already produced) through a temp file + rename in the target folder.
Status write_file_atomically(const std::string& path, const std::string& content);
// The same for content in pieces, written one after the other (no joined copy).
Status write_file_atomically(const std::string& path, std::span<const std::string_view> pieces);

}  // namespace tonekit::io
