#!/usr/bin/env bash
# After a refactor of shared GPU code (device `run`, carry .carry-s with bin/tonekit_gpu_tests,
# tonekit_blur_bench, tonekit_bench and lib/): the whole GPU test binary, memcheck and racecheck
# on the sanitizer subsets (global pipeline, blur), and the blur and statistics speed rows.
set -u
export LD_LIBRARY_PATH=$PWD/.carry-s/lib:/usr/local/cuda/lib64
B=$PWD/.carry-s/bin
OUT=${OUT:-/tmp/tonekit_out}
mkdir -p "$OUT"
timeout 300 $B/tonekit_gpu_tests --gtest_brief=1 > $OUT/gtest.log 2>&1; echo "gpu tests rc $?"
grep -E "Failure|FAILED" $OUT/gtest.log | head; tail -1 $OUT/gtest.log
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
export TK_BLUR_SMALL=1
for tool in memcheck racecheck; do
  timeout 200 $SAN --tool $tool --error-exitcode 9 $B/tonekit_gpu_tests \
    --gtest_filter='GpuSanitizer.*:GpuBlur.StripSeparable*:GpuBlur.FusedSeparable*' --gtest_brief=1 > $OUT/$tool.log 2>&1
  echo "$tool rc $?"; grep -E "SUMMARY" $OUT/$tool.log
done
for v in separable gaussian separable-2pass separable-fused spreading; do
  $B/tonekit_blur_bench --only $v --iters 30 --at 3840x2160 --sigmas 6 | grep -E "sigma 6"
done
$B/tonekit_bench --res 3840x2160 --op reinhard | grep -E "stats +(fused|harris)|frame +default"
