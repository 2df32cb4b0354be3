// The x86-64 instruction-set levels of the CPU backend's hot loops (issue 33) and the run-time
// choice among them. The loops are compiled once per level: baseline x86-64 (SSE2), x86-64-v3
// (AVX2, FMA, BMI2) and x86-64-v4 (AVX-512 F/BW/CD/DQ/VL); each call runs the level isa_level()
// chose, the best this CPU has unless TONEKIT_CPU_LEVEL=baseline|v3|v4 asks for a lower one (a
// higher one than the CPU has is ignored: the CPU's best runs). TONEKIT_NO_AVX512=1, the older
// switch, still caps the level at v3.
//
// Every level gives the same bytes: the per-level files are built without contraction (fma only
// where the code spells std::fma, which baseline computes in libm, exactly), without reassociation
// and without libmvec (whose vector widths round differently); tests/unit/test_isa_levels.cpp and
// StreamCli.IsaLevelsGiveTheSameBytes compare every level the machine has.
//
// How a file is compiled per level: its loops sit between TK_ISA_BEGIN and TK_ISA_END, in the
// namespace isa_baseline, isa_v3 or isa_v4 (TK_ISA_LEVEL, set by the level's own small .cpp
// that includes the file, e.g. src/cpu/map_kernels_v3.cpp); the file's plain build (TK_ISA_PRIMARY)
// also holds the public functions, which call the chosen level's through TK_ISA_DISPATCH.
// Code outside the region (headers, templates defined there) keeps the baseline target, so no
// inline function the linker merges can carry AVX instructions into a baseline caller.
#pragma once

namespace tonekit::cpu {

enum class IsaLevel : int { baseline = 0, v3 = 1, v4 = 2 };

// The level the hot loops run at (read once; thread-safe).
IsaLevel isa_level();
// The best level this CPU has (before TONEKIT_CPU_LEVEL).
IsaLevel isa_level_supported();
// "baseline", "v3", "v4".
const char* isa_level_name(IsaLevel level);
// Tests only: every dispatcher runs `level` from now on (capped at isa_level_supported()), so a
// test can run a public function at each level in one process; returns the level in force before.
// Not for concurrent use with running hot loops.
IsaLevel set_isa_level_for_testing(IsaLevel level);

}  // namespace tonekit::cpu

#if !defined(TK_ISA_LEVEL)
#define TK_ISA_PRIMARY 1
#define TK_ISA_LEVEL 0
#else
#define TK_ISA_PRIMARY 0
#endif

// TK_ISA_NS: the level's namespace (to call a level's own function where ADL also finds the
// dispatcher of the same name).
#if TK_ISA_LEVEL == 0
#define TK_ISA_NS isa_baseline
#define TK_ISA_BEGIN namespace isa_baseline {
#define TK_ISA_END }
#elif TK_ISA_LEVEL == 1
#define TK_ISA_NS isa_v3
#define TK_ISA_BEGIN \
  _Pragma("GCC push_options") _Pragma("GCC target(\"arch=x86-64-v3\")") namespace isa_v3 {
#define TK_ISA_END \
  }                \
  _Pragma("GCC pop_options")
#elif TK_ISA_LEVEL == 2
#define TK_ISA_NS isa_v4
// 512-bit vectors: GCC's generic tuning would otherwise keep x86-64-v4 loops at 256 bits.
#define TK_ISA_BEGIN                                                                              \
  _Pragma("GCC push_options") _Pragma("GCC target(\"arch=x86-64-v4,prefer-vector-width=512\")") \
      namespace isa_v4 {
#define TK_ISA_END \
  }                \
  _Pragma("GCC pop_options")
#endif

// Declares the same functions in each level's namespace (for the dispatchers).
#define TK_ISA_DECLARE(...)          \
  namespace isa_baseline {           \
  __VA_ARGS__                        \
  }                                  \
  namespace isa_v3 {                 \
  __VA_ARGS__                        \
  }                                  \
  namespace isa_v4 {                 \
  __VA_ARGS__                        \
  }

// On a level's loop function: every call in it inlined (GCC's flatten), so the helpers it calls
// (core's, cpu/portable_double.hpp's: declared outside the level's region) are compiled for the
// level inside the loop; one call left in a loop keeps it scalar, and GCC's own limits leave long
// helpers (the colour maths, the curves) out of line.
#define TK_ISA_INLINE_ALL __attribute__((flatten))

// `return isa_<level>::call;` for the level isa_level() chose.
#define TK_ISA_DISPATCH(call)                            \
  switch (::tonekit::cpu::isa_level()) {                 \
    case ::tonekit::cpu::IsaLevel::v4: return isa_v4::call; \
    case ::tonekit::cpu::IsaLevel::v3: return isa_v3::call; \
    default: return isa_baseline::call;                  \
  }
