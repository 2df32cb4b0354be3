#!/usr/bin/env bash
# Same bytes from two builds: every registered operator (its defaults, and a non-default look) on
# the synthetic scenes and, when present, the real images of ../shared/hdr, through `tonekit map`,
# for each backend asked for; 8-bit PNG, 16-bit PNG and half EXR outputs. Prints one line per
# difference and a summary; exit 0 only when every output is byte-equal.
#
#   scripts/compare_builds.sh OLD_TONEKIT NEW_TONEKIT [BACKENDS] [HDR_DIR]
#   e.g. scripts/compare_builds.sh /tmp/old/tonekit build/bin/tonekit "cpu cuda"
#
# Refactors that promise unchanged output (docs/architecture.md) run it with the build before the
# change as OLD. TONEKIT_ISA (when set) is passed to both, so each ISA level can be compared.
set -euo pipefail
old=${1:?usage: compare_builds.sh OLD_TONEKIT NEW_TONEKIT [BACKENDS] [HDR_DIR]}
new=${2:?usage: compare_builds.sh OLD_TONEKIT NEW_TONEKIT [BACKENDS] [HDR_DIR]}
backends=${3:-cpu}
hdr_dir=${4:-$(dirname "$0")/../../shared/hdr}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

inputs=()
for scene in $("$new" synth --list | awk '{print $1}'); do
  "$new" synth "$scene" "$work/$scene.exr" --size 331x187 >/dev/null
  inputs+=("$work/$scene.exr")
done
if [[ -d $hdr_dir ]]; then
  for f in "$hdr_dir"/*.exr "$hdr_dir"/*.hdr; do [[ -e $f ]] && inputs+=("$f"); done
fi

ops=$("$new" ops --ids)
same=0 differ=0 failed=0
for backend in $backends; do
  for op in $ops; do
    # The defaults, then a look away from them (saturation and gamma, no dither: the general path).
    for look in "" "--set saturation=0.7 --set gamma=2.2 --set dither=0"; do
      for ext in png exr; do
        bits=""
        [[ $ext == png && -n $look ]] && bits="--bits 16"
        for in in "${inputs[@]}"; do
          name=$(basename "$in")
          a="$work/old.$ext" b="$work/new.$ext"
          rm -f "$a" "$b"
          # shellcheck disable=SC2086
          ra=0; "$old" map "$in" "$a" --op "$op" --backend "$backend" $look $bits 2>"$work/old.err" || ra=$?
          # shellcheck disable=SC2086
          rb=0; "$new" map "$in" "$b" --op "$op" --backend "$backend" $look $bits 2>"$work/new.err" || rb=$?
          if [[ $ra != "$rb" ]]; then
            echo "EXIT  $backend $op ${look:-defaults} $ext $name: old $ra, new $rb"; failed=$((failed + 1)); continue
          fi
          if [[ $ra != 0 ]]; then same=$((same + 1)); continue; fi  # both refuse it alike
          if cmp -s "$a" "$b"; then same=$((same + 1)); else
            echo "DIFF  $backend $op ${look:-defaults} $ext $name"; differ=$((differ + 1))
          fi
        done
      done
    done
  done
done
echo "compare_builds: $same same, $differ differ, $failed exit codes differ (${#inputs[@]} inputs; backends: $backends)"
[[ $differ == 0 && $failed == 0 ]]
