// `tonekit video` end to end on HDR10+ (TONEKIT_CLI): the HDR10 test clip's video (libx265,
// 10-bit PQ BT.2020, 128x72, 12 frames, MaxCLL 1000) gets ST 2094-40 SEI messages injected
// (hdr10plus_sei.hpp; Debian's libx265 cannot write them) for two scenes, frames 0-5 with maxscl
// 600 cd/m^2 and 6-11 with 2000, and is muxed into MKV with `ffmpeg -c copy`. Checked: ffprobe
// reads the maxscl written on every frame; `--summary` says HDR10+ was used on 12 frames with
// scene peaks 600-2000; each scene's frames are the bytes of a run with `--peak 600` / `--peak
// 2000` on the clip without HDR10+, brighter / darker than with MaxCLL's 1000; frames without
// HDR10+ have MaxCLL's peak; `--peak` and `--peak measured` override HDR10+ and the summary says
// so; frame count and BT.709 tags. Skips with the reason when ffmpeg, ffprobe or libx265 are missing.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "unit/cli_runner.hpp"
#include "video/hdr10plus_sei.hpp"
#include "video/video_suite.hpp"

namespace fs = std::filesystem;
using tonekit::test::CliResult;
using tonekit::test::run_tonekit;

namespace {

using namespace tonekit::test;

constexpr int kFrames = 12, kSceneCut = 6;
constexpr unsigned kPeakA = 600, kPeakB = 2000;  // cd/m^2; the static peak (MaxCLL) is 1000
constexpr std::size_t kLuma = 128 * 72, kFrameBytes = kLuma * 3 / 2;

// maxscl in 0.1 cd/m^2: red the brightest (the scene's peak), green and blue below it.
std::vector<unsigned> maxscl_of(unsigned peak_cd) { return {peak_cd * 10, peak_cd * 8, peak_cd * 5}; }

Hdr10PlusFrame scene(unsigned peak_cd) {
  Hdr10PlusFrame f;
  const std::vector<unsigned> m = maxscl_of(peak_cd);
  for (int c = 0; c < 3; ++c) f.maxscl[c] = m[c];
  f.average_maxrgb = peak_cd * 2;
  return f;
}

// Per frame of ffprobe -show_frames: whether it has HDR10+ side data, and its maxscl numerators.
struct ProbedFrame {
  bool hdr10plus = false;
  std::vector<unsigned> maxscl;
};
std::vector<ProbedFrame> probe_hdr10plus(const fs::path& file) {
  std::istringstream text(shell("ffprobe -v error -select_streams v:0 -show_frames " + quoted(file)));
  std::vector<ProbedFrame> frames;
  for (std::string line; std::getline(text, line);) {
    if (line == "[FRAME]") frames.emplace_back();
    if (frames.empty()) continue;
    if (line == "side_data_type=HDR Dynamic Metadata SMPTE2094-40 (HDR10+)") frames.back().hdr10plus = true;
    if (line.rfind("maxscl=", 0) == 0) {
      EXPECT_NE(line.find("/100000"), std::string::npos) << line;
      frames.back().maxscl.push_back(static_cast<unsigned>(std::atol(line.c_str() + 7)));
    }
  }
  return frames;
}

double mean(const Bytes& b) {
  double sum = 0;
  for (unsigned char v : b) sum += v;
  return b.empty() ? 0.0 : sum / static_cast<double>(b.size());
}

class VideoHdr10Plus : public VideoSuite<VideoHdr10Plus> {
 protected:
  static void SetUpTestSuite() {
    if (!open_suite("tonekit_hdr10plus")) return;
    skip_ = make_hdr10_hevc(dir(), "clip.hevc");
    if (!skip_.empty()) return;
    const Bytes hevc = slurp(dir() / "clip.hevc");
    std::vector<Hdr10PlusFrame> two_scenes;
    for (int i = 0; i < kFrames; ++i) two_scenes.push_back(scene(i < kSceneCut ? kPeakA : kPeakB));
    spit(dir() / "plus.hevc", inject_hdr10plus(hevc, two_scenes));
    // HDR10+ from the second scene on only: the first scene has the static peak. (Not the other
    // way round: FFmpeg 5.1's HEVC decoder keeps the last HDR10+ SEI on every later frame.)
    spit(dir() / "late.hevc",
         inject_hdr10plus(hevc, std::vector<Hdr10PlusFrame>(kFrames - kSceneCut, scene(kPeakB)), kSceneCut));
    for (const char* name : {"clip", "plus", "late"}) {
      const std::string cmd = "cd " + quoted(dir()) + " && ffmpeg -nostdin -v error -y -framerate 25 -i " + name +
                              ".hevc -c copy " + name + ".mkv";
      if (std::system(cmd.c_str()) != 0) {
        skip_ = "ffmpeg could not mux the HEVC stream: " + cmd;
        return;
      }
    }
  }
  // `tonekit video INPUT out_NAME.mkv --codec rawvideo --backend cpu --summary ARGS` (MKV, since
  // NUT keeps no colour tags); the output's frames decoded to yuv420p, one Bytes each; `err`
  // gets stderr.
  static std::vector<Bytes> map(const std::string& input, const std::string& name, const std::string& args,
                                std::string* err = nullptr) {
    const std::string out = "out_" + name;
    const CliResult r =
        run_tonekit(dir(), "video " + input + " " + out + ".mkv --codec rawvideo --backend cpu --summary " + args);
    EXPECT_EQ(r.code, 0) << r.err;
    if (err) *err = r.err;
    const std::string decode = "cd " + quoted(dir()) + " && ffmpeg -nostdin -v error -y -i " + out +
                               ".mkv -f rawvideo -pix_fmt yuv420p " + out + ".yuv";
    EXPECT_EQ(std::system(decode.c_str()), 0) << decode;
    const Bytes all = slurp(dir() / (out + ".yuv"));
    EXPECT_EQ(all.size(), kFrameBytes * kFrames) << out;
    std::vector<Bytes> frames;
    for (std::size_t at = 0; at + kFrameBytes <= all.size(); at += kFrameBytes)
      frames.emplace_back(all.begin() + static_cast<std::ptrdiff_t>(at),
                          all.begin() + static_cast<std::ptrdiff_t>(at + kFrameBytes));
    return frames;
  }
  static Bytes luma(const Bytes& frame) { return Bytes(frame.begin(), frame.begin() + kLuma); }
};

TEST(Hdr10PlusSei, EmulationPreventionAndPayloadSize) {
  EXPECT_EQ(add_emulation_prevention({0, 0, 1, 0, 0, 0, 0, 0, 4, 0, 0}),
            (Bytes{0, 0, 3, 1, 0, 0, 3, 0, 0, 3, 0, 4, 0, 0}));
  const std::vector<std::uint8_t> nal = hdr10plus_sei_nal(Hdr10PlusFrame{});
  ASSERT_GT(nal.size(), 12u);
  EXPECT_EQ((Bytes{nal[0], nal[1], nal[2], nal[3], nal[4], nal[5], nal[6]}), (Bytes{0, 0, 0, 1, 0x4E, 0x01, 4}));
  EXPECT_EQ(nal[7], hdr10plus_t35_payload(Hdr10PlusFrame{}).size()) << "payload size (under 255: one byte)";
  EXPECT_EQ(nal.back(), 0x80) << "rbsp_trailing_bits";
}

// The injector is right independently of tonekit: FFmpeg's own parser reads back what was written.
TEST_F(VideoHdr10Plus, FfprobeReadsTheWrittenMaxsclOnEveryFrame) {
  const std::vector<ProbedFrame> plus = probe_hdr10plus(dir() / "plus.mkv");
  ASSERT_EQ(plus.size(), std::size_t{kFrames});
  for (int i = 0; i < kFrames; ++i) {
    EXPECT_TRUE(plus[i].hdr10plus) << "frame " << i;
    EXPECT_EQ(plus[i].maxscl, maxscl_of(i < kSceneCut ? kPeakA : kPeakB)) << "frame " << i;
  }
  const std::string text = shell("ffprobe -v error -select_streams v:0 -show_frames " + quoted(dir() / "plus.mkv"));
  EXPECT_NE(text.find("knee_point_x=1500/4095"), std::string::npos) << "the tone-mapping fields after maxscl parse";
  EXPECT_NE(text.find("bezier_curve_anchors=1000/1023"), std::string::npos);
  EXPECT_NE(text.find("max_content=1000"), std::string::npos) << "the HDR10 static metadata stays";
  for (const ProbedFrame& f : probe_hdr10plus(dir() / "clip.mkv")) EXPECT_FALSE(f.hdr10plus);
  const std::vector<ProbedFrame> late = probe_hdr10plus(dir() / "late.mkv");
  ASSERT_EQ(late.size(), std::size_t{kFrames});
  for (int i = 0; i < kFrames; ++i) EXPECT_EQ(late[i].hdr10plus, i >= kSceneCut) << "frame " << i;
}

TEST_F(VideoHdr10Plus, SummarySaysUsedOnEveryFrameAndTheOutputIsBt709) {
  std::string err;
  map("plus.mkv", "plus", "", &err);
  EXPECT_NE(err.find("tonekit: HDR10+: used on 12 frames, scene peaks 600-2000 cd/m^2 (maxscl)"), std::string::npos)
      << err;
  EXPECT_NE(err.find("source peak 1000 cd/m^2 (MaxCLL), per scene from HDR10+ where present"), std::string::npos)
      << err;
  const fs::path out = dir() / "out_plus.mkv";
  EXPECT_EQ(decoded_frames(out), kFrames);
  EXPECT_EQ(probe(out, "stream=codec_name"), "rawvideo");
  EXPECT_EQ(colour_tags(out), "bt709/bt709/bt709");
  map("clip.mkv", "clip", "", &err);
  EXPECT_NE(err.find("tonekit: HDR10+: none"), std::string::npos) << err;
}

// Scene A (600) comes out brighter than with the static 1000 cd/m^2, scene B (2000) darker, and
// each frame is what a fixed peak of its scene gives on the same decoded frames.
TEST_F(VideoHdr10Plus, EachSceneIsMappedWithItsOwnPeak) {
  const std::vector<Bytes> plus = map("plus.mkv", "plus", ""), fixed = map("clip.mkv", "clip", ""),
                           a = map("clip.mkv", "a", "--peak 600"), b = map("clip.mkv", "b", "--peak 2000");
  ASSERT_EQ(plus.size(), std::size_t{kFrames});
  ASSERT_EQ(fixed.size(), std::size_t{kFrames});
  ASSERT_EQ(a.size(), std::size_t{kFrames});
  ASSERT_EQ(b.size(), std::size_t{kFrames});
  for (int i = 0; i < kFrames; ++i) {
    const double m = mean(luma(plus[i])), m_static = mean(luma(fixed[i]));
    if (i < kSceneCut) {
      EXPECT_GT(m, m_static + 1.0) << "frame " << i << ": the 600 cd/m^2 scene is brighter than with 1000";
      EXPECT_TRUE(plus[i] == a[i]) << "frame " << i << " is not mapped with 600 cd/m^2";
    } else {
      EXPECT_LT(m, m_static - 1.0) << "frame " << i << ": the 2000 cd/m^2 scene is darker than with 1000";
      EXPECT_TRUE(plus[i] == b[i]) << "frame " << i << " is not mapped with 2000 cd/m^2";
    }
  }
}

TEST_F(VideoHdr10Plus, FramesWithoutItHaveTheStaticPeak) {
  std::string err;
  const std::vector<Bytes> late = map("late.mkv", "late", "", &err), fixed = map("clip.mkv", "clip", ""),
                           b = map("clip.mkv", "b", "--peak 2000");
  EXPECT_NE(err.find("HDR10+: used on 6 frames, scene peaks 2000-2000 cd/m^2"), std::string::npos) << err;
  ASSERT_EQ(late.size(), std::size_t{kFrames});
  for (int i = 0; i < kFrames; ++i)
    EXPECT_TRUE(late[i] == (i < kSceneCut ? fixed[i] : b[i])) << "frame " << i;
}

// --peak N, --set source_peak and --peak measured come before HDR10+; the summary says it was
// there and not used.
TEST_F(VideoHdr10Plus, PeakFlagsOverrideItAndTheSummarySaysSo) {
  std::string err;
  const std::vector<Bytes> plus = map("plus.mkv", "plus800", "--peak 800", &err),
                           fixed = map("clip.mkv", "clip800", "--peak 800");
  EXPECT_NE(err.find("HDR10+: present on 12 frames, scene peaks 600-2000 cd/m^2 (maxscl), not used"),
            std::string::npos)
      << err;
  EXPECT_NE(err.find("source peak 800 cd/m^2 (--peak)\n"), std::string::npos) << err;
  EXPECT_TRUE(plus == fixed) << "--peak 800 did not override HDR10+";
  map("plus.mkv", "plus_set", "--set source_peak=700", &err);
  EXPECT_NE(err.find("not used"), std::string::npos) << err;
  EXPECT_NE(err.find("source peak 700 cd/m^2 (--set source_peak)\n"), std::string::npos) << err;
  map("plus.mkv", "plus_measured", "--peak measured", &err);
  EXPECT_NE(err.find("not used"), std::string::npos) << err;
  EXPECT_NE(err.find("source peak measured"), std::string::npos) << err;
}

}  // namespace
