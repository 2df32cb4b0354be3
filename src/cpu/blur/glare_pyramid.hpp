// The glare's octaves on one shared pyramid (both backends: src/cpu/blur/glare.cpp and
// src/cuda/blur/glare_gpu.cu). The glare PSF is a sum of Gaussians of sigma, 2 sigma, 4 sigma,
// ...; with a pyramid blur method, octave k is `levels_k` analysis steps down, a coarse Gaussian
// and as many synthesis steps up, and the octaves' levels grow by one each. Run one by one (each
// on its own padded copy of the full-resolution frame, added back at full resolution), a 4K frame
// costs ~2 ms on an H100, almost all of it full-resolution traffic. Shared: the bright pass is
// padded once (by the widest octave's margin, rounded up to a multiple of 2^levels so that a
// level-L pixel covers the same aligned block of frame rows and columns whatever the frame size
// above it), the analysis steps run once, each octave blurs its own level, and the weighted sum
// goes up one synthesis chain:
//   G_n = sum_{k at n} w_k B_k,  G_l = up(G_{l+1}) + sum_{k at l} w_k B_k,  image += up(G_1).
// The synthesis is linear, so this is the sum of the octaves' pyramid blurs (on the common grid)
// up to float rounding; the full-resolution work is one read for the first analysis step and one
// read-add-write at the end.
#pragma once
#include <vector>

#include "cpu/blur/blur_math.hpp"
#include "tonekit/blur.hpp"

namespace tonekit::blur_impl {

struct GlarePyramid {
  blur_math::PyramidAnalysis analysis = blur_math::PyramidAnalysis::quasi;
  int pad = 0;                 // replicated-edge margin on every side, a multiple of 2^levels()
  int width = 0, height = 0;   // the padded level 0: frame + 2 pad
  std::vector<int> lw, lh;     // levels 1..n (index l - 1)
  struct Octave {
    int level = 1;             // 1..n: where the octave's coarse Gaussian runs
    double coarse_sigma = 0.0; // in that level's pixels (0: none)
    float weight = 0.0f;       // plan_glare's weight
  };
  std::vector<Octave> octaves;
  int levels() const { return static_cast<int>(lw.size()); }
};

// False when the octaves cannot share a pyramid (a method other than pyramid-*, or an octave
// with no level: sigma below ~2.5 px); the glare then runs octave by octave.
bool plan_glare_pyramid(const std::vector<GlareOctave>& octaves, int width, int height, GlarePyramid& out);

// A frame split between GPUs (FramePart): each part runs the analysis steps up to this level on
// its own rows (reading 2^level - 1 rows of context on each side), the parts exchange the level's
// rows, and each runs the rest (the coarser levels, the octaves' Gaussians and the synthesis down
// to it) on the whole level, then the synthesis below it on its rows. The lowest octave's level,
// at most 6: level 6 of a 16K frame is ~1 MB, and 63 rows of context fit the 64-row alignment.
inline int glare_exchange_level(const GlarePyramid& g) {
  int lowest = g.levels();
  for (const GlarePyramid::Octave& o : g.octaves) lowest = o.level < lowest ? o.level : lowest;
  return lowest < 6 ? lowest : 6;
}

}  // namespace tonekit::blur_impl
