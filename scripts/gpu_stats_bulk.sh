#!/usr/bin/env bash
# The statistics variants on the GPU machine (device `run`, carry a folder with bin/tonekit_gpu_tests,
# bin/tonekit_bench and lib/; CARRY names it, default .carry): the variant tests, memcheck and
# racecheck on the sanitizer subset, then the global benchmark (rows of every statistics variant).
set -u
C=${CARRY:-.carry}; B=$PWD/$C/bin; export LD_LIBRARY_PATH=$PWD/$C/lib:/usr/local/cuda/lib64
timeout 120 $B/tonekit_gpu_tests --gtest_filter='GpuVariants*:GpuSanitizer*' --gtest_brief=1 > $OUT/t.log 2>&1; echo "tests rc $?"; grep -E "FAILED|Failure|Expected|Which" $OUT/t.log | head; tail -2 $OUT/t.log
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
timeout 120 $SAN --tool memcheck --error-exitcode 9 $B/tonekit_gpu_tests --gtest_filter='GpuSanitizer*' --gtest_brief=1 > $OUT/mc.log 2>&1; echo "memcheck rc $?"; tail -1 $OUT/mc.log
timeout 120 $SAN --tool racecheck --error-exitcode 9 $B/tonekit_gpu_tests --gtest_filter='GpuSanitizer*' --gtest_brief=1 > $OUT/rc.log 2>&1; echo "racecheck rc $?"; tail -1 $OUT/rc.log
timeout 200 $B/tonekit_bench > $OUT/bench.log 2>&1; grep -E "^(3840x2160|7680x4320|1920x1080) +reinhard +(f16rgba|f32rgb).*(stats|frame)" $OUT/bench.log | head -30
