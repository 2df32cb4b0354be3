#include "file_bytes.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <limits>

#include "input_checks.hpp"

namespace tonekit::io {
namespace {

// Closes the descriptor on every return path.
class FileDescriptor {
 public:
  explicit FileDescriptor(int fd) : fd_(fd) {}
  ~FileDescriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

Status open_error(const std::string& path, int error_number) {
  const std::string message = path + ": cannot open: " + errno_text(error_number);
  if (error_number == ENOENT || error_number == ENOTDIR || error_number == EISDIR || error_number == ENAMETOOLONG)
    return bad_input(message);
  return io_error(message);
}

// Reads up to max_bytes (all of it for max_bytes == SIZE_MAX) from the start of the file.
Result<FileBytes> read_start(const std::string& path, std::size_t max_bytes) {
  if (path.empty()) return bad_input("(empty path): no input file named");
  FileDescriptor fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) return open_error(path, errno);
  struct stat info {};
  if (::fstat(fd.get(), &info) != 0) return io_error(path + ": cannot stat: " + errno_text(errno));
  if (S_ISDIR(info.st_mode)) return bad_input(path + ": is a directory, not an image file");

  FileBytes result;
  result.regular_file = S_ISREG(info.st_mode);
  if (result.regular_file) {
    result.file_size = static_cast<std::uint64_t>(info.st_size);
    if (result.file_size == 0) return bad_input(path + ": empty file");
    const std::uint64_t wanted = std::min<std::uint64_t>(result.file_size, max_bytes);
    if (wanted > std::numeric_limits<std::size_t>::max() / 2)
      return bad_input(path + ": file of " + std::to_string(result.file_size) + " bytes is too large");
    result.bytes.resize(static_cast<std::size_t>(wanted));
  }

  // A pipe or device has no size: grow the buffer as data arrives.
  std::size_t filled = 0;
  while (filled < max_bytes) {
    if (filled == result.bytes.size()) {
      if (result.regular_file) break;
      result.bytes.resize(std::min<std::size_t>(max_bytes, std::max<std::size_t>(65536, result.bytes.size() * 2)));
    }
    const ssize_t got = ::read(fd.get(), result.bytes.data() + filled, result.bytes.size() - filled);
    if (got < 0) {
      if (errno == EINTR) continue;
      if (errno == EISDIR) return bad_input(path + ": is a directory, not an image file");
      return io_error(path + ": read failed: " + errno_text(errno));
    }
    if (got == 0) break;  // end of file (or the file shrank while we read it)
    filled += static_cast<std::size_t>(got);
  }
  result.bytes.resize(filled);
  if (!result.regular_file) result.file_size = filled;
  if (filled == 0) return bad_input(path + ": empty file");
  return result;
}

}  // namespace

Status read_rows(const std::string& path, int fd, std::uint64_t offset, const std::vector<RowTarget>& rows) {
  constexpr std::size_t kMaxVectors = 1024;  // IOV_MAX on Linux
  std::vector<iovec> vectors;
  for (std::size_t first = 0; first < rows.size(); first += kMaxVectors) {
    const std::size_t count = std::min(kMaxVectors, rows.size() - first);
    vectors.resize(count);
    for (std::size_t i = 0; i < count; ++i) vectors[i] = {rows[first + i].data, rows[first + i].size};
    // A short read leaves the vectors partly filled: skip what arrived and go on.
    std::size_t next = 0;
    while (next < count) {
      const ssize_t got = ::preadv(fd, vectors.data() + next, static_cast<int>(count - next), static_cast<off_t>(offset));
      if (got < 0) {
        if (errno == EINTR) continue;
        return io_error(path + ": read failed: " + errno_text(errno));
      }
      if (got == 0) return bad_input(path + ": file ended early (did it shrink while being read?)");
      offset += static_cast<std::uint64_t>(got);
      auto left = static_cast<std::size_t>(got);
      while (next < count && left >= vectors[next].iov_len) left -= vectors[next++].iov_len;
      if (next < count) {
        vectors[next].iov_base = static_cast<char*>(vectors[next].iov_base) + left;
        vectors[next].iov_len -= left;
      }
    }
  }
  return Status::ok_status();
}

Result<FileBytes> read_file_bytes(const std::string& path) {
  return read_start(path, std::numeric_limits<std::size_t>::max());
}

Result<FileBytes> read_file_prefix(const std::string& path, std::size_t max_bytes) {
  return read_start(path, max_bytes);
}

InputBytes::InputBytes(InputBytes&& other) noexcept
    : mapped_(other.mapped_), mapped_size_(other.mapped_size_), read_(std::move(other.read_)) {
  other.mapped_ = nullptr;
  other.mapped_size_ = 0;
}

InputBytes& InputBytes::operator=(InputBytes&& other) noexcept {
  if (this != &other) {
    if (mapped_ != nullptr) ::munmap(const_cast<std::uint8_t*>(mapped_), mapped_size_);
    mapped_ = other.mapped_;
    mapped_size_ = other.mapped_size_;
    read_ = std::move(other.read_);
    other.mapped_ = nullptr;
    other.mapped_size_ = 0;
  }
  return *this;
}

InputBytes::~InputBytes() {
  if (mapped_ != nullptr) ::munmap(const_cast<std::uint8_t*>(mapped_), mapped_size_);
}

Result<InputBytes> read_input_bytes(const std::string& path) {
  constexpr std::uint64_t kMapFrom = std::uint64_t{1} << 20;
  InputBytes input;
  if (!path.empty()) {
    FileDescriptor fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    struct stat info {};
    if (fd.get() >= 0 && ::fstat(fd.get(), &info) == 0 && S_ISREG(info.st_mode) &&
        static_cast<std::uint64_t>(info.st_size) >= kMapFrom &&
        static_cast<std::uint64_t>(info.st_size) <= std::numeric_limits<std::size_t>::max() / 2) {
      const auto size = static_cast<std::size_t>(info.st_size);
      void* p = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd.get(), 0);
      if (p != MAP_FAILED) {
        input.mapped_ = static_cast<const std::uint8_t*>(p);
        input.mapped_size_ = size;
        return input;
      }
    }
  }
  // Small files, pipes, devices, and whatever the mapping refused: read, with read_file_bytes's
  // checks and messages.
  auto file = read_file_bytes(path);
  if (!file.ok()) return file.status();
  input.read_ = std::move(*file);
  return input;
}

}  // namespace tonekit::io
