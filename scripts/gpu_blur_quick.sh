#!/usr/bin/env bash
# Blur and glare GPU tests plus memcheck on the workspace and glare tests (device `run`, carry a
# folder with bin/tonekit_gpu_tests and lib/, named by CARRY, default .carry). Logs in $OUT.
set -u
C=${CARRY:-.carry}
B=$PWD/$C/bin
OUT=${OUT:-/tmp/tonekit_out}
mkdir -p "$OUT"
export LD_LIBRARY_PATH=$PWD/$C/lib:/usr/local/cuda/lib64
timeout 200 $B/tonekit_gpu_tests --gtest_filter='GpuBlur*:GpuGlare*' --gtest_brief=1 > $OUT/blurtests.log 2>&1; echo "tests rc $?"
grep -E "workspace|glare|FAILED|Failure|Expected|Which" $OUT/blurtests.log | head -20; tail -2 $OUT/blurtests.log
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
timeout 200 $SAN --tool memcheck --leak-check full --error-exitcode 9 $B/tonekit_gpu_tests \
  --gtest_filter='GpuBlur.Workspace*:GpuGlare*' --gtest_brief=1 > $OUT/memcheck_ws.log 2>&1; echo "memcheck rc $?"; tail -2 $OUT/memcheck_ws.log
