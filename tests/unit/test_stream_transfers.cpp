// The fast video path's AVX-512 transfer curves (cpu/video_fast_transfers.hpp) against core's
// (video_colour.hpp): the PQ EOTF bit for bit against the reference's table, the BT.709 OETF
// against the double curve; dense and random samples, segment edges, the ends of the range,
// out-of-range and odd-length inputs (the masked tail).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#include "core/video_colour.hpp"
#include "cpu/video_fast_transfers.hpp"

using namespace tonekit;

namespace {

bool skip_without_avx512() {
  if (__builtin_cpu_supports("avx512f")) return false;
  std::printf("[  SKIPPED ] this CPU has no AVX-512: the fast path runs its portable loops (tested by StreamCli)\n");
  return true;
}

// Samples: a dense grid, every segment edge of both curves (and one float either side), the
// ends, and random values; `extra` appends out-of-range ones.
std::vector<float> samples(bool extra) {
  std::vector<float> v;
  for (int i = 0; i <= 200000; ++i) v.push_back(static_cast<float>(i / 200000.0));
  for (int s = 0; s <= 32; ++s) {
    const float e = static_cast<float>(s / 32.0);
    v.insert(v.end(), {std::nextafter(e, 0.0f), e, std::nextafter(e, 1.0f)});
  }
  for (int o = -6; o <= 0; ++o)
    for (int j = 0; j < 4; ++j) {
      const float e = static_cast<float>(std::ldexp(1.0 + j / 4.0, o - 1));
      v.insert(v.end(), {std::nextafter(e, 0.0f), e, std::nextafter(e, 1.0f)});
    }
  v.insert(v.end(), {0.0f, 1e-30f, 1e-7f, 0.018f, std::nextafter(0.018f, 0.0f), 1.0f});
  std::mt19937 rng(20261126);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  for (int i = 0; i < 100000; ++i) v.push_back(u(rng));
  if (extra) v.insert(v.end(), {-1.0f, -1e-9f, 1.5f, 1e30f});
  v.push_back(0.5f);  // an odd count: the last vector is a masked one
  if (v.size() % 16 == 0) v.push_back(0.25f);
  return v;
}

}  // namespace

TEST(StreamTransfers, PqEotfIsTheReferenceTableBitForBit) {
  if (skip_without_avx512()) return;
  const std::vector<float> in = samples(true);
  std::vector<float> out = in;
  const float scale = 1.0f / 203.0f;
  cpu::pq_eotf_avx512(out.data(), static_cast<int>(out.size()), scale);
  const float* table = core::pq_eotf_table_host();
  std::size_t differ = 0;
  for (std::size_t i = 0; i < in.size(); ++i) {
    const float want = core::pq_eotf_table(table, in[i]) * scale;
    differ += out[i] != want;
    if (out[i] != want) ADD_FAILURE() << "signal " << in[i] << ": " << out[i] << " against the reference's " << want;
    if (differ > 5) break;
  }
  EXPECT_EQ(differ, 0u);
  // And the table is the curve: the stated accuracy of core's table (test_video_colour.cpp) holds
  // for what the fast path returns, at the samples above 0.02 cd/m^2.
  double worst = 0.0;
  for (std::size_t i = 0; i < in.size(); ++i) {
    const double x = std::clamp(static_cast<double>(in[i]), 0.0, 1.0);
    if (x < 1.0 / 32.0) continue;
    const double want = core::pq_eotf(x) * scale;
    worst = std::max(worst, std::abs(out[i] - want) / want);
  }
  std::printf("PQ EOTF: worst relative error against the double curve %.3g (signal >= 1/32)\n", worst);
  EXPECT_LT(worst, 1e-5);
}

TEST(StreamTransfers, Bt709OetfWithinItsStatedError) {
  if (skip_without_avx512()) return;
  const std::vector<float> in = samples(true);
  std::vector<float> out = in;
  cpu::bt709_oetf_avx512(out.data(), static_cast<int>(out.size()));
  double worst = 0.0;
  for (std::size_t i = 0; i < in.size(); ++i) {
    ASSERT_TRUE(std::isfinite(out[i])) << "L " << in[i];
    const float l = std::clamp(in[i], 0.0f, 1.0f);
    if (l < 0.018f) {  // the branch as the float encoders take it (0.018f is above 0.018)
      EXPECT_EQ(out[i], 4.5f * l) << "the linear part is exact, L " << in[i];
      continue;
    }
    const double want = 1.099 * std::pow(static_cast<double>(l), 0.45) - 0.099;
    worst = std::max(worst, std::abs(out[i] - want) / want);
  }
  std::printf("BT.709 OETF: worst relative error %.3g\n", worst);
  // 1.5e-7 fitted (1.3e-7 measured); an 8-bit code is 1/219 of the range: < 0.0001 of a code.
  EXPECT_LT(worst, 4e-7);
}

