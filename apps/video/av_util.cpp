#include "video/av_util.hpp"

#include <cstdarg>
#include <cstdio>
#include <mutex>

namespace tonekit::video {
namespace {

std::mutex log_mutex;
std::string last_error;

// Decoder threads log too (frame threading), hence the mutex.
void log_hook(void* avcl, int level, const char* fmt, va_list args) {
  if (level > AV_LOG_ERROR) return;
  char text[512];
  int prefix = 1;
  av_log_format_line2(avcl, level, fmt, args, text, sizeof text, &prefix);
  std::string line(text);
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.pop_back();
  if (line.empty()) return;
  std::lock_guard<std::mutex> lock(log_mutex);
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
