// The map pass's kernels, included by the map_kernel_*.cu files (one per input format, so that the
// 13 curves x 8 outputs x default/general instantiations compile in parallel and in a third of
// the memory each) and by map_kernel.cu (the map + 4:2:0 encode kernel and launch_map's dispatch).
// The map pass (stage 4 of docs/architecture.md's data flow), one launch per frame: operator curve -> colour
// reconstruction -> output transfer -> quantise -> store, one group of 4 pixels per thread,
// 16-byte loads and (where the row allows) 16-byte stores. The curve constants come from the
// device-resident DeviceFrame written by the statistics pass, converted to float once per block
// exactly as cpu::curve_chunk converts them, so the maths is the CPU reference's:
// core::luminance_fma (the CPU's contracted luminance), the operator's Curve<float>, the colour ratio
// c / L_w of core::reconstruct_channel (as c * rcp(L_w): within an ulp), core::encode_srgb /
// encode_gamma with v^e as exp2(log2(v) e) on the special-function unit (within 3e-7 relative,
// 1e-4 of an 8-bit step, 0.02 of a 16-bit step), core::quantise with the dither hash of the row
// taken once (core/colour_parts.hpp). docs/performance.md has what each of these saved.
#pragma once
#include <string>
#include <type_traits>

#include "core/colour_parts.hpp"
#include "core/video_colour.hpp"
#include "cuda/check.hpp"
#include "cuda/encode420.cuh"
#include "cuda/encode_fast.cuh"
#include "cuda/pdl.cuh"
#include "cuda/formats.hpp"
#include "cuda/pipeline.hpp"

