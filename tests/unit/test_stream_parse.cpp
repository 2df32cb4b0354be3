// The stream's parsers on their own: y4m headers (8 and 10 bits, interlace rejected, malformed
// tags), frame lines, rates, and sequence patterns with their gap detection.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "stream/fd_io.hpp"
#include "stream/sequence_pattern.hpp"
#include "stream/y4m.hpp"

namespace fs = std::filesystem;
using namespace tonekit;
using namespace tonekit::stream;

TEST(StreamY4m, ParsesWhatFfmpegWrites) {
  auto h8 = parse_y4m_header("YUV4MPEG2 W1920 H1080 F30000:1001 Ip A1:1 C420jpeg XYSCSS=420JPEG");
  ASSERT_TRUE(h8.ok()) << h8.status().message();
  EXPECT_EQ(h8->width, 1920);
  EXPECT_EQ(h8->height, 1080);
  EXPECT_EQ(h8->fps.num, 30000);
  EXPECT_EQ(h8->fps.den, 1001);
  EXPECT_EQ(h8->bit_depth, 8);
  EXPECT_FALSE(h8->range_known);
  EXPECT_EQ(h8->frame_bytes(), 1920u * 1080 * 3 / 2);

  auto h10 = parse_y4m_header("YUV4MPEG2 W33 H19 F25:1 Ip A0:0 C420p10 XYSCSS=420P10 XCOLORRANGE=FULL");
  ASSERT_TRUE(h10.ok()) << h10.status().message();
  EXPECT_EQ(h10->bit_depth, 10);
  EXPECT_TRUE(h10->range_known);
  EXPECT_EQ(h10->range, YuvRange::full);
  EXPECT_EQ(h10->frame_bytes(), 2u * (33 * 19 + 2 * 17 * 10));  // odd sizes: chroma rounds up

  // Only W and H are required; F defaults to 25 (as ffmpeg), C to 8-bit 4:2:0.
  auto minimal = parse_y4m_header("YUV4MPEG2 W2 H2");
  ASSERT_TRUE(minimal.ok());
  EXPECT_EQ(minimal->fps.num, 25);
  EXPECT_EQ(minimal->bit_depth, 8);
  for (const char* c : {"C420", "C420mpeg2", "C420paldv", "I?"})
    EXPECT_TRUE(parse_y4m_header(std::string("YUV4MPEG2 W2 H2 ") + c).ok()) << c;
}

TEST(StreamY4m, RejectsInterlaceAndMalformedHeaders) {
  for (const char* i : {"It", "Ib", "Im"}) {
    auto h = parse_y4m_header(std::string("YUV4MPEG2 W8 H8 ") + i + " C420p10");
    ASSERT_FALSE(h.ok()) << i;
    EXPECT_NE(h.status().message().find("interlaced"), std::string::npos) << h.status().message();
  }
  struct Case {
    const char* header;
    const char* mention;
  };
  for (const Case& c : {Case{"YUV4MPEG W8 H8", "YUV4MPEG2"}, Case{"YUV4MPEG2 H8", "W (width)"},
                        Case{"YUV4MPEG2 W8", "H (height)"}, Case{"YUV4MPEG2 W0 H8", "'W0'"},
                        Case{"YUV4MPEG2 W8 H-2", "'H-2'"}, Case{"YUV4MPEG2 W8 H99999999", "'H99999999'"},
                        Case{"YUV4MPEG2 W8 H8 F30", "frame rate"}, Case{"YUV4MPEG2 W8 H8 F30:0", "frame rate"},
                        Case{"YUV4MPEG2 W8 H8 C444p10", "unsupported chroma"}, Case{"YUV4MPEG2 W8 H8 Cmono", "unsupported chroma"},
                        Case{"YUV4MPEG2 W8 H8 Ix", "interlacing"}, Case{"YUV4MPEG2 W8 H8 Q1", "unknown tag"},
                        Case{"YUV4MPEG2 W8x H8", "'W8x'"}, Case{"YUV4MPEG2 W30000 H30000", "too large"}}) {
    auto h = parse_y4m_header(c.header);
    ASSERT_FALSE(h.ok()) << c.header;
    EXPECT_EQ(h.status().code(), StatusCode::bad_input) << c.header;
    EXPECT_NE(h.status().message().find(c.mention), std::string::npos) << c.header << ": " << h.status().message();
  }
}

TEST(StreamY4m, WritesHeadersItReadsBack) {
  for (int bits : {8, 10}) {
    std::string line = format_y4m_header(35, 17, Rational{24000, 1001}, bits, YuvRange::limited);
    ASSERT_EQ(line.back(), '\n');
    line.pop_back();
    auto h = parse_y4m_header(line);
    ASSERT_TRUE(h.ok()) << line << ": " << h.status().message();
    EXPECT_EQ(h->width, 35);
    EXPECT_EQ(h->height, 17);
    EXPECT_EQ(h->fps.num, 24000);
    EXPECT_EQ(h->fps.den, 1001);
    EXPECT_EQ(h->bit_depth, bits);
    EXPECT_TRUE(h->range_known);
    EXPECT_EQ(h->range, YuvRange::limited);
  }
  EXPECT_TRUE(check_y4m_frame_line("FRAME", 0).ok());
  EXPECT_TRUE(check_y4m_frame_line("FRAME Ixyz", 0).ok());
  EXPECT_FALSE(check_y4m_frame_line("FRAMEX", 3).ok());
  EXPECT_NE(check_y4m_frame_line("garbage", 3).message().find("frame 3"), std::string::npos);
}

