// `tonekit stream` end to end (TONEKIT_CLI, through real pipes): every input layout and every
// output layout, through a pipe and through files alike; frames in order with none lost or
// duplicated (per-frame checksums against each frame mapped alone); the readers against each
// other (p010 = yuv420p10 = y4m 10-bit = y4m 8-bit of the same codes); truncated inputs (every
// earlier frame written); a reader closing the pipe early (clean exit with a message); bad
// headers, gaps and usage errors (one line, exit 1, no output); temporal state across the stream.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "core/half.hpp"
#include "tonekit/io.hpp"
#include "tonekit/synth.hpp"
#include "tonekit/tonemap.hpp"
#include "tonekit/video.hpp"

namespace fs = std::filesystem;
using namespace tonekit;
using Bytes = std::vector<std::uint8_t>;

namespace {

constexpr int kW = 34, kH = 19;  // odd height: 4:2:0 rounds the chroma rows up

Bytes slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  return Bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}
void spit(const fs::path& p, const Bytes& b) {
  std::ofstream f(p, std::ios::binary);
  f.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
}
std::uint64_t fnv1a(const std::uint8_t* p, std::size_t n) {
  std::uint64_t h = 1469598103934665603ull;
  for (std::size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 1099511628211ull;
  return h;
}
std::vector<std::uint64_t> frame_hashes(const Bytes& b, std::size_t frame) {
  std::vector<std::uint64_t> out;
  for (std::size_t o = 0; o + frame <= b.size(); o += frame) out.push_back(fnv1a(b.data() + o, frame));
  return out;
}
void put16(Bytes& b, std::size_t at, unsigned v) {
  b[at] = static_cast<std::uint8_t>(v & 0xFF);
  b[at + 1] = static_cast<std::uint8_t>(v >> 8);
}
unsigned get16(const Bytes& b, std::size_t at) { return b[at] | (b[at + 1] << 8); }

// Frame f of a deterministic test clip in yuv420p10 (limited-range codes, a gradient that moves
// with f so every frame differs).
Bytes yuv420p10_frame(int f) {
  Bytes b(frame_bytes(InputFormat::yuv420p10, kW, kH));
  const int cw = (kW + 1) / 2, ch = (kH + 1) / 2;
  std::size_t at = 0;
  for (int y = 0; y < kH; ++y)
    for (int x = 0; x < kW; ++x, at += 2) put16(b, at, 64 + (x * 23 + y * 11 + f * 97) % 877);
  for (int p = 0; p < 2; ++p)
    for (int y = 0; y < ch; ++y)
      for (int x = 0; x < cw; ++x, at += 2) put16(b, at, 400 + (x * 13 + y * 7 + f * 31 + p * 50) % 200);
  return b;
}
// The same codes as P010: 10 bits in the high bits, Cb,Cr interleaved.
Bytes to_p010(const Bytes& yuv) {
  Bytes b(frame_bytes(InputFormat::p010, kW, kH));
  const std::size_t luma = static_cast<std::size_t>(kW) * kH, chroma = static_cast<std::size_t>((kW + 1) / 2) * ((kH + 1) / 2);
  for (std::size_t i = 0; i < luma; ++i) put16(b, 2 * i, get16(yuv, 2 * i) << 6);
  for (std::size_t i = 0; i < chroma; ++i) {
    put16(b, 2 * luma + 4 * i, get16(yuv, 2 * luma + 2 * i) << 6);
    put16(b, 2 * luma + 4 * i + 2, get16(yuv, 2 * luma + 2 * chroma + 2 * i) << 6);
  }
  return b;
}
// Scene-linear values spanning ~5 decades, moving with f.
float scene_value(int f, int x, int y, int c) {
  return 0.01f * std::exp2(static_cast<float>((x * 3 + y * 5 + c * 7 + f * 11) % 170) / 10.0f);
}
Bytes float_frame(InputFormat format, int f) {
  Bytes b(frame_bytes(format, kW, kH));
  const std::size_t n = static_cast<std::size_t>(kW) * kH;
  for (int y = 0; y < kH; ++y)
    for (int x = 0; x < kW; ++x) {
      const std::size_t i = static_cast<std::size_t>(y) * kW + x;
      for (int c = 0; c < 4; ++c) {
        const float v = c == 3 ? 1.0f : scene_value(f, x, y, c);
        switch (format) {
          case InputFormat::rgb_f32: if (c < 3) std::memcpy(&b[4 * (3 * i + c)], &v, 4); break;
          case InputFormat::rgba_f32: std::memcpy(&b[4 * (4 * i + c)], &v, 4); break;
          case InputFormat::rgba_f16: put16(b, 2 * (4 * i + c), core::float_to_half(v)); break;
          case InputFormat::gbrpf32: if (c < 3) std::memcpy(&b[4 * (n * ((c + 2) % 3) + i)], &v, 4); break;  // G, B, R
          case InputFormat::rgb48: if (c < 3) put16(b, 2 * (3 * i + c), static_cast<unsigned>(std::min(1.0f, v / 300.0f) * 65535.0f)); break;
          default: break;
        }
      }
    }
  return b;
}
Bytes clip(InputFormat format, int frames) {
  Bytes all;
  for (int f = 0; f < frames; ++f) {
    Bytes one = format == InputFormat::yuv420p10 ? yuv420p10_frame(f)
                : format == InputFormat::p010    ? to_p010(yuv420p10_frame(f))
                                                 : float_frame(format, f);
    all.insert(all.end(), one.begin(), one.end());
  }
  return all;
}
Bytes y4m_clip(int frames, int bits) {
  const std::string header = "YUV4MPEG2 W" + std::to_string(kW) + " H" + std::to_string(kH) + " F25:1 Ip A1:1 " +
                             (bits == 10 ? "C420p10" : "C420jpeg") + "\n";
  Bytes all(header.begin(), header.end());
  for (int f = 0; f < frames; ++f) {
    const std::string frame_line = "FRAME\n";
    all.insert(all.end(), frame_line.begin(), frame_line.end());
    Bytes yuv = yuv420p10_frame(f);
    if (bits == 10) {
      all.insert(all.end(), yuv.begin(), yuv.end());
    } else {  // 8-bit codes whose << 2 are the 10-bit ones (limited range keeps its meaning)
      for (std::size_t i = 0; i < yuv.size(); i += 2) all.push_back(static_cast<std::uint8_t>(get16(yuv, i) >> 2));
    }
  }
  return all;
}
// The 10-bit clip with its codes rounded to multiples of 4 (what an 8-bit y4m can hold).
Bytes yuv_clip_quantised_to_8_bits(int frames) {
  Bytes all = clip(InputFormat::yuv420p10, frames);
  for (std::size_t i = 0; i < all.size(); i += 2) put16(all, i, get16(all, i) & ~3u);
  return all;
}

const std::string kSize = " --size " + std::to_string(kW) + "x" + std::to_string(kH);
const std::size_t kRgbFrame = static_cast<std::size_t>(kW) * kH * 3;
const std::size_t kYuvFrame = output_frame_bytes(OutputLayout::yuv420p, kW, kH, 3, 1);

struct ShellRun {
  int code = -1;
  std::string err;
  int err_lines() const { return static_cast<int>(std::count(err.begin(), err.end(), '\n')); }
};

class StreamCli : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() / ("tonekit_stream_" + std::to_string(getpid()) + "_" + info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    if (!HasFailure()) fs::remove_all(dir_);
  }
  // Runs a bash script in the test folder; `$T` is the CLI. The exit code is tonekit's even in a
  // pipeline (the script should end with the pipeline; PIPESTATUS picks the stage named).
  ShellRun sh(const std::string& script, int stage = -1) {
    const std::string body = "T='" + std::string(TONEKIT_CLI) + "'; " + script +
                             (stage >= 0 ? "; exit ${PIPESTATUS[" + std::to_string(stage) + "]}" : "");
    const std::string cmd = "cd '" + dir_.string() + "' && bash -c '" + escape(body) + "' 2> stderr.txt";
    ShellRun r;
    const int status = std::system(cmd.c_str());
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    const Bytes err = slurp(dir_ / "stderr.txt");
    r.err.assign(err.begin(), err.end());
    fs::remove(dir_ / "stderr.txt");
    return r;
  }
  static std::string escape(const std::string& s) {
    std::string out;
    for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out;
  }
  void expect_failure(const std::string& args, const std::string& mention, const char* output) {
    const ShellRun r = sh("$T stream " + args);
    EXPECT_EQ(r.code, 1) << args << "\n" << r.err;
    EXPECT_EQ(r.err_lines(), 1) << args << "\n" << r.err;
    EXPECT_EQ(r.err.rfind("tonekit: error: ", 0), 0u) << r.err;
    EXPECT_NE(r.err.find(mention), std::string::npos) << "'" << mention << "' not in: " << r.err;
    if (output) EXPECT_FALSE(fs::exists(dir_ / output)) << args << " left " << output;
  }
  Bytes file(const char* name) { return slurp(dir_ / name); }
  fs::path dir_;
};

}  // namespace

