// Summed-area table kernels (sat_gpu.hpp has the algorithms and their sources). All tables are
// exclusive float64 tables in the sat/sat_table.hpp layout; sums in float64 everywhere (the
// precision strategy of sat_table.hpp: a float64 table is within 4.1e-6 of exact box means at
// 8K; the tiled float32 pairs within 1.7e-7).
#include <cub/block/block_scan.cuh>

#include <algorithm>

#include "cuda/check.hpp"
#include "cuda/local/sat_gpu.hpp"
#include "cpu/sat/box_query.hpp"

namespace tonekit::cuda_local {
namespace {

constexpr int kScanThreads = 256;
constexpr int kScanItems = 4;  // 1024 entries per block step

// Row y of the plane -> table row y + 1: entry 0 is 0, entry x + 1 = sum of row[0..x] (float64).
__global__ void __launch_bounds__(kScanThreads) row_scan_plane(const float* plane, int w, std::size_t plane_pitch,
                                                                double* table, std::size_t pitch) {
  using Scan = cub::BlockScan<double, kScanThreads>;
  __shared__ typename Scan::TempStorage temp;
  const int y = blockIdx.x;
  const float* row = plane + static_cast<std::size_t>(y) * plane_pitch;
  double* out = table + static_cast<std::size_t>(y + 1) * pitch;
  if (threadIdx.x == 0) out[0] = 0.0;
  double carry = 0.0;  // the total of the row's earlier stripes
  for (int c0 = 0; c0 < w; c0 += kScanThreads * kScanItems) {
    double v[kScanItems];
#pragma unroll
    for (int i = 0; i < kScanItems; ++i) {
      const int x = c0 + i * kScanThreads + threadIdx.x;  // striped: coalesced loads
      v[i] = x < w ? static_cast<double>(__ldg(row + x)) : 0.0;
    }
    // Striped -> blocked order through CUB's exchange would cost shared memory; instead scan
    // each stripe (kScanThreads consecutive entries) in turn, carrying the total (added after the
    // scan rather than through a prefix callback, which cost a 16-byte spill).
#pragma unroll
    for (int i = 0; i < kScanItems; ++i) {
      double r, total;
      Scan(temp).InclusiveSum(v[i], r, total);
      __syncthreads();
      const int x = c0 + i * kScanThreads + threadIdx.x;
      if (x < w) out[x + 1] = carry + r;
      carry += total;
    }
  }
}

// In-place inclusive scan of `rows` rows of n doubles (rows `pitch` apart), one block per row.
__global__ void __launch_bounds__(kScanThreads) row_scan_inplace(double* t, int n, std::size_t pitch) {
  using Scan = cub::BlockScan<double, kScanThreads>;
  __shared__ typename Scan::TempStorage temp;
  double* row = t + static_cast<std::size_t>(blockIdx.x) * pitch;
  double carry = 0.0;
  for (int c0 = 0; c0 < n; c0 += kScanThreads) {
    const int x = c0 + threadIdx.x;
    double v = x < n ? row[x] : 0.0, r, total;
    Scan(temp).InclusiveSum(v, r, total);
    __syncthreads();
    if (x < n) row[x] = carry + r;
    carry += total;
  }
}

// The plane in the table layout (unscanned): entry (x + 1, y + 1) = plane(x, y), row/column 0 = 0.
__global__ void sat_init(const float* plane, int w, int h, std::size_t plane_pitch, double* table, std::size_t pitch) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y;
  if (x > w) return;
  table[static_cast<std::size_t>(y) * pitch + x] =
      (x == 0 || y == 0) ? 0.0 : static_cast<double>(plane[static_cast<std::size_t>(y - 1) * plane_pitch + x - 1]);
}

// Hensley et al. 2005, one pass: dst = src + the k - 1 entries offset, 2 offset, ... before it
// along the axis (0: x, 1: y); entries before the start contribute 0.
__global__ void recursive_doubling_pass(const double* __restrict__ src, double* __restrict__ dst, int cols, int rows,
                                        int offset, int k, int axis) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y;
  if (x >= cols) return;
  const std::size_t i = static_cast<std::size_t>(y) * cols + x;
  const int pos = axis == 0 ? x : y;
  const std::size_t step = axis == 0 ? static_cast<std::size_t>(offset) : static_cast<std::size_t>(offset) * cols;
  double s = src[i];
  for (int j = 1; j < k; ++j) {
    if (pos - j * offset < 0) break;
    s += src[i - j * step];
  }
  dst[i] = s;
}

