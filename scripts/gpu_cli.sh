#!/usr/bin/env bash
# End-to-end runs of the CLI on the GPU machine (device tool, carry [".carry-c"]: bin/tonekit,
# bin/tonekit_tests of a CUDA build with image I/O, their libraries in lib/): the CPU test binary
# (its CUDA tests run for real here), then whole-process timings: one 4K EXR -> PNG on each
# backend, a batch of N 4K EXRs, and `tonekit stream` 4K P010 -> yuv420p against `cat`.
# `bash scripts/gpu_cli.sh multi` (several GPUs, issue 19): the CLI tests that use every GPU, a
# batch of 4K EXRs on one GPU against `--devices` over all, and an 8K EXR sequence stream.
set -u
cd "$(dirname "$0")/.."
C=${CARRY:-.carry-c}
if [[ ${1:-} == bundle ]]; then
  # (here) gathers .carry-c from the default build (CUDA + image I/O): the CLI, its test binary,
  # the GPU tests, and the non-system libraries they load.
  set -e
  B=${BUILD:-build}
  ninja -C "$B" tonekit_cli tonekit_tests tonekit_gpu_tests
  rm -rf "$C/bin" "$C/lib" && mkdir -p "$C/bin" "$C/lib"
  for b in tonekit tonekit_tests tonekit_gpu_tests; do strip -o "$C/bin/$b" "$B/bin/$b" && gzip -9f "$C/bin/$b"; done
  for l in $(ldd "$B/bin/tonekit" "$B/bin/tonekit_tests" | awk '/=> \//{print $3}' | sort -u); do
    case $(basename "$l") in libc.so*|libm.so*|libstdc++*|libgcc_s*|libmvec*|libpthread*|libdl*|librt*) ;; *) cp -L "$l" "$C/lib/" ;; esac
  done
  gzip -9f "$C"/lib/*  # the device tool carries 64 MiB at most
  du -sh "$C"
  exit 0
fi
for f in "$C"/bin/*.gz "$C"/lib/*.gz; do [[ -f $f ]] && gunzip -kf "$f"; done
chmod +x "$C"/bin/* 2>/dev/null
export LD_LIBRARY_PATH=$PWD/$C/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
T=$PWD/$C/bin/tonekit
W=$(mktemp -d)
if [[ ${1:-} == multi ]]; then
  export NCCL_NVLS_ENABLE=0
  N=${N:-48}
  ALL=$(nvidia-smi --query-gpu=index --format=csv,noheader | paste -sd, -)
  echo "GPUs: $ALL"
  CLI_PATH=$(strings "$C/bin/tonekit_tests" | grep -m1 -E '^/.*/bin/tonekit$' || true)
  [[ -n $CLI_PATH ]] && mkdir -p "$(dirname "$CLI_PATH")" && ln -sf "$T" "$CLI_PATH"
  echo "== tonekit_tests (several GPUs)"
  timeout 200 "$C/bin/tonekit_tests" --gtest_brief=1 --gtest_filter='Cli.MapDevices:StreamCli.DevicesSplit*:StreamCli.CudaBackend*:Cli.CudaBackend*' 2>&1 | grep -E "FAILED|Failure|PASSED|tests from|Skipped|skipped|Expected|Which|Value" | head -30
  cd "$W"
  calc() { python3 -c "print(round($1, 3))"; }
  "$T" synth night-drive in.exr --size 3840x2160 >/dev/null || echo "synth failed"
  mkdir -p batch && for i in $(seq -w 1 $N); do cp in.exr batch/f$i.exr; done
  echo "== batch of $N 4K EXRs -> PNG (reinhard-sat), images/s"
  for d in "" "--devices $ALL" "" "--devices $ALL"; do
    rm -rf out && mkdir out
    s=$(date +%s.%N); "$T" map batch -o "out/{name}.png" --backend cuda --op reinhard-sat $d 2>&1 | tail -1; e=$(date +%s.%N)
    echo "cuda ${d:-(one GPU)}: $(calc "$N / ($e - $s)") images/s"
  done
  echo "== stream: 12 frames 8K EXR sequence -> raw rgba, seconds"
  for i in $(seq 1 12); do f=$(printf "s.%04d.exr" $i); "$T" synth night-drive $f --size 7680x4320 >/dev/null; done
  for d in "" "--devices $ALL" "" "--devices $ALL"; do
    s=$(date +%s.%N); "$T" stream s.%04d.exr - --output-format rgba --backend cuda --op reinhard-sat --temporal $d > /dev/null; e=$(date +%s.%N)
    echo "stream ${d:-(one GPU)}: $(calc "$e - $s") s"
  done
  rm -rf "$W"
  exit 0
