// decode -> cpu::tone_map (float display RGB) -> encode, for one frame (tonekit/video_tonemap.hpp).
#include "tonekit/video_tonemap.hpp"

#include "core/map_settings.hpp"
#include "cpu/video_decode.hpp"
#include "cpu/video_encode.hpp"

namespace tonekit::cpu {

Status tone_map_frame(const FramePlanes& planes, InputFormat in_format, const InputColour& colour, int width,
                      int height, const Params& params, OutputLayout layout, OutputFormat format,
                      std::vector<std::uint8_t>& out, FrameStats* stats) {
  Image scene;
  FrameStats bad;
  if (Status s = decode_frame(planes, in_format, colour, width, height, scene, &bad); !s.ok()) return s;
  FrameStats mapped;
  if (layout == OutputLayout::interleaved) {
    out.resize(output_frame_bytes(layout, width, height, format.channels, bytes_per_channel(format.type)));
    const ImageView view{out.data(), width, height, format.channels, format.type, 0, MemorySpace::host};
    if (Status s = tone_map(scene.view(), params, view, &mapped); !s.ok()) return s;
  } else {
    Image display(width, height, 3);
    if (Status s = tone_map(scene.view(), params, display.view(), &mapped); !s.ok()) return s;
    const core::ColourSettings cs = core::make_colour_settings(params);
    out.resize(output_frame_bytes(layout, width, height, 3, 1));
    if (Status s = encode_yuv420(display.view(), layout, cs.gamma, cs.dither, out.data(), out.size()); !s.ok())
      return s;
  }
  if (stats) {
    *stats = mapped;
    stats->nan_count = bad.nan_count;
    stats->inf_count = bad.inf_count;
    stats->negative_count = bad.negative_count;
  }
  return {};
}

}  // namespace tonekit::cpu