TEST_F(StreamCli, EveryInputLayoutThroughAPipeAndAFile) {
  constexpr int kFrames = 3;
  for (InputFormat f : {InputFormat::p010, InputFormat::yuv420p10, InputFormat::rgb48, InputFormat::gbrpf32,
                        InputFormat::rgba_f16, InputFormat::rgb_f32, InputFormat::rgba_f32}) {
    const std::string name = input_format_name(f);
    spit(dir_ / "in.raw", clip(f, kFrames));
    const std::string args = " --input-format " + name + kSize + " --output-format rgb24 --backend cpu";
    ASSERT_EQ(sh("cat in.raw | $T stream - - " + args + " | cat > pipe.rgb", 1).code, 0) << name;
    ASSERT_EQ(sh("$T stream in.raw file.rgb " + args).code, 0) << name;
    const Bytes piped = file("pipe.rgb");
    EXPECT_EQ(piped.size(), kFrames * kRgbFrame) << name;
    EXPECT_EQ(piped, file("file.rgb")) << name;
    const auto hashes = frame_hashes(piped, kRgbFrame);
    ASSERT_EQ(hashes.size(), static_cast<std::size_t>(kFrames));
    EXPECT_NE(hashes[0], hashes[1]) << name << ": the test frames differ, so must their outputs";
    EXPECT_NE(hashes[1], hashes[2]) << name;
  }
}

