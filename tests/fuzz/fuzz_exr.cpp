// libFuzzer target: the OpenEXR readers, float and half (our header checks, then the OpenEXR
// library) on arbitrary bytes. Run through scripts/run_fuzzers.sh.
#include <cstddef>
#include <cstdint>

#include "../../src/io/readers.hpp"
#include "fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const tonekit::io::ReadLimits limits{tonekit::fuzz::kFuzzMaxSide, tonekit::fuzz::kFuzzMaxPixels};
  tonekit::fuzz::check_image("fuzz.exr", tonekit::io::read_exr_memory("fuzz.exr", data, size, limits));
  tonekit::fuzz::check_half("fuzz.exr", tonekit::io::read_exr_half_memory("fuzz.exr", data, size, limits));
  return 0;
}
