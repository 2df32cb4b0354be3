// What the video tests share: shell commands and ffprobe through popen, and the HDR10 test clip
// made with Debian's ffmpeg and libx265 (10-bit PQ BT.2020 HEVC in MKV, 128x72, 12 frames at 25
// fps, a FLAC sine track, two chapters, mastering display 0.005-1000 cd/m^2, MaxCLL 1000 /
// MaxFALL 400).
#pragma once
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace tonekit::test {

namespace fs = std::filesystem;

using Bytes = std::vector<unsigned char>;

inline Bytes slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  return Bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}
inline void spit(const fs::path& p, const Bytes& b) {
  std::ofstream(p, std::ios::binary).write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
}

// A shell command's stdout (and its exit status in `rc`).
inline std::string shell(const std::string& cmd, int* rc = nullptr) {
  std::string out;
  if (FILE* p = ::popen(cmd.c_str(), "r")) {
    char buf[4096];
    for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
    const int status = ::pclose(p);
    if (rc) *rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  } else if (rc) {
    *rc = -1;
  }
  return out;
}

inline std::string quoted(const fs::path& p) { return "'" + p.string() + "'"; }

// ffprobe's value of one entry of the first video stream (e.g. color_transfer), or of another
// selection.
inline std::string probe(const fs::path& file, const std::string& entries, const std::string& select = "v:0") {
  std::string s = shell("ffprobe -v error -select_streams " + select + " -show_entries " + entries +
                        " -of default=noprint_wrappers=1:nokey=1 " + quoted(file) + " 2>/dev/null");
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
  return s;
}
// The first video stream's "primaries/transfer/matrix" tags, e.g. "bt709/bt709/bt709".
inline std::string colour_tags(const fs::path& file) {
  return probe(file, "stream=color_primaries") + "/" + probe(file, "stream=color_transfer") + "/" +
         probe(file, "stream=color_space");
}
inline int decoded_frames(const fs::path& file) {
  const std::string n = probe(file, "stream=nb_read_frames", "v:0 -count_frames");
  return n.empty() ? -1 : std::atoi(n.c_str());
}

// "" when TONEKIT_CLI's `tonekit video` is the real one, else why not (the stub of a build
// without FFmpeg's libraries).
inline std::string video_verb_missing(const std::string& cli) {
  const std::string err = shell("'" + cli + "' video /nonexistent.mkv /nonexistent.mp4 2>&1");
  return err.find("without FFmpeg") != std::string::npos ? "this tonekit was built without FFmpeg's libraries" : "";
}

// "" when ffmpeg with libx265 and ffprobe are there, else why not.
inline std::string x265_missing() {
  if (std::system("ffmpeg -hide_banner -encoders 2>/dev/null | grep -q ' libx265 '") != 0)
    return "ffmpeg with libx265 is not installed (make deps installs Debian's)";
  if (std::system("ffprobe -version > /dev/null 2>&1") != 0) return "ffprobe is not installed";
  return {};
}

// libx265's options for the HDR10 clips: PQ BT.2020 and the HDR10 SEI messages (mastering display
// with BT.2020 primaries, 0.005-1000 cd/m^2 in x265's 0.0001 cd/m^2 units; MaxCLL 1000, MaxFALL 400).
inline std::string x265_hdr10_options(const std::string& extra = "") {
  return "-c:v libx265 -preset ultrafast -x265-params 'log-level=error" + extra +
         ":colorprim=bt2020:transfer=smpte2084:colormatrix=bt2020nc:master-display=G(13250,34500)B(7500,3000)"
         "R(34000,16000)WP(15635,16450)L(10000000,50):max-cll=1000,400' -color_primaries bt2020 -color_trc "
         "smpte2084 -colorspace bt2020nc";
}

// DIR/NAME: the HDR10 clip's video alone as an Annex B HEVC elementary stream, without B-frames
// (decode order is presentation order); "" on success, else why not.
inline std::string make_hdr10_hevc(const fs::path& dir, const fs::path& name) {
  if (std::string why = x265_missing(); !why.empty()) return why;
  const std::string cmd = "cd " + quoted(dir) +
                          " && ffmpeg -nostdin -v error -y -f lavfi -i testsrc2=size=128x72:rate=25:duration=0.48 "
                          "-vf format=yuv420p10le " +
                          x265_hdr10_options(":bframes=0") + " -f hevc " + quoted(name);
  if (std::system(cmd.c_str()) != 0) return "ffmpeg could not make the HEVC test stream: " + cmd;
  return {};
}

// Makes DIR/hdr10.mkv; "" on success, else why not (for GTEST_SKIP).
inline std::string make_hdr10_clip(const fs::path& dir) {
  if (std::string why = x265_missing(); !why.empty()) return why;
  std::ofstream(dir / "chapters.txt") << ";FFMETADATA1\ntitle=video test\n[CHAPTER]\nTIMEBASE=1/1000\nSTART=0\n"
                                           "END=240\ntitle=one\n[CHAPTER]\nTIMEBASE=1/1000\nSTART=240\nEND=480\n"
                                           "title=two\n";
  const std::string cmd =
      "cd " + quoted(dir) +
      " && ffmpeg -nostdin -v error -y -f lavfi -i testsrc2=size=128x72:rate=25:duration=0.48 "
      "-f lavfi -i sine=frequency=440:duration=0.48 -i chapters.txt -map 0:v -map 1:a -map_metadata 2 "
      "-map_chapters 2 -vf format=yuv420p10le " +
      x265_hdr10_options() + " -c:a flac hdr10.mkv";
  if (std::system(cmd.c_str()) != 0) return "ffmpeg could not make the HDR10 test clip: " + cmd;
  return {};
}

}  // namespace tonekit::test
