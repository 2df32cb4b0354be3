// Frame layouts and video colour shared by the device pipeline (ToneMapper), the CPU reference,
// `tonekit stream` and the studio. One definition of every layout, transfer,
// primaries, matrix and range; the curve constants (BT.2100) live in src/core/video_colour.hpp,
// used by both backends.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "tonekit/status.hpp"

namespace tonekit {

// How the input frame's samples are laid out in memory.
//   rgb_f32, rgba_f32, rgba_f16: interleaved float / half (renderers, EXR readers).
//   rgb48:     interleaved 16-bit RGB, little-endian, code / 65535 is the signal in [0, 1].
//   gbrpf32:   three float planes in ffmpeg's order: plane 0 = G, 1 = B, 2 = R.
//   p010:      plane 0 = Y (16-bit, 10 bits in the high bits), plane 1 = interleaved Cb,Cr
//              (ceil(w/2) x ceil(h/2) pairs), 4:2:0.
//   yuv420p10: planes Y, Cb, Cr (16-bit little-endian, 10 bits in the low bits), 4:2:0; the
//              chroma planes are ceil(w/2) x ceil(h/2).
// 4:2:0 chroma siting on input: top-left co-sited, as BT.2020/BT.2100 specify (chroma sample
// (i, j) sits on luma (2i, 2j)); upsampled bilinearly between the co-sited samples, edge clamped.
// Odd widths and heights are handled (the last chroma column/row covers one luma sample).
enum class InputFormat : std::uint8_t { rgb_f32, rgba_f32, rgba_f16, rgb48, gbrpf32, p010, yuv420p10 };
const char* input_format_name(InputFormat f);
Result<InputFormat> parse_input_format(std::string_view name);
bool is_yuv(InputFormat f);     // p010, yuv420p10
bool is_planar(InputFormat f);  // gbrpf32, p010, yuv420p10
int plane_count(InputFormat f); // 1, 2 (p010) or 3
// Bytes per pixel of an interleaved format (0 for planar ones).
std::size_t input_pixel_bytes(InputFormat f);

// Signal -> scene light.
//   linear: samples are scene-referred linear light already (today's default).
//   pq:     SMPTE ST 2084 / BT.2100 PQ, absolute: signal 1.0 = 10000 cd/m^2.
//   hlg:    BT.2100 HLG: inverse OETF, then the OOTF for `hlg_peak` (gamma 1.2 + 0.42 log10(peak/1000)),
//           giving display light in cd/m^2.
// PQ and HLG light is divided by `reference_white` (BT.2408: 203 cd/m^2 is diffuse white) so
// that the operators see scene values where 1.0 is diffuse white, as for linear inputs.
enum class Transfer : std::uint8_t { linear, pq, hlg };
enum class Primaries : std::uint8_t { bt709, bt2020 };
// Y'CbCr matrix of YUV inputs: BT.2020 non-constant luminance or BT.709.
enum class YuvMatrix : std::uint8_t { bt2020_ncl, bt709 };
// limited: Y' 64..940, C 64..960 at 10 bits (16..235 / 16..240 at 8); full: 0..1023 (0..255).
enum class YuvRange : std::uint8_t { limited, full };

const char* transfer_name(Transfer t);
const char* primaries_name(Primaries p);
const char* yuv_matrix_name(YuvMatrix m);
const char* yuv_range_name(YuvRange r);
Result<Transfer> parse_transfer(std::string_view name);
Result<Primaries> parse_primaries(std::string_view name);
Result<YuvMatrix> parse_yuv_matrix(std::string_view name);
Result<YuvRange> parse_yuv_range(std::string_view name);

// Gamut mapping of BT.2020 inputs onto BT.709 (src/core/gamut.hpp has the definitions):
//   clip:        the policy below: only colours outside BT.709 move, each just onto its boundary.
//   desaturate:  towards the pixel's luminance (kept), softly: saturated colours near and beyond
//                the boundary are compressed into it, so they keep their differences.
//   perceptual:  chroma compressed softly in ICtCp at constant intensity and hue, relative to
//                BT.709's boundary at that intensity and hue.
enum class GamutMapping : std::uint8_t { clip, desaturate, perceptual };
const char* gamut_mapping_name(GamutMapping g);
Result<GamutMapping> parse_gamut_mapping(std::string_view name);

// The input's colour: how to get scene-linear BT.709 RGB from its samples.
// Gamut policy for BT.2020 inputs (`gamut`, clip by default): the 2020 -> 709 matrix is applied in
// linear light; with clip, a channel that comes out negative (a colour outside BT.709) is handled
// by desaturating the pixel toward its own luminance just enough that its smallest channel is 0
// (luminance and hue kept). No mapping lets a negative channel reach the curve.
struct InputColour {
  Transfer transfer = Transfer::linear;
  Primaries primaries = Primaries::bt709;
  YuvMatrix matrix = YuvMatrix::bt2020_ncl;  // YUV layouts only
  YuvRange range = YuvRange::limited;        // YUV layouts only
  double reference_white = 203.0;            // cd/m^2 that becomes 1.0 (pq, hlg)
  double hlg_peak = 1000.0;                  // nominal peak luminance of the HLG OOTF, cd/m^2
  GamutMapping gamut = GamutMapping::clip;   // BT.2020 -> BT.709 (bt2020 primaries only)
};
// Ranges checked at the boundary: reference_white in [1, 10000], hlg_peak in [100, 10000].
Status validate(const InputColour& c);

// One input frame in memory (host or device): up to three planes, each with its row stride in
// bytes (0 = packed for that plane's width).
struct FramePlanes {
  const void* data[3] = {nullptr, nullptr, nullptr};
  std::size_t stride[3] = {0, 0, 0};
};
// Bytes of one packed frame of `f` at width x height (all planes), and each plane's packed
// row bytes and rows.
std::size_t frame_bytes(InputFormat f, int width, int height);
std::size_t plane_row_bytes(InputFormat f, int plane, int width);
int plane_rows(InputFormat f, int plane, int height);
// Planes of a packed frame starting at `base` (planes one after another, as ffmpeg's rawvideo).
FramePlanes packed_planes(InputFormat f, const void* base, int width, int height);

// Output layouts beyond interleaved RGB(A): 8-bit Y'CbCr 4:2:0 for encoders, BT.709 matrix,
// limited range, the BT.709 OETF (unless the `gamma` parameter is non-zero). Chroma is the mean
// of each 2x2 block's Cb and Cr (centre-sited); odd sizes: the last column/row averages what it
// has. yuv420p: planes Y, Cb, Cr; nv12: Y, then interleaved Cb,Cr.
enum class OutputLayout : std::uint8_t { interleaved, yuv420p, nv12 };
const char* output_layout_name(OutputLayout l);
std::size_t output_frame_bytes(OutputLayout l, int width, int height, int channels, std::size_t bytes_per_channel);

}  // namespace tonekit
