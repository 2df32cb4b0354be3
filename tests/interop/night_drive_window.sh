#!/usr/bin/env bash
# night_drive's window (issue 18 item 3: "a window when a display exists") under a virtual X
# server with the CPU backend: Mesa's llvmpipe renders, so no GPU is needed. The window opens,
# shows 4 frames and the run exits 0; --window with no display is one error line and exit 1.
# Exit 77 (skipped) without xvfb-run (Debian xvfb, installed by the README's set-up).
set -u
ND=$1
command -v xvfb-run >/dev/null || { echo "xvfb-run not installed (Debian xvfb): skipped"; exit 77; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
xvfb-run -a -s "-screen 0 1280x800x24" "$ND" --backend cpu --size 320x200 --frames 4 --warmup 0 --quiet --window \
  >"$out/log" 2>&1
rc=$?
cat "$out/log"
[[ $rc == 0 ]] || { echo "FAIL: exit $rc under Xvfb"; exit 1; }
grep -q "night_drive: window 320x200" "$out/log" || { echo "FAIL: no window was opened"; exit 1; }
grep -q "^summary 320x200 backend=cpu .*frames=4 " "$out/log" || { echo "FAIL: not 4 frames"; exit 1; }
env -u DISPLAY "$ND" --backend cpu --size 320x200 --frames 1 --warmup 0 --quiet --window >"$out/err" 2>&1
rc=$?
[[ $rc == 1 ]] || { echo "FAIL: --window without a display exited $rc"; cat "$out/err"; exit 1; }
[[ $(wc -l <"$out/err") == 1 ]] && grep -q "^tonekit: error: window:" "$out/err" || {
  echo "FAIL: expected one error line"
  cat "$out/err"
  exit 1
}
echo "night_drive window: ok"
