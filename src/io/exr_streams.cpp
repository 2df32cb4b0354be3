#include "exr_streams.hpp"

#include <cstring>

#include <OpenEXR/Iex.h>

namespace tonekit::io {

MemoryIStream::MemoryIStream(const std::string& name, const std::uint8_t* data, std::size_t size)
    : Imf::IStream(name.c_str()), data_(data), size_(size) {}

bool MemoryIStream::read(char c[], int n) {
  if (n < 0 || position_ > size_ || static_cast<std::uint64_t>(n) > size_ - position_)
    throw Iex::InputExc("Unexpected end of file (the file is truncated).");
  if (n > 0) std::memcpy(c, data_ + position_, static_cast<std::size_t>(n));
  position_ += static_cast<std::uint64_t>(n);
  return position_ < size_;
}

std::uint64_t MemoryIStream::tellg() { return position_; }

// Seeking past the end is allowed, as for files; the next read throws.
void MemoryIStream::seekg(std::uint64_t position) { position_ = position; }

MemoryOStream::MemoryOStream(const std::string& name) : Imf::OStream(name.c_str()) {}

void MemoryOStream::write(const char c[], int n) {
  if (n <= 0) return;
  const std::size_t end = static_cast<std::size_t>(position_) + static_cast<std::size_t>(n);
  if (end > bytes_.size()) bytes_.resize(end);
  std::memcpy(bytes_.data() + position_, c, static_cast<std::size_t>(n));
  position_ = end;
}

std::uint64_t MemoryOStream::tellp() { return position_; }

void MemoryOStream::seekp(std::uint64_t position) { position_ = position; }

}  // namespace tonekit::io
