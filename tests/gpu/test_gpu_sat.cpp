// Summed-area tables on the GPU (src/cuda/local/sat_gpu.hpp) against the float64 CPU reference
// (sat::build_sat_f64), every algorithm id, sizes 1x1, 31x17, 1920x1080, 4097x2161, 7680x4320.
// Tolerances and why:
//  - table entries: within 1e-11 of the largest entry (both float64; only the summation order
//    differs: ~1e-16 per addition);
//  - box means (edge-replicated, widths 3..39, 4000 random boxes) against brute-force float64
//    sums of the plane: relative error <= 1e-5 (issue 4). The plane is log-uniform over
//    [1e-2, 1e2] (mean ~11): at 8K the table's largest entry is ~4e8, whose float64 spacing
//    (6e-8) is ~1e-6 of the darkest 3x3 box; the tiled float32 pairs keep ~48 bits of a tile's sum.
// Every test GTEST_SKIPs without a CUDA device.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "gpu/gpu_test_support.hpp"
#include "cuda/local/sat_gpu.hpp"
#include "cpu/sat/box_query.hpp"
#include "cpu/sat/sat_table.hpp"

using namespace tonekit;

namespace {


std::vector<float> random_plane(int w, int h, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> e(std::log(1e-2f), std::log(1e2f));
  std::vector<float> p(static_cast<std::size_t>(w) * h);
  for (float& v : p) v = std::exp(e(rng));
  return p;
}

double brute_box_mean(const std::vector<float>& p, int w, int h, int x, int y, int width) {
  const int r = width / 2;
  double s = 0.0;
  for (int j = y - r; j <= y + r; ++j)
    for (int i = x - r; i <= x + r; ++i) {
      const int cx = std::clamp(i, 0, w - 1), cy = std::clamp(j, 0, h - 1);
      s += p[static_cast<std::size_t>(cy) * w + cx];
    }
  return s / (static_cast<double>(width) * width);
}

struct Box {
  int x, y, width;
};
std::vector<Box> random_boxes(int w, int h, unsigned seed, int n = 4000) {
  std::mt19937 rng(seed);
  const int widths[] = {3, 5, 7, 11, 17, 25, 39};
  std::vector<Box> b(n);
  for (int i = 0; i < n; ++i) {
    // A quarter of the boxes at the borders (replicated edges), the rest anywhere.
    int x = static_cast<int>(rng() % w), y = static_cast<int>(rng() % h);
    if (i % 4 == 0) x = (rng() & 1) ? static_cast<int>(rng() % std::min(w, 20)) : w - 1 - static_cast<int>(rng() % std::min(w, 20));
    b[i] = {x, y, widths[rng() % 7]};
  }
  return b;
}

struct Case {
  int w, h;
};
const Case kSizes[] = {{1, 1}, {31, 17}, {1920, 1080}, {4097, 2161}, {7680, 4320}};
const sat::SatAlgorithm kAlgos[] = {sat::SatAlgorithm::automatic, sat::SatAlgorithm::recursive_doubling,
                                    sat::SatAlgorithm::blelloch, sat::SatAlgorithm::scan_transpose_scan,
                                    sat::SatAlgorithm::decoupled_lookback};

class GpuSat : public ::testing::TestWithParam<Case> {};

TEST_P(GpuSat, test_gpu_sat_all_algorithms_match_f64) {
  REQUIRE_GPU();
  const auto [w, h] = GetParam();
  const std::vector<float> plane = random_plane(w, h, 1234u + w);
  const std::size_t entries = sat::table_entries(w, h);
  std::vector<double> ref(entries);
  sat::build_sat_f64(plane.data(), w, h, w, ref.data());
  double largest = 0;
  for (double v : ref) largest = std::max(largest, std::fabs(v));
  const std::vector<Box> boxes = random_boxes(w, h, 99u + h);
  std::vector<double> brute(boxes.size());
  for (std::size_t i = 0; i < boxes.size(); ++i) brute[i] = brute_box_mean(plane, w, h, boxes[i].x, boxes[i].y, boxes[i].width);

  float* d_plane = nullptr;
  double* d_table = nullptr;
  CUDA_OK(cudaMalloc(&d_plane, plane.size() * sizeof(float)));
  CUDA_OK(cudaMalloc(&d_table, entries * sizeof(double)));
  CUDA_OK(cudaMemcpy(d_plane, plane.data(), plane.size() * sizeof(float), cudaMemcpyHostToDevice));
  cuda_local::SatWork work;
  ASSERT_TRUE(cuda_local::sat_work_create(w, h, work).ok());
  std::vector<double> got(entries);
  for (int radix : {2, 4}) {
    for (sat::SatAlgorithm algo : kAlgos) {
      if (radix != 2 && algo != sat::SatAlgorithm::recursive_doubling) continue;
      work.radix = radix;
      const std::string what = std::string(sat::sat_algorithm_name(algo)) + " radix " + std::to_string(radix) + " " +
                               std::to_string(w) + "x" + std::to_string(h);
      CUDA_OK(cudaMemset(d_table, 0xFF, entries * sizeof(double)));  // poison: NaN everywhere
      for (int rep = 0; rep < 2; ++rep) {  // twice: the look-back's flags of the first build are stale
        const Status s = cuda_local::build_sat_device(algo, d_plane, w, h, w, d_table, work, nullptr);
        ASSERT_TRUE(s.ok()) << what << ": " << s.message();
      }
      CUDA_OK(cudaDeviceSynchronize());
      CUDA_OK(cudaMemcpy(got.data(), d_table, entries * sizeof(double), cudaMemcpyDeviceToHost));
      double worst = 0;
      std::size_t bad = 0;
      for (std::size_t i = 0; i < entries; ++i) {
        const double d = std::fabs(got[i] - ref[i]);
        if (!(d <= 1e-11 * std::max(largest, 1.0))) ++bad;
        if (d > worst || std::isnan(d)) worst = std::isnan(d) ? INFINITY : d;
      }
      EXPECT_EQ(bad, 0u) << what << ": entries off, worst " << worst << " (largest entry " << largest << ")";
      double worst_rel = 0;
      for (std::size_t i = 0; i < boxes.size(); ++i) {
        const double m = sat::box_sum_replicated(got.data(), sat::table_pitch(w), boxes[i].x, boxes[i].y, boxes[i].width, w, h) /
                         (static_cast<double>(boxes[i].width) * boxes[i].width);
        worst_rel = std::max(worst_rel, std::fabs(m - brute[i]) / brute[i]);
      }
      EXPECT_LE(worst_rel, 1e-5) << what << ": box means";
      std::printf("[ sat  ] %-40s entries max |diff| %.3g, box means max rel %.3g\n", what.c_str(), worst, worst_rel);
    }
  }
  // The tiled float32 pairs.
  const std::size_t tn = sat::tiled_entries(w, h);
  float *d_hi = nullptr, *d_lo = nullptr;
  CUDA_OK(cudaMalloc(&d_hi, tn * sizeof(float)));
  CUDA_OK(cudaMalloc(&d_lo, tn * sizeof(float)));
  ASSERT_TRUE(cuda_local::build_sat_tiled_device(d_plane, w, h, w, d_hi, d_lo, nullptr).ok());
  std::vector<float> hi(tn), lo(tn);
  CUDA_OK(cudaMemcpy(hi.data(), d_hi, tn * sizeof(float), cudaMemcpyDeviceToHost));
  CUDA_OK(cudaMemcpy(lo.data(), d_lo, tn * sizeof(float), cudaMemcpyDeviceToHost));
  const sat::TiledLayout t = sat::tiled_layout(w, h);
  double worst_rel = 0;
  for (std::size_t i = 0; i < boxes.size(); ++i) {
    const double m = sat::tiled_box_mean_replicated(hi.data(), lo.data(), t, boxes[i].x, boxes[i].y, boxes[i].width);
    worst_rel = std::max(worst_rel, std::fabs(m - brute[i]) / brute[i]);
  }
  EXPECT_LE(worst_rel, 1e-5) << "tiled f32 pairs " << w << "x" << h;
  std::printf("[ sat  ] tiled-f32-pairs %dx%d box means max rel %.3g\n", w, h, worst_rel);
  cuda_local::sat_work_destroy(work);
  cudaFree(d_hi);
  cudaFree(d_lo);
  cudaFree(d_plane);
  cudaFree(d_table);
}

INSTANTIATE_TEST_SUITE_P(Sizes, GpuSat, ::testing::ValuesIn(kSizes), [](const auto& info) {
  return std::to_string(info.param.w) + "x" + std::to_string(info.param.h);
});

}  // namespace
