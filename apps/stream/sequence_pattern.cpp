#include "stream/sequence_pattern.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <set>
#include <system_error>

namespace tonekit::stream {

namespace fs = std::filesystem;

std::string SequencePattern::path(long long number) const {
  char digits[32];
  std::snprintf(digits, sizeof digits, "%0*lld", pad, number);
  return prefix + digits + suffix;
}

bool is_sequence_pattern(const std::string& path) { return parse_sequence_pattern(path).ok(); }

Result<SequencePattern> parse_sequence_pattern(const std::string& path) {
  SequencePattern p;
  p.text = path;
  int fields = 0;
  std::string* side = &p.prefix;
  for (std::size_t i = 0; i < path.size(); ++i) {
    if (path[i] != '%') {
      *side += path[i];
      continue;
    }
    if (i + 1 < path.size() && path[i + 1] == '%') {
      *side += '%';
      ++i;
      continue;
    }
    std::size_t j = i + 1;
    int pad = 0;
    bool zero = j < path.size() && path[j] == '0';
    while (j < path.size() && path[j] >= '0' && path[j] <= '9' && j - i <= 3) pad = pad * 10 + (path[j++] - '0');
    if (j >= path.size() || path[j] != 'd' || (pad > 0 && !zero) || pad > 12)
      return invalid_argument(path + ": a sequence needs one %d or %0Nd field (N <= 12), e.g. shot.%04d.exr");
    if (++fields > 1) return invalid_argument(path + ": more than one %d field");
    p.pad = pad;
    side = &p.suffix;
    i = j;
  }
  if (fields == 0) return invalid_argument(path + ": not a sequence pattern (no %d field)");
  return p;
}

Result<SequenceRange> scan_sequence(const SequencePattern& pattern, std::optional<long long> start) {
  const fs::path prefix_path(pattern.prefix);
  // The number may not sit in a folder name: "dir%d/x.exr" is not supported.
  if (pattern.suffix.find('/') != std::string::npos)
    return invalid_argument(pattern.text + ": the %d field must be in the file name, not a folder");
  const bool prefix_is_dir = !pattern.prefix.empty() && pattern.prefix.back() == '/';
  const fs::path dir = prefix_is_dir ? prefix_path : prefix_path.parent_path();
  const std::string name_prefix = prefix_is_dir ? std::string() : prefix_path.filename().string();
  std::error_code ec;
  std::set<long long> found;
  for (const fs::directory_entry& e : fs::directory_iterator(dir.empty() ? fs::path(".") : dir, ec)) {
    const std::string name = e.path().filename().string();
    if (name.size() <= name_prefix.size() + pattern.suffix.size()) continue;
    if (name.compare(0, name_prefix.size(), name_prefix) != 0) continue;
    if (name.compare(name.size() - pattern.suffix.size(), pattern.suffix.size(), pattern.suffix) != 0) continue;
    const std::string digits = name.substr(name_prefix.size(), name.size() - name_prefix.size() - pattern.suffix.size());
    if (digits.empty() || digits.size() > 15 || !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
      continue;
    const long long n = std::stoll(digits);
    if (fs::path(pattern.path(n)).filename().string() != name) continue;  // e.g. shot.1.exr for %04d
    found.insert(n);
  }
  if (ec) return bad_input(pattern.text + ": cannot list " + (dir.empty() ? std::string(".") : dir.string()) + ": " + ec.message());
  if (found.empty()) return bad_input(pattern.text + ": no files match this sequence pattern");
  SequenceRange range;
  range.first = start ? *start : *found.begin();
  if (!found.count(range.first))
    return bad_input(pattern.text + ": the first frame " + pattern.path(range.first) + " does not exist (frames found from " +
                     std::to_string(*found.begin()) + " to " + std::to_string(*found.rbegin()) + ")");
  long long n = range.first;
  while (found.count(n)) ++n;
  range.count = n - range.first;
  auto later = found.upper_bound(n);
  if (later != found.end())
    return bad_input(pattern.text + ": gap in the numbering: " + pattern.path(n) + " is missing but " +
                     pattern.path(*later) + " exists (use --start to begin after the gap)");
  return range;
}

}  // namespace tonekit::stream
