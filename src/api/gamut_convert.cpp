// Stills in BT.2020 primaries (tonekit map --primaries bt2020): the video decode's primaries and
// gamut stage (core::linearise_pixel with a linear transfer: the matrix, then core/gamut.hpp), run
// once on the host before either backend maps the image, so both see the same floats.
#include "core/colour.hpp"
#include "core/parallel.hpp"
#include "core/video_colour.hpp"
#include "tonekit/tonemap.hpp"

namespace tonekit {

Status convert_bt2020_to_bt709(Image& image, GamutMapping gamut, double reference_white) {
  if (image.channels != 3 && image.channels != 4)
    return invalid_argument("BT.2020 -> BT.709 needs an RGB or RGBA image, got " + std::to_string(image.channels) +
                            " channel(s)");
  InputColour colour;
  colour.transfer = Transfer::linear;
  colour.primaries = Primaries::bt2020;
  colour.gamut = gamut;
  colour.reference_white = reference_white;
  if (Status s = validate(colour); !s.ok()) return s;
  const core::VideoLinearise lin = core::make_video_linearise(colour, InputFormat::rgb_f32);
  const int c = image.channels;
  core::parallel_rows(image.height, [&](int, int y0, int y1) {
    for (int y = y0; y < y1; ++y) {
      float* p = image.row(y);
      for (int x = 0; x < image.width; ++x, p += c) {
        unsigned flags = 0;  // sanitised first (NaN, negatives -> 0, +Inf -> 65504): the gamut maths needs finite input
        float r = core::sanitise_channel(p[0], flags), g = core::sanitise_channel(p[1], flags),
              b = core::sanitise_channel(p[2], flags);
        core::linearise_pixel(lin, r, g, b);
        p[0] = r;
        p[1] = g;
        p[2] = b;
      }
    }
  });
  return {};
}

}  // namespace tonekit
