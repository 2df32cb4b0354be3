// tonekit::CpuToneMapper (include/tonekit/cpu_tone_mapper.hpp): the CPU pipeline with the device
// ToneMapper's shape. Its reference path gives cpu::tone_map_frame's bytes and tone_map_temporal's
// temporal state; the fused video path stays within one code of it; strided planes give the
// packed frame's bytes; the temporal state is read, reset and seeded as on the device; bad
// configurations and frames are refused at the boundary. `tonekit stream --backend cpu` runs
// every frame through it (tests/unit/test_stream_cli.cpp covers the CLI's bytes).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "tonekit/cpu_tone_mapper.hpp"
#include "tonekit/synth.hpp"
#include "tonekit/temporal.hpp"
#include "tonekit/video_tonemap.hpp"

using namespace tonekit;

namespace {

using Bytes = std::vector<std::uint8_t>;

// Odd sizes: the last chroma column and row cover one luma sample.
constexpr int kW = 67, kH = 35;

Image scene_frame(int index, int count = 8) {
  auto img = synth::render_sequence_frame("night-drive", index, count, kW, kH);
  EXPECT_TRUE(img.ok()) << img.status().message();
  return std::move(img.value());
}

Bytes pq_frame(int index) {
  Bytes out;
  synth::encode_pq_yuv420p10(scene_frame(index), Primaries::bt2020, out);
  return out;
}

InputColour pq_colour() {
  InputColour c;
  c.transfer = Transfer::pq;
  c.primaries = Primaries::bt2020;
  return c;
}

CpuToneMapperConfig config(InputFormat input, const InputColour& colour, OutputLayout layout, const char* op = "reinhard") {
  CpuToneMapperConfig c;
  c.width = kW;
  c.height = kH;
  c.input = input;
  c.colour = colour;
  c.output_layout = layout;
  c.output = {PixelType::u8, 3};
  auto params = prepare_params(op);
  EXPECT_TRUE(params.ok());
  c.params = params.value();
  return c;
}

std::unique_ptr<CpuToneMapper> make(const CpuToneMapperConfig& c) {
  auto m = CpuToneMapper::create(c);
  EXPECT_TRUE(m.ok()) << m.status().message();
  return m.ok() ? std::move(m.value()) : nullptr;
}

Bytes run(CpuToneMapper& m, const Bytes& frame, double dt = 0.0) {
  Bytes out(m.output_bytes());
  const Status s = m.process(packed_planes(m.config().input, frame.data(), kW, kH), out.data(), 0, dt);
  EXPECT_TRUE(s.ok()) << s.message();
  return out;
}

}  // namespace

TEST(CpuToneMapper, ReferencePathGivesToneMapFramesBytes) {
  Bytes gbr;
  synth::encode_gbrpf32(scene_frame(3), gbr);
  struct Case {
    InputFormat format;
    InputColour colour;
    Bytes frame;
  };
  const Case cases[] = {{InputFormat::yuv420p10, pq_colour(), pq_frame(3)}, {InputFormat::gbrpf32, InputColour{}, gbr}};
  for (const Case& k : cases)
    for (OutputLayout layout : {OutputLayout::yuv420p, OutputLayout::nv12, OutputLayout::interleaved})
      for (const char* op : {"reinhard", "histeq", "reinhard-sat"}) {
        CpuToneMapperConfig c = config(k.format, k.colour, layout, op);
        c.exact = true;
        auto m = make(c);
        ASSERT_TRUE(m);
        EXPECT_FALSE(m->fast_path());
        const Bytes got = run(*m, k.frame);
        Bytes want;
        FrameStats want_stats;
        ASSERT_TRUE(cpu::tone_map_frame(packed_planes(k.format, k.frame.data(), kW, kH), k.format, k.colour, kW, kH,
                                        c.params, layout, c.output, want, &want_stats)
                        .ok());
        EXPECT_EQ(got, want) << input_format_name(k.format) << " " << output_layout_name(layout) << " " << op;
        FrameStats stats, adapted;
        ASSERT_TRUE(m->read_stats(stats, &adapted).ok());
        EXPECT_EQ(stats.log_average, want_stats.log_average);
        EXPECT_EQ(stats.max_luminance, want_stats.max_luminance);
        EXPECT_EQ(adapted.log_average, stats.log_average) << "no temporal adaptation: the curves read the frame's own";
      }
}

