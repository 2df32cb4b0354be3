// Byte streams over file descriptors for `tonekit stream`: stdin/stdout or files, read and
// written with read(2)/write(2) in whole frames (no stdio buffering, so a frame that write()
// accepted is flushed to the next process). Reads can be cancelled from another thread (the
// writer failing while the reader waits on a pipe), and a closed downstream pipe is an outcome
// of its own (EPIPE, with SIGPIPE ignored), not an error.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "tonekit/status.hpp"

namespace tonekit::stream {

// A self-pipe that wakes a reader blocked in poll(): cancel() from any thread.
class Cancel {
 public:
  Cancel();
  ~Cancel();
  Cancel(const Cancel&) = delete;
  Cancel& operator=(const Cancel&) = delete;
  void cancel();
  bool cancelled() const;
  int wake_fd() const { return fds_[0]; }

 private:
  int fds_[2] = {-1, -1};
};

class InputStream {
 public:
  InputStream() = default;
  ~InputStream();
  InputStream(const InputStream&) = delete;
  InputStream& operator=(const InputStream&) = delete;
  // "-" is stdin; anything else is opened read-only.
  Status open(const std::string& path, const Cancel* cancel);
  const std::string& name() const { return name_; }
  // Size in bytes when the input is a regular file (for frame counts), else -1.
  long long file_size() const { return file_size_; }
  // Reads up to n bytes, blocking until n have come or the input ends: returns how many came
  // (n, or fewer at the end). Errors: the OS refused, or cancelled.
  Result<std::size_t> read(void* dst, std::size_t n);
  // Reads one line up to '\n' (not kept), at most `max` bytes. ok + false at a clean end.
  Result<bool> read_line(std::string& line, std::size_t max);
  // Puts bytes back in front of the stream (used after sniffing the first bytes).
  void unread(const void* data, std::size_t n);
  // Zero-copy read of a regular file: the next n bytes as a pointer into a read-only mapping of
  // the file (mapped whole at the first call, kept until this stream is destroyed, so the pointer
  // stays valid), advancing the stream as read() would; `got` < n at the file's end. nullptr (and
  // nothing consumed) when the input is not a regular file, the mapping failed, or the bytes lie
  // past the size mapped (a file still growing: read() takes those). A file found shorter than
  // what was mapped (truncated while read) is a clear error, not a SIGBUS later.
  Result<const std::uint8_t*> view(std::size_t n, std::size_t& got);

 private:
  int fd_ = -1;
  bool owns_ = false;
  bool regular_ = false;
  long long file_size_ = -1;
  std::string name_;
  const Cancel* cancel_ = nullptr;
  std::vector<std::uint8_t> pushback_;
  const std::uint8_t* map_ = nullptr;  // view(): the whole file, map_size_ bytes
  std::size_t map_size_ = 0;
  bool map_failed_ = false;
};

class OutputStream {
 public:
  OutputStream() = default;
  ~OutputStream();
  OutputStream(const OutputStream&) = delete;
  OutputStream& operator=(const OutputStream&) = delete;
  // "-" is stdout. A file is created (truncated) only at the first write, so a run that fails
  // before its first frame leaves no file behind.
  void set_target(const std::string& path) { path_ = path; }
  const std::string& name() const { return path_ == "-" ? stdout_name_ : path_; }
  Status write(const void* data, std::size_t n);
  // Closes the file (reporting deferred errors); stdout is left open.
  Status close();
  // True once a write failed with EPIPE: the reader downstream has gone.
  bool downstream_closed() const { return downstream_closed_; }
  bool opened() const { return fd_ >= 0; }

 private:
  Status open();
  int fd_ = -1;
  bool owns_ = false;
  bool downstream_closed_ = false;
  std::string path_;
  std::string stdout_name_ = "stdout";
};

// Makes writes to a closed pipe return EPIPE instead of killing the process.
void ignore_sigpipe();
// Asks for the largest pipe buffer allowed, up to 16 MiB (Linux F_SETPIPE_SZ), when fd is a pipe:
// fewer context switches for 4K frames; silently keeps the default where not allowed.
void widen_pipe(int fd);

}  // namespace tonekit::stream
