// Output files appear whole or not at all: the bytes go to "PATH.tmp-XXXXXX" in the target's
// folder (same file system, so rename(2) is atomic), which is then renamed over PATH. A write that
// fails removes the temporary and leaves any previous PATH untouched. No fsync: this guards
// against our own failures (full disk, killed writer), not against power loss, and a sequence
// writer would pay for an fsync on every frame.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <random>

#include "input_checks.hpp"
#include "tonekit/io.hpp"

namespace tonekit::io {
namespace {

std::string random_suffix() {
  static constexpr char kAlphabet[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  thread_local std::mt19937_64 generator{std::random_device{}() ^ static_cast<std::uint64_t>(::getpid())};
  std::uniform_int_distribution<int> pick(0, static_cast<int>(sizeof kAlphabet) - 2);
  std::string suffix(6, 'x');
  for (char& c : suffix) c = kAlphabet[pick(generator)];
  return suffix;
}

// Opens a new temporary beside `path`. Unlike mkstemp (mode 0600) this creates the file with
// mode 0666 minus the umask, like any output file, without touching the process-wide umask.
int create_temporary(const std::string& path, std::string& temp_path) {
  for (int attempt = 0; attempt < 100; ++attempt) {
    temp_path = path + ".tmp-" + random_suffix();
    const int fd = ::open(temp_path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0 || errno != EEXIST) return fd;
  }
  errno = EEXIST;
  return -1;
}

bool write_all(int fd, const char* data, std::size_t size) {
  while (size > 0) {
    const ssize_t wrote = ::write(fd, data, size);
    if (wrote < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    data += wrote;
    size -= static_cast<std::size_t>(wrote);
  }
  return true;
}

}  // namespace

Status write_file_atomically(const std::string& path, const std::string& content) {
  const std::string_view piece(content);
  return write_file_atomically(path, std::span<const std::string_view>(&piece, 1));
}

Status write_file_atomically(const std::string& path, std::span<const std::string_view> pieces) {
  if (path.empty()) return invalid_argument("(empty path): no output file named");
  std::string temp_path;
  const int fd = create_temporary(path, temp_path);
  if (fd < 0) return io_error(path + ": cannot create " + temp_path + ": " + errno_text(errno));

  bool wrote = true;
  for (std::size_t i = 0; i < pieces.size() && wrote; ++i) wrote = write_all(fd, pieces[i].data(), pieces[i].size());
  if (!wrote) {
    const int error_number = errno;
    ::close(fd);
    std::remove(temp_path.c_str());
    return io_error(path + ": write failed: " + errno_text(error_number));
  }
  // close() can report a deferred write error (NFS, quota), so it is checked too.
  if (::close(fd) != 0) {
    const int error_number = errno;
    std::remove(temp_path.c_str());
    return io_error(path + ": write failed: " + errno_text(error_number));
  }
  if (std::rename(temp_path.c_str(), path.c_str()) != 0) {
    const int error_number = errno;
    std::remove(temp_path.c_str());
    return io_error(path + ": cannot rename " + temp_path + " to it: " + errno_text(error_number));
  }
  return Status::ok_status();
}

}  // namespace tonekit::io
