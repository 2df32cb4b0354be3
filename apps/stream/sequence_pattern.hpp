// Numbered file sequences named with one printf-style field: shot.%04d.exr (zero-padded to 4
// digits) or frame_%d.png (no padding); "%%" is a literal '%'. On disk, a frame's number is
// matched exactly as printf would write it (shot.0001.exr, not shot.1.exr, for %04d).
#pragma once
#include <optional>
#include <string>

#include "tonekit/status.hpp"

namespace tonekit::stream {

struct SequencePattern {
  std::string prefix, suffix;  // around the number (prefix may hold folders)
  int pad = 0;                 // minimum digits (zero-padded)
  std::string text;            // as given
  std::string path(long long number) const;
};

// True when `path` holds a %d or %0Nd field (so it names a sequence, not one file).
bool is_sequence_pattern(const std::string& path);
Result<SequencePattern> parse_sequence_pattern(const std::string& path);

struct SequenceRange {
  long long first = 0;
  long long count = 0;
};
// The frames on disk: from `start` (default: the lowest number found) through the last of an
// unbroken run. A missing number followed by later frames is an error naming the gap, so a
// half-copied shot is not silently cut short.
Result<SequenceRange> scan_sequence(const SequencePattern& pattern, std::optional<long long> start);

}  // namespace tonekit::stream
