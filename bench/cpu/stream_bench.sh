#!/usr/bin/env bash
# tonekit stream --backend cpu against ffmpeg's CPU tone-mapping chain (issue 15 item 5) on the
# same frames: 4K PQ BT.2020 yuv420p10 raw frames -> 8-bit BT.709 yuv420p SDR, no decode or
# encode on either side (ffmpeg writes to -f null, tonekit to /dev/null). Runs alternate between
# the two so that load from other processes hits both alike; the figure is the median of the
# repeats. A third row runs tonekit between two pipes (`cat in | tonekit stream - - | cat`), whose
# rate should be the file's (issue 33). The CPU model and the x86-64 level tonekit runs at
# (`tonekit info --cpu`; TONEKIT_CPU_LEVEL=baseline|v3|v4 in the environment lowers it) head the
# figures. Results go in docs/performance.md.
# Usage: bench/cpu/stream_bench.sh [path/to/tonekit] [frames (8)] [repeats (5)] [WxH (3840x2160)]
set -euo pipefail
tonekit=$(readlink -f "${1:-build/bin/tonekit}")
frames=${2:-8}
repeats=${3:-5}
size=${4:-3840x2160}
command -v ffmpeg >/dev/null || { echo "ffmpeg not installed (apt-get install ffmpeg)"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The frames: the night-drive sequence, 10-bit PQ BT.2020, as raw yuv420p10le.
"$tonekit" synth night-drive "$work/in.y4m" --frames "$frames" --size "$size"
ffmpeg -v error -i "$work/in.y4m" -f rawvideo -pix_fmt yuv420p10le "$work/in.raw"

# The chain of the issue; setparams states what the raw frames are (zscale needs it).
chain="setparams=color_primaries=bt2020:color_trc=smpte2084:colorspace=bt2020nc:range=tv,"
chain+="zscale=t=linear:npl=100,format=gbrpf32le,zscale=p=bt709,tonemap=tonemap=hable:desat=0,"
chain+="zscale=t=bt709:m=bt709:r=tv,format=yuv420p"

# Wall seconds of one command (GNU time), user + system seconds beside it.
timed() { /usr/bin/time -f "%e %U %S" "$@" 2>&1 >/dev/null | tail -1; }
ff=() tk=() tp=() ffcpu=() tkcpu=()
for ((i = 0; i < repeats; ++i)); do
  read -r wall user sys < <(timed ffmpeg -v error -f rawvideo -pix_fmt yuv420p10le -s "$size" -i "$work/in.raw" -vf "$chain" -f null -)
  ff+=("$wall"); ffcpu+=("$(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }')")
  read -r wall user sys < <(timed "$tonekit" stream "$work/in.raw" /dev/null --input-format yuv420p10 --size "$size" \
    --transfer pq --primaries bt2020 --backend cpu)
  tk+=("$wall"); tkcpu+=("$(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }')")
  read -r wall user sys < <(timed bash -c "cat '$work/in.raw' | '$tonekit' stream - - --input-format yuv420p10 \
    --size $size --transfer pq --primaries bt2020 --backend cpu | cat > /dev/null")
  tp+=("$wall")
done
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
ffm=$(median "${ff[@]}") tkm=$(median "${tk[@]}") tpm=$(median "${tp[@]}") ffc=$(median "${ffcpu[@]}") tkc=$(median "${tkcpu[@]}")
"$tonekit" info --cpu
echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg); $frames frames of $size; $repeats runs each"
echo "ffmpeg walls: ${ff[*]}"
echo "tonekit walls: ${tk[*]}"
echo "tonekit through pipes walls: ${tp[*]}"
level=$("$tonekit" info --cpu | sed -n 's/.*level \([a-z0-9]*\).*/\1/p')
awk -v n="$frames" -v f="$ffm" -v t="$tkm" -v p="$tpm" -v fc="$ffc" -v tc="$tkc" -v lv="$level" 'BEGIN {
  printf "| tool | median wall s | fps | CPU s per frame |\n|---|---|---|---|\n"
  printf "| ffmpeg zscale+tonemap=hable | %.2f | %.1f | %.3f |\n", f, n / f, fc / n
  printf "| tonekit stream --backend cpu (level %s) | %.2f | %.1f | %.3f |\n", lv, t, n / t, tc / n
  printf "| the same through pipes (level %s) | %.2f | %.1f | |\n", lv, p, n / p
  printf "speed-up (fps): %.2fx; CPU time per frame: %.2fx; pipes at %.0f %% of the file rate\n", f / t, fc / tc, 100 * t / p }'
