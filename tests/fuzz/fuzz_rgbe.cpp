// libFuzzer target: the Radiance RGBE reader and its header-only probe on arbitrary bytes.
// Run through scripts/run_fuzzers.sh.
#include <cstddef>
#include <cstdint>

#include "../../src/io/readers.hpp"
#include "fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const tonekit::io::ReadLimits limits{tonekit::fuzz::kFuzzMaxSide, tonekit::fuzz::kFuzzMaxPixels};
  tonekit::fuzz::check_image("fuzz.hdr", tonekit::io::read_rgbe_memory("fuzz.hdr", data, size, limits));
  tonekit::fuzz::check_metadata("fuzz.hdr", tonekit::io::probe_rgbe_prefix("fuzz.hdr", data, size));
  return 0;
}
