#!/usr/bin/env bash
# night_drive's window (issue 18 item 3: "a window when a display exists") under a virtual X
# server with the CPU backend: Mesa's llvmpipe renders, so no GPU is needed. The window opens,
# shows 4 frames and the run exits 0 with both summary lines; --window with no display and a bad
# --cuda-schedule are one error line each and exit 1.
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
# The second summary line (the pass's own interop calls apart from the hand-over, the host probe).
grep -Eq "^summary-interop 320x200 backend=cpu \| pass calls host ms: .* host probe us: [1-9][0-9]* before, [1-9][0-9]* after \| cuda schedule auto$" "$out/log" || {
  echo "FAIL: no summary-interop line with a host probe"
  exit 1
}
# A bad --cuda-schedule: one error line naming the choices, exit 1, before any frame.
env -u DISPLAY "$ND" --backend cpu --size 320x200 --frames 1 --warmup 0 --quiet --headless --cuda-schedule fast >"$out/err" 2>&1
rc=$?
[[ $rc == 1 ]] && [[ $(wc -l <"$out/err") == 1 ]] &&
  grep -q "^tonekit: error: --cuda-schedule must be auto, spin, yield or blocking" "$out/err" || {
  echo "FAIL: --cuda-schedule fast: exit $rc"
  cat "$out/err"
  exit 1
}
echo "night_drive window: ok"