// Sengupta et al. 2007 / Blelloch 1990 work-efficient scan of one line per block (Harris,
// Sengupta & Owens, GPU Gems 3 ch. 39: up-sweep, clear, down-sweep, with a padding word every
// 32 entries against bank conflicts), in chunks of kBlellochChunk with a carry; inclusive, in place.
constexpr int kBlellochThreads = 1024;
constexpr int kBlellochChunk = 2 * kBlellochThreads;
__device__ __forceinline__ int padded(int i) { return i + (i >> 5); }

__global__ void __launch_bounds__(kBlellochThreads) blelloch_lines(double* t, int n, std::size_t line_stride,
                                                                   std::size_t elem_stride) {
  __shared__ double s[kBlellochChunk + kBlellochChunk / 32];
  __shared__ double total;
  double* line = t + static_cast<std::size_t>(blockIdx.x) * line_stride;
  double carry = 0.0;
  const int a = threadIdx.x, b = threadIdx.x + kBlellochThreads;
  for (int c0 = 0; c0 < n; c0 += kBlellochChunk) {
    const double va = c0 + a < n ? line[static_cast<std::size_t>(c0 + a) * elem_stride] : 0.0;
    const double vb = c0 + b < n ? line[static_cast<std::size_t>(c0 + b) * elem_stride] : 0.0;
    s[padded(a)] = va;
    s[padded(b)] = vb;
    int offset = 1;
    for (int d = kBlellochChunk >> 1; d > 0; d >>= 1) {  // up-sweep
      __syncthreads();
      if (threadIdx.x < d) {
        const int ai = offset * (2 * threadIdx.x + 1) - 1, bi = offset * (2 * threadIdx.x + 2) - 1;
        s[padded(bi)] += s[padded(ai)];
      }
      offset <<= 1;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
      total = s[padded(kBlellochChunk - 1)];
      s[padded(kBlellochChunk - 1)] = 0.0;
    }
    for (int d = 1; d < kBlellochChunk; d <<= 1) {  // down-sweep
      offset >>= 1;
      __syncthreads();
      if (threadIdx.x < d) {
        const int ai = offset * (2 * threadIdx.x + 1) - 1, bi = offset * (2 * threadIdx.x + 2) - 1;
        const double tmp = s[padded(ai)];
        s[padded(ai)] = s[padded(bi)];
        s[padded(bi)] += tmp;
      }
    }
    __syncthreads();
    if (c0 + a < n) line[static_cast<std::size_t>(c0 + a) * elem_stride] = carry + s[padded(a)] + va;
    if (c0 + b < n) line[static_cast<std::size_t>(c0 + b) * elem_stride] = carry + s[padded(b)] + vb;
    carry += total;
    __syncthreads();
  }
}

// out (cols x rows) = transpose of in (rows x cols); 32 x 32 tiles through shared memory, rows of
// 33 doubles: a warp reading a tile column touches 16 distinct bank pairs per half-warp.
constexpr int kTransposeTile = 32;
__global__ void transpose_f64(const double* __restrict__ in, int rows, int cols, std::size_t in_pitch,
                              double* __restrict__ out, std::size_t out_pitch) {
  __shared__ double tile[kTransposeTile][kTransposeTile + 1];
  const int x0 = blockIdx.x * kTransposeTile, y0 = blockIdx.y * kTransposeTile;
  for (int j = threadIdx.y; j < kTransposeTile; j += blockDim.y) {
    const int x = x0 + threadIdx.x, y = y0 + j;
    if (x < cols && y < rows) tile[j][threadIdx.x] = in[static_cast<std::size_t>(y) * in_pitch + x];
  }
  __syncthreads();
  for (int j = threadIdx.y; j < kTransposeTile; j += blockDim.y) {
    const int ox = y0 + threadIdx.x, oy = x0 + j;  // out row = in column
    if (ox < rows && oy < cols) out[static_cast<std::size_t>(oy) * out_pitch + ox] = tile[threadIdx.x][j];
  }
}

