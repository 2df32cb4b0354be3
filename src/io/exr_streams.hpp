// OpenEXR streams over memory: the reader decodes files already read into memory (the same
// path the fuzzers take), and the writer encodes into memory before write_file_atomically().
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include <OpenEXR/ImfIO.h>

namespace tonekit::io {

// Reads past the end throw Iex::InputExc, which the reader turns into a bad_input Status.
class MemoryIStream final : public Imf::IStream {
 public:
  MemoryIStream(const std::string& name, const std::uint8_t* data, std::size_t size);
  bool read(char c[], int n) override;
  std::uint64_t tellg() override;
  void seekg(std::uint64_t position) override;

 private:
  const std::uint8_t* data_;
  std::size_t size_;
  std::uint64_t position_ = 0;
};

// OpenEXR seeks back to fill in the offset table, so writes may overwrite earlier bytes.
class MemoryOStream final : public Imf::OStream {
 public:
  explicit MemoryOStream(const std::string& name);
  void write(const char c[], int n) override;
  std::uint64_t tellp() override;
  void seekp(std::uint64_t position) override;
  const std::string& bytes() const { return bytes_; }

 private:
  std::string bytes_;
  std::uint64_t position_ = 0;
};

}  // namespace tonekit::io
