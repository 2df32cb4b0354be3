#!/usr/bin/env bash
# Builds the image-reader fuzz targets (tests/fuzz) with clang + libFuzzer + ASan/UBSan into
# build-fuzz/ (the fuzz preset) and runs each for SECONDS seconds (default 20), seeded with tests/bad_inputs and
# small valid files that make_fuzz_seeds writes. Exits non-zero if any target finds a crash;
# the crashing input is left in build-fuzz/crash-<target>-*.
# Needs clang and libclang-rt-dev (Debian: apt-get install -y clang libclang-rt-14-dev).
# Usage: scripts/run_fuzzers.sh [SECONDS]
set -euo pipefail

seconds="${1:-20}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${TONEKIT_FUZZ_BUILD_DIR:-$root/build-fuzz}"
jobs="$(nproc 2>/dev/null || echo 2)"

command -v clang++ >/dev/null || { echo "run_fuzzers.sh: clang++ not found" >&2; exit 2; }
# The fuzz preset (CMakePresets.json): clang, TONEKIT_FUZZ=ON, RelWithDebInfo.
cmake --preset fuzz -S "$root" -B "$build" >/dev/null
cmake --build "$build" -j "$jobs" --target fuzz_exr fuzz_rgbe fuzz_pfm make_fuzz_seeds
bin="$build/bin"

seeds="$build/seeds"
rm -rf "$seeds"
"$bin/make_fuzz_seeds" "$seeds"

failed=()
for target in exr rgbe pfm; do
  corpus="$build/corpus-$target"  # grows across runs; new interesting inputs land here
  mkdir -p "$corpus"
  echo "== fuzz_$target for ${seconds}s"
  # rss_limit and malloc_limit: any single allocation over 1 GB counts as a bug, since the
  # fuzz targets cap images at 4096x4096 and 4 Mpixels.
  if ! "$bin/fuzz_$target" "$corpus" "$seeds/$target" "$root/tests/bad_inputs" \
      -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=1024 -max_len=65536 \
      -artifact_prefix="$build/crash-$target-" -print_final_stats=1 2>"$build/fuzz_$target.log"; then
    failed+=("$target")
    tail -n 40 "$build/fuzz_$target.log"
  fi
  grep -E "^(Done|stat::number_of_executed_units|stat::new_units_added|stat::peak_rss_mb)" "$build/fuzz_$target.log" || true
done

if ((${#failed[@]})); then
  echo "run_fuzzers.sh: crashes in: ${failed[*]} (inputs: $build/crash-*)" >&2
  exit 1
fi
echo "run_fuzzers.sh: no crashes in ${seconds}s per target"