// Column pass with decoupled look-back (Merrill & Garland 2016, applied down the columns): tiles
// of 32 columns x 64 rows in the order of a ticket (so every earlier tile row has started: no
// deadlock); each thread scans 8 rows of one column, the 8 threads of a column combine in shared
// memory, then lane x of warp 0 publishes the column's tile aggregate, walks back over the tiles
// above (aggregate: add and go on; inclusive prefix: add and stop) and publishes its inclusive
// prefix. Flags carry the build's epoch, so stale ones from earlier builds need no reset.
constexpr int kLookbackCols = 32, kLookbackRowsPerThread = 8, kLookbackThreadRows = 8;
constexpr int kLookbackTileRows = kLookbackRowsPerThread * kLookbackThreadRows;

__global__ void __launch_bounds__(kLookbackCols* kLookbackThreadRows)
    column_lookback(double* rows_base, int cols, int rows, std::size_t pitch, unsigned* flags, double* agg,
                    double* inc, unsigned* ticket, unsigned epoch) {
  __shared__ unsigned tile_id;
  __shared__ double part[kLookbackThreadRows][kLookbackCols];
  __shared__ double prefix[kLookbackCols];
  if (threadIdx.x == 0 && threadIdx.y == 0) tile_id = atomicAdd(ticket, 1u);
  __syncthreads();
  const int tiles_x = (cols + kLookbackCols - 1) / kLookbackCols;
  const int ty = static_cast<int>(tile_id) / tiles_x, tx = static_cast<int>(tile_id) % tiles_x;
  const int col = tx * kLookbackCols + threadIdx.x;
  const int r0 = ty * kLookbackTileRows + threadIdx.y * kLookbackRowsPerThread;
  double v[kLookbackRowsPerThread];
  double run = 0.0;
#pragma unroll
  for (int j = 0; j < kLookbackRowsPerThread; ++j) {
    const int r = r0 + j;
    v[j] = (col < cols && r < rows) ? __ldcs(rows_base + static_cast<std::size_t>(r) * pitch + col) : 0.0;
  }
#pragma unroll
  for (int j = 0; j < kLookbackRowsPerThread; ++j) {
    run += v[j];
    v[j] = run;
  }
  part[threadIdx.y][threadIdx.x] = run;
  __syncthreads();
  double before = 0.0;
  for (int k = 0; k < threadIdx.y; ++k) before += part[k][threadIdx.x];
  if (threadIdx.y == 0 && col < cols) {
    double aggregate = 0.0;
    for (int k = 0; k < kLookbackThreadRows; ++k) aggregate += part[k][threadIdx.x];
    const unsigned a_flag = 2 * epoch + 1, p_flag = 2 * epoch + 2;
    const std::size_t me = static_cast<std::size_t>(ty) * cols + col;
    double exclusive = 0.0;
    if (ty == 0) {
      inc[me] = aggregate;
      __threadfence();
      atomicExch(flags + me, p_flag);
    } else {
      agg[me] = aggregate;
      __threadfence();
      atomicExch(flags + me, a_flag);
      for (int k = ty - 1; k >= 0; --k) {
        const std::size_t other = static_cast<std::size_t>(k) * cols + col;
        unsigned f;
        do {
          f = *reinterpret_cast<volatile unsigned*>(flags + other);
        } while (f != a_flag && f != p_flag);
        __threadfence();
        if (f == p_flag) {
          exclusive += __ldcg(inc + other);
          break;
        }
        exclusive += __ldcg(agg + other);
      }
      inc[me] = exclusive + aggregate;
      __threadfence();
      atomicExch(flags + me, p_flag);
    }
    prefix[threadIdx.x] = exclusive;
  }
  __syncthreads();
  if (col >= cols) return;
  const double add = prefix[threadIdx.x] + before;
#pragma unroll
  for (int j = 0; j < kLookbackRowsPerThread; ++j) {
    const int r = r0 + j;
    if (r < rows) __stcs(rows_base + static_cast<std::size_t>(r) * pitch + col, v[j] + add);
  }
}

