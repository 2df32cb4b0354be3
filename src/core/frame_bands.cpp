// Bands of a frame split over several GPUs (tonekit/multi_gpu.hpp): how far each operator reads
// beyond a pixel's row, and the split itself. Host code, built with or without CUDA.
#include <algorithm>
#include <string>

#include "core/local_settings.hpp"
#include "tonekit/multi_gpu.hpp"

namespace tonekit {

int operator_context_rows(const Params& params) {
  const core::LocalParams lp = core::local_params_from(params);
  switch (lp.kind) {
    case core::LocalKind::none: return 0;
    // The tile-local tables reach half the largest box out (cuda/local/local_kernels.cu kHalo);
    // the frame-sized tables' box sums reach no further.
    case core::LocalKind::reinhard_box: return core::box_width(core::kMaxLocalScales - 1) / 2;
    // Level i's centre is the Gaussian of radius gaussian_radius(i), its surround level i + 1's.
    case core::LocalKind::reinhard_gauss: return core::gaussian_radius(core::kMaxLocalScales - 1);
    case core::LocalKind::drago_local: return core::make_local_settings_hd(lp, core::CurveStats{}).window / 2;
  }
  return 0;
}

Result<std::vector<FrameBand>> plan_bands(int height, const std::vector<int>& devices, int context_rows, int align) {
  if (devices.empty()) return invalid_argument("plan_bands: no device");
  if (align < 1) return invalid_argument("plan_bands: align must be >= 1, got " + std::to_string(align));
  if (context_rows < 0) return invalid_argument("plan_bands: context rows must be >= 0, got " + std::to_string(context_rows));
  const long long n = static_cast<long long>(devices.size());
  if (height < n * align)
    return invalid_argument("plan_bands: " + std::to_string(height) + " rows cannot give " + std::to_string(n) +
                            " devices " + std::to_string(align) + " rows each");
  const int context = (context_rows + align - 1) / align * align;
  const long long units = (static_cast<long long>(height) + align - 1) / align;  // whole and partial blocks of rows
  std::vector<FrameBand> bands(devices.size());
  for (long long i = 0; i < n; ++i) {
    // Band i takes blocks [units * i / n, units * (i + 1) / n): equal shares within one block.
    const long long b0 = units * i / n, b1 = units * (i + 1) / n;
    FrameBand& b = bands[static_cast<std::size_t>(i)];
    b.device = devices[static_cast<std::size_t>(i)];
    b.first_row = static_cast<int>(b0 * align);
    const int end = static_cast<int>(std::min<long long>(b1 * align, height));
    b.rows = end - b.first_row;
    b.context_above = std::min(context, b.first_row);
    b.context_below = std::min(context, height - end);
  }
  return bands;
}

}  // namespace tonekit