TEST_F(StreamCli, EveryOutputLayoutThroughAPipeAndAFile) {
  constexpr int kFrames = 4;
  spit(dir_ / "in.y4m", y4m_clip(kFrames, 10));
  struct Out {
    const char* format;
    std::size_t frame;
  };
  for (const Out& o : {Out{"yuv420p", kYuvFrame}, Out{"nv12", kYuvFrame}, Out{"rgb24", kRgbFrame},
                       Out{"rgba", static_cast<std::size_t>(kW) * kH * 4}}) {
    ASSERT_EQ(sh(std::string("cat in.y4m | $T stream - - --backend cpu --output-format ") + o.format + " | cat > pipe.out", 1).code, 0)
        << o.format;
    ASSERT_EQ(sh(std::string("$T stream in.y4m file.out --backend cpu --output-format ") + o.format).code, 0) << o.format;
    EXPECT_EQ(file("pipe.out").size(), kFrames * o.frame) << o.format;
    EXPECT_EQ(file("pipe.out"), file("file.out")) << o.format;
  }
  // yuv420p and nv12 hold the same samples, chroma planar vs interleaved.
  ASSERT_EQ(sh("$T stream in.y4m a.yuv --backend cpu --output-format yuv420p && $T stream in.y4m a.nv12 --backend cpu --output-format nv12").code, 0);
  const Bytes planar = file("a.yuv"), semi = file("a.nv12");
  const std::size_t luma = static_cast<std::size_t>(kW) * kH, chroma = static_cast<std::size_t>((kW + 1) / 2) * ((kH + 1) / 2);
  for (int f = 0; f < kFrames; ++f) {
    const std::size_t base = f * kYuvFrame;
    ASSERT_TRUE(std::equal(planar.begin() + base, planar.begin() + base + luma, semi.begin() + base));
    for (std::size_t i = 0; i < chroma; ++i) {
      ASSERT_EQ(planar[base + luma + i], semi[base + luma + 2 * i]);
      ASSERT_EQ(planar[base + luma + chroma + i], semi[base + luma + 2 * i + 1]);
    }
  }
  // y4m: by extension to a file, by --output-format to a pipe; the same frames as raw yuv420p.
  ASSERT_EQ(sh("cat in.y4m | $T stream - - --backend cpu --output-format y4m | cat > pipe.y4m", 1).code, 0);
  ASSERT_EQ(sh("$T stream in.y4m file.y4m --backend cpu").code, 0);
  const Bytes y4m = file("pipe.y4m");
  EXPECT_EQ(y4m, file("file.y4m"));
  const std::string text(y4m.begin(), y4m.end());
  const std::size_t header_end = text.find('\n');
  EXPECT_EQ(text.substr(0, header_end), "YUV4MPEG2 W34 H19 F25:1 Ip A1:1 C420jpeg XYSCSS=420JPEG XCOLORRANGE=LIMITED");
  ASSERT_EQ(y4m.size(), header_end + 1 + kFrames * (6 + kYuvFrame));
  for (int f = 0; f < kFrames; ++f) {
    const std::size_t at = header_end + 1 + f * (6 + kYuvFrame);
    EXPECT_EQ(text.substr(at, 6), "FRAME\n");
    EXPECT_TRUE(std::equal(y4m.begin() + at + 6, y4m.begin() + at + 6 + kYuvFrame, planar.begin() + f * kYuvFrame));
  }
  // Image sequences: one whole file per frame, numbered from 1.
  ASSERT_EQ(sh("$T stream in.y4m o.%03d.png --backend cpu && $T stream in.y4m o.%03d.jpg --backend cpu && "
               "$T stream in.y4m o.%03d.exr --backend cpu").code, 0);
  for (int f = 1; f <= kFrames; ++f) {
    char name[32];
    std::snprintf(name, sizeof name, "o.%03d.png", f);
    const Bytes png = file(name);
    ASSERT_GT(png.size(), 8u) << name;
    EXPECT_EQ(std::string(png.begin() + 1, png.begin() + 4), "PNG");
    std::snprintf(name, sizeof name, "o.%03d.jpg", f);
    EXPECT_EQ(file(name).at(0), 0xFF) << name;
    std::snprintf(name, sizeof name, "o.%03d.exr", f);
    auto exr = io::read_image((dir_ / name).string());
    ASSERT_TRUE(exr.ok()) << exr.status().message();
    EXPECT_EQ(exr->width, kW);
    EXPECT_EQ(exr->height, kH);
  }
  EXPECT_FALSE(fs::exists(dir_ / "o.005.png"));
  EXPECT_FALSE(fs::exists(dir_ / "o.000.png"));
}

TEST_F(StreamCli, NoFrameLostDuplicatedOrReordered) {
  constexpr int kFrames = 12;
  const Bytes all = clip(InputFormat::gbrpf32, kFrames);
  spit(dir_ / "in.raw", all);
  const std::string args = " --input-format gbrpf32" + kSize + " --output-format rgb24 --backend cpu";
  ASSERT_EQ(sh("cat in.raw | $T stream - - " + args + " | cat > out.rgb", 1).code, 0);
  const auto streamed = frame_hashes(file("out.rgb"), kRgbFrame);
  ASSERT_EQ(streamed.size(), static_cast<std::size_t>(kFrames));
  // Each frame mapped on its own: the stream's i-th output must be exactly frame i's.
  const std::size_t in_frame = all.size() / kFrames;
  for (int f = 0; f < kFrames; ++f) {
    spit(dir_ / "one.raw", Bytes(all.begin() + f * in_frame, all.begin() + (f + 1) * in_frame));
    ASSERT_EQ(sh("$T stream one.raw one.rgb " + args).code, 0);
    const auto alone = frame_hashes(file("one.rgb"), kRgbFrame);
    ASSERT_EQ(alone.size(), 1u);
    EXPECT_EQ(streamed[f], alone[0]) << "frame " << f;
  }
  // --frames stops early, with the first frames.
  ASSERT_EQ(sh("$T stream in.raw five.rgb --frames 5 " + args).code, 0);
  const auto five = frame_hashes(file("five.rgb"), kRgbFrame);
  ASSERT_EQ(five.size(), 5u);
  EXPECT_TRUE(std::equal(five.begin(), five.end(), streamed.begin()));
}

TEST_F(StreamCli, ReadersAgreeOnTheSameCodes) {
  constexpr int kFrames = 3;
  spit(dir_ / "a.yuv420p10", clip(InputFormat::yuv420p10, kFrames));
  spit(dir_ / "a.p010", clip(InputFormat::p010, kFrames));
  spit(dir_ / "a.y4m", y4m_clip(kFrames, 10));
  spit(dir_ / "q.yuv420p10", yuv_clip_quantised_to_8_bits(kFrames));
  spit(dir_ / "q8.y4m", y4m_clip(kFrames, 8));
  const std::string common = " --backend cpu --output-format rgb24";
  ASSERT_EQ(sh("$T stream a.yuv420p10 1.rgb --input-format yuv420p10" + kSize + common).code, 0);
  ASSERT_EQ(sh("$T stream a.p010 2.rgb --input-format p010" + kSize + common).code, 0);
  ASSERT_EQ(sh("$T stream a.y4m 3.rgb" + common).code, 0);
  ASSERT_EQ(sh("$T stream q.yuv420p10 4.rgb --input-format yuv420p10" + kSize + common).code, 0);
  ASSERT_EQ(sh("$T stream q8.y4m 5.rgb" + common).code, 0);
  EXPECT_EQ(file("1.rgb").size(), kFrames * kRgbFrame);
  EXPECT_EQ(file("1.rgb"), file("2.rgb")) << "p010 vs yuv420p10";
  EXPECT_EQ(file("1.rgb"), file("3.rgb")) << "y4m C420p10 vs raw yuv420p10";
  EXPECT_EQ(file("4.rgb"), file("5.rgb")) << "y4m 8-bit vs the same codes at 10 bits";
  // The colour flags reach the decoder: HLG reads the same codes differently.
  ASSERT_EQ(sh("$T stream a.y4m 6.rgb --transfer hlg" + common).code, 0);
  EXPECT_NE(file("1.rgb"), file("6.rgb"));
}

