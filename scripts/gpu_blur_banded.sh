#!/usr/bin/env bash
# The separable blur's variants on the GPU machine (device `run` tool, carry [".carry"]): the
# blur and glare GPU tests, the separable / fused / banded speed at every size, memcheck on the
# fused and banded tests. Binaries from build-gpu in .carry/bin. Logs in $OUT.
set -u
B=$PWD/.carry/bin
OUT=${OUT:-/tmp/tonekit_out}
mkdir -p "$OUT"
export LD_LIBRARY_PATH=$PWD/.carry/lib:/usr/local/cuda/lib64
timeout 200 $B/tonekit_gpu_tests --gtest_filter='GpuBlur*:GpuGlare*' --gtest_brief=1 > $OUT/blurtests.log 2>&1; echo "tests rc $?"
grep -E "banded|FAILED|Failure" $OUT/blurtests.log | head -20; tail -2 $OUT/blurtests.log
grep -E "fused-sep .*(1920|333)" $OUT/blurtests.log | head -4
for v in ${VARIANTS:-separable separable-fused separable-banded}; do
  timeout 60 $B/tonekit_blur_bench --only $v --iters 20 > $OUT/b_$v.log 2>&1; grep "sigma" $OUT/b_$v.log | head -12
done
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
timeout 150 $SAN --tool memcheck --error-exitcode 9 $B/tonekit_gpu_tests --gtest_filter='GpuBlur.BandedSeparable*:GpuBlur.FusedSeparable*' --gtest_brief=1 > $OUT/memcheck_blur.log 2>&1; echo "memcheck rc $?"; tail -2 $OUT/memcheck_blur.log