// The fused path (10-bit 4:2:0 PQ -> yuv420p, gamma 0) within one code of the reference, as the
// stream's FastPathWithinOneCodeOfTheReference states it for the CLI.
TEST(CpuToneMapper, FusedVideoPathWithinOneCodeOfTheReference) {
  for (const char* op : {"reinhard", "drago", "reinhard-sat"}) {
    CpuToneMapperConfig c = config(InputFormat::yuv420p10, pq_colour(), OutputLayout::yuv420p, op);
    auto fast = make(c);
    c.exact = true;
    auto exact = make(c);
    ASSERT_TRUE(fast && exact);
    EXPECT_TRUE(fast->fast_path());
    const Bytes frame = pq_frame(5);
    const Bytes a = run(*fast, frame), b = run(*exact, frame);
    ASSERT_EQ(a.size(), b.size());
    std::size_t differ = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
      EXPECT_LE(std::abs(int(a[i]) - int(b[i])), 1) << op << " byte " << i;
      differ += a[i] != b[i];
    }
    EXPECT_LE(differ, a.size() / 200) << op;
  }
  // gamma != 0 leaves the fused path (its OETF is BT.709's).
  CpuToneMapperConfig c = config(InputFormat::yuv420p10, pq_colour(), OutputLayout::yuv420p);
  auto m = make(c);
  ASSERT_TRUE(m);
  auto gamma = prepare_params("reinhard", {{"gamma", "2.2"}});
  ASSERT_TRUE(gamma.ok());
  ASSERT_TRUE(m->set_params(gamma.value()).ok());
  EXPECT_FALSE(m->fast_path());
}

TEST(CpuToneMapper, StridedPlanesGiveThePackedFramesBytes) {
  const Bytes packed = pq_frame(2);
  const InputFormat f = InputFormat::yuv420p10;
  // Each plane copied with 40 bytes of padding after every row.
  std::vector<Bytes> planes(3);
  FramePlanes strided;
  const FramePlanes src = packed_planes(f, packed.data(), kW, kH);
  for (int p = 0; p < 3; ++p) {
    const std::size_t row = plane_row_bytes(f, p, kW), stride = row + 40;
    const int rows = plane_rows(f, p, kH);
    planes[p].assign(stride * rows, 0xEE);
    for (int y = 0; y < rows; ++y)
      std::memcpy(planes[p].data() + stride * y, static_cast<const std::uint8_t*>(src.data[p]) + row * y, row);
    strided.data[p] = planes[p].data();
    strided.stride[p] = stride;
  }
  for (bool exact : {false, true}) {
    CpuToneMapperConfig c = config(f, pq_colour(), OutputLayout::nv12);
    c.exact = exact;
    auto m = make(c);
    ASSERT_TRUE(m);
    const Bytes want = run(*m, packed);
    Bytes got(m->output_bytes());
    ASSERT_TRUE(m->process(strided, got.data(), 0).ok());
    EXPECT_EQ(got, want) << (exact ? "reference" : "fused");
  }
}