TEST_F(StreamCli, TruncatedInputWritesEveryEarlierFrame) {
  const Bytes all = clip(InputFormat::yuv420p10, 4);
  const std::size_t frame = all.size() / 4;
  spit(dir_ / "full.raw", all);
  spit(dir_ / "cut.raw", Bytes(all.begin(), all.begin() + 3 * frame + frame / 2));
  const std::string args = " --input-format yuv420p10" + kSize + " --backend cpu --output-format rgb24";
  ASSERT_EQ(sh("$T stream full.raw full.rgb" + args).code, 0);
  const Bytes full = file("full.rgb");
  ShellRun r = sh("cat cut.raw | $T stream - - " + args + " | cat > cut.rgb", 1);
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_EQ(r.err_lines(), 1) << r.err;
  EXPECT_NE(r.err.find("truncated frame 3"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("the 3 frames before it were written"), std::string::npos) << r.err;
  EXPECT_EQ(file("cut.rgb"), Bytes(full.begin(), full.begin() + 3 * kRgbFrame));
  // A regular file with --backend cpu is read in place (SourceOptions::zero_copy: frames point
  // into a mapping of it): the same frames as through the pipe, and the same truncation error.
  ASSERT_EQ(sh("cat full.raw | $T stream - piped.rgb" + args).code, 0);
  EXPECT_EQ(file("piped.rgb"), full);
  r = sh("$T stream cut.raw cut_mapped.rgb" + args);
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_NE(r.err.find("truncated frame 3"), std::string::npos) << r.err;
  EXPECT_EQ(file("cut_mapped.rgb"), Bytes(full.begin(), full.begin() + 3 * kRgbFrame));

  // y4m: cut inside a frame's data, and a corrupt FRAME line.
  const Bytes y4m = y4m_clip(4, 10);
  spit(dir_ / "cut.y4m", Bytes(y4m.begin(), y4m.end() - 100));
  r = sh("$T stream cut.y4m cut2.rgb --backend cpu --output-format rgb24");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("truncated frame 3"), std::string::npos) << r.err;
  EXPECT_EQ(file("cut2.rgb"), Bytes(full.begin(), full.begin() + 3 * kRgbFrame));
  Bytes corrupt = y4m;
  const std::string text(y4m.begin(), y4m.end());
  const std::size_t second = text.find("FRAME\n", text.find("FRAME\n") + 1);
  corrupt[second] = 'X';
  spit(dir_ / "corrupt.y4m", corrupt);
  r = sh("$T stream corrupt.y4m c.rgb --backend cpu --output-format rgb24");
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err_lines(), 1) << r.err;
  EXPECT_NE(r.err.find("frame 1: expected a 'FRAME' line"), std::string::npos) << r.err;
  EXPECT_EQ(file("c.rgb"), Bytes(full.begin(), full.begin() + kRgbFrame));
}

TEST_F(StreamCli, EarlyClosedOutputExitsCleanly) {
  // 40 frames of 256x144 RGBA (5.9 MB) into a reader that takes 1000 bytes and leaves.
  Bytes frame(frame_bytes(InputFormat::rgb_f32, 256, 144));
  for (std::size_t i = 0; i < frame.size() / 4; ++i) {
    const float v = 0.05f * static_cast<float>(i % 97);
    std::memcpy(&frame[4 * i], &v, 4);
  }
  Bytes all;
  for (int f = 0; f < 40; ++f) all.insert(all.end(), frame.begin(), frame.end());
  spit(dir_ / "in.raw", all);
  for (const char* input : {"in.raw", "-"}) {
    const std::string feed = std::string(input) == "-" ? "cat in.raw | " : "";
    const int stage = feed.empty() ? 0 : 1;
    const ShellRun r = sh(feed + "$T stream " + input + " - --input-format rgb_f32 --size 256x144 --output-format rgba --backend cpu | head -c 1000 > head.out", stage);
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.err_lines(), 1) << r.err;
    EXPECT_NE(r.err.find("stdout was closed by its reader"), std::string::npos) << r.err;
    EXPECT_EQ(file("head.out").size(), 1000u);
  }
}

