// File helpers the CLI and I/O tests share: a whole file as a string, a folder's listing, and
// where the real images of ../shared/hdr are.
#pragma once
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

// The top-level build defines both; the fallback keeps the tests usable in other builds.
#ifndef TONEKIT_SHARED_HDR
#define TONEKIT_SHARED_HDR TONEKIT_SOURCE_DIR "/../shared/hdr"
#endif

namespace tonekit::test {

inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// Files under dir (recursive), relative, sorted.
inline std::vector<std::string> listing(const std::filesystem::path& dir) {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir))
    if (e.is_regular_file()) out.push_back(std::filesystem::relative(e.path(), dir).string());
  std::sort(out.begin(), out.end());
  return out;
}

inline std::filesystem::path shared_hdr() { return std::filesystem::path(TONEKIT_SHARED_HDR); }

}  // namespace tonekit::test

// Skips a test that needs the real images, saying why.
#define SKIP_WITHOUT_SHARED_HDR()                                                                      \
  if (!std::filesystem::is_regular_file(tonekit::test::shared_hdr() / "MANIFEST.md"))                  \
  GTEST_SKIP() << "no real images: " << tonekit::test::shared_hdr() << "/MANIFEST.md is absent (needs ../shared/hdr)"
