// The map + 4:2:0 encode kernel and launch_map's dispatch to the per-format map kernels
// (map_kernel.cuh, map_kernel_<format>.cu).
#include "cuda/map_kernel.cuh"

namespace tonekit::cuda {
namespace {

// The map and the 4:2:0 encode in one pass (global operators with a yuv420p / NV12 output): a
// thread per 2x2 block of the decoded frame (scene-linear float RGB) maps each of its pixels as
// map_group maps a float RGB output (the default path's ratio when saturation is 1, else the
// general one; clamp01), then runs the encode stage's maths (video_stages.cu: core::
// display_pixel_ycbcr, luma_code8, the block's block_mean and chroma_codes8). The display frame
// (12 bytes a pixel) is neither written nor read back, and one launch goes.
// The block's loads, codes and stores: encode420_block (cuda/encode420.cuh), shared with the encode
// stage.
template <class Curve>
__device__ __forceinline__ void map_encode_pixel(const Curve& curve, const ReinhardFold& cf, bool unit_saturation,
                                                 const MapColour& colour, const Encode420& enc, const float (&in)[3],
                                                 float& luma, float& cb, float& cr) {
  const float rgb[3] = {sanitise_value(in[0]), sanitise_value(in[1]), sanitise_value(in[2])};
  const float lw = core::luminance_fma(rgb[0], rgb[1], rgb[2]);
  float o[3];
  if constexpr (core::HasColourMode<Curve>::value) {
    if (curve.mode != core::kModeLuminance) {  // core/colour_modes.hpp, as map_by_mode
      const float3 d = display_rgb_by_mode(curve, colour.saturation, rgb[0], rgb[1], rgb[2]);
      o[0] = core::clamp01(d.x) + 0.0f, o[1] = core::clamp01(d.y) + 0.0f, o[2] = core::clamp01(d.z) + 0.0f;
      core::display_pixel_ycbcr(o[0], o[1], o[2], enc.gamma, enc.oetf_table, luma, cb, cr);
      return;
    }
  }
  if (unit_saturation) {
    const float k = ratio_default<kIsReinhard<Curve>>(curve, cf, lw);
#pragma unroll
    for (int i = 0; i < 3; ++i) o[i] = core::clamp01(rgb[i] * k) + 0.0f;
  } else {
    const float ld = curve(lw);
    const float inv = lw >= kMinLuminance ? __frcp_rn(lw) : 0.0f;
#pragma unroll
    for (int i = 0; i < 3; ++i) o[i] = core::clamp01(ld * powf(rgb[i] * inv, colour.saturation)) + 0.0f;
  }
  core::display_pixel_ycbcr(o[0], o[1], o[2], enc.gamma, enc.oetf_table, luma, cb, cr);
}

template <class Curve>
__global__ void __launch_bounds__(kMapThreads) map_encode420_kernel(FrameGeometry g, std::uint8_t* out,
                                                                    const DeviceFrame* frame, MapColour colour,
                                                                    Encode420 enc) {
  __shared__ core::PreparedCurve<float> frame_curve;
  if (threadIdx.x == 0) frame_curve = core::cast_curve<float>(frame->curve);
  __syncthreads();
  const int width = g.width, height = g.height;
  const int bx = blockIdx.x * blockDim.x + threadIdx.x, by = blockIdx.y;
  if (bx >= (width + 1) / 2 || by >= (height + 1) / 2) return;
  const bool unit_saturation = colour.saturation == 1.0f;
  // A block row's pair: both pixels present, the row 8-byte aligned (the pair's offset 24 bx is).
  const bool load_pairs = 2 * bx + 1 < width && ((reinterpret_cast<std::uintptr_t>(g.in) | g.in_stride) & 7u) == 0;
  const Curve curve = frame_curve.constants.get<Curve>();
  const ReinhardFold fold = reinhard_fold(curve);
  encode420_block(
      bx, by, width, height, enc.layout, enc.dither, load_pairs,
      [&](int y) { return reinterpret_cast<const float*>(g.in + static_cast<std::size_t>(y) * g.in_stride) + 6 * bx; },
      [&](const float (&px)[3], float& luma, float& cb, float& cr) {
        map_encode_pixel(curve, fold, unit_saturation, colour, enc, px, luma, cb, cr);
      },
      out);
}

}  // namespace

Status launch_map_encode420(const FrameGeometry& g, std::uint8_t* out, const DeviceFrame* frame, const MapColour& colour,
                            const Encode420& enc, cudaStream_t s) {
  if (!enc.oetf_table) return invalid_argument("map + encode: no OETF table");
  const int cw = (g.width + 1) / 2, ch = (g.height + 1) / 2;
  const dim3 grid((cw + kMapThreads - 1) / kMapThreads, static_cast<unsigned>(ch));
  const bool known = core::visit_operator<core::GlobalOperators>(colour.curve, [&](auto op) {
    map_encode420_kernel<typename decltype(op)::template Curve<float>><<<grid, kMapThreads, 0, s>>>(g, out, frame, colour, enc);
  });
  if (!known) return invalid_argument("map + encode: no global operator's curve (MapColour::curve " + std::to_string(colour.curve) + ")");
  TK_CUDA_CHECK_LAUNCH("map_encode420_kernel");
  return {};
}

Status launch_map(InputFormat in, OutputFormat out, const FrameGeometry& g, void* device_out, std::size_t out_stride,
                  const DeviceFrame* frame, const MapColour& colour, bool reverse, bool programmatic, cudaStream_t s) {
  switch (in) {
    case InputFormat::rgb_f32: return launch_map_rgb_f32(out, g, device_out, out_stride, frame, colour, reverse, programmatic, s);
    case InputFormat::rgba_f32: return launch_map_rgba_f32(out, g, device_out, out_stride, frame, colour, reverse, programmatic, s);
    case InputFormat::rgba_f16: return launch_map_rgba_f16(out, g, device_out, out_stride, frame, colour, reverse, programmatic, s);
    default: break;  // planar and YUV layouts: not yet on the device
  }
  return invalid_argument("unknown input format");
}

}  // namespace tonekit::cuda