TEST_F(StreamCli, BadInputsFailWithOneLineAndNoOutput) {
  spit(dir_ / "in.raw", clip(InputFormat::yuv420p10, 2));
  auto y4m_with = [&](const std::string& header) {
    std::string s = header + "\nFRAME\n" + std::string(4000, '\x40');
    spit(dir_ / "h.y4m", Bytes(s.begin(), s.end()));
  };
  y4m_with("YUV4MPEG2 W34 H19 F25:1 It C420p10");
  expect_failure("h.y4m out.y4m", "interlaced", "out.y4m");
  y4m_with("YUV4MPEG2 W34 F25:1 C420p10");
  expect_failure("h.y4m out.y4m", "H (height)", "out.y4m");
  y4m_with("YUV4MPEG2 W34 H19 C444p12");
  expect_failure("h.y4m out.y4m", "unsupported chroma", "out.y4m");
  y4m_with("YUV4MPEG2 W34 H19 F25 C420p10");
  expect_failure("h.y4m out.y4m", "frame rate", "out.y4m");
  expect_failure("in.raw out.yuv", "give --input-format", "out.yuv");
  expect_failure("in.raw out.yuv --input-format yuv420p10", "give --input-format", "out.yuv");
  expect_failure("in.raw out.yuv --input-format nope --size 34x19", "unknown input format", "out.yuv");
  struct Case {
    const char* args;
    const char* mention;
    const char* output;
  };
  for (const Case& c : std::vector<Case>{
      {"out.yuv --size 34by19", "WxH", "out.yuv"},
      {"out.yuv --size 34x19 --output-format rgb48", "--output-format", "out.yuv"},
      {"out.png --size 34x19", "%d sequence pattern", "out.png"},
      {"o.%04d.hdr --size 34x19", ".png, .jpg or .exr", nullptr},
      {"out.yuv --size 34x19 --transfer gamma", "unknown transfer", "out.yuv"},
      {"out.yuv --size 34x19 --op nope", "unknown operator", "out.yuv"},
      {"out.yuv --size 34x19 --fps 0", "--fps", "out.yuv"},
      {"out.yuv --size 34x19 --temporal-set tau=1", "unknown temporal parameter", "out.yuv"},
  })
    expect_failure(std::string("in.raw ") + c.args + " --input-format yuv420p10", c.mention, c.output);
  expect_failure("missing.raw out.yuv --input-format yuv420p10 --size 34x19", "no such file", "out.yuv");
  expect_failure("in.raw in.raw --input-format yuv420p10 --size 34x19", "its own input", nullptr);
  // A truncated first frame: nothing to write, so no output file either.
  spit(dir_ / "short.raw", Bytes(100, 0x10));
  expect_failure("short.raw out.yuv --input-format yuv420p10 --size 34x19", "truncated frame 0", "out.yuv");
}

TEST_F(StreamCli, ImageSequencesInAndOut) {
  for (int i = 1; i <= 3; ++i) {
    Image image(kW, kH, 3);
    for (int y = 0; y < kH; ++y)
      for (int x = 0; x < kW; ++x)
        for (int c = 0; c < 3; ++c) image.row(y)[3 * x + c] = scene_value(i, x, y, c);
    char name[32];
    std::snprintf(name, sizeof name, "shot.%04d.exr", i);
    ASSERT_TRUE(io::write_exr((dir_ / name).string(), image, false).ok());
  }
  ASSERT_EQ(sh("$T stream shot.%04d.exr out.%04d.png --backend cpu").code, 0);
  // The same pixels as tonekit map on each file.
  for (int i = 1; i <= 3; ++i) {
    const std::string n = std::to_string(i);
    ASSERT_EQ(sh("$T map shot.000" + n + ".exr map" + n + ".png --backend cpu").code, 0);
    EXPECT_EQ(file(("out.000" + n + ".png").c_str()), file(("map" + n + ".png").c_str())) << i;
  }
  // --start, and y4m out of a sequence.
  ASSERT_EQ(sh("$T stream shot.%04d.exr - --start 2 --output-format rgb24 --backend cpu > two.rgb").code, 0);
  EXPECT_EQ(file("two.rgb").size(), 2 * kRgbFrame);
  // A damaged frame in the middle (frames are decoded ahead on worker threads): every frame before
  // it is written, in order, then one error line naming it.
  for (int i = 1; i <= 8; ++i) {
    char name[32];
    std::snprintf(name, sizeof name, "bad.%04d.exr", i);
    if (i == 6) fs::copy_file(fs::path(TONEKIT_SOURCE_DIR) / "tests/bad_inputs/corrupt_zip.exr", dir_ / name);
    else fs::copy_file(dir_ / ("shot.000" + std::to_string(1 + (i % 3)) + ".exr"), dir_ / name);
  }
  const ShellRun bad = sh("$T stream bad.%04d.exr bad.rgb --output-format rgb24 --backend cpu");
  EXPECT_EQ(bad.code, 1) << bad.err;
  EXPECT_EQ(bad.err_lines(), 1) << bad.err;
  EXPECT_NE(bad.err.find("bad.0006.exr"), std::string::npos) << bad.err;
  const Bytes five = file("bad.rgb");
  ASSERT_EQ(five.size(), 5 * kRgbFrame);
  for (int i = 1; i <= 5; ++i) {  // frame i is shot 1 + (i % 3), as mapped alone
    const std::string n = std::to_string(1 + (i % 3));
    ASSERT_EQ(sh("$T stream shot.%04d.exr one.rgb --start " + n + " --frames 1 --output-format rgb24 --backend cpu").code, 0);
    EXPECT_TRUE(std::equal(five.begin() + (i - 1) * kRgbFrame, five.begin() + i * kRgbFrame, file("one.rgb").begin()))
        << "frame " << i;
  }
  // A gap in the numbering is an error before anything is written.
  fs::rename(dir_ / "shot.0002.exr", dir_ / "shot.0005.exr");
  expect_failure("shot.%04d.exr gap.%04d.png", "gap in the numbering", "gap.0001.png");
  expect_failure("none.%04d.exr gap.%04d.png", "no files match", "gap.0001.png");
  expect_failure("shot.%04d.exr x.%04d.png --start 4", "does not exist", "x.0004.png");
}

