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
