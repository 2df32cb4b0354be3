// `tonekit video` end to end (TONEKIT_CLI) on inputs made here with Debian's ffmpeg: a 10-bit PQ
// BT.2020 HEVC MKV (libx265, 128x72, 12 frames) with a FLAC sine track, two chapters and HDR10
// metadata (mastering display 1000 cd/m^2, MaxCLL 1000 / MaxFALL 400). Checked with ffprobe:
// frame count, the audio stream, chapters, BT.709 tags, the range; the peak taken from MaxCLL;
// rawvideo output byte-equal to `tonekit stream` on the frames ffmpeg decodes; truncated,
// damaged, non-media and audio-only inputs; the encoder fallback; timestamps and subtitles; SDR
// and HLG inputs. Skips with the reason when ffmpeg, ffprobe or libx265 are missing.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "unit/cli_runner.hpp"
#include "video/video_suite.hpp"

namespace fs = std::filesystem;
using tonekit::test::CliResult;
using tonekit::test::run_tonekit;

namespace {

using namespace tonekit::test;

constexpr int kFrames = 12;

class VideoCli : public VideoSuite<VideoCli> {
 protected:
  static void SetUpTestSuite() {
    if (open_suite("tonekit_video")) skip_ = make_hdr10_clip(dir());
  }
  static fs::path input() { return dir() / "hdr10.mkv"; }
  // The input cut to `fraction` of its bytes, or with one video packet's first NAL length
  // overwritten (the decoder refuses that packet: "Invalid NAL unit size").
  static fs::path truncated(double fraction) {
    Bytes b = slurp(input());
    b.resize(static_cast<std::size_t>(b.size() * fraction));
    const fs::path p = dir() / "truncated.mkv";
    spit(p, b);
    return p;
  }
  static fs::path damaged(int packet) {
    // ffprobe's packet position is the Matroska SimpleBlock's track number (a one-byte vint),
    // then a 2-byte timecode and a flags byte; the packet's data, a 4-byte NAL length first, follows.
    const std::string row = shell("ffprobe -v error -select_streams v -show_entries packet=pos -of csv=p=0 " +
                                  quoted(input()) + " | sed -n " + std::to_string(packet + 1) + "p");
    const long pos = std::atol(row.c_str());
    Bytes b = slurp(input());
    if (pos <= 0 || static_cast<std::size_t>(pos) + 8 > b.size()) return {};
    for (int i = 4; i < 8; ++i) b[pos + i] = i == 4 ? 0x7f : 0xff;
    const fs::path p = dir() / "damaged.mkv";
    spit(p, b);
    return p;
  }
};

TEST_F(VideoCli, Hdr10MkvToMp4KeepsFramesAudioChaptersAndTagsBt709Limited) {
  const CliResult r = run_tonekit(dir(), "video hdr10.mkv sdr.mp4 --backend cpu --crf 20 --preset ultrafast");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err, "") << "a clean run prints nothing when stderr is not a terminal";
  const fs::path out = dir() / "sdr.mp4";
  EXPECT_EQ(decoded_frames(out), kFrames);
  EXPECT_EQ(probe(out, "stream=codec_name"), "h264");
  EXPECT_EQ(colour_tags(out), "bt709/bt709/bt709");
  EXPECT_EQ(probe(out, "stream=color_range"), "tv");
  EXPECT_EQ(probe(out, "stream=pix_fmt"), "yuv420p");
  EXPECT_EQ(probe(out, "stream=codec_name", "a:0"), "flac") << "the audio is copied";
  const std::string chapters = shell("ffprobe -v error -show_chapters " + quoted(out) + " | grep -c '^\\[CHAPTER\\]'");
  EXPECT_EQ(std::atoi(chapters.c_str()), 2);
  // Same timestamps as the input's video (25 fps from 0).
  EXPECT_EQ(probe(out, "stream=avg_frame_rate"), "25/1");
  for (const auto& e : fs::directory_iterator(dir()))
    EXPECT_EQ(e.path().string().find(".tmp-"), std::string::npos) << "temporary left behind: " << e.path();
}

