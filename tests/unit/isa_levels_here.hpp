// The instruction-set levels above the baseline that this CPU has (src/cpu/isa_level.hpp), for
// the tests that compare each level's bytes with the baseline's; prints a SKIPPED line for each
// level the CPU lacks.
#pragma once
#include <cstdio>
#include <vector>

#include "cpu/isa_level.hpp"

namespace tonekit::test {

inline std::vector<cpu::IsaLevel> isa_levels_here() {
  std::vector<cpu::IsaLevel> v;
  for (cpu::IsaLevel l : {cpu::IsaLevel::v3, cpu::IsaLevel::v4}) {
    if (l <= cpu::isa_level_supported()) v.push_back(l);
    else std::printf("[  SKIPPED ] level %s: this CPU lacks it\n", cpu::isa_level_name(l));
  }
  return v;
}

}  // namespace tonekit::test
