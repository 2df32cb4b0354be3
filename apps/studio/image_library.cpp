#include "image_library.hpp"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <system_error>

#include "downscale.hpp"
#include "stream/frame_io.hpp"
#include "stream/sequence_pattern.hpp"
#include "tonekit/io.hpp"

namespace tonekit::studio {

namespace fs = std::filesystem;

bool is_hdr_file_name(const fs::path& p) {
  std::string ext = p.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return ext == ".exr" || ext == ".hdr" || ext == ".pic" || ext == ".pfm";
}

std::string infer_sequence_pattern(const std::vector<fs::path>& files) {
  if (files.size() < 2) return "";
  std::string prefix, suffix;
  std::size_t digits = 0;
  for (std::size_t i = 0; i < files.size(); ++i) {
    const std::string name = files[i].filename().string();
    const std::size_t end = name.find_last_of("0123456789");
    if (end == std::string::npos) return "";
    std::size_t begin = end;
    while (begin > 0 && std::isdigit(static_cast<unsigned char>(name[begin - 1]))) --begin;
    const std::string p = name.substr(0, begin), s = name.substr(end + 1);
    const std::size_t n = end + 1 - begin;
    if (i == 0) {
      prefix = p, suffix = s, digits = n;
    } else if (p != prefix || s != suffix || n != digits) {
      return "";  // not one run: listed as separate stills
    }
  }
  if (digits > 12) return "";
  // '%' in a name is literal: escaped so that the pattern has exactly one field.
  auto escape = [](const std::string& text) {
    std::string out;
    for (char c : text) out += c == '%' ? std::string("%%") : std::string(1, c);
    return out;
  };
  const std::string folder = files.front().parent_path().string() + "/";
  return escape(folder + prefix) + "%0" + std::to_string(digits) + "d" + escape(suffix);
}

std::string ImageEntry::frame_path(long long index) const {
  if (!is_sequence()) return path;
  auto p = stream::parse_sequence_pattern(pattern);
  return p.ok() ? p->path(first_number + index) : path;
}

Status ImageLibrary::add_sequence(const std::string& pattern) {
  auto parsed = stream::parse_sequence_pattern(pattern);
  if (!parsed.ok()) return parsed.status();
  auto range = stream::scan_sequence(*parsed, std::nullopt);
  if (!range.ok()) return range.status();
  ImageEntry* entry = add_entry(fs::path(pattern).filename().string(), pattern);
  std::lock_guard lock(entry->mutex);
  entry->pattern = pattern;
  entry->first_number = range->first;
  entry->frame_count = range->count;
  if (auto meta = io::probe_image(parsed->path(range->first)); meta.ok()) {
    entry->width = meta->width;
    entry->height = meta->height;
  }
  return {};
}

ImageLibrary::ImageLibrary(PathGuard guard, std::size_t max_decoded)
    : guard_(std::move(guard)), max_decoded_(std::max<std::size_t>(1, max_decoded)) {
  for (const fs::path& root : guard_.roots()) {
    std::error_code ec;
    if (guard_.is_pattern(root)) {
      // Checked by the server before it starts (a gap or no frames is the user's error).
      (void)add_sequence(root.string());
      continue;
    }
    if (!fs::is_directory(root, ec)) {
      add_entry(root.filename().string(), root.string());
      continue;
    }
    std::vector<fs::path> found;
    for (const fs::directory_entry& e : fs::directory_iterator(root, ec))
      if (e.is_regular_file(ec) && is_hdr_file_name(e.path())) found.push_back(e.path());
    std::sort(found.begin(), found.end());
    // A folder of one numbered run is a shot, opened as one sequence; a gap falls back to stills.
    if (const std::string pattern = infer_sequence_pattern(found); !pattern.empty() && add_sequence(pattern).ok())
      continue;
    for (const fs::path& f : found) {
      fs::path canonical = fs::canonical(f, ec);
      // A symlink in a root that leads out of the roots is not served.
      if (!ec && guard_.resolve(canonical.string()).ok()) add_entry(f.filename().string(), canonical.string());
    }
  }
}

ImageEntry* ImageLibrary::add_entry(std::string name, std::string path) {
  std::lock_guard lock(mutex_);
  if (!path.empty())
    for (auto& e : entries_)
      if (e->path == path) return e.get();
  auto entry = std::make_unique<ImageEntry>();
  entry->id = static_cast<int>(entries_.size());
  entry->name = std::move(name);
  entry->path = std::move(path);
  if (!entry->path.empty())
    if (auto meta = io::probe_image(entry->path); meta.ok()) {
      entry->width = meta->width;
      entry->height = meta->height;
    }
  entries_.push_back(std::move(entry));
  return entries_.back().get();
}

std::vector<ImageEntry*> ImageLibrary::entries() const {
  std::lock_guard lock(mutex_);
  std::vector<ImageEntry*> out;
  for (auto& e : entries_) out.push_back(e.get());
  return out;
}

ImageEntry* ImageLibrary::find(int id) const {
  std::lock_guard lock(mutex_);
  if (id < 0 || static_cast<std::size_t>(id) >= entries_.size()) return nullptr;
  return entries_[static_cast<std::size_t>(id)].get();
}

Result<ImageEntry*> ImageLibrary::open(const std::string& requested) {
  auto path = guard_.resolve(requested);
  if (!path.ok()) return path.status();
  std::error_code ec;
  if (!fs::is_regular_file(*path, ec)) return bad_input(requested + ": not a file");
  return add_entry(path->filename().string(), path->string());
}

Result<ImageEntry*> ImageLibrary::add_upload(const std::string& name, const std::string& bytes) {
  // The readers (and their checks) take paths: the bytes go to a file in a private folder
  // (mkdtemp: mode 0700, a fresh name), removed again once decoded.
  std::error_code ec;
  std::string folder = (fs::temp_directory_path(ec) / "tonekit-studio-upload-XXXXXX").string();
  if (ec || ::mkdtemp(folder.data()) == nullptr) return io_error("upload: cannot create a temporary folder");
  const fs::path tmp = fs::path(folder) / "upload";
  Result<Image> image = io_error("upload: not written");
  if (Status s = io::write_file_atomically(tmp.string(), bytes); !s.ok()) image = s;
  else image = io::read_image(tmp.string());
  fs::remove_all(folder, ec);
  if (!image.ok()) {
    std::string message = image.status().message();
    // The reader names the temporary file; the user knows the upload by its own name.
    if (auto at = message.find(tmp.string()); at != std::string::npos) message.replace(at, tmp.string().size(), name);
    return Status(image.status().code(), message);
  }
  ImageEntry* entry = add_entry(name.empty() ? "upload" : name, "");
  std::lock_guard lock(entry->mutex);
  entry->width = image->width;
  entry->height = image->height;
  entry->full = std::make_shared<const Image>(std::move(*image));
  entry->decoded = true;
  return entry;
}

Result<std::shared_ptr<const Image>> ImageLibrary::full_image(ImageEntry& entry, long long frame) {
  entry.last_used = ++use_clock_;
  if (frame < 0) frame = entry.frame;
  if (frame >= entry.frame_count)
    return invalid_argument("frame " + std::to_string(frame) + " is outside the sequence's " +
                            std::to_string(entry.frame_count) + " frames (0 to " + std::to_string(entry.frame_count - 1) + ")");
  if (entry.is_sequence() && frame != entry.frame) {
    // One frame held at a time: its preview and renders go with it.
    entry.full.reset();
    entry.preview.reset();
    entry.preview_width = 0;
    entry.full_key.clear();
    entry.preview_key.clear();
  }
  if (!entry.full) {
    Result<Image> image = io_error("not read");
    if (entry.is_sequence()) {
      // The stream's sequence reader: the same readers and the same "every frame matches the
      // first" check as `tonekit stream`; it reads the frame named by the index.
      if (!entry.source) {
        auto source = stream::open_sequence_source(entry.pattern, entry.first_number);
        if (!source.ok()) return source.status();
        entry.source = std::shared_ptr<stream::FrameSource>(std::move(*source));
      }
      stream::Frame f;
      f.index = frame;
      auto got = entry.source->next(f);
      if (!got.ok()) return got.status();
      if (!*got) return bad_input(entry.frame_path(frame) + ": frame not available");
      image = std::move(f.image);
    } else {
      image = io::read_image(entry.path);
    }
    if (!image.ok()) return image.status();
    entry.frame = frame;
    entry.width = image->width;
    entry.height = image->height;
    entry.full = std::make_shared<const Image>(std::move(*image));
    entry.decoded = true;
    release_least_recent(entry);
  }
  return entry.full;
}

std::size_t ImageLibrary::decoded_count() const {
  std::size_t n = 0;
  for (ImageEntry* e : entries()) n += e->decoded ? 1 : 0;
  return n;
}

// Called with keep.mutex held: other entries are only try-locked, so two threads releasing for
// each other never wait on each other; an entry busy rendering is released another time.
void ImageLibrary::release_least_recent(const ImageEntry& keep) {
  std::vector<ImageEntry*> files;
  for (ImageEntry* e : entries())
    if (e != &keep && e->decoded && !e->path.empty()) files.push_back(e);
  if (files.size() + 1 <= max_decoded_) return;
  std::sort(files.begin(), files.end(), [](const ImageEntry* a, const ImageEntry* b) { return a->last_used < b->last_used; });
  for (std::size_t i = 0; i < files.size() + 1 - max_decoded_; ++i) {
    ImageEntry& e = *files[i];
    std::unique_lock lock(e.mutex, std::try_to_lock);
    if (!lock.owns_lock()) continue;
    e.full.reset();
    e.preview.reset();
    e.preview_width = 0;
    e.full_key.clear();
    e.preview_key.clear();
    e.full_render = OutputImage{};
    e.preview_render = OutputImage{};
    e.decoded = false;
  }
}

Result<std::shared_ptr<const Image>> ImageLibrary::preview(ImageEntry& entry, int width, long long frame) {
  auto full = full_image(entry, frame);
  if (!full.ok()) return full.status();
  width = std::clamp(width, 1, (*full)->width);
  if (width == (*full)->width) return *full;
  if (!entry.preview || entry.preview_width != width) {
    entry.preview = std::make_shared<const Image>(downscale_to_width(**full, width));
    entry.preview_width = width;
  }
  return entry.preview;
}

}  // namespace tonekit::studio
