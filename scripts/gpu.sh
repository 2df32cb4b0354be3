#!/usr/bin/env bash
# The GPU runs in one script (device tool: carry [".carry"], after scripts/build_gpu_bundle.sh):
#   bash scripts/gpu.sh tests   GPU test suites (global + pipeline + blur/glare, local + SAT)
#   bash scripts/gpu.sh bench   4K/1080p/8K device benchmarks (global and local), PyTorch peer
#   bash scripts/gpu.sh all     both, then a short table
# Several GPUs (issue 19; a kind with several GPUs, carry [".carry-m"]):
#   bash scripts/gpu.sh multi-bundle   (here) builds build-gpu and gathers .carry-m
#   bash scripts/gpu.sh multi          the multi-GPU tests on every GPU, the single-GPU suites the
#                                      frame-part change touched, 4K baselines, tonekit_multi_bench
# Results go to $OUT (the device tool's output folder) when set.
set -u
cd "$(dirname "$0")/.."
MODE=${1:-all}
OUT=${OUT:-/tmp/tonekit_out}
mkdir -p "$OUT"
if [[ $MODE == multi-bundle ]]; then
  set -e
  bins="tonekit_gpu_multi_tests tonekit_multi_bench tonekit_gpu_tests tonekit_gpu_local_tests tonekit_bench tonekit_local_bench"
  ninja -C build-gpu $bins
  rm -rf .carry-m && mkdir -p .carry-m/bin .carry-m/lib
  for b in $bins; do strip -o .carry-m/bin/$b build-gpu/bin/$b && gzip -9 .carry-m/bin/$b; done
  cp -L /lib/x86_64-linux-gnu/libfftw3f.so.3 .carry-m/lib/
  du -sh .carry-m
  exit 0
fi
if [[ $MODE == multi ]]; then
  export CARRY=.carry-m NCCL_NVLS_ENABLE=0
  for f in .carry-m/bin/*.gz; do gunzip -kf "$f"; done
  chmod +x .carry-m/bin/*
fi
export LD_LIBRARY_PATH=$PWD/${CARRY:-.carry}/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
[[ -d $PWD/${CARRY:-.carry}/images ]] && export TONEKIT_GPU_IMAGES=$PWD/${CARRY:-.carry}/images  # real images when the bundle has them
B=$PWD/${CARRY:-.carry}/bin
status=0
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader || true
if [[ $MODE == multi ]]; then
  nvidia-smi topo -m 2>/dev/null | head -4 || true
  echo "== tonekit_gpu_multi_tests (every GPU)"
  timeout 300 "$B/tonekit_gpu_multi_tests" --gtest_brief=1 >"$OUT/multi_tests.log" 2>&1 || status=1
  grep -E "^\[ multi|FAILED|Failure|rror" "$OUT/multi_tests.log" | head -40
  tail -3 "$OUT/multi_tests.log"
  for t in tonekit_gpu_tests tonekit_gpu_local_tests; do
    echo "== $t (GPU 0)"
    CUDA_VISIBLE_DEVICES=0 timeout 300 "$B/$t" --gtest_brief=1 >"$OUT/$t.log" 2>&1 || status=1
    grep -E "^\[  FAILED|Failure" "$OUT/$t.log" | head -20
    tail -3 "$OUT/$t.log"
  done
  echo "== tonekit_multi_bench"
  timeout ${MULTI_TIMEOUT:-300} "$B/tonekit_multi_bench" ${MULTI_ARGS:-} 2>&1 | tee "$OUT/multi_bench.txt" || status=1
  MODE=bench  # then the single-GPU 4K baselines below
  export CUDA_VISIBLE_DEVICES=0
fi
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
  echo "== the renderer's post-process (reinhard-sat + temporal + glare 0.1, 4K and 8K)"
  timeout 100 "$B/tonekit_local_bench" --glare 2>&1 | tee "$OUT/bench_glare.txt" | grep -E "^glare" || status=1
  echo "== local pipeline (4K half RGBA)"
  timeout 300 "$B/tonekit_local_bench" --ops --only "tile-local 64x64" >"$OUT/bench_local.txt" 2>&1 || status=1
  grep -E "^op|^stages" "$OUT/bench_local.txt" | head -20
fi
echo "gpu.sh $MODE exit $status"
exit $status
