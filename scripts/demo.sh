#!/usr/bin/env bash
# Builds tonekit (CPU backend unless TONEKIT_CUDA=ON) if needed and runs the demo: every synthetic
# scene, plus every HDR file in $DEMO_IMAGES when set, through every operator. Writes
# out/demo/index.html (contact sheet) and prints the timing table.
#   scripts/demo.sh [extra tonekit demo options, e.g. --size 3840x2160 --backend cuda]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${TONEKIT_BUILD_DIR:-$root/build}"
if [[ ! -x "$build/bin/tonekit" ]]; then
  cmake -S "$root" -B "$build" -G Ninja -DTONEKIT_CUDA="${TONEKIT_CUDA:-OFF}" >/dev/null
  cmake --build "$build" --target tonekit_cli
fi
exec "$build/bin/tonekit" demo --out "${DEMO_OUT:-$root/out/demo}" "$@"
