// The ToneMapper's video stages (video_stages.cu): decode of the planar / 16-bit / YUV input
// layouts into scene-linear BT.709 float RGB, and the 8-bit 4:2:0 encode of the display result.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "core/video_colour.hpp"
#include "tonekit/status.hpp"
#include "tonekit/video.hpp"

namespace tonekit::cuda {

struct DeviceFrame;  // cuda/pipeline.hpp

// A frame's planes with every stride resolved (no 0 = packed here).
using VideoPlanes = FramePlanes;

// Which decode kernel reads a 4:2:0 frame: `best` a thread per 2 x 2 block (decode420_kernel),
// `per_pixel` the kernel of every layout (decode_kernel); the same floats, bit for bit (the test
// GpuVideo.BlockDecodeSameFloatsAsPixelDecode runs both).
enum class VideoDecodeKernel { best, per_pixel };

// rgb48, gbrpf32, p010, yuv420p10 -> out_rgb (width x height x 3 floats, packed). bad_counts[0..2]
// (device) gain the NaN, Inf and negative pixels of float layouts (zero them per frame).
// stats_frame (P010 / yuv420p10 with the `best` kernel only): the decode also gathers the
// statistics of the decoded frame, the statistics kernels' totals bit for bit, and leaves them in
// stats_frame->exchange (as a frame part's); launch_finish_exchanged finishes the frame.
Status launch_video_decode(const VideoPlanes& planes, InputFormat format, const InputColour& colour, int width,
                           int height, float* out_rgb, unsigned* bad_counts, cudaStream_t s,
                           VideoDecodeKernel kernel = VideoDecodeKernel::best, DeviceFrame* stats_frame = nullptr);

// display_rgb (linear display RGB in [0, 1], width x height x 3 floats, packed) -> out, a packed
// yuv420p or nv12 frame (output_frame_bytes). gamma 0: the BT.709 OETF.
// The current device's copy of core::bt709_oetf_pairs_host (copied there on first use).
Status device_oetf_table(const core::LerpPair*& table);

Status launch_video_encode(const float* display_rgb, int width, int height, OutputLayout layout, float gamma, bool dither,
                           std::uint8_t* out, cudaStream_t s);

}  // namespace tonekit::cuda
