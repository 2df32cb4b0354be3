// CIE L*a*b* of linear BT.709 RGB and the CIEDE2000 difference (Sharma, Wu & Dalal 2005),
// the scalar reference: quality/colour_maths.hpp's text compiled without fast-math, against which
// the vectorised runs (colour_batch.cpp) and the GPU (src/cuda/quality/colour_gpu.cu) are tested
// (the 34 test pairs: tests/unit/test_quality_colour.cpp, tests/gpu/test_gpu_quality.cpp).
#include "cpu/quality/colour_maths.hpp"
#include "tonekit/quality.hpp"

namespace tonekit::quality {

Lab lab_from_linear_rgb(double r, double g, double b) {
  Lab lab;
  detail::lab_of_linear(r, g, b, lab.l, lab.a, lab.b);
  return lab;
}

double ciede2000(const Lab& x, const Lab& y) { return detail::ciede2000_of(x.l, x.a, x.b, y.l, y.a, y.b); }

}  // namespace tonekit::quality