namespace tonekit::cuda {
namespace {

// Output formats: Code 0 = u8, 1 = u16, 2 = half, 3 = float.
template <int Code, int C>
struct OutFmt {
  static constexpr int code = Code;
  static constexpr int channels = C;
  static constexpr int size = Code == 0 ? 1 : (Code == 3 ? 4 : 2);
};

// The kernels read the frame's curve (core::PreparedCurve, cast to float once per block exactly as
// cpu::curve_chunk casts it once per chunk) from shared memory and branch on its operator once
// per block (core::visit_curve): each operator's Curve<float> is a typed value in registers and
// the pixel loop calls it directly. The reinhard default path folds its constants further
// (ReinhardFold).
template <class Curve>
constexpr bool kIsReinhard = std::is_same_v<Curve, core::ReinhardOperator::Curve<float>>;

// reinhard's default path: the scale folded into the luminance weights, and scale / white^2.
struct ReinhardFold {
  float scale, scale_c, wr, wg, wb;
};
template <class Curve>
__device__ __forceinline__ ReinhardFold reinhard_fold(const Curve& c) {
  if constexpr (kIsReinhard<Curve>)
    return {c.scale, c.scale * c.inv_white_sq, 0.2126f * c.scale, 0.7152f * c.scale, 0.0722f * c.scale};
  else
    return {0.0f, 0.0f, 0.0f, 0.0f, 0.0f};
}

// core::quantise_noise with floor by floor_small.
__device__ __forceinline__ unsigned quantise_fast(float v, unsigned max_code, bool dither, float noise) {
  const float top = static_cast<float>(max_code);
  float scaled = core::clamp01(v) * top;
  const float margin = top * static_cast<float>(core::kDitherEndMargin);
  if (dither && scaled > margin && scaled < top - margin) scaled += noise;
  const int k = floor_small(scaled + 0.5f);
  return static_cast<unsigned>(k < 0 ? 0 : (k > static_cast<int>(max_code) ? static_cast<int>(max_code) : k));
}

// core::encode_transfer<float> with transfer_pow in place of powf.
__device__ __forceinline__ float encode_transfer_fast(float v, const MapColour& col) {
  if (col.gamma == 0.0f) return encode_srgb_fast(v);
  return transfer_pow(core::clamp01(v), col.inv_gamma);
}

template <class O>
__device__ __forceinline__ unsigned encode(float linear, const MapColour& col, std::uint32_t pixel_hash, int c) {
  if constexpr (O::code == 0 || O::code == 1) {
    constexpr unsigned kMax = O::code == 0 ? 255u : 65535u;
    const float noise = col.dither ? dither_noise_fast(pixel_hash, c) : 0.0f;
    return quantise_fast(encode_transfer_fast(linear, col), kMax, col.dither != 0, noise);
  } else if constexpr (O::code == 2) {  // + 0: -0 -> +0, as the CPU's sanitise gives
    return __half_as_ushort(__float2half_rn(core::clamp01(linear) + 0.0f));
  } else {
    return __float_as_uint(core::clamp01(linear) + 0.0f);
  }
}

// Alpha is coverage, not light: linear, never dithered (as the CPU map_row).
template <class O>
__device__ __forceinline__ unsigned encode_alpha(float a) {
  if constexpr (O::code == 0) return alpha8_word(a);  // low byte (store_group packs bytes)
  else if constexpr (O::code == 1) return round_half_up(a * 65535.0f);
  else if constexpr (O::code == 2) return __half_as_ushort(__float2half_rn(a));
  else return __float_as_uint(a);
}

template <class O>
__device__ __forceinline__ void store_scalar(unsigned char* p, unsigned code) {
  if constexpr (O::size == 1) *p = static_cast<unsigned char>(code);
  else if constexpr (O::size == 2) *reinterpret_cast<unsigned short*>(p) = static_cast<unsigned short>(code);
  else *reinterpret_cast<unsigned*>(p) = code;
}

template <class O>
__device__ __forceinline__ void store_group(unsigned char* row, int x, int width, const unsigned (&codes)[kGroup * O::channels]) {
  constexpr int C = O::channels;
  constexpr int kBytes = kGroup * C * O::size;
  constexpr int W = kBytes / 4;
  unsigned char* p = row + static_cast<std::size_t>(x) * C * O::size;
  const std::uintptr_t addr = reinterpret_cast<std::uintptr_t>(p);
  if (x + kGroup <= width) {
    unsigned w[W];
#pragma unroll
    for (int i = 0; i < W; ++i) {
      if constexpr (O::size == 1)  // codes may carry bits above their low byte (srgb8_dither_word)
        w[i] = pack_bytes(codes[4 * i], codes[4 * i + 1], codes[4 * i + 2], codes[4 * i + 3]);
      else if constexpr (O::size == 2)
        w[i] = codes[2 * i] | codes[2 * i + 1] << 16;
      else
        w[i] = codes[i];
    }
    if constexpr (W % 4 == 0) {
      if ((addr & 15u) == 0) {
#pragma unroll
        for (int i = 0; i < W / 4; ++i)
          __stcs(reinterpret_cast<uint4*>(p) + i, make_uint4(w[4 * i], w[4 * i + 1], w[4 * i + 2], w[4 * i + 3]));
        return;
      }
    }
    if constexpr (W % 2 == 0) {
      if ((addr & 7u) == 0) {
#pragma unroll
        for (int i = 0; i < W / 2; ++i) __stcs(reinterpret_cast<uint2*>(p) + i, make_uint2(w[2 * i], w[2 * i + 1]));
        return;
      }
    }
    if ((addr & 3u) == 0) {
#pragma unroll
      for (int i = 0; i < W; ++i) __stcs(reinterpret_cast<unsigned*>(p) + i, w[i]);
      return;
    }
  }
#pragma unroll
  for (int i = 0; i < kGroup; ++i) {
    if (x + i < width) {
#pragma unroll
      for (int c = 0; c < C; ++c) store_scalar<O>(p + (i * C + c) * O::size, codes[i * C + c]);
    }
  }
}

// core::sanitise_channel without the flags (the map pass needs none): NaN and negatives (-Inf
// included) -> 0 through fmaxf (+ 0 turns -0 into +0, as the CPU's bit test does),
// +Inf -> kInfReplacement. 4 instructions instead of 6.
__device__ __forceinline__ float sanitise_value(float v) {
  v = fmaxf(v, 0.0f) + 0.0f;
  return v == INFINITY ? core::kInfReplacement : v;
}

// Half input is sanitised as it is loaded (MapGroupIn); float input keeps finite values
// above 65504 (sanitise_value).
template <class In>
__device__ __forceinline__ float sanitise_input(float v) {
  if constexpr (sizeof(typename In::T) == 2) return v;
  else return sanitise_value(v);
}

// Alpha: sanitise + clamp01 in one (NaN, negatives -> 0, +Inf -> 1); half alpha arrives clamped.
template <class In>
__device__ __forceinline__ float clean_alpha(float a) {
  if constexpr (sizeof(typename In::T) == 2) return a;
  else return fminf(fmaxf(a, 0.0f), 1.0f);
}

// One group's input as the map kernel holds it from its load (before the wait for the
// statistics) to its mapping: half input stays packed, 8 registers for 4 RGBA pixels instead of
// 16 floats (v14: more warps per SM), and is sanitised while packed (v11): a half is at most
// 65504 or +Inf, so the policy (NaN, negatives -> 0, +Inf -> 65504) is one clamp, and with
// alpha's [0, 1] clamp that is two half2 min/max per pair of channels (__hmax2 returns the other
// operand for a NaN) instead of two float min/max per channel. Float input stays as loaded and is
// sanitised in map_group.
template <class In, bool kHalf = sizeof(typename In::T) == 2>
struct MapGroupIn {
  float v[kGroup * In::channels];
  __device__ __forceinline__ void load(const unsigned char* row, int x, int width) { load_group<In>(row, x, width, v); }
  __device__ __forceinline__ void decode(float (&out)[kGroup * In::channels]) const {
#pragma unroll
    for (int i = 0; i < kGroup * In::channels; ++i) out[i] = v[i];
  }
};

template <class In>
struct MapGroupIn<In, true> {
  static_assert(In::channels == 4, "half input is RGBA");
  RawGroup<In> raw;
  __device__ __forceinline__ void load(const unsigned char* row, int x, int width) {
    if (!load_raw<In>(row, x, width, raw)) {  // ragged or unaligned: sample by sample, 0 past the row end
      const __half* q = reinterpret_cast<const __half*>(row + static_cast<std::size_t>(x) * In::bytes);
      unsigned w[kGroup * 2];
#pragma unroll
      for (int i = 0; i < kGroup; ++i) {
        unsigned short s[4];
#pragma unroll
        for (int c = 0; c < 4; ++c) s[c] = x + i < width ? __half_as_ushort(q[i * 4 + c]) : 0;
        w[2 * i] = s[0] | static_cast<unsigned>(s[1]) << 16;
        w[2 * i + 1] = s[2] | static_cast<unsigned>(s[3]) << 16;
      }
#pragma unroll
      for (int k = 0; k < kGroup / 2; ++k) raw.w[k] = make_uint4(w[4 * k], w[4 * k + 1], w[4 * k + 2], w[4 * k + 3]);
    }
    const __half2 top_rg = half2_top_rgb(), top_ba = half2_top_ba();
#pragma unroll
    for (int k = 0; k < kGroup / 2; ++k) {
      raw.w[k].x = clamp_half2(raw.w[k].x, top_rg);
      raw.w[k].y = clamp_half2(raw.w[k].y, top_ba);
      raw.w[k].z = clamp_half2(raw.w[k].z, top_rg);
      raw.w[k].w = clamp_half2(raw.w[k].w, top_ba);
    }
  }
  __device__ __forceinline__ void decode(float (&out)[kGroup * In::channels]) const { decode_raw<In>(raw, out); }
};

// The colour ratio L_d / L_w of the default path, once per pixel. For reinhard (kReinhard: the
// curve is chosen once per thread, v12) it is the curve divided out, scale * (1 + l / white^2) /
// (1 + l) with l = scale * L_w (v11: one reciprocal on the SFU instead of the curve's division
// and rcp(L_w); within a few ulp of the CPU's c / L_w * L_d; black stays black since c = 0
// there). Otherwise L_d * rcp(L_w), black -> 0.
template <bool kReinhard, class Curve>
__device__ __forceinline__ float ratio_default(const Curve& curve, const ReinhardFold& f, float lw) {
  if constexpr (kReinhard) {
    const float l = lw * f.scale;
    return fmaf(l, f.scale_c, f.scale) * rcp_approx(1.0f + l);
  } else {
    const float ld = curve(lw);
    return lw >= kMinLuminance ? ld * rcp_approx(lw) : 0.0f;
  }
}

// The curves with a colour mode other than luminance (core/colour_modes.hpp): the CPU's
// cpu::map_colour_chunk maths, core::map_colour_mode, then the general path's encode. Whether the
// pixel was mapped here (false: luminance mode, the paths below).
// The mode's maths is a call, one body per curve rather than one inlined copy per output
// format and path (it evaluates the curve up to four times: inlined, those copies were most of
// this file's compile time and of the binary).
template <class Curve>
__device__ __noinline__ float3 display_rgb_by_mode(const Curve curve, float saturation, float r, float g, float b) {
  core::map_colour_mode(curve, curve.mode, r, g, b, core::luminance_fma(r, g, b), saturation);
  return make_float3(r, g, b);
}

template <class O, class Curve>
__device__ __forceinline__ bool map_by_mode(const Curve& curve, const MapColour& colour, std::uint32_t h, float r,
                                            float g, float b, unsigned* codes) {
  if constexpr (core::HasColourMode<Curve>::value) {
    if (curve.mode == core::kModeLuminance) return false;
    const float3 d = display_rgb_by_mode(curve, colour.saturation, r, g, b);
    codes[0] = encode<O>(d.x, colour, h, 0);
    codes[1] = encode<O>(d.y, colour, h, 1);
    codes[2] = encode<O>(d.z, colour, h, 2);
    return true;
  } else {
    return false;
  }
}

template <class In, class O, bool kDefault, bool kReinhard, class Curve>
__device__ __forceinline__ void map_group(const MapGroupIn<In>& in, const FrameGeometry& g,
                                          unsigned char* out, std::size_t out_stride, const Curve& curve,
                                          const ReinhardFold& cf, const MapColour& colour, std::uint32_t seed, int x,
                                          int y) {
  constexpr int C = In::channels;
  constexpr int CO = O::channels;
  float v[kGroup * In::channels];
  in.decode(v);
  unsigned codes[kGroup * CO];
#pragma unroll
  for (int p = 0; p < kGroup; ++p) {
    const float r = sanitise_input<In>(v[p * C]), gg = sanitise_input<In>(v[p * C + 1]), b = sanitise_input<In>(v[p * C + 2]);
    const std::uint32_t h = core::dither_pixel_hash(x + p, seed);  // one hash per pixel
    const float rgb[3] = {r, gg, b};
    if (map_by_mode<O>(curve, colour, h, r, gg, b, codes + p * CO)) {
    } else if constexpr (kDefault && O::code == 0) {
      // 8-bit sRGB (v11): srgb8_dither_word per channel, the dither fields summed once per pixel.
      // For reinhard (v15) the scaled luminance l = scale * L_w comes directly, the scale folded
      // into the luminance weights (within an ulp of the CPU's L_w * scale), then the ratio
      // scale * (1 + l / white^2) / (1 + l).
      float k;
      if constexpr (kReinhard) {
        const float l = fmaf(cf.wb, b, fmaf(cf.wg, gg, cf.wr * r));
        k = fmaf(l, cf.scale_c, cf.scale) * rcp_approx(1.0f + l);
      } else {
        k = ratio_default<false>(curve, cf, core::luminance_fma(r, gg, b));
      }
      const std::uint32_t sums = dither_sums(h);
#pragma unroll
      for (int c = 0; c < 3; ++c) codes[p * CO + c] = srgb8_dither_word(rgb[c] * k, dither_offset256_from_sums(sums, c));
    } else if constexpr (kDefault) {
      // core::reconstruct_channel as c * (L_d / L_w), the ratio once per pixel on the SFU
      // (within 2 ulp of the CPU's c / L_w * L_d); black stays black.
      const float k = ratio_default<kReinhard>(curve, cf, core::luminance_fma(r, gg, b));
#pragma unroll
      for (int c = 0; c < 3; ++c) {
        const float o = rgb[c] * k;
        if constexpr (O::code == 1)
          codes[p * CO + c] = quantise_dither_default<65535u>(encode_srgb_fast(o), dither_noise_fast(h, c));
        else
          codes[p * CO + c] = encode<O>(o, colour, h, c);
      }
    } else {
      const float lw = core::luminance_fma(r, gg, b);
      const float ld = curve(lw);
      // core::reconstruct_channel with c / L_w as c * rcp(L_w) (within an ulp); black stays black.
      const float inv = lw >= kMinLuminance ? __frcp_rn(lw) : 0.0f;
#pragma unroll
      for (int c = 0; c < 3; ++c) {
        const float ratio = rgb[c] * inv;
        const float o = colour.saturation == 1.0f ? ld * ratio : ld * powf(ratio, colour.saturation);
        codes[p * CO + c] = encode<O>(o, colour, h, c);
      }
    }
    if constexpr (CO == 4) {
      const float a = C == 4 ? clean_alpha<In>(v[p * C + 3]) : 1.0f;
      codes[p * CO + 3] = encode_alpha<O>(a);
    }
  }
  store_group<O>(out + static_cast<std::size_t>(y) * out_stride, x, g.width, codes);
}

// Programmatic dependent launch (v8, cuda/pdl.cuh): with launch_map's PDL attribute, map blocks
// may start while the statistics kernel (which triggers its dependents when it starts) is
// finishing; wait_for_previous_grid() then blocks until that grid has completed and its writes
// (the curve constants) are visible.
// Grid: x = runs of kMapGroupsPerThread * kMapThreads groups of 4 pixels of a row, y = rows: no
// index division. A thread maps groups bx * kMapGroupsPerThread * blockDim + i * blockDim + tid
// (v13: two groups per thread halve the per-thread work - the row seed, the addressing, the
// curve settings' shared loads - per pixel, and keep four 16-byte loads in flight; with the half
// input held packed (v14b) that is 1-2 % faster than one group despite 61 registers instead of 40;
// 256-thread blocks and a persistent pipelined grid (v15) were slower). The input is loaded before
// the wait: it does not depend on the statistics.
constexpr int kMapGroupsPerThread = 2;

template <class In, class O, bool kDefault, bool kReinhard, class Curve>
__device__ __forceinline__ void map_groups(const MapGroupIn<In> (&v)[kMapGroupsPerThread], const bool (&active)[kMapGroupsPerThread],
                                           const FrameGeometry& g, unsigned char* out, std::size_t out_stride,
                                           const Curve& curve, const ReinhardFold& cf, const MapColour& colour,
                                           std::uint32_t seed, unsigned group0, int y) {
#pragma unroll
  for (int i = 0; i < kMapGroupsPerThread; ++i)
    if (active[i])
      map_group<In, O, kDefault, kReinhard>(v[i], g, out, out_stride, curve, cf, colour, seed,
                                            static_cast<int>(group0 + i * blockDim.x) * kGroup, y);
}

// One instantiation per operator's Curve<float> (MapColour::curve chooses it on the host): each
// kernel holds one curve's code, so its register count is that curve's own.
template <class In, class O, class Curve>
__global__ void __launch_bounds__(kMapThreads) map_kernel(FrameGeometry g, unsigned char* out, std::size_t out_stride,
                                                          const DeviceFrame* frame, MapColour colour, int reverse) {
  __shared__ core::PreparedCurve<float> frame_curve;
  const unsigned bx = reverse ? gridDim.x - 1 - blockIdx.x : blockIdx.x;
  const int y = static_cast<int>(reverse ? gridDim.y - 1 - blockIdx.y : blockIdx.y);
  const unsigned group0 = bx * blockDim.x * kMapGroupsPerThread + threadIdx.x;
  const unsigned char* row = g.in + static_cast<std::size_t>(y) * g.in_stride;
  MapGroupIn<In> v[kMapGroupsPerThread];
  bool active[kMapGroupsPerThread];
#pragma unroll
  for (int i = 0; i < kMapGroupsPerThread; ++i) {
    const unsigned group = group0 + i * blockDim.x;
    active[i] = group < g.groups_per_row;
    if (active[i]) v[i].load(row, static_cast<int>(group) * kGroup, g.width);
  }
  wait_for_previous_grid();
  if (threadIdx.x == 0) frame_curve = core::cast_curve<float>(frame->curve);
  __syncthreads();
  if (!active[0]) return;
  const bool is_default = colour.saturation == 1.0f && (O::code >= 2 || (colour.gamma == 0.0f && colour.dither));
  // uniform per block: one hash, no shared memory; frame coordinates for a frame part
  const std::uint32_t seed = core::dither_row_seed(y + colour.dither_row0);
  const Curve curve = frame_curve.constants.get<Curve>();
  const ReinhardFold fold = reinhard_fold(curve);
  if (is_default) map_groups<In, O, true, kIsReinhard<Curve>>(v, active, g, out, out_stride, curve, fold, colour, seed, group0, y);
  else map_groups<In, O, false, false>(v, active, g, out, out_stride, curve, fold, colour, seed, group0, y);
}

// The kernel of the frame's operator (MapColour::curve; -1, no global curve, is refused).
template <class In, class O>
Status launch_map_for(const FrameGeometry& g, void* out, std::size_t out_stride, const DeviceFrame* frame,
                      const MapColour& colour, bool reverse, bool programmatic, cudaStream_t s) {
  constexpr unsigned kPerBlock = kMapThreads * kMapGroupsPerThread;
  const dim3 grid((g.groups_per_row + kPerBlock - 1) / kPerBlock, static_cast<unsigned>(g.height));
  Status st = invalid_argument("map pass: no global operator's curve (MapColour::curve " + std::to_string(colour.curve) + ")");
  core::visit_operator<core::GlobalOperators>(colour.curve, [&](auto op) {
    using Curve = typename decltype(op)::template Curve<float>;
    st = launch_pdl(map_kernel<In, O, Curve>, grid, dim3(kMapThreads), 0, s, programmatic, g,
                    static_cast<unsigned char*>(out), out_stride, frame, colour, reverse ? 1 : 0);
  });
  if (!st.ok()) return st;
  TK_CUDA_CHECK_LAUNCH("map_kernel");
  return {};
}

template <class In>
Status launch_map_in(OutputFormat out, const FrameGeometry& g, void* d_out, std::size_t out_stride, const DeviceFrame* frame,
                     const MapColour& colour, bool reverse, bool programmatic, cudaStream_t s) {
  const bool four = out.channels == 4;
  switch (out.type) {
    case PixelType::u8:
      return four ? launch_map_for<In, OutFmt<0, 4>>(g, d_out, out_stride, frame, colour, reverse, programmatic, s)
                  : launch_map_for<In, OutFmt<0, 3>>(g, d_out, out_stride, frame, colour, reverse, programmatic, s);
    case PixelType::u16:
      return four ? launch_map_for<In, OutFmt<1, 4>>(g, d_out, out_stride, frame, colour, reverse, programmatic, s)
                  : launch_map_for<In, OutFmt<1, 3>>(g, d_out, out_stride, frame, colour, reverse, programmatic, s);
    case PixelType::f16:
      return four ? launch_map_for<In, OutFmt<2, 4>>(g, d_out, out_stride, frame, colour, reverse, programmatic, s)
                  : launch_map_for<In, OutFmt<2, 3>>(g, d_out, out_stride, frame, colour, reverse, programmatic, s);
    case PixelType::f32:
      return four ? launch_map_for<In, OutFmt<3, 4>>(g, d_out, out_stride, frame, colour, reverse, programmatic, s)
                  : launch_map_for<In, OutFmt<3, 3>>(g, d_out, out_stride, frame, colour, reverse, programmatic, s);
  }
  return invalid_argument("unknown output pixel type");
}

}  // namespace

// One per input format (map_kernel_<format>.cu): launch_map_in<In> of the format.
Status launch_map_rgb_f32(OutputFormat out, const FrameGeometry& g, void* d_out, std::size_t out_stride,
                          const DeviceFrame* frame, const MapColour& colour, bool reverse, bool programmatic, cudaStream_t s);
Status launch_map_rgba_f32(OutputFormat out, const FrameGeometry& g, void* d_out, std::size_t out_stride,
                           const DeviceFrame* frame, const MapColour& colour, bool reverse, bool programmatic, cudaStream_t s);
Status launch_map_rgba_f16(OutputFormat out, const FrameGeometry& g, void* d_out, std::size_t out_stride,
                           const DeviceFrame* frame, const MapColour& colour, bool reverse, bool programmatic, cudaStream_t s);

}  // namespace tonekit::cuda
