#!/usr/bin/env bash
# The one-pass strip separable kernel (BlurEngineConfig::separable_strips) on the GPU machine
# (device `run`, carry a folder with bin/tonekit_gpu_tests, bin/tonekit_blur_bench and lib/,
# named by CARRY, default .carry): its tests and the other separable tests, the separable
# variants' speed, memcheck and racecheck on the strip test. Logs in $OUT.
set -u
C=${CARRY:-.carry}
B=$PWD/$C/bin
OUT=${OUT:-/tmp/tonekit_out}
mkdir -p "$OUT"
export LD_LIBRARY_PATH=$PWD/$C/lib:/usr/local/cuda/lib64
timeout 240 $B/tonekit_gpu_tests --gtest_filter='GpuBlur*:GpuGlare*' --gtest_brief=1 > $OUT/blurtests.log 2>&1; echo "tests rc $?"
grep -E "FAILED|Failure|Expected|Which" $OUT/blurtests.log | head -20; tail -2 $OUT/blurtests.log
grep -E "strip-sep" $OUT/blurtests.log | awk '{print $2, $3, $5, $7, $9, $10}' | sort -u -k5 | tail -6
for v in ${VARIANTS:-separable separable-2pass}; do
  timeout 60 $B/tonekit_blur_bench --only $v --iters ${ITERS:-30} > $OUT/b_$v.log 2>&1; grep "sigma" $OUT/b_$v.log | grep -v "^row" | head -12
  $B/tonekit_blur_bench --only $v --iters ${ITERS:-30} --at 3840x2160 --sigmas 3,6,9 | grep -E "sigma" | grep -v "^row"
done
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
export TK_BLUR_SMALL=1
timeout 120 $SAN --tool memcheck --leak-check full --error-exitcode 9 $B/tonekit_gpu_tests --gtest_filter='GpuBlur.StripSeparable*:GpuGlare.*:GpuBlur.Workspace*' --gtest_brief=1 > $OUT/memcheck_strip.log 2>&1; echo "memcheck rc $?"; tail -2 $OUT/memcheck_strip.log
timeout 150 $SAN --tool racecheck --error-exitcode 9 $B/tonekit_gpu_tests --gtest_filter='GpuBlur.StripSeparable*' --gtest_brief=1 > $OUT/racecheck_strip.log 2>&1; echo "racecheck rc $?"; tail -3 $OUT/racecheck_strip.log
