#!/usr/bin/env bash
# The blur methods on the GPU machine (issue 5), in one call: GPU-vs-CPU tests, the speed study
# (quick: sigma sweep at 1024x1024 and the resolution sweep from 1920x1080 up, CPU speed-ups at
# 1024x1024 sigma 6), then compute-sanitizer (memcheck on every method at small sizes, racecheck
# on the shared-memory kernels). Binaries come from .carry-blur/ (copied from build-gpu-blur/bin);
# cuFFT is dlopen'ed from the machine's CUDA toolkit. Logs go to $OUT (or ./blur-out).
# Usage on the device machine: bash scripts/gpu_blur_run.sh [BIN_DIR]
set -u
BIN=${1:-.carry-blur}
OUT=${OUT:-blur-out}
mkdir -p "$OUT"
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/targets/x86_64-linux/lib:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader 2>&1 | head -2

timeout 60 "$BIN/tonekit_gpu_tests" --gtest_filter='GpuBlur*' >"$OUT/tests.log" 2>&1
echo "tests rc $?"
timeout 60 "$BIN/tonekit_blur_bench" --quick --cpu --iters 20 >"$OUT/bench.log" 2>&1
echo "bench rc $?"
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
timeout 35 "$SAN" --tool memcheck --leak-check full --error-exitcode 9 "$BIN/tonekit_gpu_tests" \
  --gtest_filter='GpuBlurAll/GpuBlurMethod.AwkwardSizes*:GpuBlur.UserStream*' >"$OUT/memcheck.log" 2>&1
echo "memcheck rc $?"
timeout 20 "$SAN" --tool racecheck --error-exitcode 9 "$BIN/tonekit_gpu_tests" \
  --gtest_filter='GpuBlurAll/GpuBlurMethod.AwkwardSizesGreyAndRgba/separable:GpuBlurAll/GpuBlurMethod.AwkwardSizesGreyAndRgba/direct:GpuBlurAll/GpuBlurMethod.AwkwardSizesGreyAndRgba/reshuffle' \
  >"$OUT/racecheck.log" 2>&1
echo "racecheck rc $?"

echo "== tests: worst relative difference per method (of the image max) =="
python3 - "$OUT/tests.log" <<'PY'
import re, sys
worst, n = {}, {}
for line in open(sys.argv[1], errors="replace"):
    m = re.match(r"\[blur\] (\S+) .*\(([0-9.e+-]+) of max", line)
    if m:
        k, v = m.group(1), float(m.group(2))
        worst[k] = max(worst.get(k, 0.0), v); n[k] = n.get(k, 0) + 1
for k in sorted(worst): print(f"{k:14s} {n[k]:3d} cases  worst {worst[k]:.3g}")
PY
grep -E "^\[  (FAILED|PASSED|SKIPPED) |Failure|Expected|Which is|error" "$OUT/tests.log" | head -40
echo "== sanitizer =="
grep -E "ERROR SUMMARY|LEAK SUMMARY|RACECHECK SUMMARY|Invalid|Race" "$OUT/memcheck.log" "$OUT/racecheck.log" | head -12
tail -n 3 "$OUT/memcheck.log" "$OUT/racecheck.log"
echo "== bench =="
grep -vE "^row," "$OUT/bench.log" | grep -E "device|copy|skipped|failed" | head -12
grep -E "^row," "$OUT/bench.log" | cut -d, -f2-9
