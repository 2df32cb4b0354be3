// The studio's one gate to the file system: a path a client names is opened only when it lies
// inside a served root after `..` and symlinks are resolved. A root is a folder (anything under
// it) or a single file (only itself).
#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include "tonekit/status.hpp"

namespace tonekit::studio {

class PathGuard {
 public:
  // Roots are resolved once here (they must exist); a missing root is a bad_input error.
  static Result<PathGuard> create(const std::vector<std::string>& roots);

  // `requested` is relative to the first folder root, or absolute. The answer is the
  // canonical path, or invalid_argument ("outside the served folders") / bad_input (missing).
  Result<std::filesystem::path> resolve(const std::string& requested) const;

  const std::vector<std::filesystem::path>& roots() const { return roots_; }
  // A root given as a sequence pattern (FOLDER/shot.%04d.exr, folder resolved): the library
  // lists it as one sequence; no client path resolves inside it (its frames are read only by
  // the library, by number).
  bool is_pattern(const std::filesystem::path& root) const;

 private:
  bool inside(const std::filesystem::path& canonical) const;
  std::vector<std::filesystem::path> roots_;  // canonical
  std::vector<std::filesystem::path> patterns_;
};

}  // namespace tonekit::studio