// The tiled float32 pair tables of sat/box_query.hpp: one block per 64 x 64 tile; the tile is
// accumulated in float64 in shared memory (rows, then columns; rows of 65 doubles: the row scans,
// one thread per row, and the column scans, one thread per column, are both conflict-free) and
// written as hi = fl32(S), lo = fl32(S - hi). Single pass: reads the plane once, writes 8.5 bytes
// per pixel (the copy-bandwidth method of the issue).
constexpr int kTiledThreads = 256;
__global__ void __launch_bounds__(kTiledThreads) sat_tiled_kernel(const float* __restrict__ plane, int w, int h,
                                                                  std::size_t plane_pitch, float* __restrict__ hi,
                                                                  float* __restrict__ lo, int tiles_x) {
  constexpr int P = sat::kSatTilePitch;
  __shared__ double t[P * P];
  const int tx = blockIdx.x, ty = blockIdx.y;
  const int x0 = tx * sat::kSatTile, y0 = ty * sat::kSatTile;
  const int tid = threadIdx.x;
  for (int i = tid; i < P * P; i += kTiledThreads) {
    const int lx = i % P, ly = i / P;
    const int x = x0 + lx - 1, y = y0 + ly - 1;
    t[i] = (lx > 0 && ly > 0 && x < w && y < h) ? static_cast<double>(__ldg(plane + static_cast<std::size_t>(y) * plane_pitch + x))
                                                : 0.0;
  }
  __syncthreads();
  if (tid < sat::kSatTile) {
    double* row = t + (tid + 1) * P;
    double run = 0.0;
    for (int lx = 1; lx < P; ++lx) {
      run += row[lx];
      row[lx] = run;
    }
  }
  __syncthreads();
  if (tid < P) {
    double run = 0.0;
    for (int ly = 1; ly < P; ++ly) {
      run += t[ly * P + tid];
      t[ly * P + tid] = run;
    }
  }
  __syncthreads();
  const std::size_t base = static_cast<std::size_t>(ty * tiles_x + tx) * sat::kSatTileEntries;
  for (int i = tid; i < P * P; i += kTiledThreads) {
    const double v = t[i];
    const float high = static_cast<float>(v);
    __stcs(hi + base + i, high);
    __stcs(lo + base + i, static_cast<float>(v - static_cast<double>(high)));
  }
}

}  // namespace

Status sat_work_create(int w, int h, SatWork& work) {
  work.width = w;
  work.height = h;
  const std::size_t entries = sat::table_entries(w, h);
  const std::size_t tiles_y = (static_cast<std::size_t>(h) + kLookbackTileRows - 1) / kLookbackTileRows;
  const std::size_t flags = tiles_y * (static_cast<std::size_t>(w) + 1);
  TK_CUDA_CHECK(cudaMalloc(&work.scratch, entries * sizeof(double)));
  TK_CUDA_CHECK(cudaMalloc(&work.lookback_flags, flags * sizeof(unsigned)));
  TK_CUDA_CHECK(cudaMemset(work.lookback_flags, 0, flags * sizeof(unsigned)));
  TK_CUDA_CHECK(cudaMalloc(&work.lookback_agg, flags * sizeof(double)));
  TK_CUDA_CHECK(cudaMalloc(&work.lookback_inc, flags * sizeof(double)));
  TK_CUDA_CHECK(cudaMalloc(&work.ticket, sizeof(unsigned)));
  return {};
}

void sat_work_destroy(SatWork& work) {
  cudaFree(work.scratch);
  cudaFree(work.lookback_flags);
  cudaFree(work.lookback_agg);
  cudaFree(work.lookback_inc);
  cudaFree(work.ticket);
  work = SatWork{};
}

