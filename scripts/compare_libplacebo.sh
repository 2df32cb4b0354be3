#!/usr/bin/env bash
# tonekit's display curves against libplacebo's (Debian's ffmpeg `libplacebo` filter, on Mesa's
# lavapipe Vulkan when no GPU is present) for the curves both have: bt2390 (bt.2390), hable, mobius,
# reinhard. Prints, per curve, how far the 8-bit Y' codes of the two programs are apart.
#
#   scripts/compare_libplacebo.sh path/to/tonekit
#
# Comparable settings: a PQ BT.2020 grey ramp (Y' codes 64..940, neutral chroma, so the colour
# modes and the gamut mapping play no part) in an HEVC file whose HDR10 metadata say 1000 cd/m^2
# (mastering peak and MaxCLL); libplacebo with peak detection off, no dithering, clip gamut
# mapping, luma tone-mapping mode, BT.709 / BT.1886 output; tonekit with source_peak=1000,
# target_peak=203 and reference_white=203 (libplacebo's SDR white and SDR display peak are both
# 203 cd/m^2), gamma 2.4 (BT.1886's inverse, which libplacebo encodes a bt709-tagged output with),
# no dither. Then a colour clip (the synthetic night drive) for the same settings, reported only:
# there the two differ also in where luminance is taken (libplacebo: the source's BT.2020; tonekit:
# BT.709 after the gamut stage) and in chroma resampling.
# Needs ffmpeg with the libplacebo filter, libx265, a Vulkan driver (mesa-vulkan-drivers) and python3.
set -euo pipefail
tonekit=$(readlink -f "$1")
command -v ffmpeg >/dev/null || { echo "ffmpeg not installed"; exit 77; }
filters=$(ffmpeg -hide_banner -filters 2>/dev/null || true)
grep -q " libplacebo " <<<"$filters" || { echo "ffmpeg has no libplacebo filter"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
W=876 H=16
META="log-level=error:lossless=1:hdr10=1:colorprim=bt2020:transfer=smpte2084:colormatrix=bt2020nc"
META+=":master-display=G(13250,34500)B(7500,3000)R(34000,16000)WP(15635,16450)L(10000000,1):max-cll=1000,400"

# The ramp: Y' = 64 + x (x < 877), Cb = Cr = 512, 10-bit limited range.
python3 - $W $H <<'PY'
import struct, sys
w, h = int(sys.argv[1]), int(sys.argv[2])
y = b"".join(struct.pack("<H", 64 + x) for x in range(w)) * h
c = struct.pack("<H", 512) * ((w // 2) * (h // 2))
open("ramp.yuv", "wb").write(y + c + c)
PY
ffmpeg -nostdin -v error -f rawvideo -pix_fmt yuv420p10le -s ${W}x${H} -i ramp.yuv -c:v libx265 -x265-params "$META" -y ramp.mkv
"$tonekit" synth night-drive drive.y4m --frames 2 --size 320x180 >/dev/null
ffmpeg -nostdin -v error -i drive.y4m -pix_fmt yuv420p10le -c:v libx265 -x265-params "$META" -y drive.mkv
ffmpeg -nostdin -v error -i drive.mkv -f rawvideo -pix_fmt yuv420p10le -y drive.yuv

placebo() {  # $1 input, $2 tonemapping, $3 param, $4 output
  ffmpeg -nostdin -v error -init_hw_device vulkan=vk -filter_hw_device vk -i "$1" -vf \
    "hwupload,libplacebo=tonemapping=$2:tonemapping_param=$3:tonemapping_mode=luma:peak_detect=0:gamut_mode=clip:dithering=none:colorspace=bt709:color_primaries=bt709:color_trc=bt709:range=tv:format=yuv420p,hwdownload,format=yuv420p" \
    -f rawvideo -y "$4"
}
tk() {  # $1 raw yuv420p10 input, $2 size, $3 op, $4 output, then --set flags
  local in=$1 size=$2 op=$3 out=$4; shift 4
  "$tonekit" stream "$in" "$out" --input-format yuv420p10 --size "$size" --transfer pq --primaries bt2020 --op "$op" \
    --set gamma=2.4 --set dither=0 "$@" --output-format yuv420p --backend cpu </dev/null
}
# Y' plane differences: largest, mean |d|, share within 1 code; over the pixels whose tonekit Y' is above code 16.
compare_luma() {
  python3 - "$1" "$2" "$3" <<'PY'
import sys
a = open(sys.argv[1], "rb").read(); b = open(sys.argv[2], "rb").read(); n = int(sys.argv[3])
d = [abs(x - y) for x, y in zip(a[:n], b[:n])]
print("largest %d, mean %.2f, %.1f %% within 1 code" % (max(d), sum(d) / len(d), 100.0 * sum(1 for v in d if v <= 1) / len(d)))
PY
}

ffmpeg -nostdin -v error -i ramp.mkv -f rawvideo -pix_fmt yuv420p10le -y ramp_dec.yuv
common=(--set source_peak=1000 --set target_peak=203 --set reference_white=203)
while read -r op pl param extra; do
  tk ramp_dec.yuv ${W}x${H} "$op" tk_ramp.yuv ${common[@]+"${common[@]}"} $extra
  placebo ramp.mkv "$pl" "$param" pl_ramp.yuv
  echo "$op vs libplacebo $pl (param $param), grey ramp: $(compare_luma tk_ramp.yuv pl_ramp.yuv $((W * H)))"
  tk drive.yuv 320x180 "$op" tk_drive.yuv ${common[@]+"${common[@]}"} $extra
  placebo drive.mkv "$pl" "$param" pl_drive.yuv
  echo "$op vs libplacebo $pl (param $param), night drive: $(compare_luma tk_drive.yuv pl_drive.yuv $((320 * 180)))"
done <<'CASES'
bt2390 bt.2390 0.5 --set knee_offset=0.5
bt2390 bt.2390 1.0 --set knee_offset=1.0
hable hable 0
mobius mobius 0.3 --set transition=0.3
CASES
# reinhard: tonekit's is Reinhard 2002 (key / log-average, the white point from the frame), not
# libplacebo's fixed-contrast x / (x + o): reported for what it is, with peak-scaled white.
"$tonekit" stream ramp_dec.yuv tk_ramp.yuv --input-format yuv420p10 --size ${W}x${H} --transfer pq --primaries bt2020 \
  --op reinhard --set gamma=2.4 --set dither=0 --output-format yuv420p --backend cpu
placebo ramp.mkv reinhard 0.5 pl_ramp.yuv
echo "reinhard vs libplacebo reinhard (param 0.5), grey ramp: $(compare_luma tk_ramp.yuv pl_ramp.yuv $((W * H)))"