TEST(StreamTransfers, EveryLengthAndOffsetAgreesWithTheFullVectors) {
  if (skip_without_avx512()) return;
  // The masked tail must compute what a full vector computes, and touch nothing past n.
  std::vector<float> base(64);
  for (std::size_t i = 0; i < base.size(); ++i) base[i] = static_cast<float>(i) / 63.0f;
  std::vector<float> full = base, full_oetf = base;
  cpu::pq_eotf_avx512(full.data(), 64, 1.0f);
  cpu::bt709_oetf_avx512(full_oetf.data(), 64);
  for (int n = 0; n <= 40; ++n)
    for (int off = 0; off < 3; ++off) {
      std::vector<float> a(base), b(base);
      cpu::pq_eotf_avx512(a.data() + off, n, 1.0f);
      cpu::bt709_oetf_avx512(b.data() + off, n);
      for (int i = 0; i < 64; ++i) {
        const bool inside = i >= off && i < off + n;
        EXPECT_EQ(a[static_cast<std::size_t>(i)], inside ? full[static_cast<std::size_t>(i)] : base[static_cast<std::size_t>(i)]) << n << " " << off << " " << i;
        EXPECT_EQ(b[static_cast<std::size_t>(i)], inside ? full_oetf[static_cast<std::size_t>(i)] : base[static_cast<std::size_t>(i)]) << n << " " << off << " " << i;
      }
    }
}

TEST(StreamTransfers, CodesAreCoresQuantisationBitForBit) {
  if (skip_without_avx512()) return;
  // Display R'G'B' over [-0.1, 1.1] (clamping both ends), with and without dither noise, 37
  // pixels (two full vectors and a masked tail) against core::rgb_to_ycbcr_bt709 + luma_code8's
  // quantisation; then 4:2:0 blocks against core::block_mean + chroma_codes8's.
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-0.1f, 1.1f);
  for (const bool dither : {false, true}) {
    const int n = 37, y = 5;
    std::vector<float> r(n), g(n), b(n), noise(n, 0.0f), code(n), cb(n), cr(n);
    for (int x = 0; x < n; ++x) {
      r[x] = u(rng), g[x] = u(rng), b[x] = u(rng);
      if (dither) noise[x] = core::dither_noise(x, y, 0);
    }
    r[0] = g[0] = b[0] = 0.0f;  // black: code 16 exactly, no noise
    r[1] = g[1] = b[1] = 1.0f;  // white: 235
    cpu::luma_codes_avx512(r.data(), g.data(), b.data(), noise.data(), n, code.data(), cb.data(), cr.data());
    for (int x = 0; x < n; ++x) {
      float luma, want_cb, want_cr;
      core::rgb_to_ycbcr_bt709(r[x], g[x], b[x], luma, want_cb, want_cr);
      EXPECT_EQ(code[x], static_cast<float>(core::luma_code8(luma, dither, x, y))) << x;
      EXPECT_EQ(cb[x], want_cb) << x;
      EXPECT_EQ(cr[x], want_cr) << x;
    }
    for (const bool two_rows : {false, true}) {
      const int blocks = 41;  // two vectors of 16, the rest left to the caller
      std::vector<float> cbt(2 * blocks), cbb(2 * blocks), crt(2 * blocks), crb(2 * blocks);
      std::vector<float> ncb(blocks, 0.0f), ncr(blocks, 0.0f), cbc(blocks, -1.0f), crc(blocks, -1.0f);
      std::uniform_real_distribution<float> c(-0.7f, 0.7f);
      for (auto* v : {&cbt, &cbb, &crt, &crb})
        for (float& e : *v) e = c(rng);
      const int by = 3;
      if (dither)
        for (int bx = 0; bx < blocks; ++bx) {
          const std::uint32_t h = core::dither_pixel_hash(2 * bx, core::dither_row_seed(2 * by));
          ncb[bx] = core::dither_noise_from_hash(h, 1);
          ncr[bx] = core::dither_noise_from_hash(h, 2);
        }
      const int done = cpu::chroma_codes_avx512(cbt.data(), cbb.data(), crt.data(), crb.data(), blocks, two_rows,
                                                   ncb.data(), ncr.data(), cbc.data(), crc.data());
      EXPECT_EQ(done, 32);
      for (int bx = 0; bx < blocks; ++bx) {
        if (bx >= done) {
          EXPECT_EQ(cbc[bx], -1.0f) << "nothing written past the vectors";
          continue;
        }
        const int rows = two_rows ? 2 : 1;
        unsigned want_cb, want_cr;
        core::chroma_codes8(core::block_mean(cbt[2 * bx], cbt[2 * bx + 1], cbb[2 * bx], cbb[2 * bx + 1], 2, rows),
                            core::block_mean(crt[2 * bx], crt[2 * bx + 1], crb[2 * bx], crb[2 * bx + 1], 2, rows), dither,
                            bx, by, want_cb, want_cr);
        EXPECT_EQ(cbc[bx], static_cast<float>(want_cb)) << bx << (two_rows ? " two rows" : " one row");
        EXPECT_EQ(crc[bx], static_cast<float>(want_cr)) << bx << (two_rows ? " two rows" : " one row");
      }
    }
  }
}

