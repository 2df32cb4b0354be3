// The split of a frame over several GPUs (tonekit/multi_gpu.hpp, issue 19), host side: the bands
// cover the frame once, top to bottom, on aligned boundaries, with the context each operator
// reads (clipped at the frame's edges); and the context rows per operator.
#include <gtest/gtest.h>

#include <string>

#include "tonekit/multi_gpu.hpp"

namespace tonekit {
namespace {

int context_of(const char* op) {
  Result<Params> p = prepare_params(op);
  EXPECT_TRUE(p.ok()) << op;
  return p.ok() ? operator_context_rows(*p) : -1;
}

TEST(FrameBands, ContextRowsPerOperator) {
  for (const OperatorDesc* op : all_operators())
    if (op->locality == Locality::global) EXPECT_EQ(context_of(op->id), 0) << op->id;
  EXPECT_EQ(context_of("reinhard-sat"), 19);    // half the 39-pixel box
  EXPECT_EQ(context_of("reinhard-local"), 27);  // ceil(4 sigma) of the largest Gaussian
  EXPECT_EQ(context_of("drago-local"), 3);      // the default 7 x 7 window
  Result<Params> wide = prepare_params("drago-local", {{"window", "31"}});
  ASSERT_TRUE(wide.ok()) << wide.status().message();
  EXPECT_EQ(operator_context_rows(*wide), 15);
  // The pyramid operators' top level spans the frame: every band takes all the other rows.
  for (const char* op : {"local-laplacian", "exposure-fusion"}) {
    EXPECT_GE(context_of(op), 1 << 20) << op;
    auto bands = plan_bands(4320, {0, 1, 2}, context_of(op));
    ASSERT_TRUE(bands.ok()) << bands.status().message();
    for (const FrameBand& b : *bands) EXPECT_EQ(b.context_above + b.rows + b.context_below, 4320) << op;
  }
}

TEST(FrameBands, CoverTheFrameOnAlignedBoundaries) {
  for (int height : {64, 127, 128, 129, 1080, 2161, 4320, 8640, 17280})
    for (int n : {1, 2, 3, 4, 8})
      for (int context : {0, 19, 64, 100}) {
        if (height < 64 * n) {
          EXPECT_FALSE(plan_bands(height, std::vector<int>(n, 0), context).ok()) << height << " / " << n;
          continue;
        }
        std::vector<int> devices;
        for (int i = 0; i < n; ++i) devices.push_back(10 + i);
        auto bands = plan_bands(height, devices, context);
        ASSERT_TRUE(bands.ok()) << bands.status().message();
        ASSERT_EQ(bands->size(), std::size_t(n));
        const int rounded = (context + 63) / 64 * 64;
        int next = 0, smallest = height, largest = 0;
        for (int i = 0; i < n; ++i) {
          const FrameBand& b = (*bands)[i];
          const std::string where = std::to_string(height) + " rows, " + std::to_string(n) + " bands, band " + std::to_string(i);
          EXPECT_EQ(b.device, 10 + i) << where;
          EXPECT_EQ(b.first_row, next) << where;
          EXPECT_EQ(b.first_row % 64, 0) << where;
          EXPECT_GT(b.rows, 0) << where;
          EXPECT_EQ(b.context_above, std::min(rounded, b.first_row)) << where;
          EXPECT_EQ(b.context_below, std::min(rounded, height - b.first_row - b.rows)) << where;
          EXPECT_EQ(b.input_first_row(), b.first_row - b.context_above);
          EXPECT_LE(b.input_first_row() + b.input_rows(), height) << where;
          next = b.first_row + b.rows;
          smallest = std::min(smallest, b.rows);
          largest = std::max(largest, b.rows);
        }
        EXPECT_EQ(next, height);
        EXPECT_LE(largest - smallest, 64) << height << " rows over " << n;  // equal within one block
      }
}

TEST(FrameBands, ClearErrors) {
  EXPECT_EQ(plan_bands(1080, {}, 0).status().code(), StatusCode::invalid_argument);
  EXPECT_EQ(plan_bands(1080, {0}, -1).status().code(), StatusCode::invalid_argument);
  EXPECT_EQ(plan_bands(1080, {0}, 0, 0).status().code(), StatusCode::invalid_argument);
  const Status few = plan_bands(100, {0, 1}, 0).status();
  EXPECT_EQ(few.code(), StatusCode::invalid_argument);
  EXPECT_NE(few.message().find("100 rows"), std::string::npos) << few.message();
  EXPECT_TRUE(plan_bands(100, {0, 1}, 0, 32).ok());
}

// gather_rows' ownership rule: the parts of a frame cover the array once, in order, whatever the
// split; a row belongs to the part holding its first frame row (rows before/after the frame: the
// first/last part).
TEST(FrameBands, OwnedArrayRowsCoverTheArrayOnce) {
  struct Geometry { int height, shift, offset, rows; };
  const Geometry cases[] = {{257, 0, 0, 257}, {8640, 6, 2048, (8640 + 2 * 2048 + 63) / 64}, {1001, 3, 40, 140},
                            {333, 2, 5, 90}, {64, 6, 64, 3}};
  for (const Geometry& g : cases)
    for (int parts : {1, 2, 3, 4, 7}) {
      if (g.height < parts) continue;
      int next = 0;
      for (int p = 0; p < parts; ++p) {
        const int f0 = g.height * p / parts, f1 = g.height * (p + 1) / parts;
        const auto [a, b] = owned_array_rows(f0, f1, g.height, g.shift, g.offset, g.rows);
        EXPECT_EQ(a, next) << "height " << g.height << " parts " << parts << " part " << p;
        EXPECT_LE(a, b);
        for (int r = a; r < b; ++r) {  // each owned row's first frame row is the part's (or off the frame at its edge)
          const long long first = (static_cast<long long>(r) << g.shift) - g.offset;
          if (first >= 0 && first < g.height) {
            EXPECT_GE(first, f0);
            EXPECT_LT(first, f1);
          } else {
            EXPECT_TRUE((first < 0 && p == 0) || (first >= g.height && p == parts - 1));
          }
        }
        next = b;
      }
      EXPECT_EQ(next, g.rows) << "height " << g.height << " parts " << parts;
    }
}

TEST(FrameBands, GlareContextRows) {
  GlareParams g;
  EXPECT_EQ(glare_context_rows(g, 7680, 4320).value(), 0) << "glare off";
  g.strength = 0.1;
  const Result<int> r8k = glare_context_rows(g, 7680, 4320), r4k = glare_context_rows(g, 3840, 2160);
  ASSERT_TRUE(r8k.ok() && r4k.ok());
  EXPECT_EQ(r8k.value(), 31) << "8K: octaves from level 5";
  EXPECT_EQ(r4k.value(), 15) << "4K: from level 4";
  EXPECT_LE(glare_context_rows(g, 15360, 8640).value(), 63);
  g.method = "gaussian";
  EXPECT_EQ(glare_context_rows(g, 7680, 4320).status().code(), StatusCode::unsupported);
  g.method = "pyramid-quasi";
  g.radius = 0.9;
  EXPECT_EQ(glare_context_rows(g, 7680, 4320).status().code(), StatusCode::invalid_argument);
}

}  // namespace
}  // namespace tonekit
