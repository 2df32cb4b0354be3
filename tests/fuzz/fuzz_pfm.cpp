// libFuzzer target: the PFM reader and its header-only probe on arbitrary bytes.
// Run through scripts/run_fuzzers.sh.
#include <cstddef>
#include <cstdint>

#include "../../src/io/readers.hpp"
#include "fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const tonekit::io::ReadLimits limits{tonekit::fuzz::kFuzzMaxSide, tonekit::fuzz::kFuzzMaxPixels};
  tonekit::fuzz::check_image("fuzz.pfm", tonekit::io::read_pfm_memory("fuzz.pfm", data, size, limits));
  tonekit::fuzz::check_metadata("fuzz.pfm", tonekit::io::probe_pfm_prefix("fuzz.pfm", data, size, size));
  return 0;
}
