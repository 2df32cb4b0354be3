#include "stream/fd_io.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>

namespace tonekit::stream {
namespace {

std::string errno_message(int e) { return std::strerror(e); }

}  // namespace

Cancel::Cancel() {
  if (::pipe2(fds_, O_CLOEXEC | O_NONBLOCK) != 0) fds_[0] = fds_[1] = -1;
}
Cancel::~Cancel() {
  for (int fd : fds_)
    if (fd >= 0) ::close(fd);
}
void Cancel::cancel() {
  const char byte = 1;
  if (fds_[1] >= 0) [[maybe_unused]] ssize_t n = ::write(fds_[1], &byte, 1);
}
bool Cancel::cancelled() const {
  if (fds_[0] < 0) return false;
  pollfd p{fds_[0], POLLIN, 0};
  return ::poll(&p, 1, 0) > 0;
}

void ignore_sigpipe() { std::signal(SIGPIPE, SIG_IGN); }

void widen_pipe(int fd) {
#ifdef F_SETPIPE_SZ
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISFIFO(st.st_mode)) return;
  // The largest buffer allowed, up to 16 MiB (more than a 4K 8-bit frame, two thirds of a 10-bit
  // one): an unprivileged process may go up to /proc/sys/fs/pipe-max-size (1 MiB by default), a
  // privileged one further; each refused size falls back to the next smaller.
  for (int size = 16 << 20; size >= 1 << 20; size >>= 1)
    if (::fcntl(fd, F_SETPIPE_SZ, size) >= 0) return;
  long max_size = 0;
  if (std::FILE* f = std::fopen("/proc/sys/fs/pipe-max-size", "r")) {
    if (std::fscanf(f, "%ld", &max_size) != 1) max_size = 0;
    std::fclose(f);
  }
  if (max_size > 65536) ::fcntl(fd, F_SETPIPE_SZ, static_cast<int>(std::min<long>(max_size, 16 << 20)));
#else
  (void)fd;
#endif
}

InputStream::~InputStream() {
  if (map_) ::munmap(const_cast<std::uint8_t*>(map_), map_size_);
  if (owns_ && fd_ >= 0) ::close(fd_);
}

Result<const std::uint8_t*> InputStream::view(std::size_t n, std::size_t& got) {
  got = 0;
  if (!regular_ || map_failed_) return nullptr;
  struct stat st;
  if (::fstat(fd_, &st) != 0) return io_error(name_ + ": fstat failed: " + errno_message(errno));
  const std::size_t size = static_cast<std::size_t>(st.st_size);
  if (!map_) {
    if (size == 0) return nullptr;
    void* p = ::mmap(nullptr, size, PROT_READ, MAP_SHARED, fd_, 0);
    if (p == MAP_FAILED) {
      map_failed_ = true;
      return nullptr;
    }
    ::madvise(p, size, MADV_SEQUENTIAL);
    map_ = static_cast<const std::uint8_t*>(p);
    map_size_ = size;
  }
  // Where read() would continue: the descriptor's offset less what was pushed back.
  const off_t at = ::lseek(fd_, 0, SEEK_CUR);
  if (at < 0) return io_error(name_ + ": lseek failed: " + errno_message(errno));
  const std::size_t pos = static_cast<std::size_t>(at) - pushback_.size();
  if (size < map_size_ && pos + std::min(n, map_size_ - std::min(pos, map_size_)) > size)
    return bad_input(name_ + ": the file shrank while it was read (" + std::to_string(size) + " bytes now, " +
                     std::to_string(map_size_) + " when it was opened)");
  if (pos + n > map_size_ && size > map_size_) return nullptr;  // grown past the mapping: read() it
  got = pos < map_size_ ? std::min(n, map_size_ - pos) : 0;
  pushback_.clear();
  if (::lseek(fd_, static_cast<off_t>(pos + got), SEEK_SET) < 0) return io_error(name_ + ": lseek failed: " + errno_message(errno));
  return map_ + pos;
}

