// read_image() and probe_image(): pick the reader from the file's first bytes, never from its
// extension (a .hdr that is really an EXR still reads).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <new>

#include "file_bytes.hpp"
#include "input_checks.hpp"
#include "readers.hpp"
#include "tonekit/io.hpp"

namespace tonekit::io {
namespace {

// Enough for any Radiance or PFM header seen in practice; a longer Radiance header makes
// probe_image read the whole file.
constexpr std::size_t kProbeBytes = 64 * 1024;

Status not_an_image(const std::string& path) {
  return bad_input(path + ": not an OpenEXR, Radiance HDR or PFM file");
}

bool starts_with(const std::uint8_t* data, std::size_t size, const char* prefix) {
  const std::size_t length = std::strlen(prefix);
  return size >= length && std::memcmp(data, prefix, length) == 0;
}

}  // namespace

FileFormat detect_format(const std::uint8_t* data, std::size_t size) {
  static constexpr std::uint8_t kExrMagic[] = {0x76, 0x2f, 0x31, 0x01};
  if (size >= 4 && std::memcmp(data, kExrMagic, 4) == 0) return FileFormat::exr;
  if (starts_with(data, size, "#?")) return FileFormat::rgbe;
  if ((starts_with(data, size, "PF") || starts_with(data, size, "Pf")) && size >= 3 &&
      (data[2] == '\n' || data[2] == '\r' || data[2] == ' ' || data[2] == '\t'))
    return FileFormat::pfm;
  return FileFormat::unknown;
}

namespace {

bool is_regular_file(const std::string& path) {
  struct stat info {};
  return ::stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode);
}

// PFM pixels go from the file straight into the image (read_pfm_file): one copy instead of
// three (file buffer, its zero fill, the conversion). A 100 MB PFM from the page cache, 2 cores:
// 175 -> 84 ms a read, the rest the new image's page faults; 24-27 ms with the CLI's huge pages
// (apps/huge_pages.cpp).
Result<Image> read_pfm_fast(const std::string& path, const FileBytes& prefix) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return io_error(path + ": cannot open: " + errno_text(errno));
  auto image = read_pfm_file(path, fd, prefix.bytes.data(), prefix.bytes.size(), prefix.file_size);
  ::close(fd);
  return image;
}

}  // namespace

Result<Image> read_image(const std::string& path) {
  try {
    // A regular file: its first bytes pick the reader, and a PFM is then read in place. Pipes
    // and devices (and paths that fail: read_file_bytes says why) are read whole.
    if (is_regular_file(path)) {
      auto prefix = read_file_prefix(path, kProbeBytes);
      if (!prefix.ok()) return prefix.status();
      if (detect_format(prefix->bytes.data(), prefix->bytes.size()) == FileFormat::pfm) {
        auto image = read_pfm_fast(path, *prefix);
        if (image.ok()) {
          image->meta.width = image->width;
          image->meta.height = image->height;
        }
        return image;
      }
    }
    auto file = read_input_bytes(path);
    if (!file.ok()) return file.status();
    const std::uint8_t* data = file->data();
    const std::size_t size = file->size();
    Result<Image> image = Status();
    switch (detect_format(data, size)) {
      case FileFormat::exr: image = read_exr_memory(path, data, size); break;
      case FileFormat::rgbe: image = read_rgbe_memory(path, data, size); break;
      case FileFormat::pfm: image = read_pfm_memory(path, data, size); break;
      case FileFormat::unknown: return not_an_image(path);
    }
    if (image.ok()) {
      image->meta.width = image->width;
      image->meta.height = image->height;
    }
    return image;
  } catch (const std::bad_alloc&) {
    return Status(StatusCode::out_of_memory, path + ": out of memory while reading");
  } catch (const std::exception& e) {
    return Status(StatusCode::runtime_error, path + ": " + one_line(e.what()));
  }
}

Status read_half_rgba(const std::string& path, HalfImage& into) {
  Status status;
  try {
    auto prefix = read_file_prefix(path, 4);
    if (!prefix.ok()) {
      status = prefix.status();
    } else if (detect_format(prefix->bytes.data(), prefix->bytes.size()) != FileFormat::exr) {
      status = unsupported(path + ": not an OpenEXR file");
    } else {
      auto file = read_input_bytes(path);
      status = file.ok() ? read_exr_half_memory(path, file->data(), file->size(), ReadLimits{}, into) : file.status();
    }
  } catch (const std::bad_alloc&) {
    status = Status(StatusCode::out_of_memory, path + ": out of memory while reading");
  } catch (const std::exception& e) {
    status = Status(StatusCode::runtime_error, path + ": " + one_line(e.what()));
  }
  if (!status.ok()) into = HalfImage();
  return status;
}

Result<HalfImage> read_half_rgba(const std::string& path) {
  HalfImage out;
  if (Status s = read_half_rgba(path, out); !s.ok()) return s;
  return out;
}

Result<ImageMetadata> probe_image(const std::string& path) {
  try {
    auto file = read_file_prefix(path, kProbeBytes);
    if (!file.ok()) return file.status();
    const std::uint8_t* data = file->bytes.data();
    const std::size_t size = file->bytes.size();
    switch (detect_format(data, size)) {
      case FileFormat::exr:
        if (!file->regular_file) return unsupported(path + ": OpenEXR can only be probed in a regular file");
        return probe_exr_file(path, file->file_size);
      case FileFormat::rgbe: {
        auto meta = probe_rgbe_prefix(path, data, size);
        if (meta.ok() || size == file->file_size || !file->regular_file) return meta;
        // The header may run past the prefix: read the whole file and try again.
        auto whole = read_file_bytes(path);
        if (!whole.ok()) return whole.status();
        return probe_rgbe_prefix(path, whole->bytes.data(), whole->bytes.size());
      }
      case FileFormat::pfm: return probe_pfm_prefix(path, data, size, file->file_size);
      case FileFormat::unknown: return not_an_image(path);
    }
    return not_an_image(path);
  } catch (const std::bad_alloc&) {
    return Status(StatusCode::out_of_memory, path + ": out of memory while probing");
  } catch (const std::exception& e) {
    return Status(StatusCode::runtime_error, path + ": " + one_line(e.what()));
  }
}

}  // namespace tonekit::io
