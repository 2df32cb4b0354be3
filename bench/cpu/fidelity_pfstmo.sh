#!/usr/bin/env bash
# Fidelity of `reinhard-local` against pfstmo_reinhard02 -s with matched parameters (key 0.18,
# phi 8, 8 scales) on the real images in ../shared/hdr (issue 4 section 5): SSIM and mean
# absolute difference of the display luminance (bench/cpu/compare_tonemapped.cpp).
# Usage: bench/cpu/fidelity_pfstmo.sh [BUILD_DIR] [HDR_DIR]
set -euo pipefail
build="${1:-build}"
hdr="${2:-../shared/hdr}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
printf '%-36s %8s %8s\n' image ssim mad
for f in "$hdr"/*.exr "$hdr"/*.hdr; do
  name=$(basename "$f")
  case "$name" in AllHalfValues.exr|BrightRingsNanInf.exr) continue ;; esac  # synthetic edge cases
  "$build/bin/tonekit" map "$f" "$work/tk.pfm" --op reinhard-local --backend cpu \
    --set key=0.18 --set phi=8 --set scales=8 --set dither=0 2>/dev/null || { echo "$name: tonekit failed"; continue; }
  rm -f "$work/pfs.pfm"
  pfsin "$f" 2>/dev/null | pfstmo_reinhard02 -s --key 0.18 --phi 8 --range 8 2>/dev/null | pfsoutpfm "$work/pfs.pfm" 2>/dev/null || true
  [[ -s "$work/pfs.pfm" ]] || { printf '%-36s %s\n' "$name" "pfstools wrote nothing (its EXR reader rejects this file)"; continue; }
  if "$build/bin/tonekit" info "$work/pfs.pfm" | grep -q "luminance: *min 0, min>0 0, max 0"; then
    printf '%-36s %s\n' "$name" "pfstools wrote an all-black frame"; continue
  fi
  printf '%-36s %8s %8s\n' "$name" $("$build/bin/compare_tonemapped" "$work/tk.pfm" "$work/pfs.pfm")
done
