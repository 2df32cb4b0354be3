#!/usr/bin/env bash
# Whole-process comparison with pfstools on the same 4K PFM, in the same run (issue 2 section 8,
# issue 4 section 5): `tonekit map` (CPU backend) against `pfsinpfm | pfstmo_reinhard02 | pfsout`,
# global and local (`-s`, matched parameters: key 0.18, phi 8, 8 scales). Median of RUNS.
# Usage: bench/cpu/compare_pfstools.sh [BUILD_DIR] [RUNS]
set -euo pipefail
build="${1:-build}"
runs="${2:-5}"
tonekit="$build/bin/tonekit"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
"$tonekit" synth night-drive "$work/in.pfm" --size 3840x2160

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
time_cmd() {  # prints the median wall time in seconds of RUNS runs of "$@"
  for _ in $(seq "$runs"); do
    local t0 t1
    t0=$(date +%s.%N); "$@" >/dev/null 2>&1; t1=$(date +%s.%N)
    echo "$t1 - $t0" | bc -l
  done | median
}

printf '%-34s %10s %10s %8s\n' "case (3840x2160 PFM -> PNG)" "tonekit s" "pfstools s" "speedup"
compare() {
  local label="$1" op="$2" pfs_flags="$3"
  local tk pfs
  tk=$(time_cmd "$tonekit" map "$work/in.pfm" "$work/tk.png" --op "$op" --backend cpu)
  pfs=$(time_cmd sh -c "pfsinpfm '$work/in.pfm' | pfstmo_reinhard02 $pfs_flags | pfsout '$work/pfs.png'")
  printf '%-34s %10.3f %10.3f %7.1fx\n' "$label" "$tk" "$pfs" "$(echo "$pfs / $tk" | bc -l)"
}
compare "reinhard (global)" reinhard "--key 0.18"
compare "reinhard-local vs reinhard02 -s" reinhard-local "-s --key 0.18 --phi 8"
