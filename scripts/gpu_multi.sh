#!/usr/bin/env bash
# Issue 19 on the GPU machine (device tool, a kind with several GPUs; carry [".carry-m"] made by
#   bash scripts/gpu_multi.sh bundle        (here: builds build-gpu and gathers .carry-m)
# then on the device:  bash scripts/gpu_multi.sh [tests|bench|all]
# tests: the multi-GPU tests on every GPU, then the single-GPU suites the frame-part change
# touched (stats / map / local kernels); bench: the single-GPU 4K baselines and tonekit_multi_bench.
set -u
cd "$(dirname "$0")/.."
MODE=${1:-all}
C=.carry-m
if [[ $MODE == bundle ]]; then
  set -e
  ninja -C build-gpu tonekit_gpu_multi_tests tonekit_multi_bench tonekit_gpu_tests tonekit_gpu_local_tests tonekit_bench tonekit_local_bench
  rm -rf $C && mkdir -p $C/bin $C/lib
  for b in tonekit_gpu_multi_tests tonekit_multi_bench tonekit_gpu_tests tonekit_gpu_local_tests tonekit_bench tonekit_local_bench; do
    strip -o $C/bin/$b build-gpu/bin/$b && gzip -9 $C/bin/$b
  done
  cp -L /lib/x86_64-linux-gnu/libfftw3f.so.3 $C/lib/
  du -sh $C
  exit 0
fi
OUT=${OUT:-/tmp/tonekit_out}
mkdir -p "$OUT"
for f in $C/bin/*.gz; do gunzip -kf "$f"; done
chmod +x $C/bin/*
export LD_LIBRARY_PATH=$PWD/$C/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export NCCL_NVLS_ENABLE=0
B=$PWD/$C/bin
status=0
nvidia-smi --query-gpu=index,name,clocks.sm --format=csv,noheader || true
nvidia-smi topo -m 2>/dev/null | head -4 || true
if [[ $MODE == tests || $MODE == all ]]; then
  echo "== tonekit_gpu_multi_tests (every GPU)"
  timeout 300 $B/tonekit_gpu_multi_tests --gtest_brief=1 >"$OUT/multi_tests.log" 2>&1 || status=1
  grep -E "^\[ multi|FAILED|Failure|rror" "$OUT/multi_tests.log" | head -40
  tail -3 "$OUT/multi_tests.log"
  for t in tonekit_gpu_tests tonekit_gpu_local_tests; do
    echo "== $t (GPU 0)"
    CUDA_VISIBLE_DEVICES=0 timeout 300 $B/$t --gtest_brief=1 >"$OUT/$t.log" 2>&1 || status=1
    grep -E "^\[  FAILED|Failure" "$OUT/$t.log" | head -20
    tail -3 "$OUT/$t.log"
  done
fi
if [[ $MODE == bench || $MODE == all ]]; then
  echo "== single-GPU baselines (4K half RGBA)"
  CUDA_VISIBLE_DEVICES=0 timeout 120 $B/tonekit_bench --res 3840x2160 --op reinhard >"$OUT/bench_reinhard.txt" 2>&1 || status=1
  grep -E "^3840x2160 .* frame " "$OUT/bench_reinhard.txt" | head -6
  CUDA_VISIBLE_DEVICES=0 timeout 200 $B/tonekit_local_bench --ops --only "tile-local 64x64" >"$OUT/bench_local.txt" 2>&1 || status=1
  grep -E "^op|^stages" "$OUT/bench_local.txt" | head -12
  echo "== tonekit_multi_bench"
  timeout ${MULTI_TIMEOUT:-300} $B/tonekit_multi_bench ${MULTI_ARGS:-} 2>&1 | tee "$OUT/multi_bench.txt" || status=1
fi
echo "gpu_multi.sh $MODE exit $status"
exit $status