TEST_F(StreamCli, TemporalStateCarriedAcrossTheStream) {
  constexpr int kFrames = 16;
  ASSERT_EQ(sh("$T synth night-drive seq.y4m --frames " + std::to_string(kFrames) + " --size 64x36").code, 0);
  ASSERT_EQ(sh("cat seq.y4m | $T stream - a.yuv --backend cpu --temporal --temporal-log a.csv").code, 0);
  ASSERT_EQ(sh("$T stream seq.y4m b.yuv --backend cpu --temporal --temporal-log b.csv").code, 0);
  ASSERT_EQ(sh("$T stream seq.y4m c.yuv --backend cpu").code, 0);
  EXPECT_EQ(file("a.yuv"), file("b.yuv")) << "deterministic, pipe or file";
  EXPECT_EQ(file("a.csv"), file("b.csv"));
  EXPECT_NE(file("a.yuv"), file("c.yuv")) << "adaptation changes the frames";
  // One row per frame: frame, own key, adapted key, own peak, adapted peak, cut.
  const Bytes log = file("a.csv");
  std::istringstream csv(std::string(log.begin(), log.end()));
  std::string line;
  std::getline(csv, line);
  EXPECT_EQ(line, "frame,frame_log_average,adapted_log_average,frame_peak,adapted_peak,cut");
  std::vector<std::vector<double>> rows;
  while (std::getline(csv, line)) {
    std::vector<double> row;
    std::stringstream ss(line);
    for (std::string cell; std::getline(ss, cell, ',');) row.push_back(std::stod(cell));
    rows.push_back(row);
  }
  ASSERT_EQ(rows.size(), static_cast<std::size_t>(kFrames));
  EXPECT_EQ(rows[0][5], 1.0) << "the first frame seeds the state";
  EXPECT_EQ(rows[0][1], rows[0][2]);
  int adapting = 0, cut_at = -1;
  for (int f = 1; f < kFrames; ++f) {
    if (rows[f][5] == 0.0 && std::fabs(rows[f][2] / rows[f][1] - 1.0) > 0.01) ++adapting;
    if (rows[f][5] == 1.0 && std::string(synth::sequence_phase("night-drive", f, kFrames)) == "cut") cut_at = f;
  }
  EXPECT_GE(adapting, 3) << "the state lags the frames between cuts: it was carried, not reset";
  const int first_cut_frame = [&] {
    for (int f = 0; f < kFrames; ++f)
      if (std::string(synth::sequence_phase("night-drive", f, kFrames)) == "cut") return f;
    return -1;
  }();
  EXPECT_EQ(cut_at, first_cut_frame) << "the hard cut resets the state";
  // Same frames at another rate, same time span: a quarter of the frames at a quarter of the rate.
  ASSERT_EQ(sh("$T stream seq.y4m d.yuv --backend cpu --temporal --fps 7.5 --temporal-log d.csv").code, 0);
  EXPECT_NE(file("d.csv"), file("a.csv")) << "the time step 1/fps reaches the model";
}

// The fast path (src/cpu/video_fast.hpp: 10-bit YUV -> yuv420p/nv12 on the CPU) against the
// reference's curves (--exact): the same layout, >= 99.5 % of the bytes equal, none more than one
// code apart (measured: 0.03-0.2 % differ), over transfers, primaries, range, dither, operators
// (global ones fused: decode, statistics, map and encode in two passes; local ones through the
// reference's map), the robust peak, temporal adaptation; at the CPU's level and at the lower
// ones (TONEKIT_CPU_LEVEL; tests/unit/test_isa_levels.cpp checks that they give the same bytes).
TEST_F(StreamCli, FastPathWithinOneCodeOfTheReference) {
  ASSERT_EQ(sh("$T synth night-drive odd.y4m --frames 12 --size 67x35").code, 0);  // odd: edge blocks
  ASSERT_EQ(sh("$T synth night-drive wide.y4m --frames 3 --size 333x131").code, 0);  // several row chunks
  for (const char* input : {"odd.y4m", "wide.y4m"})
    for (const char* env : {"", "TONEKIT_CPU_LEVEL=v3 ", "TONEKIT_CPU_LEVEL=baseline "})
      for (const char* extra : {"", " --output-format nv12", " --set dither=0", " --transfer linear",
                                " --primaries bt709 --matrix bt709", " --range full", " --op drago", " --op log",
                                " --op histeq", " --op reinhard-sat", " --set peak_percentile=99.99", " --temporal"}) {
        const std::string what = std::string(input) + " " + env + extra;
        ASSERT_EQ(sh(std::string(env) + "$T stream " + input + " fast.yuv --backend cpu" + extra).code, 0) << what;
        ASSERT_EQ(sh(std::string("$T stream ") + input + " exact.yuv --backend cpu --exact" + extra).code, 0) << what;
        const Bytes fast = file("fast.yuv"), exact = file("exact.yuv");
        ASSERT_EQ(fast.size(), exact.size()) << what;
        std::size_t differ = 0;
        int worst = 0;
        for (std::size_t i = 0; i < fast.size(); ++i) {
          const int d = std::abs(static_cast<int>(fast[i]) - static_cast<int>(exact[i]));
          differ += d != 0;
          worst = std::max(worst, d);
        }
        EXPECT_LE(worst, 1) << what;
        EXPECT_LE(differ, fast.size() / 200) << what << ": " << differ << " of " << fast.size() << " bytes differ";
      }
}

// --backend cuda: the whole frame on the device (tonekit::DeviceFrameMapper over the ToneMapper's
// decode stage, passes, temporal state and 4:2:0 encode) against the CPU reference (--exact), the
// same stream with temporal adaptation and the per-frame log. Skips without a GPU.
TEST_F(StreamCli, CudaBackendMatchesTheReference) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device (or a build without CUDA): the cuda backend is not run";
  ASSERT_EQ(sh("$T synth night-drive seq.y4m --frames 12 --size 131x75").code, 0);
  for (const char* extra : {"", " --output-format nv12", " --op reinhard-sat", " --output-format rgba"}) {
    ASSERT_EQ(sh(std::string("$T stream seq.y4m gpu.out --backend cuda --temporal --temporal-log gpu.csv") + extra).code,
              0) << extra;
    ASSERT_EQ(sh(std::string("$T stream seq.y4m cpu.out --backend cpu --exact --temporal --temporal-log cpu.csv") + extra)
                  .code,
              0) << extra;
    const Bytes gpu = file("gpu.out"), cpu = file("cpu.out");
    ASSERT_EQ(gpu.size(), cpu.size()) << extra;
    std::size_t differ = 0;
    int worst = 0;
    for (std::size_t i = 0; i < gpu.size(); ++i) {
      const int d = std::abs(static_cast<int>(gpu[i]) - static_cast<int>(cpu[i]));
      differ += d != 0;
      worst = std::max(worst, d);
    }
    EXPECT_LE(worst, std::string(extra).find("sat") != std::string::npos ? 2 : 1) << extra;
    EXPECT_LE(differ, gpu.size() / 1000) << extra << ": " << differ << " of " << gpu.size() << " bytes differ";
    // The same cuts and adapted keys, frame by frame.
    const Bytes a = file("gpu.csv"), b = file("cpu.csv");
    std::istringstream ga(std::string(a.begin(), a.end())), cb(std::string(b.begin(), b.end()));
    std::string la, lb;
    int rows = 0;
    while (std::getline(ga, la) && std::getline(cb, lb)) {
      if (rows++ == 0) continue;
      std::vector<double> x, y;
      std::stringstream sa(la), sb(lb);
      for (std::string c; std::getline(sa, c, ',');) x.push_back(std::stod(c));
      for (std::string c; std::getline(sb, c, ',');) y.push_back(std::stod(c));
      ASSERT_EQ(x.size(), 6u);
      ASSERT_EQ(y.size(), 6u);
      EXPECT_NEAR(x[2] / y[2], 1.0, 1e-5) << extra << " frame " << x[0];
      EXPECT_EQ(x[5], y[5]) << extra << " frame " << x[0];
    }
    EXPECT_EQ(rows, 13) << extra;
  }
}

