set -u
B=$PWD/.carry/bin; export LD_LIBRARY_PATH=$PWD/.carry/lib:/usr/local/cuda/lib64
timeout 200 $B/tonekit_gpu_tests --gtest_filter='GpuBlur*:GpuGlare*' --gtest_brief=1 > $OUT/blurtests.log 2>&1; echo "tests rc $?"
grep -E "banded|FAILED|Failure" $OUT/blurtests.log | head -20; tail -2 $OUT/blurtests.log
for v in separable separable-banded; do timeout 60 $B/tonekit_blur_bench --only $v --iters 20 > $OUT/b_$v.log 2>&1; grep "sigma" $OUT/b_$v.log | head -12; done
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
timeout 150 $SAN --tool memcheck --error-exitcode 9 $B/tonekit_gpu_tests --gtest_filter='GpuBlur.BandedSeparable*' --gtest_brief=1 > $OUT/memcheck_banded.log 2>&1; echo "memcheck rc $?"; tail -3 $OUT/memcheck_banded.log
