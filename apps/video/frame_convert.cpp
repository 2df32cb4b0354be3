#include "video/frame_convert.hpp"

extern "C" {
#include <libavutil/imgutils.h>
#include <libavutil/pixdesc.h>
}

#include <cmath>
#include <cstring>

namespace tonekit::video {
namespace {

struct NamedTransfer {
  const char* name;
  SourceTransfer transfer;
};
constexpr NamedTransfer kTransfers[] = {
    {"pq", SourceTransfer::pq},         {"hlg", SourceTransfer::hlg},         {"linear", SourceTransfer::linear},
    {"bt1886", SourceTransfer::bt1886}, {"bt709", SourceTransfer::bt1886},   {"srgb", SourceTransfer::srgb},
    {"gamma22", SourceTransfer::gamma22}, {"gamma28", SourceTransfer::gamma28},
};

// The SDR display EOTFs: BT.1886 with a zero black level (L = V^2.4), IEC 61966-2-1's sRGB, and
// the plain gammas FFmpeg names.
double sdr_eotf(SourceTransfer t, double v) {
  switch (t) {
    case SourceTransfer::bt1886: return std::pow(v, 2.4);
    case SourceTransfer::srgb: return v <= 0.04045 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4);
    case SourceTransfer::gamma22: return std::pow(v, 2.2);
    case SourceTransfer::gamma28: return std::pow(v, 2.8);
    default: return v;
  }
}

int sws_colorspace(AVColorSpace space, YuvMatrix fallback) {
  switch (space) {
    case AVCOL_SPC_BT709: return SWS_CS_ITU709;
    case AVCOL_SPC_BT2020_NCL:
    case AVCOL_SPC_BT2020_CL: return SWS_CS_BT2020;
    case AVCOL_SPC_SMPTE170M:
    case AVCOL_SPC_BT470BG: return SWS_CS_ITU601;
    case AVCOL_SPC_FCC: return SWS_CS_FCC;
    case AVCOL_SPC_SMPTE240M: return SWS_CS_SMPTE240M;
    default: return fallback == YuvMatrix::bt709 ? SWS_CS_ITU709 : SWS_CS_BT2020;
  }
}

}  // namespace

const char* source_transfer_name(SourceTransfer t) {
  for (const NamedTransfer& n : kTransfers)
    if (n.transfer == t) return n.name;
  return "?";
}

Result<SourceTransfer> parse_source_transfer(std::string_view name) {
  std::string known;
  for (const NamedTransfer& n : kTransfers) {
    if (name == n.name) return n.transfer;
    known += (known.empty() ? "" : ", ") + std::string(n.name);
  }
  return invalid_argument("--input-transfer: unknown transfer '" + std::string(name) + "' (known: " + known + ")");
}

SourceTransfer source_transfer_from(AVColorTransferCharacteristic trc, int bit_depth) {
  switch (trc) {
    case AVCOL_TRC_SMPTE2084: return SourceTransfer::pq;
    case AVCOL_TRC_ARIB_STD_B67: return SourceTransfer::hlg;
    case AVCOL_TRC_LINEAR: return SourceTransfer::linear;
    case AVCOL_TRC_IEC61966_2_1: return SourceTransfer::srgb;
    case AVCOL_TRC_GAMMA22: return SourceTransfer::gamma22;
    case AVCOL_TRC_GAMMA28: return SourceTransfer::gamma28;
    case AVCOL_TRC_UNSPECIFIED: return bit_depth >= 10 ? SourceTransfer::pq : SourceTransfer::bt1886;
    default: return SourceTransfer::bt1886;  // bt709, smpte170m, bt2020-10/12 and the rest: BT.1886 displays
  }
}

bool is_hdr(SourceTransfer t) { return t == SourceTransfer::pq || t == SourceTransfer::hlg; }

FrameConverter::FrameConverter(AVPixelFormat pix_fmt, int width, int height, SourceTransfer transfer,
                               const InputColour& colour, AVColorSpace space)
    : pix_fmt_(pix_fmt), width_(width), height_(height) {
  const bool tonekit_decodes = transfer == SourceTransfer::pq || transfer == SourceTransfer::hlg ||
                               transfer == SourceTransfer::linear;
  if (tonekit_decodes && pix_fmt == AV_PIX_FMT_P010LE) {
    format_ = InputFormat::p010;
    direct_ = true;
    return;
  }
  if (tonekit_decodes && pix_fmt == AV_PIX_FMT_YUV420P10LE) {
    format_ = InputFormat::yuv420p10;
    direct_ = true;
    return;
  }
  sws_.reset(sws_getContext(width, height, pix_fmt, width, height, AV_PIX_FMT_RGB48LE, SWS_BILINEAR | SWS_ACCURATE_RND,
                            nullptr, nullptr, nullptr));
  if (sws_) {
    // The matrix and range the mapper would have used; RGB out is full range by definition.
    const int* coefficients = sws_getCoefficients(sws_colorspace(space, colour.matrix));
    sws_setColorspaceDetails(sws_.get(), coefficients, colour.range == YuvRange::full ? 1 : 0, coefficients, 1, 0,
                             1 << 16, 1 << 16);
  }
  if (tonekit_decodes) {
    format_ = InputFormat::rgb48;
    return;
  }
  format_ = InputFormat::rgb_f32;
  linearise_ = true;
  eotf_.resize(65536);
  const double scale = 100.0 / colour.reference_white;
  for (int i = 0; i < 65536; ++i) eotf_[i] = static_cast<float>(sdr_eotf(transfer, i / 65535.0) * scale);
}

Status FrameConverter::convert(const AVFrame& frame, stream::Frame& out) {
  if (frame.width != width_ || frame.height != height_ || frame.format != pix_fmt_)
    return unsupported("the video changes size or pixel format mid-stream (" + std::to_string(frame.width) + "x" +
                       std::to_string(frame.height) + " " +
                       av_get_pix_fmt_name(static_cast<AVPixelFormat>(frame.format)) + "): not supported");
  out.view = nullptr;
  out.bytes.resize(frame_bytes(format_, width_, height_));
  if (direct_) {
    const int n = av_image_copy_to_buffer(out.bytes.data(), static_cast<int>(out.bytes.size()), frame.data,
                                          frame.linesize, pix_fmt_, width_, height_, 1);
    return n < 0 ? av_status(StatusCode::runtime_error, "copying a decoded frame", n) : Status{};
  }
  if (!sws_)
    return unsupported(std::string("libswscale cannot convert ") + av_get_pix_fmt_name(pix_fmt_) + " to 16-bit RGB");
  std::uint8_t* rgb = linearise_ ? (rgb48_.resize(std::size_t(width_) * height_ * 6), rgb48_.data()) : out.bytes.data();
  std::uint8_t* dst[4] = {rgb, nullptr, nullptr, nullptr};
  int dst_stride[4] = {width_ * 6, 0, 0, 0};
  sws_scale(sws_.get(), frame.data, frame.linesize, 0, height_, dst, dst_stride);
  if (linearise_) {
    const std::size_t samples = std::size_t(width_) * height_ * 3;
    float* f = reinterpret_cast<float*>(out.bytes.data());
    for (std::size_t i = 0; i < samples; ++i) {
      std::uint16_t code;
      std::memcpy(&code, rgb + 2 * i, 2);  // little-endian on every host tonekit builds for
      f[i] = eotf_[code];
    }
  }
  return {};
}

}  // namespace tonekit::video