fi
N=${N:-100}
# BASE (optional): a baseline CLI timed beside $T in the same run (e.g. the landed build).
BASE=${BASE:-}
[[ -n $BASE && -f $BASE.gz ]] && gunzip -kf "$BASE.gz" && chmod +x "$BASE"
# The test binary finds the CLI where it was built.
CLI_PATH=$(strings "$C/bin/tonekit_tests" | grep -m1 -E '^/.*/bin/tonekit$' || true)
[[ -n $CLI_PATH ]] && mkdir -p "$(dirname "$CLI_PATH")" && ln -sf "$T" "$CLI_PATH"
if [[ ${SKIP_TESTS:-0} != 1 ]]; then
  echo "== tonekit_tests (CUDA present)"
  timeout ${TEST_S:-250} "$C/bin/tonekit_tests" --gtest_brief=1 ${FILTER:+--gtest_filter=$FILTER} 2>&1 | grep -E "FAILED|Failure|PASSED|tests from|Skipped|skipped" | head -30
fi
cd "$W"
calc() { python3 -c "print(round($1, 4))"; }
# Wall seconds of one command (its output discarded).
wall() { local s=$(date +%s.%N); "$@" >/dev/null 2>&1 || echo "FAILED: $*" >&2; local e=$(date +%s.%N); calc "$e - $s"; }
median() { python3 -c "import sys,statistics; print(round(statistics.median(float(x) for x in sys.argv[1:]), 3))" "$@"; }
"$T" synth night-drive in.exr --size 3840x2160 >/dev/null || echo "synth failed"
echo "== one 4K half EXR -> PNG, whole process (median of ${RUNS:-7} runs, seconds)"
for bin in "$T" $BASE; do
  for b in cpu cuda auto; do
    ts=(); for i in $(seq ${RUNS:-7}); do ts+=($(wall "$bin" map in.exr out_$b.png --backend $b)); done
    echo "$(basename "$bin") $b: $(median "${ts[@]}") s (${ts[*]})"
  done
done
echo "== batch of $N 4K EXRs -> PNG"
mkdir -p batch && for i in $(seq -w 1 $N); do cp in.exr batch/f$i.exr; done
# BATCH_ARGS: extra map option sets to compare, separated by ';' (e.g. "--encoders 1;--encoders 3"),
# one run each after the defaults.
IFS=';' read -ra extras <<< "${BATCH_ARGS:-}"
for b in cuda cpu; do
  for extra in "" "${extras[@]}"; do
    rm -rf out && mkdir out
    s=$(date +%s.%N); "$T" map batch -o "out/{name}.png" --backend $b --summary $extra 2>&1 | tail -1; e=$(date +%s.%N)
    echo "$b ${extra:-(defaults)}: $(calc "$N / ($e - $s)") images/s whole process"
  done
done
echo "== stream 4K PQ y4m (10-bit 4:2:0) -> yuv420p, file through a pipe to /dev/null"
F=${FRAMES:-240}
# 20 synthesised frames repeated (the synthesis takes ~1.5 s a 4K frame here); the temporal
# state sees a scene cut at each repeat.
"$T" synth night-drive seq20.y4m --frames 20 --size 3840x2160 --transfer pq >/dev/null || echo "synth seq failed"
HB=$(head -1 seq20.y4m | wc -c)
head -c $HB seq20.y4m > seq.y4m && head -c $HB seq20.y4m > seq60.y4m
for i in $(seq $((F / 20))); do tail -c +$((HB + 1)) seq20.y4m >> seq.y4m; done
for i in 1 2 3; do tail -c +$((HB + 1)) seq20.y4m >> seq60.y4m; done
ls -la seq.y4m | awk '{print $5, "bytes"}'
# Whole process for 60 and $F frames; the steady rate from the difference (start-up cancels).
for r in $(seq ${STREAM_RUNS:-2}); do
  for bin in cat "$T" $BASE; do
    if [[ $bin == cat ]]; then
      a=$(wall sh -c "cat seq60.y4m | cat > /dev/null"); z=$(wall sh -c "cat seq.y4m | cat > /dev/null")
    else
      a=$(wall sh -c "cat seq60.y4m | $bin stream - - --backend cuda --temporal --output-format yuv420p > /dev/null")
      z=$(wall sh -c "cat seq.y4m | $bin stream - - --backend cuda --temporal --output-format yuv420p > /dev/null")
      [[ $bin == "$T" ]] && cat seq60.y4m | $bin stream - - --backend cuda --temporal --output-format yuv420p --summary 2>&1 >/dev/null | tail -1
    fi
    echo "$(basename "$bin"): 60 frames $a s, $F frames $z s, steady $(calc "($F - 60) / ($z - $a)") fps"
  done
done
a=$(wall sh -c "cat seq60.y4m | $T stream - - --backend cpu --temporal --output-format yuv420p > /dev/null")
echo "$(basename "$T") --backend cpu: 60 frames $a s"
rm -rf "$W"
