#include "cpu/isa_level.hpp"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace tonekit::cpu {
namespace {

IsaLevel detect() {
  __builtin_cpu_init();
  // GCC's own level names: every feature of the level, and the OS saving its registers.
  const bool v3 = __builtin_cpu_supports("x86-64-v3");
  const bool v4 = __builtin_cpu_supports("x86-64-v4");
  return v4 ? IsaLevel::v4 : v3 ? IsaLevel::v3 : IsaLevel::baseline;
}

IsaLevel choose() {
  IsaLevel level = detect();
  const char* no512 = std::getenv("TONEKIT_NO_AVX512");
  if (no512 && *no512 && std::strcmp(no512, "0") != 0 && level > IsaLevel::v3) level = IsaLevel::v3;
  if (const char* want = std::getenv("TONEKIT_CPU_LEVEL"); want && *want) {
    IsaLevel asked = level;
    if (std::strcmp(want, "baseline") == 0) asked = IsaLevel::baseline;
    else if (std::strcmp(want, "v3") == 0) asked = IsaLevel::v3;
    else if (std::strcmp(want, "v4") == 0) asked = IsaLevel::v4;
    else std::fprintf(stderr, "tonekit: warning: TONEKIT_CPU_LEVEL=%s is not baseline, v3 or v4: ignored\n", want);
    if (asked < level) level = asked;
  }
  return level;
}

}  // namespace

IsaLevel isa_level_supported() {
  static const IsaLevel level = detect();
  return level;
}

namespace {
// set_isa_level_for_testing's level; -1: none (choose()'s).
std::atomic<int> forced_level{-1};
}  // namespace

IsaLevel isa_level() {
  if (const int forced = forced_level.load(std::memory_order_relaxed); forced >= 0) return static_cast<IsaLevel>(forced);
  static const IsaLevel level = choose();
  return level;
}

IsaLevel set_isa_level_for_testing(IsaLevel level) {
  const IsaLevel before = isa_level();
  forced_level.store(static_cast<int>(std::min(level, isa_level_supported())), std::memory_order_relaxed);
  return before;
}

const char* isa_level_name(IsaLevel level) {
  switch (level) {
    case IsaLevel::v4: return "v4";
    case IsaLevel::v3: return "v3";
    default: return "baseline";
  }
}

}  // namespace tonekit::cpu
