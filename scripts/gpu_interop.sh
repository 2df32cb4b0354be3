#!/bin/bash
# Issue 18 on the GPU host: the interop tests, the 4K overhead measurement and the night-drive
# renderer at 1920x1200 and 3840x2160 (GL pass, Vulkan pass, render only). Run from the repository
# root with the bundle of scripts/build_interop_bundle.sh in .carry-i (device tool: carry .carry-i).
# Logs and a montage of frames go to $OUT.
set -u
export OUT=${OUT:-/tmp/interop-out}; mkdir -p "$OUT"
for f in .carry-i/gl/*.deb; do dpkg -x "$f" /; done; ldconfig
B=/tmp/interop; rm -rf $B; mkdir -p $B; tar xJf .carry-i/bundle.tar.xz -C $B
export LD_LIBRARY_PATH=$B/lib
[ -e /usr/share/glvnd/egl_vendor.d/10_nvidia.json ] || export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
ls /usr/share/vulkan/icd.d/nvidia_icd.json /etc/vulkan/icd.d/nvidia_icd.json >/dev/null 2>&1 || export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
{ pwd; git log -1 --oneline 2>/dev/null; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; } | tee $OUT/run.log
cd $B/bin
timeout 200 ./tonekit_interop_gl_tests --gtest_also_run_disabled_tests 2>&1 | grep -v "^\[ RUN" | tail -60 > $OUT/gl_tests.log
timeout 120 ./tonekit_interop_vulkan_tests 2>&1 | grep -v "^\[ RUN" | tail -40 > $OUT/vk_tests.log
[ -x ./tonekit_gpu_local_tests ] && timeout 300 ./tonekit_gpu_local_tests 2>&1 | grep -E "^\[  (PASSED|FAILED|SKIPPED) |Failure|tests ran" | head -30 > $OUT/local_tests.log
ND="./night_drive --quiet --frames 200 --warmup 30 --throughput 300"
{
for s in 1920x1200 3840x2160; do
  $ND --size $s --backend none 2>&1 | grep -E "summary|error|night_drive:"
  $ND --size $s 2>&1 | grep -E "summary|error|night_drive:"
  $ND --size $s --vulkan 2>&1 | grep -E "summary|error|night_drive:"
done
$ND --size 3840x2160 --no-glare 2>&1 | grep -E "summary|error"
$ND --size 3840x2160 --op reinhard 2>&1 | grep -E "summary|error"
./night_drive --size 1920x1080 --frames 6 --warmup 0 --start 4.0 --every 1 --png /tmp/nd.%02d.png --quiet 2>&1 | grep -E "summary|error"
./night_drive --size 960x540 --frames 60 --warmup 0 --y4m /tmp/nd.y4m --quiet 2>&1 | grep -E "summary|error"; ls -l /tmp/nd.y4m | awk '{print "y4m bytes", $5}'; head -c 80 /tmp/nd.y4m | head -1
./night_drive --size 960x540 --frames 4 --warmup 0 --start 4.5 --vulkan --png /tmp/ndv.%02d.png --quiet 2>&1 | grep -E "summary|error"
} > $OUT/night_drive.log 2>&1
python3 - <<'PY' >> $OUT/night_drive.log 2>&1
import os
from PIL import Image
fs = ['/tmp/nd.%02d.png' % i for i in range(6)]
ims = [Image.open(f).convert('RGB').resize((960, 540)) for f in fs if os.path.exists(f)]
if ims:
    m = Image.new('RGB', (1920, 540 * ((len(ims) + 1) // 2)))
    for i, im in enumerate(ims): m.paste(im, ((i % 2) * 960, (i // 2) * 540))
    m.save(os.environ['OUT'] + '/montage.png')
if os.path.exists('/tmp/ndv.00.png'): Image.open('/tmp/ndv.00.png').save(os.environ['OUT'] + '/vulkan_frame.png')
print('montage', len(ims))
PY
cat $OUT/gl_tests.log $OUT/vk_tests.log $OUT/local_tests.log $OUT/night_drive.log 2>/dev/null | grep -E "OK|FAILED|PASSED|SKIPPED|overhead4k|summary|error|y4m|montage|Failure|Expected|Which|differ" | head -80
