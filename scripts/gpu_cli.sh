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
# The test binary finds the CLI where it was built.
CLI_PATH=$(strings "$C/bin/tonekit_tests" | grep -m1 -E '^/.*/bin/tonekit$' || true)
[[ -n $CLI_PATH ]] && mkdir -p "$(dirname "$CLI_PATH")" && ln -sf "$T" "$CLI_PATH"
echo "== tonekit_tests (CUDA present)"
timeout ${TEST_S:-250} "$C/bin/tonekit_tests" --gtest_brief=1 ${FILTER:+--gtest_filter=$FILTER} 2>&1 | grep -E "FAILED|Failure|PASSED|tests from|Skipped|skipped" | head -30
cd "$W"
calc() { python3 -c "print(round($1, 4))"; }
"$T" synth night-drive in.exr --size 3840x2160 >/dev/null || echo "synth failed"
echo "== one 4K half EXR -> PNG, whole process (5 runs each, seconds)"
for b in cpu cuda cpu cuda; do
  s=$(date +%s.%N); for i in 1 2 3 4 5; do "$T" map in.exr out_$b.png --backend $b >/dev/null || echo fail; done; e=$(date +%s.%N)
  echo "$b: $(calc "($e - $s) / 5") s per image"
done
echo "== batch of $N 4K EXRs -> PNG"
mkdir -p batch && for i in $(seq -w 1 $N); do cp in.exr batch/f$i.exr; done
for b in cuda cpu; do
  rm -rf out && mkdir out
  s=$(date +%s.%N); "$T" map batch -o "out/{name}.png" --backend $b 2>&1 | tail -1; e=$(date +%s.%N)
  echo "$b: $(calc "$N / ($e - $s)") images/s"
done
echo "== stream 4K P010 PQ -> yuv420p, file through a pipe to /dev/null"
"$T" synth night-drive seq.y4m --frames ${FRAMES:-60} --size 3840x2160 --transfer pq >/dev/null || echo "synth seq failed"
ls -la seq.y4m | awk '{print $5, "bytes"}'
s=$(date +%s.%N); cat seq.y4m | cat > /dev/null; e=$(date +%s.%N); echo "cat | cat: $(calc "$e - $s") s"
for b in cuda cpu; do
  s=$(date +%s.%N); cat seq.y4m | "$T" stream - - --backend $b --temporal --output-format yuv420p > /dev/null; e=$(date +%s.%N)
  echo "stream $b: $(calc "$e - $s") s for ${FRAMES:-60} frames"
done
rm -rf "$W"
