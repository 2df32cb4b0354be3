#!/usr/bin/env bash
# One device call for a working session (device `run` tool, carry [".carry"]): the global, blur,
# glare and local GPU test suites, then the benchmarks that decide this session's tuning choices:
# tonekit_bench (global pipeline, variants at 4K), tonekit_local_bench (reinhard-sat table
# strategies incl. the tile-local tables), and the separable blur (two-pass and fused) at every
# size. Binaries: scripts/build_gpu_bundle.sh (+ the local and blur binaries from build-gpu).
# Usage: bash scripts/gpu_session.sh [tests|bench|all]; logs in $OUT.
set -u
cd "$(dirname "$0")/.."
what=${1:-all}
OUT=${OUT:-/tmp/tonekit_out}
mkdir -p "$OUT"
B=$PWD/.carry/bin
export TONEKIT_GPU_IMAGES=$PWD/.carry/images
export LD_LIBRARY_PATH=$PWD/.carry/lib:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader
status=0
if [[ $what == all || $what == tests ]]; then
  echo "== GPU tests (global, blur, glare)"
  timeout 240 $B/tonekit_gpu_tests --gtest_brief=1 >"$OUT/gtest.log" 2>&1 || status=1
  grep -E "^\[  FAILED|Failure|Expected|Which is|actual" "$OUT/gtest.log" | head -30
  tail -2 "$OUT/gtest.log"
  grep -E "^\[ *(global|map) *\]" "$OUT/gtest.log" | sort -t'(' -k2 | head -3
  echo "== GPU local tests"
  timeout 240 $B/tonekit_gpu_local_tests --gtest_brief=1 >"$OUT/gtest_local.log" 2>&1 || status=1
  grep -E "^\[  FAILED|Failure|Expected|Which is|actual" "$OUT/gtest_local.log" | head -30
  tail -2 "$OUT/gtest_local.log"
  grep -E "^\[ local \].*tile-local" "$OUT/gtest_local.log" | sort -k2 | tail -4
fi
if [[ $what == all || $what == bench ]]; then
  echo "== global benchmark"
  timeout 200 $B/tonekit_bench --json "$OUT/bench.json" >"$OUT/bench.log" 2>&1 || { status=1; tail -5 "$OUT/bench.log"; }
  grep -E "^3840x2160 +(reinhard|linear) +f16rgba" "$OUT/bench.log" | head -24
  echo "== local benchmark"
  timeout 120 $B/tonekit_local_bench >"$OUT/local_bench.csv" 2>&1 || { status=1; tail -5 "$OUT/local_bench.csv"; }
  grep -E "^(op|stages),reinhard-sat (tile|f64-lookback readonly)|^op,(reinhard-local|drago)" "$OUT/local_bench.csv"
  echo "== separable blur"
  for v in separable separable-banded; do
    timeout 60 $B/tonekit_blur_bench --only $v --iters 20 >"$OUT/blur_$v.log" 2>&1 || status=1
    grep -E "sigma 6 " "$OUT/blur_$v.log"
  done
fi
if [[ $what == all || $what == profile ]]; then
  NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
  if [[ -x $NCU ]]; then
    # ncu_run LOG KERNELS SKIP COUNT METRICS BINARY KEEP SECTION...: profile BINARY --profile, print KEEP lines
    ncu_run() {
      local log=$1 kernels=$2 skip=$3 count=$4 metrics=$5 bin=$6 keep=$7
      shift 7
      local sections=()
      for sec in "$@"; do sections+=(--section "$sec"); done
      timeout 120 $NCU --kernel-name regex:"$kernels" --launch-skip "$skip" --launch-count "$count" "${sections[@]}" \
        --metrics "$metrics" "$bin" --profile >"$OUT/$log" 2>&1
      grep -E "$keep" "$OUT/$log" | head -40
    }
    echo "== ncu: statistics and map kernels, 4K half RGBA -> RGBA8 reinhard"
    ncu_run ncu.log 'stats_f(used|lat)|map_kernel' 4 2 \
      smsp__inst_executed.sum,dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum $B/tonekit_bench \
      "stats_f(used|lat)|map_kernel|Duration|DRAM Throughput|Compute \(SM\)|inst_executed|dram__bytes|Achieved Occupancy|Waves Per SM|Registers Per|Issue Slots|Executed Ipc A" \
      SpeedOfLight LaunchStats Occupancy InstructionStats
    echo "== ncu: reinhard-sat tile-local map kernel, 4K"
    ncu_run ncu_local.log sat_tile_map 2 1 \
      smsp__inst_executed.sum,dram__bytes_read.sum,lts__t_bytes.sum,smsp__inst_executed_pipe_fp64.sum $B/tonekit_local_bench \
      "sat_tile_map|Duration|Throughput|inst_executed|bytes|Achieved Occupancy|Stall|Block Limit|Warp Cycles" \
      SpeedOfLight Occupancy WarpStateStats MemoryWorkloadAnalysis
  else
    echo "no ncu on this machine"
  fi
fi
echo "session exit $status"
exit $status
