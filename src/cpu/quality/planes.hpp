// Planes the metrics read: float64 copies of one channel or of the BT.709 luminance, row-major,
// of the HDR source (linear) and of the display image (code values on the 0..255 scale).
#pragma once
#include <vector>

#include "tonekit/image.hpp"
#include "tonekit/status.hpp"

namespace tonekit::quality::detail {

// HDR values pass the README's bad-pixel policy first (core::sanitise_channel: NaN and negatives
// become 0, +Inf the largest half), as they do for tone mapping, so no metric sees NaN.
double hdr_value(const Image& hdr, std::size_t pixel, int channel);
// Y = 0.2126 R + 0.7152 G + 0.0722 B (BT.709), as TMQI uses for both images.
std::vector<double> hdr_luminance(const Image& hdr);
std::vector<double> ldr_luminance(const OutputImage& ldr);
std::vector<double> hdr_channel(const Image& hdr, int channel);
std::vector<double> ldr_channel(const OutputImage& ldr, int channel);
// check_pair's checks on shapes alone (the CUDA path's device views share them): RGB(A), an 8- or
// 16-bit LDR, equal sizes, at least kMinSide a side.
Status check_pair_shape(int hdr_width, int hdr_height, int hdr_channels, int ldr_width, int ldr_height,
                        int ldr_channels, PixelType ldr_type);
// Code value of channel c of pixel i on the 0..255 scale (16-bit codes / 257).
double ldr_code(const OutputImage& ldr, std::size_t pixel, int channel);
// Raw code value of channel c of pixel i (0..255 or 0..65535).
unsigned ldr_raw_code(const OutputImage& ldr, std::size_t pixel, int channel);
// The display-linear value colour fidelity reads for each code of a u8 or u16 tone-mapped image
// (256 or 65536 entries): core::decode_srgb of the code on the 0..255 scale. Computed here on the
// host for the CPU metric and uploaded as is by the GPU's (colour_gpu.cu), so that both read the
// same bits (CUDA's pow and glibc's differ in the last one).
std::vector<double> shown_linear_table(PixelType type);

}  // namespace tonekit::quality::detail
