// The stream pipeline below the CLI: what each source says it fills (the size of the buffers
// the pipeline prepares ahead of the reader), and run_stream with a mapper that starts slowly
// (backend auto: the path where input frames are made on a thread of their own and read ahead)
// giving the CPU backend's frames in order. On a machine without a GPU, auto settles on the CPU
// and the bytes must be equal; with one, the device's frames are within the reference's 2 codes.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <thread>

#include "stream/frame_io.hpp"
#include "stream/frame_mapper.hpp"
#include "stream/pipeline.hpp"
#include "tonekit/operators.hpp"
#include "tonekit/tonemap.hpp"

namespace fs = std::filesystem;
using namespace tonekit;
using namespace tonekit::stream;

namespace {

class StreamPipeline : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("tonekit_stream_pipeline_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const char* name) const { return (dir_ / name).string(); }
  void write(const char* name, const std::string& bytes) const {
    std::ofstream(path(name), std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }
  std::string read(const char* name) const {
    std::ifstream f(path(name), std::ios::binary);
    return {std::istreambuf_iterator<char>(f), {}};
  }
  fs::path dir_;
};

std::string random_bytes(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::string s(n, '\0');
  for (char& c : s) c = static_cast<char>(rng() & 0xFF);
  return s;
}

}  // namespace

TEST_F(StreamPipeline, BufferBytesIsWhatNextFills) {
  struct Case {
    const char* name;
    std::string header;                 // y4m; empty: raw frames
    std::optional<InputFormat> format;  // raw
    std::size_t frame;                  // bytes of one frame in the file
  };
  const int w = 33, h = 19;  // odd: chroma rounds up
  const std::size_t chroma = std::size_t(17) * 10;
  const Case cases[] = {
      {"p010", "", InputFormat::p010, frame_bytes(InputFormat::p010, w, h)},
      {"rgba_f16", "", InputFormat::rgba_f16, frame_bytes(InputFormat::rgba_f16, w, h)},
      {"y4m10", "YUV4MPEG2 W33 H19 F25:1 C420p10\n", std::nullopt, 2 * (std::size_t(w) * h + 2 * chroma)},
      {"y4m8", "YUV4MPEG2 W33 H19 F25:1 C420jpeg\n", std::nullopt, std::size_t(w) * h + 2 * chroma},
  };
  for (const Case& c : cases) {
    std::string file = c.header;
    for (int i = 0; i < 2; ++i) file += (c.header.empty() ? "" : "FRAME\n") + random_bytes(c.frame, i);
    write(c.name, file);
    for (const bool zero_copy : {false, true}) {
      SourceOptions o;
      o.path = path(c.name);
      o.format = c.format;
      if (c.format) o.size = std::pair{w, h};
      o.zero_copy = zero_copy;
      auto source = open_source(o, nullptr);
      ASSERT_TRUE(source.ok()) << c.name << ": " << source.status().message();
      Frame frame;
      auto more = (*source)->next(frame);
      ASSERT_TRUE(more.ok() && *more) << c.name;
      const std::string what = std::string(c.name) + (zero_copy ? " (zero copy)" : "");
      if (frame.view) {
        EXPECT_EQ((*source)->buffer_bytes(), 0u) << what << ": frames are views, nothing to prepare";
      } else {
        EXPECT_GT(frame.bytes.size(), 0u) << what;
        EXPECT_EQ((*source)->buffer_bytes(), frame.bytes.size()) << what;
      }
      // 8-bit y4m is widened on reading: never a view, even from a mapped file.
      if (std::string(c.name) == "y4m8") EXPECT_EQ(frame.view, nullptr) << what;
    }
    // Through a pipe nothing can be a view, zero copy or not: the buffers are always filled.
    const std::string fifo = path("fifo");
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    std::thread writer([&] { std::ofstream(fifo, std::ios::binary).write(file.data(), static_cast<std::streamsize>(file.size())); });
    SourceOptions o;
    o.path = fifo;
    o.format = c.format;
    if (c.format) o.size = std::pair{w, h};
    o.zero_copy = true;
    auto source = open_source(o, nullptr);
    Frame frame;
    bool read = false;
    if (source.ok()) {
      while (true) {  // drain, so that the writer finishes
        auto more = (*source)->next(frame);
        if (!more.ok() || !*more) break;
        read = true;
        EXPECT_EQ(frame.view, nullptr) << c.name << " through a pipe";
        EXPECT_EQ((*source)->buffer_bytes(), frame.bytes.size()) << c.name << " through a pipe";
      }
    }
    writer.join();
    fs::remove(fifo);
    ASSERT_TRUE(source.ok()) << c.name << ": " << source.status().message();
    EXPECT_TRUE(read) << c.name << " through a pipe";
  }
}

TEST_F(StreamPipeline, SlowStartingMapperGivesTheCpuFramesInOrder) {
  // Linear float RGB with a wide range, every frame different, through the pipeline twice.
  const int w = 97, h = 41, frames = 23;
  std::vector<float> px(std::size_t(w) * h * 3 * frames);
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> stops(-8.0f, 8.0f);
  for (float& v : px) v = std::exp2(stops(rng));
  write("in.rgbf", std::string(reinterpret_cast<const char*>(px.data()), px.size() * sizeof(float)));
  auto params = prepare_params("reinhard-sat");
  ASSERT_TRUE(params.ok());

  auto run = [&](Backend backend, const char* out, StreamOutcome& outcome) {
    SourceOptions so;
    so.path = path("in.rgbf");
    so.format = InputFormat::rgb_f32;
    so.size = std::pair{w, h};
    Cancel cancel;
    auto source = open_source(so, &cancel);
    ASSERT_TRUE(source.ok()) << source.status().message();
    MapperSetup ms;
    ms.width = w;
    ms.height = h;
    ms.format = InputFormat::rgb_f32;
    ms.params = *params;
    ms.backend = backend;
    ms.out = OutputKind::rgb24;
    auto mapper = FrameMapper::create(ms);
    ASSERT_TRUE(mapper.ok()) << mapper.status().message();
    EXPECT_EQ((*mapper)->slow_start(), backend != Backend::cpu);
    SinkOptions sink_options;
    sink_options.path = path(out);
    sink_options.kind = OutputKind::rgb24;
    sink_options.width = w;
    sink_options.height = h;
    auto sink = make_sink(sink_options);
    outcome = run_stream(**source, **mapper, *sink, cancel, -1);
  };
  StreamOutcome slow, cpu;
  run(Backend::automatic, "auto.rgb", slow);
  run(Backend::cpu, "cpu.rgb", cpu);
  for (const StreamOutcome* o : {&slow, &cpu}) {
    EXPECT_TRUE(o->reader_status.ok()) << o->reader_status.message();
    EXPECT_TRUE(o->mapper_status.ok()) << o->mapper_status.message();
    EXPECT_TRUE(o->writer_status.ok()) << o->writer_status.message();
    EXPECT_EQ(o->frames_read, frames);
    EXPECT_EQ(o->frames_written, frames);
  }
  EXPECT_GE(slow.read_ahead_frames, 0);
  EXPECT_LE(slow.read_ahead_frames, static_cast<int>(kMaxReadAheadFrames));
  const std::string a = read("auto.rgb"), b = read("cpu.rgb");
  ASSERT_EQ(a.size(), std::size_t(w) * h * 3 * frames);
  ASSERT_EQ(b.size(), a.size());
  if (!cuda_available()) {
    EXPECT_TRUE(a == b) << "auto settled on the CPU: the bytes must be the CPU backend's";
    return;
  }
  int worst = 0;
  for (std::size_t i = 0; i < a.size(); ++i)
    worst = std::max(worst, std::abs(int(static_cast<unsigned char>(a[i])) - int(static_cast<unsigned char>(b[i]))));
  // Every frame is different noise: a frame out of order would be far more than 2 codes off.
  EXPECT_LE(worst, 2) << "the device's frames against the CPU's";
}
