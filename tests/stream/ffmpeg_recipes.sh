#!/usr/bin/env bash
# The README's stream recipes, end to end with Debian's ffmpeg (ctest: stream_ffmpeg_recipes).
#   1. HDR10 (PQ, BT.2020, 10-bit 4:2:0) -> ffmpeg -f rawvideo -pix_fmt p010le - -> tonekit stream
#      -> ffmpeg -f rawvideo -pix_fmt yuv420p ... -c:v libx264 -> MP4, from a y4m source and from
#      an HEVC (libx265) source, as the README shows them;
#   2. an EXR sequence -> a PNG sequence (with temporal adaptation).
# Checks: every stage exits 0, the MP4 has every frame at the right size and is not black, the
# PNG sequence has one file per EXR. Exit 77 (ctest: skipped) when ffmpeg is not installed.
# Usage: ffmpeg_recipes.sh path/to/tonekit
set -euo pipefail
tonekit=$(readlink -f "$1")
command -v ffmpeg >/dev/null && command -v ffprobe >/dev/null || { echo "ffmpeg not installed: skipped"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
W=320 H=180 N=24

fail() { echo "FAIL: $*" >&2; exit 1; }
frames_of() { ffprobe -v error -count_frames -select_streams v:0 -show_entries stream=nb_read_frames -of csv=p=0 "$1"; }
size_of() { ffprobe -v error -select_streams v:0 -show_entries stream=width,height -of csv=s=x:p=0 "$1"; }
# Mean luma of the whole clip (signalstats YAVG averaged over frames).
mean_luma() {
  ffmpeg -v error -i "$1" -vf signalstats,metadata=print:key=lavfi.signalstats.YAVG:file=- -f null - |
    awk -F= '/YAVG/ { s += $2; n++ } END { if (n) printf "%d", s / n; else print 0 }'
}
check_mp4() {
  [ "$(frames_of "$1")" = "$N" ] || fail "$1: $(frames_of "$1") frames, expected $N"
  [ "$(size_of "$1")" = "${W}x${H}" ] || fail "$1: size $(size_of "$1")"
  local y; y=$(mean_luma "$1")
  [ "$y" -gt 20 ] && [ "$y" -lt 235 ] || fail "$1: mean luma $y (black or white frames)"
  echo "ok: $1 ($N frames, ${W}x${H}, mean Y' $y)"
}

# --- Recipe 1: HDR10 through pipes into an H.264 MP4 -------------------------------------------
"$tonekit" synth night-drive hdr10.y4m --frames $N --size ${W}x${H} --fps 30
ffmpeg -v error -i hdr10.y4m -f rawvideo -pix_fmt p010le - |
  "$tonekit" stream - - --input-format p010 --size ${W}x${H} --fps 30 --transfer pq --primaries bt2020 --backend cpu |
  ffmpeg -v error -y -f rawvideo -pix_fmt yuv420p -s ${W}x${H} -r 30 -i - -c:v libx264 -pix_fmt yuv420p out.mp4
check_mp4 out.mp4

# The same from an HEVC HDR10 file, as it comes from a camera or a grading suite.
ffmpeg -v error -y -i hdr10.y4m -c:v libx265 -x265-params log-level=error:lossless=1 -pix_fmt yuv420p10le \
  -color_primaries bt2020 -color_trc smpte2084 -colorspace bt2020nc hdr10.mp4
ffmpeg -v error -i hdr10.mp4 -f rawvideo -pix_fmt p010le - |
  "$tonekit" stream - - --input-format p010 --size ${W}x${H} --fps 30 --transfer pq --primaries bt2020 --backend cpu --temporal |
  ffmpeg -v error -y -f rawvideo -pix_fmt yuv420p -s ${W}x${H} -r 30 -i - -c:v libx264 -pix_fmt yuv420p out_hevc.mp4
check_mp4 out_hevc.mp4

# y4m straight in and out: ffmpeg reads tonekit's y4m header (size, rate, range) by itself.
"$tonekit" stream hdr10.y4m - --output-format y4m --backend cpu | ffmpeg -v error -y -i - -c:v libx264 out_y4m.mp4
check_mp4 out_y4m.mp4

# --- Recipe 2: an EXR sequence -> a PNG sequence ----------------------------------------------
mkdir -p shots png
"$tonekit" synth night-drive shots/shot.%04d.exr --frames $N --size ${W}x${H}
"$tonekit" stream shots/shot.%04d.exr png/frame.%04d.png --temporal --backend cpu
count=$(ls png | wc -l)
[ "$count" = "$N" ] || fail "png/: $count files, expected $N"
[ -f png/frame.0001.png ] && [ -f "png/frame.$(printf %04d $N).png" ] || fail "png/: numbering"
# ...and that sequence is an ordinary input for ffmpeg.
ffmpeg -v error -y -framerate 30 -i png/frame.%04d.png -c:v libx264 -pix_fmt yuv420p from_png.mp4
check_mp4 from_png.mp4
echo "all recipes passed"