// The levels below AVX-512 evaluate the same curves (cpu/isa_level.hpp: the same bytes on every
// level): the AVX2 kernels and the portable lane (bt709_oetf_piecewise, the reference's PQ table)
// give the AVX-512 kernels' floats bit for bit, every length (the tails) included.
TEST(StreamTransfers, EveryLevelGivesTheSameFloats) {
  const std::vector<float> in = samples(true);
  const int n = static_cast<int>(in.size());
  const float scale = 1.0f / 203.0f;
  std::vector<float> oetf_portable = in, pq_portable = in;
  const cpu::OetfPieces& pieces = cpu::bt709_oetf_pieces();
  const float* table = core::pq_eotf_table_host();
  for (int i = 0; i < n; ++i) {
    oetf_portable[i] = cpu::bt709_oetf_piecewise(in[i], pieces);
    pq_portable[i] = core::pq_eotf_table(table, in[i]) * scale;
  }
  auto expect_same = [&](const std::vector<float>& got, const std::vector<float>& want, const char* what) {
    std::size_t differ = 0;
    for (std::size_t i = 0; i < got.size(); ++i)
      if (std::memcmp(&got[i], &want[i], 4) != 0 && ++differ <= 5)
        ADD_FAILURE() << what << ": input " << in[i] << " gives " << got[i] << " against " << want[i];
    EXPECT_EQ(differ, 0u) << what;
  };
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    for (int len : {n, n - 1, n - 5, 7, 1, 0}) {
      std::vector<float> o(in), p(in);
      cpu::bt709_oetf_avx2(o.data(), len);
      cpu::pq_eotf_avx2(p.data(), len, scale);
      for (int i = len; i < n; ++i) {  // nothing written past len
        ASSERT_EQ(std::memcmp(&o[i], &in[i], 4), 0) << "bt709_oetf_avx2 wrote past " << len;
        ASSERT_EQ(std::memcmp(&p[i], &in[i], 4), 0) << "pq_eotf_avx2 wrote past " << len;
        o[i] = oetf_portable[i];
        p[i] = pq_portable[i];
      }
      expect_same(o, oetf_portable, "bt709_oetf_avx2");
      expect_same(p, pq_portable, "pq_eotf_avx2");
    }
  } else {
    std::printf("[  SKIPPED ] no AVX2 + FMA: the AVX2 kernels are not run\n");
  }
  if (skip_without_avx512()) return;
  std::vector<float> o(in), p(in);
  cpu::bt709_oetf_avx512(o.data(), n);
  cpu::pq_eotf_avx512(p.data(), n, scale);
  expect_same(o, oetf_portable, "bt709_oetf_avx512 against the portable lane");
  expect_same(p, pq_portable, "pq_eotf_avx512 against the reference's table");
}
