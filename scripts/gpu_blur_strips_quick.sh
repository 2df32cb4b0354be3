#!/usr/bin/env bash
# Quick loop for the strip separable kernel on the GPU machine (device `run`, carry .carry-s with
# bin/tonekit_gpu_tests, bin/tonekit_blur_bench, lib/): its test, the separable variants' speed in
# one run, ncu on the strip kernel at 4K sigma 6 (NCU=0 skips it). Logs in $OUT.
set -u
export LD_LIBRARY_PATH=$PWD/.carry-s/lib:/usr/local/cuda/lib64
B=.carry-s/bin
OUT=${OUT:-/tmp/tonekit_out}
mkdir -p "$OUT"
$B/tonekit_gpu_tests --gtest_filter='GpuBlur.Strip*' --gtest_brief=1 > $OUT/strip_test.log 2>&1; echo "strip test rc $?"
grep -E "Failure|Expected|Which|strips max" $OUT/strip_test.log | sort -t'(' -k2 -g | tail -4; tail -1 $OUT/strip_test.log
for v in ${VARIANTS:-separable separable-2pass}; do
  $B/tonekit_blur_bench --only $v --iters ${ITERS:-30} > $OUT/b_$v.log 2>&1; grep -E "sigma" $OUT/b_$v.log | grep -v "^row" | head -12
done
if [ "${NCU:-1}" != 0 ]; then
  SKIP=${SKIP:-120} CARRY=.carry-s bash scripts/gpu_blur_ncu_strips.sh 2>&1 | grep -E "inst_executed|Duration|Issued Warp|Eligible Warps|Active Warps Per|No Eligible|bank|dram__|stalled_(barrier|long|short|wait|mio|math|not_sel|dispatch)"
fi
