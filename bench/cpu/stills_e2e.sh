#!/usr/bin/env bash
# Stills end to end (issue 15 items 3 and 5): whole-process times of `tonekit map` on a 4K half
# EXR (the synthetic night drive) to PNG and JPEG, against the peers in the same run:
# `oiiotool in.exr -o out.png` (OpenImageIO; converts only, no tone mapping) and pfstools
# (`pfsin in.exr | pfstmo_reinhard02 | pfsout out.png`); then a batch of BATCH such files (one
# `tonekit map DIR -o ...` against one process per file), and the codec table (bench_codecs:
# PFM/Radiance/EXR read speeds, PNG size/time per level).
# Needs hyperfine, openimageio-tools and pfstools (apt-get install hyperfine openimageio-tools
# pfstools). Usage: bench/cpu/stills_e2e.sh [BUILD_DIR] [RUNS] [BATCH] [BASELINE_TONEKIT]
# BASELINE_TONEKIT: another tonekit binary (e.g. the build before a change) timed beside it.
set -euo pipefail
build="${1:-build}"
runs="${2:-10}"
batch="${3:-20}"
baseline="${4:-}"
tonekit="$(realpath "$build/bin/tonekit")"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work"

"$tonekit" synth night-drive in.exr --size 3840x2160          # half, ZIP (the writer's default)
"$tonekit" synth night-drive in.pfm --size 3840x2160
"$tonekit" synth night-drive in.hdr --size 3840x2160
# The CPU model and the x86-64 level tonekit runs at (TONEKIT_CPU_LEVEL=baseline|v3|v4 lowers it).
"$tonekit" info --cpu
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs); load: $(cut -d' ' -f1-3 /proc/loadavg)"

cases=(-n "tonekit map exr->png" "$tonekit map in.exr tk.png --backend cpu"
       -n "tonekit map exr->png, no dither" "$tonekit map in.exr tk0.png --backend cpu --set dither=0"
       -n "tonekit map exr->jpg" "$tonekit map in.exr tk.jpg --backend cpu"
       -n "tonekit map pfm->png" "$tonekit map in.pfm tkp.png --backend cpu"
       -n "oiiotool exr->png (no tone mapping)" "oiiotool in.exr -o oiio.png"
       -n "pfstools reinhard02 exr->png" "pfsin in.exr | pfstmo_reinhard02 | pfsout pfs.png")
if [[ -n "$baseline" ]]; then
  cases+=(-n "baseline tonekit map exr->png" "$baseline map in.exr base.png --backend cpu"
          -n "baseline tonekit map exr->png, no dither" "$baseline map in.exr base0.png --backend cpu --set dither=0")
fi
hyperfine --style basic --warmup 1 --runs "$runs" --export-markdown single.md "${cases[@]}" > /dev/null
cat single.md
ls -l tk.png tk0.png tk.jpg oiio.png pfs.png | awk '{print $5, $9}'

mkdir -p many
for i in $(seq -w 1 "$batch"); do cp in.exr "many/f$i.exr"; done
hyperfine --style basic --warmup 0 --runs 3 --export-markdown batch.md \
  -n "one tonekit map over $batch files" "rm -rf out && $tonekit map many -o out/ --backend cpu" \
  -n "$batch tonekit processes" "rm -rf out1 && mkdir out1 && for f in many/*.exr; do $tonekit map \$f out1/\$(basename \$f .exr).png --backend cpu; done" \
  > /dev/null
cat batch.md
echo "(images/s = $batch / mean)"

if [[ -x "$(dirname "$tonekit")/bench_codecs" ]]; then
  "$(dirname "$tonekit")/bench_codecs" 5 in.exr in.pfm in.hdr
fi
