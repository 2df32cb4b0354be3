#!/usr/bin/env bash
# The one script run on the GPU machine (device `run` tool, carry [".carry"]): GPU tests,
# compute-sanitizer memcheck + racecheck on the small subset, the benchmark and the PyTorch peer
# in the same run, then a short table last. Binaries come prebuilt for sm_90 in .carry/bin
# (scripts/build_gpu_bundle.sh). Logs and JSON go to $OUT.
# Usage: bash scripts/gpu_run.sh [tests|bench|all] (default all)
set -u
cd "$(dirname "$0")/.."
what=${1:-all}
OUT=${OUT:-/tmp/tonekit_out}
mkdir -p "$OUT"
B=.carry/bin
export TONEKIT_GPU_IMAGES=$PWD/.carry/images
export LD_LIBRARY_PATH=$PWD/.carry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.mem,temperature.gpu --format=csv
status=0
if [[ $what == all || $what == tests ]]; then
  echo "== GPU tests"
  timeout 300 $B/tonekit_gpu_tests --gtest_brief=1 >"$OUT/gtest.log" 2>&1 || status=1
  grep -E "^\[  (PASSED|FAILED|SKIPPED) |FAILED|Failure|error" "$OUT/gtest.log" | head -40
  tail -3 "$OUT/gtest.log"
  echo "== compute-sanitizer memcheck"
  timeout 240 compute-sanitizer --tool memcheck --error-exitcode 9 $B/tonekit_gpu_tests --gtest_brief=1 \
    --gtest_filter='GpuSanitizer.*:GpuErrors.*:GpuToneMapper.*' >"$OUT/memcheck.log" 2>&1; echo "memcheck exit $?"
  tail -4 "$OUT/memcheck.log"
  echo "== compute-sanitizer racecheck"
  timeout 240 compute-sanitizer --tool racecheck --error-exitcode 9 $B/tonekit_gpu_tests --gtest_brief=1 \
    --gtest_filter='GpuSanitizer.*' >"$OUT/racecheck.log" 2>&1; echo "racecheck exit $?"
  tail -4 "$OUT/racecheck.log"
fi
if [[ $what == all || $what == bench ]]; then
  echo "== benchmark"
  timeout 300 $B/tonekit_bench --json "$OUT/bench.json" >"$OUT/bench.log" 2>&1 || { status=1; tail -20 "$OUT/bench.log"; }
  echo "== PyTorch peer"
  timeout 240 python3 bench/peer_torch.py --json "$OUT/peer_torch.json" >"$OUT/peer.log" 2>&1 || tail -20 "$OUT/peer.log"
  echo "== summary"
  head -1 "$OUT/bench.log"
  python3 bench/summarize.py "$OUT/bench.json" "$OUT/peer_torch.json"
fi
exit $status