Status build_sat_device(sat::SatAlgorithm algo, const float* plane, int w, int h, std::size_t plane_pitch,
                        double* table, SatWork& work, cudaStream_t s) {
  if (w != work.width || h != work.height) return invalid_argument("build_sat_device: size differs from the scratch's");
  const std::size_t pitch = sat::table_pitch(w);
  const int cols = w + 1, rows = h + 1;
  switch (algo) {
    case sat::SatAlgorithm::recursive_doubling: {
      const int k = std::max(2, work.radix);
      const dim3 block(256), grid((cols + 255) / 256, rows);
      sat_init<<<grid, block, 0, s>>>(plane, w, h, plane_pitch, table, pitch);
      TK_CUDA_CHECK_LAUNCH("sat_init");
      double* src = table;
      double* dst = work.scratch;
      for (int axis = 0; axis < 2; ++axis) {
        const int n = axis == 0 ? cols : rows;
        for (long long o = 1; o < n; o *= k) {
          recursive_doubling_pass<<<grid, block, 0, s>>>(src, dst, cols, rows, static_cast<int>(o), k, axis);
          TK_CUDA_CHECK_LAUNCH("recursive_doubling_pass");
          std::swap(src, dst);
        }
      }
      if (src != table)
        TK_CUDA_CHECK(cudaMemcpyAsync(table, src, sat::table_entries(w, h) * sizeof(double), cudaMemcpyDeviceToDevice, s));
      return {};
    }
    case sat::SatAlgorithm::blelloch: {
      const dim3 grid((cols + 255) / 256, rows);
      sat_init<<<grid, 256, 0, s>>>(plane, w, h, plane_pitch, table, pitch);
      TK_CUDA_CHECK_LAUNCH("sat_init");
      blelloch_lines<<<rows, kBlellochThreads, 0, s>>>(table, cols, pitch, 1);
      TK_CUDA_CHECK_LAUNCH("blelloch_lines rows");
      blelloch_lines<<<cols, kBlellochThreads, 0, s>>>(table, rows, 1, pitch);
      TK_CUDA_CHECK_LAUNCH("blelloch_lines columns");
      return {};
    }
    case sat::SatAlgorithm::scan_transpose_scan: {
      TK_CUDA_CHECK(cudaMemsetAsync(table, 0, pitch * sizeof(double), s));
      row_scan_plane<<<h, kScanThreads, 0, s>>>(plane, w, plane_pitch, table, pitch);
      TK_CUDA_CHECK_LAUNCH("row_scan_plane");
      const dim3 tb(kTransposeTile, 8);
      transpose_f64<<<dim3((cols + 31) / 32, (rows + 31) / 32), tb, 0, s>>>(table, rows, cols, pitch, work.scratch, rows);
      TK_CUDA_CHECK_LAUNCH("transpose_f64");
      row_scan_inplace<<<cols, kScanThreads, 0, s>>>(work.scratch, rows, rows);
      TK_CUDA_CHECK_LAUNCH("row_scan_inplace");
      transpose_f64<<<dim3((rows + 31) / 32, (cols + 31) / 32), tb, 0, s>>>(work.scratch, cols, rows, rows, table, pitch);
      TK_CUDA_CHECK_LAUNCH("transpose_f64 back");
      return {};
    }
    case sat::SatAlgorithm::automatic:
    case sat::SatAlgorithm::decoupled_lookback: {
      TK_CUDA_CHECK(cudaMemsetAsync(table, 0, pitch * sizeof(double), s));
      row_scan_plane<<<h, kScanThreads, 0, s>>>(plane, w, plane_pitch, table, pitch);
      TK_CUDA_CHECK_LAUNCH("row_scan_plane");
      TK_CUDA_CHECK(cudaMemsetAsync(work.ticket, 0, sizeof(unsigned), s));
      ++work.epoch;
      const int tiles_x = (cols + kLookbackCols - 1) / kLookbackCols;
      const int tiles_y = (h + kLookbackTileRows - 1) / kLookbackTileRows;
      column_lookback<<<tiles_x * tiles_y, dim3(kLookbackCols, kLookbackThreadRows), 0, s>>>(
          table + pitch, cols, h, pitch, work.lookback_flags, work.lookback_agg, work.lookback_inc, work.ticket, work.epoch);
      TK_CUDA_CHECK_LAUNCH("column_lookback");
      return {};
    }
  }
  return invalid_argument("unknown summed-area table algorithm");
}

Status build_sat_tiled_device(const float* plane, int w, int h, std::size_t plane_pitch, float* hi, float* lo,
                              cudaStream_t s) {
  const sat::TiledLayout t = sat::tiled_layout(w, h);
  sat_tiled_kernel<<<dim3(t.tiles_x, t.tiles_y), kTiledThreads, 0, s>>>(plane, w, h, plane_pitch, hi, lo, t.tiles_x);
  TK_CUDA_CHECK_LAUNCH("sat_tiled_kernel");
  return {};
}

}  // namespace tonekit::cuda_local
