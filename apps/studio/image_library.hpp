// The images a studio session serves: the files and folders given on the command line, files
// opened later from inside those roots, and uploads. Each entry caches its decoded image and a
// downscaled preview, so a slider move reads neither the file nor the full-resolution pixels.
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "path_guard.hpp"
#include "tonekit/image.hpp"
#include "tonekit/status.hpp"

namespace tonekit::stream {
class FrameSource;
}

namespace tonekit::studio {

struct ImageEntry {
  int id = 0;
  std::string name;  // file name shown in the strip
  std::string path;  // canonical path; empty for uploads
  int width = 0, height = 0;  // from probe_image (0 until known)
  // Image sequences (shot.%04d.exr, or a folder of one numbered run): `path` is the canonical
  // pattern, frames are read one at a time (`frame` is the one held in `full`).
  std::string pattern;       // empty for a still
  long long first_number = 0;
  long long frame_count = 1;  // 1 for a still
  double fps = 24.0;          // playback rate; sets the temporal time step (settable per request)
  long long frame = 0;
  bool is_sequence() const { return !pattern.empty(); }
  std::string frame_path(long long index) const;
  // For releasing the least recently used decoded images (read without the mutex).
  std::atomic<std::uint64_t> last_used{0};
  std::atomic<bool> decoded{false};

  // Guards everything below; renders of one image run one at a time.
  std::mutex mutex;
  std::shared_ptr<const Image> full;
  std::shared_ptr<stream::FrameSource> source;  // sequences: opened on first use
  std::shared_ptr<const Image> preview;
  int preview_width = 0;
  std::string thumbnail_png;
  // The last render of each kind, so that panning a 1:1 view crops instead of re-rendering,
  // and the histogram reuses the preview the page just drew.
  std::string full_key, preview_key;
  OutputImage full_render, preview_render;
};

class ImageLibrary {
 public:
  // Lists the HDR files (.exr .hdr .pic .pfm) of each root folder (not recursive) and each root
  // file; unreadable headers are listed too and fail when opened, with the reader's message.
  // A root that is a sequence pattern, or a folder whose HDR files are all one numbered run
  // (f.0001.exr, f.0002.exr, ...), is listed as one sequence entry.
  // At most `max_decoded` files are held decoded (with their previews and renders); opening
  // another releases the least recently used. Uploads cannot be read again and are always kept.
  explicit ImageLibrary(PathGuard guard, std::size_t max_decoded = 4);

  const PathGuard& guard() const { return guard_; }
  std::vector<ImageEntry*> entries() const;
  ImageEntry* find(int id) const;

  // Opens a file inside the served roots (PathGuard::resolve); the same file twice gives the
  // same entry.
  Result<ImageEntry*> open(const std::string& requested);
  std::size_t decoded_count() const;
  // Decodes uploaded bytes with the CLI's readers (via a private temporary file, removed again).
  Result<ImageEntry*> add_upload(const std::string& name, const std::string& bytes);

  // The decoded image (a sequence: frame `frame`, 0-based), read on first use; a sequence holds
  // one frame at a time. Call with entry.mutex held.
  Result<std::shared_ptr<const Image>> full_image(ImageEntry& entry, long long frame = -1);
  // The image downscaled to `width` (clamped to the image's), cached for the last width asked.
  // Call with entry.mutex held.
  Result<std::shared_ptr<const Image>> preview(ImageEntry& entry, int width, long long frame = -1);

 private:
  ImageEntry* add_entry(std::string name, std::string path);
  // A sequence pattern (shot.%04d.exr) as one entry; an error when it names no unbroken run.
  Status add_sequence(const std::string& pattern);
  void release_least_recent(const ImageEntry& keep);
  PathGuard guard_;
  std::size_t max_decoded_;
  std::atomic<std::uint64_t> use_clock_{0};
  mutable std::mutex mutex_;
  std::deque<std::unique_ptr<ImageEntry>> entries_;  // deque: entry pointers stay valid
};

bool is_hdr_file_name(const std::filesystem::path& p);
// The pattern (FOLDER/f.%04d.exr) that the sorted file names form when they are all one
// numbered run with a shared prefix, suffix and digit count; "" when they do not (or < 2 files).
std::string infer_sequence_pattern(const std::vector<std::filesystem::path>& files);

}  // namespace tonekit::studio
