#!/usr/bin/env bash
# Final check on the GPU machine (device `run` tool, carry [".carry"]): the global and local GPU
# test suites, compute-sanitizer, and the CLI end to end (`tonekit map --backend cuda|auto`
# against `--backend cpu` for every operator). Bundle: scripts/build_gpu_bundle.sh, then
# build/bin/tonekit (a full CUDA build) and its libraries copied into .carry/bin and .carry/lib.
set -u
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/tonekit_out}
mkdir -p "$OUT"
export LD_LIBRARY_PATH=$PWD/.carry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export TONEKIT_GPU_IMAGES=$PWD/.carry/images
B=$PWD/.carry/bin
status=0
bash scripts/gpu_run.sh tests || status=1
echo "== GPU local tests"
timeout 200 $B/tonekit_gpu_local_tests --gtest_brief=1 >"$OUT/gtest_local.log" 2>&1 || status=1
grep -E "^\[  FAILED|Failure" "$OUT/gtest_local.log" | head -20
tail -3 "$OUT/gtest_local.log"
echo "== CLI end to end"
T=$(mktemp -d)
$B/tonekit synth night-drive "$T/in.exr" --size 1921x1083 --bits 32 || status=1
for op in $($B/tonekit ops --ids); do
  $B/tonekit map "$T/in.exr" "$T/cpu_$op.pfm" --op "$op" --backend cpu || status=1
  $B/tonekit map "$T/in.exr" "$T/cuda_$op.pfm" --op "$op" --backend cuda || status=1
  $B/tonekit map "$T/in.exr" "$T/auto_$op.png" --op "$op" || status=1
done
# Glare/bloom on each backend (GlareEngine on the device), then the same mapping.
for op in reinhard reinhard-sat; do
  $B/tonekit map "$T/in.exr" "$T/cpu_glare-$op.pfm" --op "$op" --glare 0.08 --backend cpu || status=1
  $B/tonekit map "$T/in.exr" "$T/cuda_glare-$op.pfm" --op "$op" --glare 0.08 --backend cuda || status=1
done
# tonekit blur on each backend (the CUDA BlurEngine; RGB travels as RGBA).
for m in separable pyramid-quasi gaussian; do
  $B/tonekit blur "$T/in.exr" "$T/blurcpu_$m.pfm" --method $m --sigma 6 --backend cpu || status=1
  $B/tonekit blur "$T/in.exr" "$T/blurcuda_$m.pfm" --method $m --sigma 6 --backend cuda || status=1
done
python3 - "$T" <<'PY' || status=1
import sys, numpy as np, pathlib
t = pathlib.Path(sys.argv[1])
def pfm(p):
    b = p.read_bytes(); parts = b.split(b"\n", 3)
    w, h = map(int, parts[1].split()); scale = float(parts[2])
    a = np.frombuffer(parts[3], dtype="<f4" if scale < 0 else ">f4")
    return a.reshape(h, w, -1)
bad = 0
for c in sorted(t.glob("cpu_*.pfm")):
    op = c.name[4:-4]; g = pfm(t / f"cuda_{op}.pfm"); r = pfm(c)
    d = np.abs(g - r); q = np.abs(np.round(g * 255) - np.round(r * 255))
    ok = np.isfinite(g).all() and q.max() <= 2 and (q == 0).mean() >= 0.999
    bad += not ok
    print(f"cli {op:15s} cuda vs cpu: max |diff| {d.max():.2e}, 8-bit equal {100 * (q == 0).mean():.4f} %, max {int(q.max())} {'ok' if ok else 'FAIL'}")
for c in sorted(t.glob("blurcpu_*.pfm")):
    m = c.name[8:-4]; g = pfm(t / f"blurcuda_{m}.pfm"); r = pfm(c)
    rel = float(np.abs(g - r).max() / max(np.abs(r).max(), 1e-30))
    ok = np.isfinite(g).all() and g.shape == r.shape and rel <= 1e-5
    bad += not ok
    print(f"cli blur {m:13s} cuda vs cpu: max |diff| {rel:.2e} of the image max {'ok' if ok else 'FAIL'}")
sys.exit(1 if bad else 0)
PY
echo "verify exit $status"
exit $status