TEST_F(VideoCli, SummaryShowsMetadataAndThePeakTakenFromMaxCll) {
  const CliResult r = run_tonekit(dir(), "video hdr10.mkv summary.mkv --backend cpu --summary");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("hevc 128x72"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("12 frames decoded"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("transfer pq (color_trc)"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("primaries bt2020"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("0.0050-1000 cd/m^2"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("MaxCLL 1000 cd/m^2, MaxFALL 400 cd/m^2"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("source peak 1000 cd/m^2 (MaxCLL)"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("backend cpu"), std::string::npos) << r.err;
  // --set and --peak measured override the metadata.
  const CliResult set = run_tonekit(dir(), "video hdr10.mkv s2.mkv --backend cpu --summary --set source_peak=600");
  EXPECT_NE(set.err.find("source peak 600 cd/m^2 (--set source_peak)"), std::string::npos) << set.err;
  const CliResult measured = run_tonekit(dir(), "video hdr10.mkv s3.mkv --backend cpu --summary --peak measured");
  EXPECT_NE(measured.err.find("source peak measured"), std::string::npos) << measured.err;
}

// The command's frames are the stream command's on the same decoded frames: both run the CPU
// FrameMapper (hable, the default, with the source peak MaxCLL gives), so the bytes are equal.
TEST_F(VideoCli, RawvideoOutputEqualsStreamOnTheSameDecodedFrames) {
  CliResult r = run_tonekit(dir(), "video hdr10.mkv raw.nut --codec rawvideo --backend cpu");
  ASSERT_EQ(r.code, 0) << r.err;
  ASSERT_EQ(std::system(("cd " + quoted(dir()) +
                         " && ffmpeg -nostdin -v error -y -i hdr10.mkv -f rawvideo -pix_fmt yuv420p10le decoded.yuv"
                         " && ffmpeg -nostdin -v error -y -i raw.nut -f rawvideo -pix_fmt yuv420p video.yuv")
                            .c_str()),
            0);
  r = run_tonekit(dir(), "stream decoded.yuv stream.yuv --input-format yuv420p10 --size 128x72 --transfer pq "
                         "--primaries bt2020 --op hable --set source_peak=1000 --backend cpu");
  ASSERT_EQ(r.code, 0) << r.err;
  const Bytes video = slurp(dir() / "video.yuv"), stream = slurp(dir() / "stream.yuv");
  ASSERT_EQ(video.size(), std::size_t{128 * 72 * 3 / 2 * kFrames});
  EXPECT_TRUE(video == stream) << "tonekit video and tonekit stream differ on the same frames";
}

TEST_F(VideoCli, TruncatedInputWritesTheDecodedFramesFinalisedAndExitsOne) {
  const fs::path in = truncated(0.6);
  const CliResult r = run_tonekit(dir(), "video " + in.filename().string() + " cut.mkv --backend cpu");
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_NE(r.err.find("ends early"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << "one line: " << r.err;
  const fs::path out = dir() / "cut.mkv";
  ASSERT_TRUE(fs::exists(out));
  // Playable: ffmpeg decodes it without an error, and it holds what ffmpeg decodes of the input.
  int rc = 0;
  const std::string errors = shell("ffmpeg -nostdin -v error -i " + quoted(out) + " -f null - 2>&1", &rc);
  EXPECT_EQ(rc, 0);
  EXPECT_EQ(errors, "");
  const int got = decoded_frames(out);
  EXPECT_GT(got, 0);
  EXPECT_LT(got, kFrames);
  EXPECT_EQ(got, decoded_frames(in));
}

TEST_F(VideoCli, CorruptPacketWarnsOnceAndTheRestIsDecoded) {
  const fs::path in = damaged(6);
  ASSERT_FALSE(in.empty());
  const CliResult r = run_tonekit(dir(), "video damaged.mkv damaged_out.mkv --backend cpu");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("warning: damaged.mkv: corrupt video data"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << "one warning line: " << r.err;
  EXPECT_EQ(decoded_frames(dir() / "damaged_out.mkv"), kFrames - 1) << "only the damaged packet's frame is lost";
}

TEST_F(VideoCli, NonMediaFileExitsOneWithOneLineAndNoOutput) {
  std::ofstream(dir() / "notes.mkv") << "not a video at all\n";
  const CliResult r = run_tonekit(dir(), "video notes.mkv nothing.mp4");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("notes.mkv: not a media file"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_FALSE(fs::exists(dir() / "nothing.mp4"));
}

TEST_F(VideoCli, AudioOnlyInputExitsOneWithNoOutput) {
  ASSERT_EQ(std::system(("cd " + quoted(dir()) +
                         " && ffmpeg -nostdin -v error -y -f lavfi -i sine=duration=0.3 -c:a flac tone.mka").c_str()),
            0);
  const CliResult r = run_tonekit(dir(), "video tone.mka nothing.mkv");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("tone.mka: has no video stream"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir() / "nothing.mkv"));
}

TEST_F(VideoCli, UnknownEncoderIsRefusedAndNvencWithoutAGpuFallsBackToLibx264) {
  CliResult r = run_tonekit(dir(), "video hdr10.mkv never.mkv --codec h264_bogus");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("--codec h264_bogus: FFmpeg has no encoder of that name"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir() / "never.mkv"));
  if (std::system("nvidia-smi -L > /dev/null 2>&1") == 0) GTEST_SKIP() << "an NVIDIA GPU is present: NVENC may open";
  r = run_tonekit(dir(), "video hdr10.mkv nvenc.mkv --codec hevc_nvenc --backend cpu");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("encoding with libx264 instead"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_EQ(probe(dir() / "nvenc.mkv", "stream=codec_name"), "h264");
}

TEST_F(VideoCli, RangeAndOutputTransferTagTheStreamAndBadValuesAreRefused) {
  CliResult r = run_tonekit(dir(), "video hdr10.mkv full.mkv --range full --backend cpu");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(probe(dir() / "full.mkv", "stream=color_range"), "pc");
  r = run_tonekit(dir(), "video hdr10.mkv srgb.mkv --output-transfer srgb --backend cpu");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(probe(dir() / "srgb.mkv", "stream=color_transfer"), "iec61966-2-1");
  r = run_tonekit(dir(), "video hdr10.mkv x.mkv --output-transfer pq");
  EXPECT_EQ(r.code, 1);
  EXPECT_FALSE(fs::exists(dir() / "x.mkv"));
  r = run_tonekit(dir(), "video hdr10.mkv x.mkv --op reinhard --peak bright");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("--peak expects"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir() / "x.mkv"));
}

// SDR BT.709 input goes through the same mapping with BT.1886 linearisation.
TEST_F(VideoCli, SdrInputIsReadWithItsTransfer) {
  ASSERT_EQ(std::system(("cd " + quoted(dir()) +
                         " && ffmpeg -nostdin -v error -y -f lavfi -i testsrc2=size=96x64:rate=10:duration=0.5 "
                         "-pix_fmt yuv420p -color_primaries bt709 -color_trc bt709 -colorspace bt709 -c:v libx264 "
                         "-preset ultrafast sdr_in.mp4").c_str()),
            0);
  const CliResult r = run_tonekit(dir(), "video sdr_in.mp4 sdr_out.mkv --backend cpu --summary");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("transfer bt1886 (color_trc)"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("converted by libswscale"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("source peak 100 cd/m^2 (SDR nominal white)"), std::string::npos) << r.err;
  EXPECT_EQ(decoded_frames(dir() / "sdr_out.mkv"), 5);
}

// The video's timestamps are kept (MKV to MKV: the same presentation times), and subtitles are
// copied where the container holds them (SubRip in MKV) and left out with one line where not (MP4).
TEST_F(VideoCli, TimestampsKeptAndSubtitlesCopiedOrLeftOutWithALine) {
  std::ofstream(dir() / "subs.srt") << "1\n00:00:00,000 --> 00:00:00,300\nhello\n\n2\n00:00:00,300 --> 00:00:00,450\nworld\n";
  ASSERT_EQ(std::system(("cd " + quoted(dir()) +
                         " && ffmpeg -nostdin -v error -y -i hdr10.mkv -i subs.srt -map 0 -map 1 -c copy -c:s srt subs.mkv")
                            .c_str()),
            0);
  CliResult r = run_tonekit(dir(), "video subs.mkv subs_out.mkv --backend cpu");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(probe(dir() / "subs_out.mkv", "stream=codec_name", "s:0"), "subrip");
  const std::string times_in = probe(dir() / "subs.mkv", "frame=pts_time");
  EXPECT_EQ(probe(dir() / "subs_out.mkv", "frame=pts_time"), times_in);
  EXPECT_NE(times_in, "");
  r = run_tonekit(dir(), "video subs.mkv subs_out.mp4 --backend cpu");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("(subrip subtitle) is left out: the mp4 container cannot hold it"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_EQ(probe(dir() / "subs_out.mp4", "stream=codec_name", "a:0"), "flac");
}

// HLG input: transfer from color_trc, the source peak from the HLG OOTF's nominal peak.
TEST_F(VideoCli, HlgInputUsesItsNominalPeak) {
  ASSERT_EQ(std::system(("cd " + quoted(dir()) +
                         " && ffmpeg -nostdin -v error -y -f lavfi -i testsrc2=size=96x64:rate=10:duration=0.5 "
                         "-vf format=yuv420p10le -color_primaries bt2020 -color_trc arib-std-b67 -colorspace bt2020nc "
                         "-c:v libx265 -preset ultrafast -x265-params log-level=error hlg.mkv").c_str()),
            0);
  const CliResult r = run_tonekit(dir(), "video hlg.mkv hlg_out.mkv --backend cpu --summary --hlg-peak 1200");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("transfer hlg (color_trc)"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("source peak 1200 cd/m^2 (HLG nominal peak"), std::string::npos) << r.err;
  EXPECT_EQ(decoded_frames(dir() / "hlg_out.mkv"), 5);
}

}  // namespace
