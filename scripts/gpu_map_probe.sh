#!/usr/bin/env bash
# Map-pass probe on the GPU machine (device `run`, carry .carry-n: bin/ with the new
# tonekit_gpu_tests, tonekit_gpu_local_tests, tonekit_bench, tonekit_local_bench and the previous
# build's tonekit_bench as tonekit_bench_old, other builds named in VARIANTS; lib/): the GPU test suites, memcheck on the map
# and sanitizer tests, then 4K/1080p/8K reinhard rows old against new in the same run and the
# map kernel under ncu (time, warp instructions, issue and DRAM use). Logs in $OUT.
# AB=1 VARIANTS="tonekit_bench_a tonekit_bench_b": only the quick A/B of builds below.
set -u
C=${CARRY:-.carry-n}
export LD_LIBRARY_PATH=$PWD/$C/lib:/usr/local/cuda/lib64
B=$PWD/$C/bin
OUT=${OUT:-/tmp/tonekit_out}
mkdir -p "$OUT"
if [[ ${AB:-0} == 1 ]]; then
  # Quick A/B of builds (bin/tonekit_bench_<name>, named in VARIANTS): 4K half RGBA reinhard, each
  # build twice, interleaved, one line per run: frame, statistics in the stream and with L2
  # clean, map (ms). bench/NOTES.md v13-v16.
  for rep in 1 2; do
    for b in ${VARIANTS:-tonekit_bench}; do
      $B/$b --res 3840x2160 --op reinhard > "$OUT/$b.$rep.log" 2>&1
      echo "$b $rep: $(grep -E '^3840x2160 +reinhard +f16rgba->rgba8 +(frame +default|map +default|stats +fused |stats +fused-clean-l2 ) ' "$OUT/$b.$rep.log" | awk '{print $4"/"$5"="$6}' | tr '\n' ' ')"
    done
  done
  exit 0
fi
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv,noheader
if [[ ${TESTS:-1} == 1 ]]; then
  timeout 300 $B/tonekit_gpu_tests --gtest_brief=1 > $OUT/gtest.log 2>&1; echo "gpu tests rc $?"
  grep -E "Failure|FAILED|SKIPPED \]" $OUT/gtest.log | head -20; tail -2 $OUT/gtest.log
  timeout 240 $B/tonekit_gpu_local_tests --gtest_brief=1 > $OUT/local.log 2>&1; echo "local tests rc $?"
  grep -E "Failure|FAILED" $OUT/local.log | head; tail -2 $OUT/local.log
  SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
  timeout 240 $SAN --tool memcheck --error-exitcode 9 $B/tonekit_gpu_tests --gtest_brief=1 \
    --gtest_filter='GpuSanitizer.*:GpuErrors.*:GpuToneMapper.*' > $OUT/memcheck.log 2>&1; echo "memcheck rc $?"
  grep -E "SUMMARY" $OUT/memcheck.log
fi
for r in ${RES:-3840x2160 1920x1080 7680x4320}; do
  for b in tonekit_bench_old ${VARIANTS:-} tonekit_bench; do
    [[ -x $B/$b ]] || continue
    timeout 120 $B/$b --res $r --op reinhard > $OUT/${b}_$r.log 2>&1
    echo "-- $b $r"; grep -E "^$r +reinhard .*(frame|stats|map) " $OUT/${b}_$r.log | grep -E "frame|fused|map" | head -12
  done
done
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
M=gpu__time_duration.sum,smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,dram__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,lts__t_sector_hit_rate.pct
for b in tonekit_bench_old tonekit_bench; do
  [[ -x $B/$b ]] || continue
  timeout 200 $NCU --kernel-name regex:map_kernel --launch-skip 5 --launch-count 1 --metrics $M $B/$b --profile > $OUT/ncu_$b.log 2>&1
  echo "-- ncu $b"; grep -E "duration|inst_executed|pct|bytes" $OUT/ncu_$b.log | head -8
done
if [[ ${SASS:-0} == 1 ]]; then  # the default 4K kernel's SASS, for counting instructions per pixel
  CUOBJ=$(command -v cuobjdump || echo /usr/local/cuda/bin/cuobjdump)
  $CUOBJ -sass -fun '_ZN7tonekit4cuda46_GLOBAL__N__c1db122d_13_map_kernel_cu_a9e27b5c10map_kernelINS0_7InF16x4ENS1_6OutFmtILi0ELi4EEEEEvNS0_13FrameGeometryEPhmPKNS0_11DeviceFrameENS0_9MapColourEi' \
    $B/tonekit_bench > $OUT/map.sass 2>&1
fi