TEST(StreamY4m, Rates) {
  auto r = parse_rate("29.97");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->num, 30000);
  EXPECT_EQ(r->den, 1001);
  EXPECT_EQ(parse_rate("30")->num, 30);
  EXPECT_EQ(parse_rate("30000/1001")->den, 1001);
  EXPECT_EQ(parse_rate("12.5")->num, 12500);
  for (const char* bad : {"0", "-30", "abc", "30/0", "", "1e9"}) EXPECT_FALSE(parse_rate(bad).ok()) << bad;
}

TEST(StreamSequence, PatternsAndGaps) {
  auto p = parse_sequence_pattern("dir/shot.%04d.exr");
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->path(7), "dir/shot.0007.exr");
  EXPECT_EQ(p->path(12345), "dir/shot.12345.exr");
  EXPECT_EQ(parse_sequence_pattern("f_%d.png")->path(3), "f_3.png");
  EXPECT_EQ(parse_sequence_pattern("100%%_%02d.png")->path(3), "100%_03.png");
  for (const char* bad : {"shot.exr", "shot.%4d.exr", "a%d_%d.exr", "shot.%s.exr", "x%%.exr"})
    EXPECT_FALSE(parse_sequence_pattern(bad).ok()) << bad;
  EXPECT_FALSE(is_sequence_pattern("plain.exr"));
  EXPECT_TRUE(is_sequence_pattern("plain.%03d.exr"));

  const fs::path dir = fs::temp_directory_path() / ("tonekit_seq_" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  auto touch = [&](const std::string& name) { std::ofstream(dir / name) << "x"; };
  for (int i : {3, 4, 5}) touch("s." + std::string(i < 10 ? "000" : "00") + std::to_string(i) + ".exr");
  touch("s.7.exr");     // not %04d: ignored
  touch("other.0009.exr");
  const auto pattern = *parse_sequence_pattern((dir / "s.%04d.exr").string());
  auto range = scan_sequence(pattern, std::nullopt);
  ASSERT_TRUE(range.ok()) << range.status().message();
  EXPECT_EQ(range->first, 3);
  EXPECT_EQ(range->count, 3);
  EXPECT_EQ(scan_sequence(pattern, 4)->count, 2);
  EXPECT_FALSE(scan_sequence(pattern, 9).ok());

  touch("s.0008.exr");  // a gap at 6-7
  auto gap = scan_sequence(pattern, std::nullopt);
  ASSERT_FALSE(gap.ok());
  EXPECT_NE(gap.status().message().find("gap"), std::string::npos) << gap.status().message();
  EXPECT_NE(gap.status().message().find("s.0006.exr"), std::string::npos) << gap.status().message();
  EXPECT_EQ(scan_sequence(pattern, 8)->count, 1);  // starting after the gap is fine
  EXPECT_FALSE(scan_sequence(*parse_sequence_pattern((dir / "none.%04d.exr").string()), std::nullopt).ok());
  fs::remove_all(dir);
}

// InputStream::view (zero-copy reads of a regular file): bytes in place at the right position
// after a sniff and its unread, mixed with read(), the end of the file, a file grown past the
// mapping (read() takes over), and one truncated while read (a clear error, not a SIGBUS).
TEST(StreamInput, ViewsARegularFileInPlace) {
  const fs::path path = fs::temp_directory_path() / ("tonekit_view_" + std::to_string(::getpid()) + ".bin");
  {
    std::ofstream f(path, std::ios::binary);
    for (int i = 0; i < 1000; ++i) f.put(static_cast<char>(i & 0xFF));
  }
  {
    InputStream in;
    ASSERT_TRUE(in.open(path.string(), nullptr).ok());
    char head[10];
    ASSERT_EQ(*in.read(head, sizeof head), sizeof head);
    in.unread(head, sizeof head);
    std::size_t got = 0;
    auto v = in.view(100, got);
    ASSERT_TRUE(v.ok() && *v) << (v.ok() ? "no view" : v.status().message());
    ASSERT_EQ(got, 100u);
    for (int i = 0; i < 100; ++i) ASSERT_EQ((*v)[i], static_cast<std::uint8_t>(i));
    unsigned char five[5];
    ASSERT_EQ(*in.read(five, 5), 5u);
    EXPECT_EQ(five[0], 100);
    v = in.view(1000, got);  // to the end: fewer than asked
    ASSERT_TRUE(v.ok() && *v);
    EXPECT_EQ(got, 895u);
    EXPECT_EQ((*v)[0], 105);
    v = in.view(10, got);
    ASSERT_TRUE(v.ok());
    EXPECT_EQ(got, 0u) << "the end of the file";
    {
      std::ofstream f(path, std::ios::binary | std::ios::app);
      f.write("appended!!", 10);
    }
    v = in.view(10, got);
    ASSERT_TRUE(v.ok());
    EXPECT_EQ(*v, nullptr) << "grown past the mapping: read() takes the new bytes";
    char tail[10];
    ASSERT_EQ(*in.read(tail, 10), 10u);
    EXPECT_EQ(std::string(tail, 10), "appended!!");
  }
  {
    InputStream in;
    ASSERT_TRUE(in.open(path.string(), nullptr).ok());
    std::size_t got = 0;
    ASSERT_TRUE(in.view(10, got).ok());
    fs::resize_file(path, 5);
    auto v = in.view(100, got);
    ASSERT_FALSE(v.ok());
    EXPECT_NE(v.status().message().find("shrank"), std::string::npos) << v.status().message();
  }
  fs::remove(path);
}