// The temporal state lives in the object: the same model and state as tone_map_temporal (the host
// API's CPU path) frame by frame, then reset (the next frame seeds it) and seed.
TEST(CpuToneMapper, TemporalStateFollowsToneMapTemporal) {
  CpuToneMapperConfig c = config(InputFormat::rgb_f32, InputColour{}, OutputLayout::interleaved);
  c.temporal = true;
  auto m = make(c);
  ASSERT_TRUE(m);
  const double dt = 1.0 / 30.0;
  TemporalState host;
  for (int i = 0; i < 8; ++i) {
    const Image frame = scene_frame(i);
    Bytes in(frame.pixels.size() * sizeof(float));
    std::memcpy(in.data(), frame.pixels.data(), in.size());
    const Bytes got = run(*m, in, dt);
    OutputImage want;
    ASSERT_TRUE(tone_map_temporal(frame.view(), c.params, c.output, Backend::cpu, host, c.temporal_params, dt, want).ok());
    EXPECT_EQ(got, want.bytes) << "frame " << i;
    TemporalState state;
    ASSERT_TRUE(m->read_temporal_state(state).ok());
    EXPECT_EQ(state.frames, host.frames);
    EXPECT_EQ(state.log_key, host.log_key);
    EXPECT_EQ(state.log_peak, host.log_peak);
  }
  ASSERT_TRUE(m->reset_temporal().ok());
  TemporalState state;
  ASSERT_TRUE(m->read_temporal_state(state).ok());
  EXPECT_EQ(state.seeded, 0u);
  Bytes in(scene_frame(0).pixels.size() * sizeof(float));
  std::memcpy(in.data(), scene_frame(0).pixels.data(), in.size());
  run(*m, in, dt);
  ASSERT_TRUE(m->read_temporal_state(state).ok());
  EXPECT_EQ(state.frames, 1u) << "the frame after a reset seeds the state";
  // Seeding: a second mapper seeded with the first's state maps the next frame identically.
  auto other = make(c);
  ASSERT_TRUE(other && other->seed_temporal(state).ok());
  EXPECT_EQ(run(*m, in, dt), run(*other, in, dt));
  // Off: the curves read the frame's own statistics again.
  ASSERT_TRUE(m->set_temporal(false, c.temporal_params).ok());
  run(*m, in, dt);
  FrameStats own, adapted;
  ASSERT_TRUE(m->read_stats(own, &adapted).ok());
  EXPECT_EQ(own.log_average, adapted.log_average);
}

TEST(CpuToneMapper, RefusesBadConfigurationsAndFrames) {
  CpuToneMapperConfig c = config(InputFormat::yuv420p10, pq_colour(), OutputLayout::yuv420p);
  c.width = 0;
  EXPECT_EQ(CpuToneMapper::create(c).status().code(), StatusCode::invalid_argument);
  c = config(InputFormat::yuv420p10, pq_colour(), OutputLayout::yuv420p);
  c.colour.reference_white = 0.0;
  EXPECT_FALSE(CpuToneMapper::create(c).ok());
  c = config(InputFormat::rgb_f32, InputColour{}, OutputLayout::interleaved);
  c.output.channels = 2;
  EXPECT_EQ(CpuToneMapper::create(c).status().code(), StatusCode::invalid_argument);

  auto m = make(config(InputFormat::yuv420p10, pq_colour(), OutputLayout::yuv420p));
  ASSERT_TRUE(m);
  const Bytes frame = pq_frame(0);
  Bytes out(m->output_bytes());
  // Planar layouts need FramePlanes; 4:2:0 outputs are packed; strides below a row; null planes.
  EXPECT_EQ(m->process(frame.data(), 0, out.data(), 0).code(), StatusCode::invalid_argument);
  FramePlanes planes = packed_planes(InputFormat::yuv420p10, frame.data(), kW, kH);
  EXPECT_EQ(m->process(planes, out.data(), 64).code(), StatusCode::invalid_argument);
  FramePlanes narrow = planes;
  narrow.stride[0] = 2;
  EXPECT_EQ(m->process(narrow, out.data(), 0).code(), StatusCode::invalid_argument);
  FramePlanes missing = planes;
  missing.data[2] = nullptr;
  EXPECT_EQ(m->process(missing, out.data(), 0).code(), StatusCode::invalid_argument);
  EXPECT_TRUE(m->process(planes, out.data(), 0).ok());
}
