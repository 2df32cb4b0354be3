#!/usr/bin/env bash
# tonekit lut against tonekit stream through Debian's ffmpeg (ctest: lut_ffmpeg): the same HDR10
# frames (synthetic night drive, PQ BT.2020) mapped by `tonekit stream` and by ffmpeg's lut3d with
# the .cube `tonekit lut` wrote, for display curves in several colour modes and gamut mappings.
#   1. RGB: frames as rgb48 (16-bit R'G'B', the LUT's input) -> rgb24 with gamma 2.4 on both sides:
#      what the LUT itself costs (lattice interpolation, lut3d's input precision).
#   2. The video recipe: yuv420p10 in (ffmpeg's BT.2020 YUV -> RGB), yuv420p out (BT.709 OETF, ffmpeg's
#      RGB -> BT.709 YUV) against tonekit stream's yuv420p: adds the two programs' chroma resampling.
# Prints the agreement (largest difference, share within 1 and 2 codes) and fails beyond the
# stated bounds below. Exit 77 (ctest: skipped) when ffmpeg is not installed.
# Usage: lut_ffmpeg.sh path/to/tonekit
set -euo pipefail
tonekit=$(readlink -f "$1")
command -v ffmpeg >/dev/null || { echo "ffmpeg not installed: skipped"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
W=320 H=180 N=2
# Bounds in 8-bit codes. Measured (320x180, 3 frames, Debian 12's ffmpeg 5.1, 65^3 tetrahedral): RGB
# largest 1-4 codes, >= 99.84 % within 1; yuv420p largest 5-18 codes (chroma resampling at
# saturated edges), >= 99.72 % within 2 (docs/performance.md, "LUT against the stream").
RGB_MAX=${RGB_MAX:-6} RGB_WITHIN1=${RGB_WITHIN1:-99.5}
YUV_MAX=${YUV_MAX:-24} YUV_WITHIN2=${YUV_WITHIN2:-99.0}

fail() { echo "FAIL: $*" >&2; exit 1; }
# Largest difference and the shares of bytes within 1 and 2 of two raw files.
compare() {
  python3 - "$1" "$2" <<'PY'
import sys
a = open(sys.argv[1], 'rb').read(); b = open(sys.argv[2], 'rb').read()
assert len(a) == len(b) and len(a) > 0, (len(a), len(b))
hist = [0] * 256
for x, y in zip(a, b): hist[abs(x - y)] += 1
n = len(a); worst = max(i for i in range(256) if hist[i])
print(worst, "%.3f" % (100.0 * sum(hist[:2]) / n), "%.3f" % (100.0 * sum(hist[:3]) / n))
PY
}

"$tonekit" synth night-drive hdr10.y4m --frames $N --size ${W}x${H} --fps 30 >/dev/null
ffmpeg -v error -y -i hdr10.y4m -f rawvideo -pix_fmt yuv420p10le src.yuv
# BT.2020 NCL limited-range YUV -> 16-bit R'G'B' (PQ), the input both sides read in part 1.
ffmpeg -v error -y -f rawvideo -pix_fmt yuv420p10le -s ${W}x${H} -i src.yuv \
  -vf "scale=in_color_matrix=bt2020:in_range=tv:flags=bilinear+accurate_rnd+full_chroma_int,format=rgb48le" \
  -f rawvideo -pix_fmt rgb48le src.rgb48

status=0
for config in "bt2390 luminance clip" "hable rgb clip" "mobius max-rgb desaturate" "spline hybrid perceptual"; do
  read -r op mode gamut <<<"$config"
  sets=(--set source_peak=1000 --set mode=$mode --set dither=0)
  [ "$op" = aces ] && sets=(--set mode=$mode --set dither=0)
  # 1. RGB, gamma 2.4 both sides.
  "$tonekit" lut rgb.cube --op $op "${sets[@]}" --set gamma=2.4 --transfer pq --primaries bt2020 --gamut $gamut --peak 1000
  "$tonekit" stream src.rgb48 tk.rgb --input-format rgb48 --size ${W}x${H} --transfer pq --primaries bt2020 --gamut $gamut \
    --op $op "${sets[@]}" --set gamma=2.4 --output-format rgb24 --backend cpu
  ffmpeg -v error -y -f rawvideo -pix_fmt rgb48le -s ${W}x${H} -i src.rgb48 \
    -vf "lut3d=file=rgb.cube:interp=tetrahedral" -f rawvideo -pix_fmt rgb24 ff.rgb
  read -r worst w1 w2 <<<"$(compare tk.rgb ff.rgb)"
  echo "rgb  $op mode=$mode gamut=$gamut: largest $worst codes, $w1 % within 1, $w2 % within 2"
  awk -v w="$worst" -v m="$RGB_MAX" -v p="$w1" -v q="$RGB_WITHIN1" 'BEGIN { exit !(w <= m && p >= q) }' ||
    { echo "FAIL: rgb $op beyond $RGB_MAX codes or under $RGB_WITHIN1 % within 1" >&2; status=1; }
  # 2. The video recipe: yuv420p10 -> lut3d (BT.709 OETF) -> yuv420p.
  "$tonekit" lut yuv.cube --op $op "${sets[@]}" --transfer pq --primaries bt2020 --gamut $gamut --peak 1000
  "$tonekit" stream src.yuv tk.yuv --input-format yuv420p10 --size ${W}x${H} --transfer pq --primaries bt2020 \
    --gamut $gamut --op $op "${sets[@]}" --output-format yuv420p --backend cpu
  ffmpeg -v error -y -f rawvideo -pix_fmt yuv420p10le -s ${W}x${H} -i src.yuv \
    -vf "scale=in_color_matrix=bt2020:in_range=tv:flags=bilinear+accurate_rnd+full_chroma_int,format=rgb48le,lut3d=file=yuv.cube:interp=tetrahedral,scale=out_color_matrix=bt709:out_range=tv:flags=bilinear+accurate_rnd,format=yuv420p" \
    -f rawvideo -pix_fmt yuv420p ff.yuv
  read -r worst w1 w2 <<<"$(compare tk.yuv ff.yuv)"
  echo "yuv  $op mode=$mode gamut=$gamut: largest $worst codes, $w1 % within 1, $w2 % within 2"
  awk -v w="$worst" -v m="$YUV_MAX" -v p="$w2" -v q="$YUV_WITHIN2" 'BEGIN { exit !(w <= m && p >= q) }' ||
    { echo "FAIL: yuv $op beyond $YUV_MAX codes or under $YUV_WITHIN2 % within 2" >&2; status=1; }
done
# A linear input: the shaper is written beside the cube.
"$tonekit" lut lin.cube --op bt2390 --set source_peak=1000 --transfer linear --primaries bt709 --peak 1000 2>/dev/null
[ -s lin.shaper.cube ] || fail "no shaper for a linear input"
grep -q "LUT_1D_SIZE" lin.shaper.cube || fail "shaper is not a 1D .cube"
# Bad requests are the registry's and the parsers' errors (exit 1).
if "$tonekit" lut bad.cube --op histeq --peak 1000 2>err.txt; then fail "histeq accepted"; fi
grep -q "histogram" err.txt || fail "histeq: $(cat err.txt)"
if "$tonekit" lut bad.cube --op bt2390 2>err.txt; then fail "no statistics accepted"; fi
exit $status
