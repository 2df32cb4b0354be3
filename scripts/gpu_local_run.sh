#!/usr/bin/env bash
# The one script run on the GPU machine for the local operators (device `run` tool, carry
# [".carry-local"]): GPU tests, compute-sanitizer memcheck + racecheck on a small subset, the
# benchmark, a PyTorch cumsum-based reinhard-sat peer, then a short table last. Binaries come
# prebuilt for sm_90 in .carry-local/bin (build here: cmake --build build-gpu-local --target
# tonekit_gpu_local_tests tonekit_local_bench; copy into .carry-local/bin). Logs go to $OUT.
# Usage: bash scripts/gpu_local_run.sh [tests|bench|all] (default all)
set -u
cd "$(dirname "$0")/.."
what=${1:-all}
OUT=${OUT:-/tmp/tonekit_local_out}
mkdir -p "$OUT"
B=${CARRY:-.carry-local}/bin
export TONEKIT_GPU_IMAGES=$PWD/${CARRY:-.carry-local}/images
export LD_LIBRARY_PATH=$PWD/${CARRY:-.carry-local}/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader
SAN=/usr/local/cuda/bin/compute-sanitizer
command -v compute-sanitizer >/dev/null && SAN=compute-sanitizer
status=0
if [[ $what == all || $what == tests ]]; then
  echo "== GPU local tests"
  timeout 150 $B/tonekit_gpu_local_tests --gtest_brief=1 >"$OUT/gtest_local.log" 2>&1
  rc=$?; echo "gtest exit $rc"; [[ $rc == 0 ]] || status=1
  # --gtest_brief prints no closing list of failures: look for them.
  grep -E "^\[  FAILED|Failure|Expected|actual|Which is|entries off" "$OUT/gtest_local.log" | head -30
  echo "tests: $(grep -c '^\[       OK\|^\[  PASSED' "$OUT/gtest_local.log") ok-lines, $(grep -c '^\[  FAILED  \] [A-Z]' "$OUT/gtest_local.log") failed"
  tail -3 "$OUT/gtest_local.log"
  grep -E "^\[ local \]" "$OUT/gtest_local.log" | grep -E "ties at epsilon [1-9]|max [3-9]" | head -8
  grep -E "^\[ local \]" "$OUT/gtest_local.log" | sort -t'(' -k2 -r | head -5
  grep -E "^\[ sat  \].*(7680|tiled)" "$OUT/gtest_local.log" | head -8
fi
if [[ $what == all || $what == bench ]]; then
  echo "== benchmark"
  timeout 100 $B/tonekit_local_bench >"$OUT/local_bench.csv" 2>&1 || { status=1; tail -5 "$OUT/local_bench.csv"; }
  echo "== PyTorch cumsum reinhard-sat peer"
  timeout 60 python3 - >"$OUT/torch_peer.csv" 2>&1 <<'PY' || tail -5 "$OUT/torch_peer.csv"
# reinhard-sat as a PyTorch user writes it: float64 cumsum table, 8 replicated-edge box means by
# slicing, the scale search with torch.where, Reinhard's local curve, sRGB and 8-bit. Median of 20.
import torch, torch.nn.functional as F
def frame(x, key=0.18, phi=8.0, eps=0.025):
    r, g, b = x[0].float(), x[1].float(), x[2].float()
    lw = (0.2126 * r + 0.7152 * g + 0.0722 * b).clamp_min(0)
    lavg = torch.exp(torch.log(1e-6 + lw).mean())
    lum = key / lavg * lw
    widths = [1, 3, 5, 7, 11, 17, 25, 39]
    p = F.pad(lw[None, None].double(), (19, 19, 19, 19), mode='replicate')[0, 0]
    t = F.pad(p.cumsum(0).cumsum(1), (1, 0, 1, 0))
    H, W = lw.shape
    def box(wd):
        o = 19 - wd // 2
        s = t[o + wd:o + wd + H, o + wd:o + wd + W] - t[o:o + H, o + wd:o + wd + W] - t[o + wd:o + wd + H, o:o + W] + t[o:o + H, o:o + W]
        return (s / (wd * wd) * (key / lavg)).float()
    centre = lum.clone(); active = torch.ones_like(lum, dtype=torch.bool)
    for i in range(7):
        sur = box(widths[i + 1]); off = 2 ** phi * key / widths[i] ** 2
        keep = active & ((centre - sur).abs() < eps * (off + centre))
        centre = torch.where(keep, sur, centre); active = keep
    ld = lum / (1 + centre)
    rgb = torch.stack([r, g, b]) / lw.clamp_min(1e-30) * ld
    v = rgb.clamp(0, 1); v = torch.where(v <= 0.0031308, 12.92 * v, 1.055 * v.pow(1 / 2.4) - 0.055)
    return (v * 255 + 0.5).to(torch.uint8)
for (w, h) in [(1920, 1080), (3840, 2160), (7680, 4320)]:
    xs = [torch.rand(4, h, w, device='cuda', dtype=torch.float16) * 4 for _ in range(3)]
    for i in range(3): frame(xs[i % 3])
    torch.cuda.synchronize(); ts = []
    for i in range(20):
        a = torch.cuda.Event(enable_timing=True); b = torch.cuda.Event(enable_timing=True)
        a.record(); frame(xs[i % 3]); b.record(); b.synchronize(); ts.append(a.elapsed_time(b))
    ts.sort(); print(f"torch,reinhard-sat cumsum,{w},{h},{ts[len(ts)//2]:.4f},0")
PY
fi
if [[ $what == all || $what == tests ]]; then
  if [[ -x $SAN || $SAN == compute-sanitizer ]]; then
    echo "== compute-sanitizer memcheck"
    timeout 150 $SAN --tool memcheck --error-exitcode 9 $B/tonekit_gpu_local_tests --gtest_brief=1 \
      --gtest_filter='GpuLocalSanitizer.*:GpuLocalErrors.*:Sizes/GpuSat.*/31x17:Sizes/GpuLocal.*/31x17:Sizes/GpuLocal.*/63x33' >"$OUT/memcheck.log" 2>&1
    echo "memcheck exit $?"; tail -3 "$OUT/memcheck.log"
    echo "== compute-sanitizer racecheck"
    timeout 150 $SAN --tool racecheck --error-exitcode 9 $B/tonekit_gpu_local_tests --gtest_brief=1 \
      --gtest_filter='Sizes/GpuSat.*/31x17:Sizes/GpuLocal.*/31x17:Sizes/GpuLocal.test_gpu_local_operators_match_cpu/65x31' >"$OUT/racecheck.log" 2>&1
    echo "racecheck exit $?"; tail -3 "$OUT/racecheck.log"
  else
    echo "compute-sanitizer not found"
  fi
fi
if [[ $what == all || $what == bench ]]; then
  echo "== summary (median ms; GB/s = input + output bytes, tables: plane + 8 B per entry)"
  cat "$OUT/local_bench.csv" "$OUT/torch_peer.csv" | grep -E "^#|^(op|sat|copy|torch|stages)," | \
    awk -F, '/^#/{print; next} {printf "%-7s %-40s %5sx%-5s %9s ms %9s GB/s\n", $1, $2, $3, $4, $5, $6}' | head -90
fi
exit $status