Status InputStream::open(const std::string& path, const Cancel* cancel) {
  cancel_ = cancel;
  if (path == "-") {
    fd_ = STDIN_FILENO;
    name_ = "stdin";
  } else {
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) {
      const int e = errno;
      return e == ENOENT ? bad_input(path + ": no such file") : io_error(path + ": cannot open: " + errno_message(e));
    }
    owns_ = true;
    name_ = path;
  }
  struct stat st;
  if (::fstat(fd_, &st) == 0) {
    regular_ = S_ISREG(st.st_mode);
    if (S_ISDIR(st.st_mode)) return bad_input(path + " is a folder");
    if (regular_) file_size_ = static_cast<long long>(st.st_size);
  }
  widen_pipe(fd_);
  return {};
}

void InputStream::unread(const void* data, std::size_t n) {
  const auto* p = static_cast<const std::uint8_t*>(data);
  pushback_.insert(pushback_.begin(), p, p + n);
}

Result<std::size_t> InputStream::read(void* dst, std::size_t n) {
  auto* out = static_cast<std::uint8_t*>(dst);
  std::size_t got = 0;
  if (!pushback_.empty()) {
    got = std::min(n, pushback_.size());
    std::memcpy(out, pushback_.data(), got);
    pushback_.erase(pushback_.begin(), pushback_.begin() + static_cast<std::ptrdiff_t>(got));
  }
  while (got < n) {
    // Pipes and terminals: wait for data or for a cancel, so that a failed writer can stop a
    // reader whose upstream is slow or stuck. Regular files never block.
    if (!regular_ && cancel_ && cancel_->wake_fd() >= 0) {
      pollfd p[2] = {{fd_, POLLIN, 0}, {cancel_->wake_fd(), POLLIN, 0}};
      if (::poll(p, 2, -1) < 0) {
        if (errno == EINTR) continue;
        return io_error(name_ + ": poll failed: " + errno_message(errno));
      }
      if (p[1].revents) return Status{StatusCode::runtime_error, name_ + ": reading cancelled"};
    }
    const ssize_t r = ::read(fd_, out + got, n - got);
    if (r < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      return io_error(name_ + ": read failed: " + errno_message(errno));
    }
    if (r == 0) break;
    got += static_cast<std::size_t>(r);
  }
  return got;
}

Result<bool> InputStream::read_line(std::string& line, std::size_t max) {
  line.clear();
  for (;;) {
    char c = 0;
    auto n = read(&c, 1);
    if (!n.ok()) return n.status();
    if (*n == 0) {
      if (line.empty()) return false;
      return bad_input(name_ + ": the stream ends inside a header line");
    }
    if (c == '\n') return true;
    if (line.size() >= max) return bad_input(name_ + ": header line longer than " + std::to_string(max) + " bytes (not a y4m stream?)");
    line += c;
  }
}

OutputStream::~OutputStream() {
  if (owns_ && fd_ >= 0) ::close(fd_);
}

Status OutputStream::open() {
  if (path_ == "-") {
    fd_ = STDOUT_FILENO;
  } else {
    fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd_ < 0) return io_error(path_ + ": cannot create: " + errno_message(errno));
    owns_ = true;
  }
  widen_pipe(fd_);
  return {};
}

Status OutputStream::write(const void* data, std::size_t n) {
  if (fd_ < 0)
    if (Status s = open(); !s.ok()) return s;
  const auto* p = static_cast<const std::uint8_t*>(data);
  while (n > 0) {
    const ssize_t w = ::write(fd_, p, n);
    if (w < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      if (errno == EPIPE) {
        downstream_closed_ = true;
        return io_error(name() + ": the reader closed the pipe");
      }
      return io_error(name() + ": write failed: " + errno_message(errno));
    }
    p += w;
    n -= static_cast<std::size_t>(w);
  }
  return {};
}

Status OutputStream::close() {
  if (owns_ && fd_ >= 0) {
    const int fd = fd_;
    fd_ = -1;
    owns_ = false;
    if (::close(fd) != 0) return io_error(path_ + ": write failed: " + errno_message(errno));
  }
  return {};
}

}  // namespace tonekit::stream
