#!/usr/bin/env bash
# Issue 19's CLI on a machine with several GPUs (device tool, carry [".carry-c"] as for
# scripts/gpu_cli.sh): the CLI tests that use every GPU, then whole-process timings of a batch of
# 4K EXRs (one GPU against --devices over all of them) and of an 8K EXR sequence stream.
set -u
cd "$(dirname "$0")/.."
C=${CARRY:-.carry-c}
export LD_LIBRARY_PATH=$PWD/$C/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} NCCL_NVLS_ENABLE=0
T=$PWD/$C/bin/tonekit
N=${N:-48}
W=$(mktemp -d)
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
