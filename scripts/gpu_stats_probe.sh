#!/usr/bin/env bash
# Statistics pass probe on the GPU machine (device `run`, carry .carry-s with bin/tonekit_bench
# and bin/tonekit_gpu_tests): the statistics variant tests and their sanitizer runs, then the
# reinhard rows at each size (frame with and without the host's launch gap, statistics with L2
# clean of the previous output, blocks per SM, every statistics variant at 4K). Logs in $OUT.
set -u
export LD_LIBRARY_PATH=$PWD/.carry-s/lib:/usr/local/cuda/lib64
B=$PWD/.carry-s/bin
OUT=${OUT:-/tmp/tonekit_out}
mkdir -p "$OUT"
$B/tonekit_gpu_tests --gtest_filter='GpuVariants.*:GpuSanitizer.*:GpuErrors.*' --gtest_brief=1 > $OUT/stats_tests.log 2>&1
echo "tests rc $?"; grep -E "Failure|FAILED" $OUT/stats_tests.log | head; tail -1 $OUT/stats_tests.log
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for tool in memcheck racecheck; do
  timeout 240 $SAN --tool $tool --error-exitcode 9 $B/tonekit_gpu_tests --gtest_filter='GpuSanitizer.*' --gtest_brief=1 > $OUT/$tool.log 2>&1
  echo "$tool rc $?"; grep -E "SUMMARY" $OUT/$tool.log
done
for r in ${RES:-3840x2160 1920x1080 7680x4320}; do
  $B/tonekit_bench --res $r --op reinhard > $OUT/bench_$r.log 2>&1
  grep -E "frame +(default|host-sync|stats=async)|stats +(fused|async|bulk)" $OUT/bench_$r.log
done
