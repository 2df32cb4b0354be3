#include "video/av_util.hpp"

#include <cstdarg>
#include <cstdio>
#include <mutex>
#include <string_view>

namespace tonekit::video {
namespace {

std::mutex log_mutex;
std::string last_error;
std::string demuxer_end_note;

// What demuxers say when the file stops inside a packet or element, at warning level: Matroska's
// "File ended prematurely", MOV's "partial file", and the like. They still return a clean end of
// file, so this is how a truncated input is told from a finished one.
bool says_truncated(const std::string& line) {
  for (const char* key : {"prematurely", "truncat", "partial file", "Read error", "incomplete"})
    if (line.find(key) != std::string::npos) return true;
  return false;
}

bool from_demuxer(void* avcl) {
  if (!avcl) return false;
  const AVClass* cls = *static_cast<AVClass**>(avcl);
  return cls && std::string_view(cls->class_name) == "AVFormatContext";
}

// Decoder threads log too (frame threading), hence the mutex.
void log_hook(void* avcl, int level, const char* fmt, va_list args) {
  if (level > AV_LOG_WARNING) return;
  char text[512];
  int prefix = 0;  // no "[hevc @ 0x...]": the warning line names the file itself
  av_log_format_line2(avcl, level, fmt, args, text, sizeof text, &prefix);
  std::string line(text);
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.pop_back();
  if (line.empty()) return;
  std::lock_guard<std::mutex> lock(log_mutex);
  if (from_demuxer(avcl) && says_truncated(line)) {
    if (demuxer_end_note.empty()) demuxer_end_note = line;
    return;
  }
  if (level > AV_LOG_ERROR) return;
  if (last_error.empty()) last_error = line;  // the first error of a packet names the cause
}

}  // namespace

std::string av_error_text(int code) {
  char text[AV_ERROR_MAX_STRING_SIZE] = {0};
  av_strerror(code, text, sizeof text);
  return text;
}

Status av_status(StatusCode code, const std::string& what, int av_code) {
  return Status{code, what + ": " + av_error_text(av_code)};
}

void install_log_hook() { av_log_set_callback(log_hook); }

std::string take_decoder_error() {
  std::lock_guard<std::mutex> lock(log_mutex);
  std::string e;
  e.swap(last_error);
  return e;
}

}  // namespace tonekit::video

namespace tonekit::video {
std::string take_demuxer_end_note() {
  std::lock_guard<std::mutex> lock(log_mutex);
  std::string e;
  e.swap(demuxer_end_note);
  return e;
}
}  // namespace tonekit::video
