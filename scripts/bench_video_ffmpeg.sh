#!/usr/bin/env bash
# `tonekit video` against FFmpeg's CPU chain (zscale + tonemap=hable) on one 4K HDR10 HEVC clip,
# in the same run, alternating, ROUNDS rounds (median reported): decode + tone map to raw frames
# (no encoder), and decode + tone map + libx264 at the same preset and CRF on both sides.
# Usage: scripts/bench_video_ffmpeg.sh [TONEKIT] [WORKDIR]  (ROUNDS=3 PRESET=fast CRF=20 FRAMES=30)
set -euo pipefail
TONEKIT=${1:-build/bin/tonekit}
WORK=${2:-/tmp/tonekit_bench_video}
ROUNDS=${ROUNDS:-3}
PRESET=${PRESET:-fast}
CRF=${CRF:-20}
FRAMES=${FRAMES:-30}
mkdir -p "$WORK"
IN="$WORK/in4k.mkv"
CHAIN="zscale=t=linear:npl=100,format=gbrpf32le,zscale=p=bt709,tonemap=tonemap=hable:desat=0,zscale=t=bt709:m=bt709:r=tv,format=yuv420p"
if [ ! -f "$IN" ]; then
  # testsrc2 (moving) converted to PQ BT.2020 with its white at 1000 cd/m^2, HDR10 metadata in the SEI.
  ffmpeg -nostdin -v error -y -f lavfi -i "testsrc2=size=3840x2160:rate=30:duration=$(echo "$FRAMES/30" | bc -l)" \
    -vf "zscale=tin=bt709:min=bt709:pin=bt709:rin=full:t=smpte2084:m=bt2020nc:p=bt2020:r=tv:npl=1000,format=yuv420p10le" \
    -c:v libx265 -preset ultrafast -crf 18 \
    -x265-params "log-level=error:colorprim=bt2020:transfer=smpte2084:colormatrix=bt2020nc:master-display=G(13250,34500)B(7500,3000)R(34000,16000)WP(15635,16450)L(10000000,50):max-cll=1000,400" \
    -color_primaries bt2020 -color_trc smpte2084 -colorspace bt2020nc "$IN"
fi
# "wall,cpu" seconds of one command (cpu: user + system, what a loaded machine disturbs least).
seconds() { /usr/bin/time -f "%e,%U,%S" -o "$WORK/time.txt" "$@" > /dev/null 2>&1; awk -F, '{printf "%s,%.2f", $1, $2 + $3}' "$WORK/time.txt"; }
declare -A T
LOAD_BEFORE=$(uptime | sed "s/.*load average: //")
CASES="tonekit_raw ffmpeg_raw tonekit_x264 ffmpeg_x264"
run_case() {
  case $1 in
    tonekit_raw) seconds "$TONEKIT" video "$IN" /dev/null --codec rawvideo --format rawvideo --op hable --backend cpu ;;
    ffmpeg_raw) seconds ffmpeg -nostdin -v error -i "$IN" -vf "$CHAIN" -f rawvideo -y /dev/null ;;
    tonekit_x264) seconds "$TONEKIT" video "$IN" "$WORK/tk.mkv" --codec libx264 --preset "$PRESET" --crf "$CRF" --op hable --backend cpu ;;
    ffmpeg_x264) seconds ffmpeg -nostdin -v error -i "$IN" -vf "$CHAIN" -c:v libx264 -preset "$PRESET" -crf "$CRF" -y "$WORK/ff.mkv" ;;
  esac
}
for r in $(seq "$ROUNDS"); do
  for c in $CASES; do T[$c]="${T[$c]:-} $(run_case "$c")"; done
done
echo "cpu: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores; load before: $LOAD_BEFORE, after: $(uptime | sed 's/.*load average: //')"
for c in $CASES; do
  mid=$(( (ROUNDS + 1) / 2 ))
  wall=$(printf '%s\n' ${T[$c]} | cut -d, -f1 | sort -g | sed -n "${mid}p")
  cpu=$(printf '%s\n' ${T[$c]} | cut -d, -f2 | sort -g | sed -n "${mid}p")
  printf '%-13s median wall %6.2f s (%5.2f fps), CPU %6.2f s   runs (wall,cpu):%s\n' "$c" "$wall" \
    "$(echo "$FRAMES / $wall" | bc -l)" "$cpu" "${T[$c]}"
done