// --backend cuda keeps three frames in flight, reads ahead while CUDA starts, and page-locks the
// stream's own frame buffers (frames of 256 KiB and more) once they come round again: a 40-frame
// stream from a file, through a pipe, and through a pipe whose producer stalls twice (the
// pending frames must still come out), all the same bytes, frame for frame, and within the
// reference's tolerance of the CPU's. Skips without a GPU.
TEST_F(StreamCli, CudaFramesInFlightKeepOrderAndState) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device (or a build without CUDA): the cuda backend is not run";
  ASSERT_EQ(sh("$T synth night-drive seq.y4m --frames 40 --size 640x360").code, 0);
  const std::string args = " --backend cuda --temporal --op reinhard-sat --output-format rgb24";
  ASSERT_EQ(sh("$T stream seq.y4m file.rgb" + args).code, 0);
  ASSERT_EQ(sh("cat seq.y4m | $T stream - - " + args + " | cat > pipe.rgb", 1).code, 0);
  // 640 x 360: 4:2:0 10-bit in and rgb24 out are both 691200 bytes a frame (the y4m adds FRAME\n).
  const std::size_t frame = std::size_t(640) * 360 * 3, in_frame = frame + 6;
  const std::string stall = "(head -c " + std::to_string(4000 + 3 * in_frame) + " seq.y4m; sleep 0.6; tail -c +" +
                            std::to_string(4001 + 3 * in_frame) + " seq.y4m | head -c " + std::to_string(20 * in_frame) +
                            "; sleep 0.4; tail -c +" + std::to_string(4001 + 23 * in_frame) + " seq.y4m)";
  ASSERT_EQ(sh(stall + " | $T stream - - " + args + " > stalled.rgb", 1).code, 0);
  ASSERT_EQ(sh("$T stream seq.y4m cpu.rgb --backend cpu --exact --temporal --op reinhard-sat --output-format rgb24").code, 0);
  const Bytes a = file("file.rgb"), b = file("pipe.rgb"), c = file("stalled.rgb"), cpu = file("cpu.rgb");
  ASSERT_EQ(a.size(), 40 * frame);
  EXPECT_TRUE(a == b) << "file and pipe differ";
  EXPECT_TRUE(a == c) << "a stalled producer changed the output";
  // The clip changes often enough that frames out of order or a state stepped out of order would
  // show against the CPU's frames (some consecutive frames of the synthetic drive are equal).
  const auto hashes = frame_hashes(a, frame);
  EXPECT_GE(std::set<std::uint64_t>(hashes.begin(), hashes.end()).size(), 10u);
  ASSERT_EQ(cpu.size(), a.size());
  const auto worst_difference = [](const Bytes& x, const Bytes& y) {
    int worst = 0;
    for (std::size_t i = 0; i < x.size(); ++i) worst = std::max(worst, std::abs(int(x[i]) - int(y[i])));
    return worst;
  };
  EXPECT_LE(worst_difference(a, cpu), 2);

  // The same stream on both backends: the CPU's frames within the tolerance, in order.
  const auto backends_agree = [&](const std::string& in, const std::string& args, std::size_t frames,
                                  const std::string& what, const std::string& cpu_flags) {
    ASSERT_EQ(sh("$T stream " + in + " " + what + "_gpu.rgb --backend cuda" + args).code, 0);
    ASSERT_EQ(sh("$T stream " + in + " " + what + "_cpu.rgb --backend cpu" + cpu_flags + args).code, 0);
    const Bytes g = file((what + "_gpu.rgb").c_str()), c = file((what + "_cpu.rgb").c_str());
    ASSERT_EQ(g.size(), frames * frame) << what;
    ASSERT_EQ(c.size(), g.size()) << what;
    EXPECT_LE(worst_difference(g, c), 2) << what;
  };
  // An EXR sequence: each frame a newly decoded image (never page-locked: a freed image's address
  // comes back for the next one).
  ASSERT_EQ(sh("$T synth night-drive shot.%04d.exr --frames 16 --size 640x360").code, 0);
  backends_agree("shot.%04d.exr", " --temporal --op reinhard-sat --output-format rgb24", 16, "seq", "");
  // The robust peak through the video path (the y4m's PQ decoded on the device), temporal on, and
  // not the frames with the brightest pixel as the peak.
  backends_agree("seq.y4m", " --temporal --op drago --set peak_percentile=99.99 --output-format rgb24", 40, "rp",
                 " --exact");
  ASSERT_EQ(sh("$T stream seq.y4m max_cpu.rgb --backend cpu --exact --temporal --op drago --output-format rgb24").code, 0);
  EXPECT_FALSE(file("max_cpu.rgb") == file("rp_cpu.rgb")) << "peak_percentile changed nothing";
}

