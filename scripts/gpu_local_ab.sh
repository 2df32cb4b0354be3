#!/usr/bin/env bash
# Quick A/B of reinhard-sat map kernels on the GPU machine (device `run` tool): optionally the
# local GPU tests, then prebuilt benchmark binaries interleaved over ROUNDS rounds (rows whose
# name contains ONLY, at 1080p / 4K / 8K), then a short table of medians per binary and row.
# Usage: CARRY=.carry-s VARIANTS="tonekit_local_bench_old tonekit_local_bench" TESTS=1 \
#        bash scripts/gpu_local_ab.sh   (binaries in $CARRY/bin, libraries in $CARRY/lib)
set -u
cd "$(dirname "$0")/.."
C=${CARRY:-.carry-s}
OUT=${OUT:-/tmp/tonekit_ab_out}
mkdir -p "$OUT"
export LD_LIBRARY_PATH=$PWD/$C/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export TONEKIT_GPU_IMAGES=$PWD/$C/images
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv,noheader
if [[ ${TESTS:-0} == 1 ]]; then
  echo "== local GPU tests"
  timeout ${TEST_TIMEOUT:-240} $C/bin/tonekit_gpu_local_tests --gtest_brief=1 >"$OUT/gtest_local.log" 2>&1
  echo "gtest exit $?"
  grep -E "^\[  FAILED|Failure|Expected|actual|Which is|entries off" "$OUT/gtest_local.log" | head -30
  tail -3 "$OUT/gtest_local.log"
  grep -E "^\[ local \]" "$OUT/gtest_local.log" | grep -E "ties at epsilon [1-9]|max [3-9]" | head -8
  grep -E "^\[ local \].*tile-local 64x64" "$OUT/gtest_local.log" | sort -t'(' -k2 -r | head -4
fi
if [[ ${SAN:-0} == 1 ]]; then
  echo "== memcheck / racecheck (${SAN_FILTER:-*Edge*:*1x1*})"
  for tool in memcheck racecheck; do
    timeout 200 compute-sanitizer --tool $tool --error-exitcode 9 $C/bin/tonekit_gpu_local_tests --gtest_brief=1 \
      --gtest_filter="${SAN_FILTER:-*EdgeCases*}" >"$OUT/san_$tool.log" 2>&1
    echo "$tool exit $? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/san_$tool.log" | tail -1)"
  done
fi
echo "== A/B (${ROUNDS:-2} rounds, rows matching '${ONLY:-reinhard-sat}')"
for r in $(seq 1 ${ROUNDS:-2}); do
  for v in ${VARIANTS:-tonekit_local_bench}; do
    timeout 120 $C/bin/$v --ops --only "${ONLY:-reinhard-sat}" | sed "s/^/$v,$r,/" >>"$OUT/ab.csv"
  done
done
python3 - "$OUT/ab.csv" <<'PY'
import sys, collections
rows = collections.defaultdict(list)
stages = {}
for line in open(sys.argv[1]):
    f = line.strip().split(',')
    if len(f) >= 7 and f[2] == 'op':
        rows[(f[3], f[4] + 'x' + f[5], f[0])].append(float(f[6]))
    elif len(f) >= 7 and f[2] == 'stages':
        stages[(f[3], f[4] + 'x' + f[5], f[0])] = ','.join(f[6:])
for k in sorted(rows):
    print(f"{k[0]:<40} {k[1]:>10} {k[2]:<28} " + ' '.join(f"{t:.4f}" for t in rows[k]) + "   " + stages.get(k, ''))
PY
