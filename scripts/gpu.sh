#!/usr/bin/env bash
# The GPU runs in one script (device tool: carry [".carry"], after scripts/build_gpu_bundle.sh):
#   bash scripts/gpu.sh tests   GPU test suites (global + pipeline + blur/glare, local + SAT)
#   bash scripts/gpu.sh bench   4K/1080p/8K device benchmarks (global and local), PyTorch peer
#   bash scripts/gpu.sh all     both, then a short table
# Results go to $OUT (the device tool's output folder) when set.
set -u
cd "$(dirname "$0")/.."
MODE=${1:-all}
OUT=${OUT:-/tmp/tonekit_out}
mkdir -p "$OUT"
export LD_LIBRARY_PATH=$PWD/${CARRY:-.carry}/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export TONEKIT_GPU_IMAGES=$PWD/${CARRY:-.carry}/images
B=$PWD/${CARRY:-.carry}/bin
status=0
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader || true
if [[ $MODE == tests || $MODE == all ]]; then
  for t in tonekit_gpu_tests tonekit_gpu_local_tests; do
    echo "== $t"
    timeout 400 "$B/$t" --gtest_brief=1 >"$OUT/$t.log" 2>&1 || status=1
    grep -E "^\[  FAILED|Failure|error" "$OUT/$t.log" | head -30
    tail -3 "$OUT/$t.log"
  done
fi
if [[ $MODE == bench || $MODE == all ]]; then
  echo "== global pipeline (4K half RGBA and float RGB)"
  for op in reinhard drago; do
    timeout 200 "$B/tonekit_bench" --res 3840x2160 --op $op >"$OUT/bench_global_$op.txt" 2>&1 || status=1
    grep -E "^3840x2160 .* frame " "$OUT/bench_global_$op.txt" | head -12
  done
  echo "== local pipeline (4K half RGBA)"
  timeout 300 "$B/tonekit_local_bench" --ops --only "tile-local 64x64" >"$OUT/bench_local.txt" 2>&1 || status=1
  grep -E "^op|^stages" "$OUT/bench_local.txt" | head -20
fi
echo "gpu.sh $MODE exit $status"
exit $status
