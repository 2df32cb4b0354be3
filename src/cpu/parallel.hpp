// The CPU backend's threads over rows: core/parallel.hpp's workers (shared with sat/, blur/ and
// quality/) under the backend's namespace.
#pragma once
#include "core/parallel.hpp"

namespace tonekit::cpu {

using core::band_count;
using core::parallel_row_blocks;
using core::parallel_rows;
using core::worker_count;

}  // namespace tonekit::cpu