// --devices splits each frame over the GPUs (MultiGpuToneMapper): the stream's bytes are the one-GPU
// stream's, temporal adaptation included; what it cannot split is refused with the reason.
TEST_F(StreamCli, DevicesSplitFramesOverGpus) {
  for (int i = 1; i <= 6; ++i) {
    Image image(256, 160, 3);
    for (int y = 0; y < 160; ++y)
      for (int x = 0; x < 256; ++x)
        for (int c = 0; c < 3; ++c) image.row(y)[3 * x + c] = scene_value(i, x % kW, y % kH, c) * (i == 4 ? 50.0f : 1.0f);
    char name[32];
    std::snprintf(name, sizeof name, "shot.%04d.exr", i);
    ASSERT_TRUE(io::write_exr((dir_ / name).string(), image, false).ok());
  }
  if (!cuda_available()) {
    expect_failure("shot.%04d.exr out.rgba --output-format rgba --devices 0", "cuda backend", "out.rgba");
    return;
  }
  std::string all = "0";
  for (int d = 1; d < cuda_device_count(); ++d) all += "," + std::to_string(d);
  for (const char* op : {"reinhard", "reinhard-sat"}) {
    const std::string common = std::string(" --output-format rgba --backend cuda --temporal --op ") + op;
    ASSERT_EQ(sh("$T stream shot.%04d.exr one.rgba" + common).code, 0) << op;
    const ShellRun split = sh("$T stream shot.%04d.exr many.rgba --devices " + all + common);
    ASSERT_EQ(split.code, 0) << op << ": " << split.err;
    const Bytes one = file("one.rgba"), many = file("many.rgba");
    EXPECT_EQ(one.size(), std::size_t(6) * 256 * 160 * 4) << op;
    EXPECT_TRUE(one == many) << op << " on devices " << all;
  }
  if (cuda_device_count() > 1) {
    ASSERT_EQ(sh("$T synth night-drive seq.y4m --frames 2 --size 131x150").code, 0);
    expect_failure("seq.y4m split.yuv --backend cuda --devices 0,1", "splits each frame", "split.yuv");
  }
}

// `tonekit demo` shows the sequence per frame and with --temporal, with the key plot.
TEST_F(StreamCli, DemoShowsTheSequence) {
  const ShellRun r = sh("$T demo --out d --size 32x18 --repeat 1 --scenes gradient-ramp --sequence-frames 12 --backend cpu > /dev/null");
  ASSERT_EQ(r.code, 0) << r.err;
  const Bytes keys = file("d/sequence/keys.csv");
  EXPECT_EQ(std::count(keys.begin(), keys.end(), '\n'), 13) << "a header and one row per frame";
  const Bytes svg = file("d/sequence/keys.svg");
  EXPECT_EQ(std::string(svg.begin(), svg.begin() + 4), "<svg");
  for (const char* clip : {"per_frame", "temporal"})
    EXPECT_TRUE(fs::exists(dir_ / "d" / "sequence" / (std::string(clip) + ".mp4")) ||
                fs::exists(dir_ / "d" / "sequence" / (std::string(clip) + ".y4m")))
        << clip;
  const Bytes html = file("d/index.html");
  EXPECT_NE(std::string(html.begin(), html.end()).find("sequence/keys.svg"), std::string::npos);
}

// The progress line: drawn on a terminal (util-linux `script` gives the run one), with the frame
// count, rate and time left; nothing at all on stderr when it is a file or a pipe.
TEST_F(StreamCli, ProgressOnlyOnATerminal) {
  spit(dir_ / "in.y4m", y4m_clip(6, 10));
  const ShellRun quiet = sh("$T stream in.y4m out.yuv --backend cpu");
  EXPECT_EQ(quiet.code, 0);
  EXPECT_EQ(quiet.err, "") << "stderr is a file here: no progress line";
  if (std::system("command -v script > /dev/null 2>&1") != 0) GTEST_SKIP() << "util-linux script not installed";
  const ShellRun tty = sh("script -qfec \"$T stream in.y4m out2.yuv --backend cpu\" /dev/null > tty.txt");
  EXPECT_EQ(tty.code, 0) << tty.err;
  const Bytes seen = file("tty.txt");
  const std::string text(seen.begin(), seen.end());
  EXPECT_NE(text.find("frame 1/6"), std::string::npos) << text;
  EXPECT_NE(text.find("fps"), std::string::npos) << text;
  EXPECT_NE(text.find("left"), std::string::npos) << text;
  EXPECT_EQ(file("out.yuv"), file("out2.yuv"));
}

// Memory stays bounded whatever the input's length: peak RSS (GNU time's %M) for 400 frames within
// 25 % of that for 20 (measured: 8.9 MB vs 9.5 MB), with every frame written.
TEST_F(StreamCli, MemoryBoundedWhateverTheLength) {
  if (std::system("test -x /usr/bin/time") != 0) GTEST_SKIP() << "GNU time not installed";
  long peak[2] = {0, 0};
  const int frames[2] = {20, 400};
  const std::size_t in_frame = frame_bytes(InputFormat::rgb_f32, 256, 144);
  for (int i = 0; i < 2; ++i) {
    const std::string n = std::to_string(frames[i]);
    const ShellRun r = sh("head -c " + std::to_string(frames[i] * in_frame) +
                              " /dev/zero | /usr/bin/time -f %M -o rss.txt $T stream - - --input-format rgb_f32 "
                              "--size 256x144 --output-format rgb24 --backend cpu | wc -c > count.txt",
                          1);
    ASSERT_EQ(r.code, 0) << r.err;
    const Bytes count = file("count.txt"), rss = file("rss.txt");
    EXPECT_EQ(std::stoll(std::string(count.begin(), count.end())), frames[i] * 256LL * 144 * 3) << n;
    peak[i] = std::stol(std::string(rss.begin(), rss.end()));
  }
  EXPECT_LE(peak[1], peak[0] + peak[0] / 4) << peak[0] << " KB for 20 frames, " << peak[1] << " KB for 400";
}
