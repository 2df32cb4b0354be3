// Reading a whole input file (or its first bytes) into memory, with the checks every reader
// wants first: the path exists, is not a directory, and is not empty.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "tonekit/status.hpp"

namespace tonekit::io {

struct FileBytes {
  std::vector<std::uint8_t> bytes;  // the whole file, or its first bytes for read_file_prefix
  std::uint64_t file_size = 0;      // size of the whole file (bytes read, for a pipe)
  bool regular_file = true;
};

// Errors: bad_input for a missing path, a directory or an empty file (the user named the wrong
// thing, CLI exit code 1); io_error when the system refuses (permissions, read errors).
Result<FileBytes> read_file_bytes(const std::string& path);

// A whole input file in memory for a reader: a regular file of 1 MiB or more is mapped (read-only,
// prefaulted from the page cache: no zero-filled buffer and no copy, which cost a 4K EXR still
// ~11 ms of its ~250 on 2 cores), anything else read as read_file_bytes does, with its errors.
class InputBytes {
 public:
  InputBytes() = default;
  InputBytes(InputBytes&& other) noexcept;
  InputBytes& operator=(InputBytes&& other) noexcept;
  InputBytes(const InputBytes&) = delete;
  InputBytes& operator=(const InputBytes&) = delete;
  ~InputBytes();
  const std::uint8_t* data() const { return mapped_ != nullptr ? mapped_ : read_.bytes.data(); }
  std::size_t size() const { return mapped_ != nullptr ? mapped_size_ : read_.bytes.size(); }

 private:
  friend Result<InputBytes> read_input_bytes(const std::string& path);
  const std::uint8_t* mapped_ = nullptr;
  std::size_t mapped_size_ = 0;
  FileBytes read_;
};
Result<InputBytes> read_input_bytes(const std::string& path);
Result<FileBytes> read_file_prefix(const std::string& path, std::size_t max_bytes);

// Destinations for read_rows: `size` bytes at `data`, filled in order from the file.
struct RowTarget {
  void* data = nullptr;
  std::size_t size = 0;
};
// Reads consecutive file bytes from `offset` into `rows` (preadv, IOV_MAX rows a call; short
// reads and EINTR retried). bad_input if the file ends first (it shrank since it was sized).
Status read_rows(const std::string& path, int fd, std::uint64_t offset, const std::vector<RowTarget>& rows);

}  // namespace tonekit::io
