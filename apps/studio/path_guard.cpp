#include "path_guard.hpp"

#include <algorithm>
#include <system_error>

#include "stream/sequence_pattern.hpp"

namespace tonekit::studio {

namespace fs = std::filesystem;

Result<PathGuard> PathGuard::create(const std::vector<std::string>& roots) {
  PathGuard guard;
  for (const std::string& root : roots) {
    std::error_code ec;
    if (!fs::exists(root, ec) && stream::is_sequence_pattern(root)) {
      // The pattern's folder is resolved; the pattern itself names no file.
      const fs::path p(root);
      fs::path folder = fs::canonical(p.has_parent_path() ? p.parent_path() : fs::path("."), ec);
      if (ec) return bad_input(root + ": " + ec.message());
      guard.roots_.push_back(folder / p.filename());
      guard.patterns_.push_back(guard.roots_.back());
      continue;
    }
    fs::path canonical = fs::canonical(root, ec);
    if (ec) return bad_input(root + ": " + ec.message());
    guard.roots_.push_back(canonical);
  }
  return guard;
}

bool PathGuard::is_pattern(const fs::path& root) const {
  return std::find(patterns_.begin(), patterns_.end(), root) != patterns_.end();
}

bool PathGuard::inside(const fs::path& canonical) const {
  for (const fs::path& root : roots_) {
    std::error_code ec;
    if (!fs::is_directory(root, ec)) {
      if (canonical == root) return true;
      continue;
    }
    // Component-wise prefix: /data/hdr does not contain /data/hdr-private/x.
    auto [r, c] = std::mismatch(root.begin(), root.end(), canonical.begin(), canonical.end());
    if (r == root.end()) return true;
  }
  return false;
}

Result<fs::path> PathGuard::resolve(const std::string& requested) const {
  if (requested.empty()) return invalid_argument("empty path");
  if (requested.find('\0') != std::string::npos) return invalid_argument("path holds a NUL byte");
  fs::path p(requested);
  if (p.is_relative()) {
    auto folder = std::find_if(roots_.begin(), roots_.end(), [](const fs::path& r) {
      std::error_code ec;
      return fs::is_directory(r, ec);
    });
    if (folder == roots_.end()) return invalid_argument(requested + ": relative path, but no folder is served");
    p = *folder / p;
  }
  // weakly_canonical first, so that a missing file under a root is "not found" while a path
  // whose existing part leads out of the roots is refused before anything else is said about it.
  std::error_code ec;
  fs::path resolved = fs::weakly_canonical(p, ec);
  if (ec || !inside(resolved)) return invalid_argument(requested + ": outside the served folders");
  if (!fs::exists(resolved, ec)) return bad_input(requested + ": no such file");
  resolved = fs::canonical(resolved, ec);  // symlinks all the way down
  if (ec || !inside(resolved)) return invalid_argument(requested + ": outside the served folders");
  return resolved;
}

}  // namespace tonekit::studio
