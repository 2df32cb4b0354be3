// Bands of a frame split over several GPUs (tonekit/multi_gpu.hpp): how far each operator reads
// beyond a pixel's row, and the split itself. Host code, built with or without CUDA; in api/
// because glare's context reads the blur's pyramid plan (the layers of docs/architecture.md).
#include <algorithm>
#include <string>

#include "cpu/blur/glare_pyramid.hpp"
#include "core/local_settings.hpp"
#include "tonekit/multi_gpu.hpp"

namespace tonekit {

namespace {
constexpr int kWholeFrameRows = 1 << 24;  // more rows than any frame has
}  // namespace

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
    // The pyramid's top level spans the frame: every band reads all of it (each GPU maps the whole
    // frame and stores its own rows; exact, not faster).
    case core::LocalKind::local_laplacian:
    case core::LocalKind::exposure_fusion: return kWholeFrameRows;
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

Status StatsExchange::gather_rows(void*, std::size_t, int, int, int, CUstream_st*) {
  return unsupported("StatsExchange: this exchange does not gather rows (glare over a split frame needs it)");
}

std::pair<int, int> owned_array_rows(int own_begin, int own_end, int frame_height, int shift, int offset, int row_count) {
  // Row r's first frame row is r * 2^shift - offset: the rows from ceil((f + offset) / 2^shift).
  const long long unit = 1ll << shift;
  auto first_row_at = [&](long long f) {
    const long long v = f + offset;
    const long long r = v >= 0 ? (v + unit - 1) / unit : -((-v) / unit);
    return static_cast<int>(std::clamp<long long>(r, 0, row_count));
  };
  const int begin = own_begin <= 0 ? 0 : first_row_at(own_begin);
  const int end = own_end >= frame_height ? row_count : first_row_at(own_end);
  return {begin, std::max(begin, end)};
}

Result<int> glare_context_rows(const GlareParams& glare, int width, int frame_height) {
  Result<std::vector<GlareOctave>> octaves = plan_glare(glare, width, frame_height);
  if (!octaves.ok()) return octaves.status();
  if (octaves->empty()) return 0;
  blur_impl::GlarePyramid pyramid;
  if (!blur_impl::plan_glare_pyramid(*octaves, width, frame_height, pyramid))
    return unsupported("glare over a split frame needs a pyramid blur method (pyramid-quasi, pyramid-box2, pyramid-box4) "
                       "and a radius of at least ~2.5 pixels; '" + glare.method + "' at this size does not split");
  return (1 << blur_impl::glare_exchange_level(pyramid)) - 1;
}

}  // namespace tonekit
