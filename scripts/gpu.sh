#!/usr/bin/env bash
# Every run on the GPU machine, one mode a job: `bash scripts/gpu.sh MODE [ARGS]`, run there from the
# repository root (device tool: it copies the working tree and the carry folder named, runs one command).
# Each line: what the mode runs; the carry folder it needs [the command that gathers it, run here on the
# build machine; "+ x": build-gpu/bin/x copied into the carry's bin/ by hand]; its main environment.
# All modes: OUT (logs; the device tool's output folder, else a /tmp folder); CARRY (another carry
# folder; not multi, multi-bundle, blur).
#   tests                    tonekit_gpu_tests, tonekit_gpu_local_tests; .carry [bash scripts/build_gpu_bundle.sh + tonekit_gpu_local_tests]
#   bench                    4K tonekit_bench rows (reinhard, drago), local_bench --glare, reinhard-sat tile-local 64x64; .carry [build_gpu_bundle.sh + tonekit_local_bench]
#   all                      tests, then bench; .carry [as both]
#   multi-bundle             (here) ninja -C build-gpu for the multi- and single-GPU binaries, gathers .carry-m (stripped, gzipped, libfftw3f)
#   multi                    tonekit_gpu_multi_tests on every GPU, the suites on GPU 0, tonekit_multi_bench, bench on GPU 0; .carry-m [multi-bundle]; MULTI_ARGS, MULTI_TIMEOUT
#   global [tests|bench|all] tonekit_gpu_tests + memcheck/racecheck; tonekit_bench --json, bench/peer_torch.py, bench/summarize.py; .carry [build_gpu_bundle.sh]
#   local [tests|bench|all]  tonekit_gpu_local_tests + memcheck/racecheck; tonekit_local_bench, a PyTorch cumsum reinhard-sat peer, a table; .carry-local [+ tonekit_gpu_local_tests tonekit_local_bench, images/]
#   local-ab                 reinhard-sat A/B of tonekit_local_bench builds over ROUNDS rounds, medians; .carry-s [+ the builds]; VARIANTS, ROUNDS, ONLY, TESTS=1, TEST_TIMEOUT, SAN=1, SAN_FILTER
#   ncu-local                ncu on the reinhard-sat tile map kernel (sat_tile_map), 4K; .carry-s [+ tonekit_local_bench]; SKIP, ONLY
#   profile                  ncu on the statistics + map kernels (tonekit_bench) and sat_tile_map (tonekit_local_bench); .carry [build_gpu_bundle.sh + tonekit_local_bench]
#   blur [BIN_DIR]           GpuBlur* tests, tonekit_blur_bench --quick --cpu, memcheck + racecheck; BIN_DIR (default .carry-blur) holding tonekit_gpu_tests, tonekit_blur_bench
#   blur-banded              GpuBlur*/GpuGlare* tests, tonekit_blur_bench per variant, memcheck on fused/banded; .carry [+ tonekit_blur_bench]; VARIANTS
#   blur-strips              the strip separable kernel: blur/glare tests, variants' speed (every size; 4K sigma 3,6,9), memcheck + racecheck; .carry [+ tonekit_blur_bench]; VARIANTS, ITERS
#   blur-strips quick        its strip test, the variants' speed, then ncu-blur-strips with SKIP 120; .carry-s [+ tonekit_gpu_tests tonekit_blur_bench]; VARIANTS, ITERS, NCU=0 (no ncu), SKIP, V
#   ncu-blur                 ncu on the two separable passes (sep_rows/cols), 4K RGBA float sigma 6; .carry [+ tonekit_blur_bench]
#   ncu-blur-strips          ncu on the strip separable kernel (sep_strip), warp stalls; .carry [+ tonekit_blur_bench]; SKIP (170), V (separable-strips)
#   map-probe                GPU suites, memcheck, 4K/1080p/8K reinhard rows of old and new builds, ncu on map_kernel; .carry-n [+ suites, tonekit_bench, previous build as tonekit_bench_old]; TESTS, RES, VARIANTS, SASS=1, AB=1 (quick A/B only)
#   stats-probe              statistics variant tests + sanitizers, reinhard frame/stats rows per size; .carry-s [+ tonekit_gpu_tests tonekit_bench]; RES
#   stats-bulk               statistics variant tests + sanitizers, the whole tonekit_bench's stats/frame rows; .carry [build_gpu_bundle.sh]
#   refactor-check           all GPU tests, memcheck/racecheck (sanitizer, strip, fused), 4K blur and stats rows; .carry-s [+ tonekit_gpu_tests tonekit_blur_bench tonekit_bench]
#   verify                   global tests, local tests, `tonekit map/blur` cuda against cpu for every operator; .carry [build_gpu_bundle.sh + tonekit_gpu_local_tests, build/bin/tonekit and its libraries]
#   cli-bundle               (here) gathers .carry-c from the default CUDA + image I/O build (tonekit, tonekit_tests, tonekit_gpu_tests, libraries; gzipped); BUILD (build)
#   cli                      tonekit_tests with CUDA, 4K EXR -> PNG per backend, a batch of N, `tonekit stream` against `cat`; .carry-c [cli-bundle]; N, RUNS, FRAMES, STREAM_RUNS, BASE (absolute), BATCH_ARGS, BATCH_RUNS, SKIP_STREAM=1, FILTER, TEST_S, SKIP_TESTS=1
#   cli-multi                the CLI tests using every GPU, a batch of N 4K EXRs on one GPU against --devices, an 8K EXR stream; .carry-c [cli-bundle]; N (48)
#   interop                  GL/Vulkan interop tests, 4K overhead, night_drive at 1920x1200 and 3840x2160, a montage; .carry-i [bash scripts/build_interop_bundle.sh build; loader debs in .carry-i/gl]
#   interop-host [RUNS]      the interop host time at 4K: night_drive's GL and Vulkan passes alternating RUNS times (default 5), then GL with __GL_THREADED_OPTIMIZATIONS=0 and each --cuda-schedule; one line a run (pass calls, renderer hand-over, host probe); .carry-i as for interop
#   quality-bundle           (here) ninja -C BUILD (build-q) tonekit_gpu_tests tonekit_quality_bench tonekit_cli (+ tonekit_tests with UNIT=1), gathers .carry-q (stripped, gzipped; libfftw3* and the CLI's libraries)
#   quality [all|auto]       GpuQuality* and GpuAutoParams* tests (+ the blur's fft, cuFFT's other user), memcheck/racecheck on the quick ones, tonekit_quality_bench (TMQI, FSITM, colour) at 4K, 1080p and the --auto proxy's 384x216, then `tonekit map --auto` at 4K
#                            cuda against cpu (whole command, AUTO_RUNS each, a table; the CLI's --auto tests when tonekit_tests is carried); auto: the --auto parts only; .carry-q [quality-bundle];
#                            RES, ITERS, QUALITY_FILTER, AUTO_RUNS (3), AUTO_OPS (reinhard drago reinhard-local), AUTO_SCENE (sunset)
#   studio-bundle            (here) Debian's chromium, its resources and its library closure (xz, 111 MiB) split over .carry-b1 and .carry-b2
#                            (the device tool carries 64 MiB a call), and .carry-st: tonekit (default build) + libraries, tonekit_gpu_tests
#   studio-part1, studio-part2  the two calls that carry chromium to /tmp/chr (each within 30 s of the last: a warm machine keeps /tmp);
#                            .carry-b1, then .carry-b2
#   studio                   the studio's issue 16 goals in that browser: scripts/studio_browser_bench.py (slider -> pixels, 1080p playback)
#                            per backend; .carry-st [studio-bundle]; BACKENDS (cuda,cpu), STEPS (12), PLAY (6 s), VARIANTS (page URL queries, e.g. "worker=0;worker=1"), TESTS (a gtest filter run first)
#   help                     this text (no mode or an unknown one: this text on stderr, exit 2)
set -u
cd "$(dirname "$0")/.."
SELF=scripts/gpu.sh

usage() { awk 'NR == 1 { next } !/^#/ { exit } { sub(/^# ?/, ""); print }' "$SELF"; }

# setup CARRY_DEFAULT OUT_DEFAULT: C = the carry folder ($CARRY overrides), B = its bin/, OUT made.
setup() {
  C=${CARRY:-$1}
  B=$PWD/$C/bin
  OUT=${OUT:-$2}
  mkdir -p "$OUT"
}
# The carry's lib/ first on the library path; `cuda`: the machine's CUDA toolkit (cuFFT, ...) next.
carry_libs() {
  local cuda=
  [[ ${1:-} == cuda ]] && cuda=:/usr/local/cuda/lib64
  [[ ${LD_LIBRARY_PATH:-} == "$PWD/$C/lib$cuda" || ${LD_LIBRARY_PATH:-} == "$PWD/$C/lib$cuda":* ]] && return 0
  export LD_LIBRARY_PATH=$PWD/$C/lib$cuda${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
}
# Real images for the GPU tests when the carry has them (tests/gpu: GpuRealImages, GpuLocal).
carry_images() {
  [[ -d $PWD/$C/images ]] && export TONEKIT_GPU_IMAGES=$PWD/$C/images
  return 0
}
# Gzipped binaries and libraries of the carry (the device tool carries 64 MiB at most) unpacked.
carry_unpack() {
  local f
  for f in "$C"/bin/*.gz "$C"/lib/*.gz; do [[ -f $f ]] && gunzip -kf "$f"; done
  chmod +x "$C"/bin/* 2>/dev/null
  return 0
}
# The test binary finds the CLI where it was built: a link there to the carried one.
link_cli() {
  local path
  path=$(strings "$C/bin/tonekit_tests" | grep -m1 -E '^/.*/bin/tonekit$' || true)
  [[ -n $path ]] && mkdir -p "$(dirname "$path")" && ln -sf "$1" "$path"
  return 0
}
SANITIZER=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
NCU_BIN=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
calc() { python3 -c "print(round($1, ${2:-4}))"; }
# Wall seconds of one command (its output discarded).
wall() {
  local s e
  s=$(date +%s.%N)
  "$@" >/dev/null 2>&1 || echo "FAILED: $*" >&2
  e=$(date +%s.%N)
  calc "$e - $s"
}
median() { python3 -c "import sys,statistics; print(round(statistics.median(float(x) for x in sys.argv[1:]), 3))" "$@"; }

# ---- tests, bench, all, multi: the GPU suites and the 4K benchmarks -----------------------------
suite_tests() {
  local t
  for t in tonekit_gpu_tests tonekit_gpu_local_tests; do
    echo "== $t"
    timeout 400 "$B/$t" --gtest_brief=1 >"$OUT/$t.log" 2>&1 || status=1
    grep -E "^\[  FAILED|Failure|error" "$OUT/$t.log" | head -30
    tail -3 "$OUT/$t.log"
  done
}
suite_bench() {
  local op
  echo "== global pipeline (4K half RGBA and float RGB)"
  for op in reinhard drago; do
    timeout 200 "$B/tonekit_bench" --res 3840x2160 --op $op >"$OUT/bench_global_$op.txt" 2>&1 || status=1
    grep -E "^3840x2160 .* frame " "$OUT/bench_global_$op.txt" | head -12
  done
  echo "== the renderer's post-process (reinhard-sat + temporal + glare 0.1, 4K and 8K)"
  timeout 100 "$B/tonekit_local_bench" --glare 2>&1 | tee "$OUT/bench_glare.txt" | grep -E "^glare" || status=1
  echo "== local pipeline (4K half RGBA)"
  timeout 300 "$B/tonekit_local_bench" --ops --only "tile-local 64x64" >"$OUT/bench_local.txt" 2>&1 || status=1
  grep -E "^op|^stages" "$OUT/bench_local.txt" | head -20
}
mode_suite() {  # MODE: tests | bench | all | multi
  local mode=$1 t
  if [[ $mode == multi ]]; then
    CARRY=.carry-m
    export NCCL_NVLS_ENABLE=0
  fi
  setup .carry /tmp/tonekit_out
  [[ $mode == multi ]] && carry_unpack
  carry_libs
  carry_images
  status=0
  nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader || true
  if [[ $mode == multi ]]; then
    nvidia-smi topo -m 2>/dev/null | head -4 || true
    echo "== tonekit_gpu_multi_tests (every GPU)"
    timeout 300 "$B/tonekit_gpu_multi_tests" --gtest_brief=1 >"$OUT/multi_tests.log" 2>&1 || status=1
    grep -E "^\[ multi|FAILED|Failure|rror" "$OUT/multi_tests.log" | head -40
    tail -3 "$OUT/multi_tests.log"
    for t in tonekit_gpu_tests tonekit_gpu_local_tests; do
      echo "== $t (GPU 0)"
      CUDA_VISIBLE_DEVICES=0 timeout 300 "$B/$t" --gtest_brief=1 >"$OUT/$t.log" 2>&1 || status=1
      grep -E "^\[  FAILED|Failure" "$OUT/$t.log" | head -20
      tail -3 "$OUT/$t.log"
    done
    echo "== tonekit_multi_bench"
    # shellcheck disable=SC2086  # MULTI_ARGS: several arguments
    timeout "${MULTI_TIMEOUT:-300}" "$B/tonekit_multi_bench" ${MULTI_ARGS:-} 2>&1 | tee "$OUT/multi_bench.txt" || status=1
    export CUDA_VISIBLE_DEVICES=0  # then the single-GPU 4K baselines
    suite_bench
  fi
  [[ $mode == tests || $mode == all ]] && suite_tests
  [[ $mode == bench || $mode == all ]] && suite_bench
  echo "gpu.sh $mode exit $status"
  return $status
}
mode_multi_bundle() {
  set -e
  local bins="tonekit_gpu_multi_tests tonekit_multi_bench tonekit_gpu_tests tonekit_gpu_local_tests tonekit_bench tonekit_local_bench" b
  # shellcheck disable=SC2086
  ninja -C build-gpu $bins
  rm -rf .carry-m && mkdir -p .carry-m/bin .carry-m/lib
  for b in $bins; do strip -o ".carry-m/bin/$b" "build-gpu/bin/$b" && gzip -9 ".carry-m/bin/$b"; done
  cp -L /lib/x86_64-linux-gnu/libfftw3f.so.3 .carry-m/lib/
  du -sh .carry-m
}

# ---- global: the global pipeline's tests, sanitizers, benchmark and PyTorch peer ------------------
mode_global() {  # tests | bench | all
  local what=${1:-all}
  setup .carry /tmp/tonekit_out
  carry_images
  carry_libs
  export PYTHONUNBUFFERED=1
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.mem,temperature.gpu --format=csv
  status=0
  if [[ $what == all || $what == tests ]]; then
    echo "== GPU tests"
    timeout 300 "$B/tonekit_gpu_tests" --gtest_brief=1 >"$OUT/gtest.log" 2>&1 || status=1
    grep -E "^\[  (PASSED|FAILED|SKIPPED) |FAILED|Failure|error" "$OUT/gtest.log" | head -40
    tail -3 "$OUT/gtest.log"
    echo "== compute-sanitizer memcheck"
    timeout 240 "$SANITIZER" --tool memcheck --error-exitcode 9 "$B/tonekit_gpu_tests" --gtest_brief=1 \
      --gtest_filter='GpuSanitizer.*:GpuErrors.*:GpuToneMapper.*' >"$OUT/memcheck.log" 2>&1; echo "memcheck exit $?"
    tail -4 "$OUT/memcheck.log"
    echo "== compute-sanitizer racecheck"
    timeout 240 "$SANITIZER" --tool racecheck --error-exitcode 9 "$B/tonekit_gpu_tests" --gtest_brief=1 \
      --gtest_filter='GpuSanitizer.*' >"$OUT/racecheck.log" 2>&1; echo "racecheck exit $?"
    tail -4 "$OUT/racecheck.log"
  fi
  if [[ $what == all || $what == bench ]]; then
    echo "== benchmark"
    timeout 300 "$B/tonekit_bench" --json "$OUT/bench.json" >"$OUT/bench.log" 2>&1 || { status=1; tail -20 "$OUT/bench.log"; }
    echo "== PyTorch peer"
    timeout 240 python3 bench/peer_torch.py --json "$OUT/peer_torch.json" >"$OUT/peer.log" 2>&1 || tail -20 "$OUT/peer.log"
    echo "== summary"
    head -1 "$OUT/bench.log"
    python3 bench/summarize.py "$OUT/bench.json" "$OUT/peer_torch.json"
  fi
  return $status
}

# ---- local, local-ab, ncu-local, profile: the local operators ---------------------------------
mode_local() {  # tests | bench | all
  local what=${1:-all} rc
  setup .carry-local /tmp/tonekit_local_out
  carry_images
  carry_libs
  export PYTHONUNBUFFERED=1
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader
  status=0
  if [[ $what == all || $what == tests ]]; then
    echo "== GPU local tests"
    timeout 150 "$B/tonekit_gpu_local_tests" --gtest_brief=1 >"$OUT/gtest_local.log" 2>&1
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
    timeout 100 "$B/tonekit_local_bench" >"$OUT/local_bench.csv" 2>&1 || { status=1; tail -5 "$OUT/local_bench.csv"; }
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
    if [[ -x $SANITIZER ]]; then
      echo "== compute-sanitizer memcheck"
      timeout 150 "$SANITIZER" --tool memcheck --error-exitcode 9 "$B/tonekit_gpu_local_tests" --gtest_brief=1 \
        --gtest_filter='GpuLocalSanitizer.*:GpuLocalErrors.*:Sizes/GpuSat.*/31x17:Sizes/GpuLocal.*/31x17:Sizes/GpuLocal.*/63x33' >"$OUT/memcheck.log" 2>&1
      echo "memcheck exit $?"; tail -3 "$OUT/memcheck.log"
      echo "== compute-sanitizer racecheck"
      timeout 150 "$SANITIZER" --tool racecheck --error-exitcode 9 "$B/tonekit_gpu_local_tests" --gtest_brief=1 \
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
  return $status
}
mode_local_ab() {
  local tool r v
  setup .carry-s /tmp/tonekit_ab_out
  carry_libs
  carry_images
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv,noheader
  if [[ ${TESTS:-0} == 1 ]]; then
    echo "== local GPU tests"
    timeout "${TEST_TIMEOUT:-240}" "$B/tonekit_gpu_local_tests" --gtest_brief=1 >"$OUT/gtest_local.log" 2>&1
    echo "gtest exit $?"
    grep -E "^\[  FAILED|Failure|Expected|actual|Which is|entries off" "$OUT/gtest_local.log" | head -30
    tail -3 "$OUT/gtest_local.log"
    grep -E "^\[ local \]" "$OUT/gtest_local.log" | grep -E "ties at epsilon [1-9]|max [3-9]" | head -8
    grep -E "^\[ local \].*tile-local 64x64" "$OUT/gtest_local.log" | sort -t'(' -k2 -r | head -4
  fi
  if [[ ${SAN:-0} == 1 ]]; then
    echo "== memcheck / racecheck (${SAN_FILTER:-*Edge*:*1x1*})"
    for tool in memcheck racecheck; do
      timeout 200 "$SANITIZER" --tool $tool --error-exitcode 9 "$B/tonekit_gpu_local_tests" --gtest_brief=1 \
        --gtest_filter="${SAN_FILTER:-*EdgeCases*}" >"$OUT/san_$tool.log" 2>&1
      echo "$tool exit $? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/san_$tool.log" | tail -1)"
    done
  fi
  echo "== A/B (${ROUNDS:-2} rounds, rows matching '${ONLY:-reinhard-sat}')"
  for r in $(seq 1 "${ROUNDS:-2}"); do
    for v in ${VARIANTS:-tonekit_local_bench}; do
      timeout 120 "$B/$v" --ops --only "${ONLY:-reinhard-sat}" | sed "s/^/$v,$r,/" >>"$OUT/ab.csv"
    done
  done
  python3 - "$OUT/ab.csv" <<'PY'
import sys, collections
rows = collections.defaultdict(list)
stages = {}
for line in open(sys.argv[1]):
    f = line.strip().split(',')
    if len(f) >= 7 and f[2] == 'op':
        rows[(f[3], f[4] + 'x' + f[5], f[0])].append(float(f[6]))
    elif len(f) >= 7 and f[2] == 'stages':
        stages[(f[3], f[4] + 'x' + f[5], f[0])] = ','.join(f[6:])
for k in sorted(rows):
    print(f"{k[0]:<40} {k[1]:>10} {k[2]:<28} " + ' '.join(f"{t:.4f}" for t in rows[k]) + "   " + stages.get(k, ''))
PY
}
mode_ncu_local() {
  local M
  setup .carry-s /tmp
  carry_libs cuda
  # time, instruction mix (float64, shared memory), pipe utilisation, shared-memory wavefronts
  # (one per cycle of the 128-byte shared data path)
  M=gpu__time_duration.sum,smsp__inst_executed.sum,smsp__sass_thread_inst_executed_op_dadd_pred_on.sum,smsp__sass_thread_inst_executed_op_dfma_pred_on.sum,smsp__sass_thread_inst_executed_op_dmul_pred_on.sum,smsp__inst_executed_op_shared_ld.sum,smsp__inst_executed_op_shared_st.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,sm__pipe_shared_cycles_active.avg.pct_of_peak_sustained_active,sm__cycles_elapsed.avg,l1tex__data_pipe_lsu_wavefronts_mem_shared.avg.pct_of_peak_sustained_elapsed,smsp__cycles_active.avg
  timeout 300 "$NCU_BIN" --kernel-name regex:sat_tile_map --launch-skip "${SKIP:-2}" --launch-count 1 --metrics $M \
    "$B/tonekit_local_bench" --profile --only "${ONLY:-tile-local 64x64}" >"$OUT/ncu_local.log" 2>&1
  grep -E "sat_tile_map|duration|inst|pct|wavefronts|conflicts|cycles" "$OUT/ncu_local.log" | head -30
}
# ncu_run LOG KERNELS SKIP COUNT METRICS BINARY KEEP SECTION...: profile BINARY --profile, print KEEP lines
ncu_run() {
  local log=$1 kernels=$2 skip=$3 count=$4 metrics=$5 bin=$6 keep=$7 sec
  shift 7
  local sections=()
  for sec in "$@"; do sections+=(--section "$sec"); done
  timeout 120 "$NCU_BIN" --kernel-name regex:"$kernels" --launch-skip "$skip" --launch-count "$count" "${sections[@]}" \
    --metrics "$metrics" "$bin" --profile >"$OUT/$log" 2>&1
  grep -E "$keep" "$OUT/$log" | head -40
}
mode_profile() {
  setup .carry /tmp/tonekit_out
  carry_images
  carry_libs cuda
  nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader
  if [[ ! -x $NCU_BIN ]]; then
    echo "no ncu on this machine"
    return 0
  fi
  echo "== ncu: statistics and map kernels, 4K half RGBA -> RGBA8 reinhard"
  ncu_run ncu.log 'stats_f(used|lat)|map_kernel' 4 2 \
    smsp__inst_executed.sum,dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum "$B/tonekit_bench" \
    "stats_f(used|lat)|map_kernel|Duration|DRAM Throughput|Compute \(SM\)|inst_executed|dram__bytes|Achieved Occupancy|Waves Per SM|Registers Per|Issue Slots|Executed Ipc A" \
    SpeedOfLight LaunchStats Occupancy InstructionStats
  echo "== ncu: reinhard-sat tile-local map kernel, 4K"
  ncu_run ncu_local.log sat_tile_map 2 1 \
    smsp__inst_executed.sum,dram__bytes_read.sum,lts__t_bytes.sum,smsp__inst_executed_pipe_fp64.sum "$B/tonekit_local_bench" \
    "sat_tile_map|Duration|Throughput|inst_executed|bytes|Achieved Occupancy|Stall|Block Limit|Warp Cycles" \
    SpeedOfLight Occupancy WarpStateStats MemoryWorkloadAnalysis
}

# ---- blur, blur-banded, blur-strips, ncu-blur, ncu-blur-strips: the blur engine -------------------
mode_blur() {  # [BIN_DIR]: the binaries themselves in BIN_DIR (cuFFT is dlopen'ed from the machine's toolkit)
  local BIN=${1:-.carry-blur}
  OUT=${OUT:-blur-out}
  mkdir -p "$OUT"
  export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/targets/x86_64-linux/lib:${LD_LIBRARY_PATH:-}
  nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader 2>&1 | head -2

  timeout 60 "$BIN/tonekit_gpu_tests" --gtest_filter='GpuBlur*' >"$OUT/tests.log" 2>&1
  echo "tests rc $?"
  timeout 60 "$BIN/tonekit_blur_bench" --quick --cpu --iters 20 >"$OUT/bench.log" 2>&1
  echo "bench rc $?"
  timeout 35 "$SANITIZER" --tool memcheck --leak-check full --error-exitcode 9 "$BIN/tonekit_gpu_tests" \
    --gtest_filter='GpuBlurAll/GpuBlurMethod.AwkwardSizes*:GpuBlur.UserStream*' >"$OUT/memcheck.log" 2>&1
  echo "memcheck rc $?"
  timeout 20 "$SANITIZER" --tool racecheck --error-exitcode 9 "$BIN/tonekit_gpu_tests" \
    --gtest_filter='GpuBlurAll/GpuBlurMethod.AwkwardSizesGreyAndRgba/separable:GpuBlurAll/GpuBlurMethod.AwkwardSizesGreyAndRgba/direct:GpuBlurAll/GpuBlurMethod.AwkwardSizesGreyAndRgba/reshuffle' \
    >"$OUT/racecheck.log" 2>&1
  echo "racecheck rc $?"

  echo "== tests: worst relative difference per method (of the image max) =="
  python3 - "$OUT/tests.log" <<'PY'
import re, sys
worst, n = {}, {}
for line in open(sys.argv[1], errors="replace"):
    m = re.match(r"\[blur\] (\S+) .*\(([0-9.e+-]+) of max", line)
    if m:
        k, v = m.group(1), float(m.group(2))
        worst[k] = max(worst.get(k, 0.0), v); n[k] = n.get(k, 0) + 1
for k in sorted(worst): print(f"{k:14s} {n[k]:3d} cases  worst {worst[k]:.3g}")
PY
  grep -E "^\[  (FAILED|PASSED|SKIPPED) |Failure|Expected|Which is|error" "$OUT/tests.log" | head -40
  echo "== sanitizer =="
  grep -E "ERROR SUMMARY|LEAK SUMMARY|RACECHECK SUMMARY|Invalid|Race" "$OUT/memcheck.log" "$OUT/racecheck.log" | head -12
  tail -n 3 "$OUT/memcheck.log" "$OUT/racecheck.log"
  echo "== bench =="
  grep -vE "^row," "$OUT/bench.log" | grep -E "device|copy|skipped|failed" | head -12
  grep -E "^row," "$OUT/bench.log" | cut -d, -f2-9
}
mode_blur_banded() {
  local v
  setup .carry /tmp/tonekit_out
  carry_libs cuda
  timeout 200 "$B/tonekit_gpu_tests" --gtest_filter='GpuBlur*:GpuGlare*' --gtest_brief=1 >"$OUT/blurtests.log" 2>&1; echo "tests rc $?"
  grep -E "banded|FAILED|Failure" "$OUT/blurtests.log" | head -20; tail -2 "$OUT/blurtests.log"
  grep -E "fused-sep .*(1920|333)" "$OUT/blurtests.log" | head -4
  for v in ${VARIANTS:-separable separable-fused separable-banded}; do
    timeout 60 "$B/tonekit_blur_bench" --only "$v" --iters 20 >"$OUT/b_$v.log" 2>&1; grep "sigma" "$OUT/b_$v.log" | head -12
  done
  timeout 150 "$SANITIZER" --tool memcheck --error-exitcode 9 "$B/tonekit_gpu_tests" --gtest_filter='GpuBlur.BandedSeparable*:GpuBlur.FusedSeparable*' --gtest_brief=1 >"$OUT/memcheck_blur.log" 2>&1; echo "memcheck rc $?"; tail -2 "$OUT/memcheck_blur.log"
}
mode_blur_strips() {  # [quick]
  local v
  if [[ ${1:-} == quick ]]; then
    setup .carry-s /tmp/tonekit_out
    carry_libs cuda
    "$B/tonekit_gpu_tests" --gtest_filter='GpuBlur.Strip*' --gtest_brief=1 >"$OUT/strip_test.log" 2>&1; echo "strip test rc $?"
    grep -E "Failure|Expected|Which|strips max" "$OUT/strip_test.log" | sort -t'(' -k2 -g | tail -4; tail -1 "$OUT/strip_test.log"
    for v in ${VARIANTS:-separable separable-2pass}; do
      "$B/tonekit_blur_bench" --only "$v" --iters "${ITERS:-30}" >"$OUT/b_$v.log" 2>&1; grep -E "sigma" "$OUT/b_$v.log" | grep -v "^row" | head -12
    done
    if [ "${NCU:-1}" != 0 ]; then
      # shellcheck disable=SC2030  # CARRY and SKIP for the ncu run only
      ( CARRY=$C; SKIP=${SKIP:-120}; mode_ncu_blur_strips ) 2>&1 | grep -E "inst_executed|Duration|Issued Warp|Eligible Warps|Active Warps Per|No Eligible|bank|dram__|stalled_(barrier|long|short|wait|mio|math|not_sel|dispatch)"
    fi
    return
  fi
  setup .carry /tmp/tonekit_out
  carry_libs cuda
  timeout 240 "$B/tonekit_gpu_tests" --gtest_filter='GpuBlur*:GpuGlare*' --gtest_brief=1 >"$OUT/blurtests.log" 2>&1; echo "tests rc $?"
  grep -E "FAILED|Failure|Expected|Which" "$OUT/blurtests.log" | head -20; tail -2 "$OUT/blurtests.log"
  grep -E "strip-sep" "$OUT/blurtests.log" | awk '{print $2, $3, $5, $7, $9, $10}' | sort -u -k5 | tail -6
  for v in ${VARIANTS:-separable separable-2pass}; do
    timeout 60 "$B/tonekit_blur_bench" --only "$v" --iters "${ITERS:-30}" >"$OUT/b_$v.log" 2>&1; grep "sigma" "$OUT/b_$v.log" | grep -v "^row" | head -12
    "$B/tonekit_blur_bench" --only "$v" --iters "${ITERS:-30}" --at 3840x2160 --sigmas 3,6,9 | grep -E "sigma" | grep -v "^row"
  done
  export TK_BLUR_SMALL=1
  timeout 120 "$SANITIZER" --tool memcheck --leak-check full --error-exitcode 9 "$B/tonekit_gpu_tests" --gtest_filter='GpuBlur.StripSeparable*:GpuGlare.*:GpuBlur.Workspace*' --gtest_brief=1 >"$OUT/memcheck_strip.log" 2>&1; echo "memcheck rc $?"; tail -2 "$OUT/memcheck_strip.log"
  timeout 150 "$SANITIZER" --tool racecheck --error-exitcode 9 "$B/tonekit_gpu_tests" --gtest_filter='GpuBlur.StripSeparable*' --gtest_brief=1 >"$OUT/racecheck_strip.log" 2>&1; echo "racecheck rc $?"; tail -3 "$OUT/racecheck_strip.log"
}
mode_ncu_blur() {  # per-kernel duration, DRAM and L2 traffic of the two separable passes
  setup .carry /tmp
  carry_libs cuda
  timeout 200 "$NCU_BIN" --kernel-name regex:'sep_(rows|cols)_kernel' --launch-skip 330 --launch-count 2 \
    --section SpeedOfLight --section Occupancy --section MemoryWorkloadAnalysis \
    --metrics dram__bytes_read.sum,dram__bytes_write.sum,lts__t_bytes.sum,l1tex__t_bytes.sum,smsp__inst_executed.sum \
    "$B/tonekit_blur_bench" --only separable --iters 20 >"$OUT/ncu_blur.log" 2>&1
  grep -E "sep_|Duration|Throughput|bytes|inst_executed|Achieved Occupancy|Hit Rate" "$OUT/ncu_blur.log" | head -50
}
mode_ncu_blur_strips() {  # speed of light, occupancy, warp stalls of the strip kernel
  setup .carry /tmp
  carry_libs cuda
  # shellcheck disable=SC2031  # SKIP: 170, or blur-strips quick's 120
  timeout 300 "$NCU_BIN" --kernel-name regex:'sep_strip' --launch-skip "${SKIP:-170}" --launch-count 1 \
    --section SpeedOfLight --section Occupancy --section MemoryWorkloadAnalysis --section WarpStateStats \
    --section SchedulerStats --section ComputeWorkloadAnalysis --section LaunchStats \
    --metrics "dram__bytes_read.sum,dram__bytes_write.sum,lts__t_bytes.sum,l1tex__t_bytes.sum,smsp__inst_executed.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,smsp__cycles_active.avg,$(echo smsp__average_warps_issue_stalled_{barrier,long_scoreboard,short_scoreboard,mio_throttle,math_pipe_throttle,wait,not_selected,dispatch_stall,lg_throttle,selected,no_instruction,membar,sleeping,branch_resolving,drain,imc_miss,tex_throttle,misc}_per_issue_active.ratio | tr ' ' ',')" \
    "$B/tonekit_blur_bench" --only "${V:-separable-strips}" --iters 20 >"$OUT/ncu_strips.log" 2>&1
  grep -vE "^==PROF==|^ +-+ +-+" "$OUT/ncu_strips.log" | grep -E "stalled|sep_|Duration|Throughput|bytes|inst_executed|Occupancy|Stall|Warp Cycles|Issued|Eligible|Active Warps|bank|Registers|Block Limit|Grid Size|Pipe|cycles" | head -70
}

# ---- map-probe, stats-probe, stats-bulk, refactor-check: the global pipeline's probes ------------
mode_map_probe() {
  local rep b r M CUOBJ
  setup .carry-n /tmp/tonekit_out
  carry_libs cuda
  if [[ ${AB:-0} == 1 ]]; then
    # Quick A/B of builds (bin/tonekit_bench_<name>, named in VARIANTS): 4K half RGBA reinhard, each
    # build twice, interleaved, one line per run: frame, statistics in the stream and with L2
    # clean, map (ms). bench/NOTES.md v13-v16.
    for rep in 1 2; do
      for b in ${VARIANTS:-tonekit_bench}; do
        "$B/$b" --res 3840x2160 --op reinhard >"$OUT/$b.$rep.log" 2>&1
        echo "$b $rep: $(grep -E '^3840x2160 +reinhard +f16rgba->rgba8 +(frame +default|map +default|stats +fused |stats +fused-clean-l2 ) ' "$OUT/$b.$rep.log" | awk '{print $4"/"$5"="$6}' | tr '\n' ' ')"
      done
    done
    return 0
  fi
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv,noheader
  if [[ ${TESTS:-1} == 1 ]]; then
    timeout 300 "$B/tonekit_gpu_tests" --gtest_brief=1 >"$OUT/gtest.log" 2>&1; echo "gpu tests rc $?"
    grep -E "Failure|FAILED|SKIPPED \]" "$OUT/gtest.log" | head -20; tail -2 "$OUT/gtest.log"
    timeout 240 "$B/tonekit_gpu_local_tests" --gtest_brief=1 >"$OUT/local.log" 2>&1; echo "local tests rc $?"
    grep -E "Failure|FAILED" "$OUT/local.log" | head; tail -2 "$OUT/local.log"
    timeout 240 "$SANITIZER" --tool memcheck --error-exitcode 9 "$B/tonekit_gpu_tests" --gtest_brief=1 \
      --gtest_filter='GpuSanitizer.*:GpuErrors.*:GpuToneMapper.*' >"$OUT/memcheck.log" 2>&1; echo "memcheck rc $?"
    grep -E "SUMMARY" "$OUT/memcheck.log"
  fi
  for r in ${RES:-3840x2160 1920x1080 7680x4320}; do
    for b in tonekit_bench_old ${VARIANTS:-} tonekit_bench; do
      [[ -x $B/$b ]] || continue
      timeout 120 "$B/$b" --res "$r" --op reinhard >"$OUT/${b}_$r.log" 2>&1
      echo "-- $b $r"; grep -E "^$r +reinhard .*(frame|stats|map) " "$OUT/${b}_$r.log" | grep -E "frame|fused|map" | head -12
    done
  done
  M=gpu__time_duration.sum,smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,dram__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,lts__t_sector_hit_rate.pct
  for b in tonekit_bench_old tonekit_bench; do
    [[ -x $B/$b ]] || continue
    timeout 200 "$NCU_BIN" --kernel-name regex:map_kernel --launch-skip 5 --launch-count 1 --metrics $M "$B/$b" --profile >"$OUT/ncu_$b.log" 2>&1
    echo "-- ncu $b"; grep -E "duration|inst_executed|pct|bytes" "$OUT/ncu_$b.log" | head -8
  done
  if [[ ${SASS:-0} == 1 ]]; then  # the default 4K kernel's SASS, for counting instructions per pixel
    CUOBJ=$(command -v cuobjdump || echo /usr/local/cuda/bin/cuobjdump)
    $CUOBJ -sass -fun '_ZN7tonekit4cuda46_GLOBAL__N__c1db122d_13_map_kernel_cu_a9e27b5c10map_kernelINS0_7InF16x4ENS1_6OutFmtILi0ELi4EEEEEvNS0_13FrameGeometryEPhmPKNS0_11DeviceFrameENS0_9MapColourEi' \
      "$B/tonekit_bench" >"$OUT/map.sass" 2>&1
  fi
}
mode_stats_probe() {  # frame with and without the host's launch gap, statistics with L2 clean, every variant
  local tool r
  setup .carry-s /tmp/tonekit_out
  carry_libs cuda
  "$B/tonekit_gpu_tests" --gtest_filter='GpuVariants.*:GpuSanitizer.*:GpuErrors.*' --gtest_brief=1 >"$OUT/stats_tests.log" 2>&1
  echo "tests rc $?"; grep -E "Failure|FAILED" "$OUT/stats_tests.log" | head; tail -1 "$OUT/stats_tests.log"
  for tool in memcheck racecheck; do
    timeout 240 "$SANITIZER" --tool $tool --error-exitcode 9 "$B/tonekit_gpu_tests" --gtest_filter='GpuSanitizer.*' --gtest_brief=1 >"$OUT/$tool.log" 2>&1
    echo "$tool rc $?"; grep -E "SUMMARY" "$OUT/$tool.log"
  done
  for r in ${RES:-3840x2160 1920x1080 7680x4320}; do
    "$B/tonekit_bench" --res "$r" --op reinhard >"$OUT/bench_$r.log" 2>&1
    grep -E "frame +(default|host-sync|stats=async)|stats +(fused|async|bulk)" "$OUT/bench_$r.log"
  done
}
mode_stats_bulk() {
  setup .carry /tmp/tonekit_out
  carry_libs cuda
  timeout 120 "$B/tonekit_gpu_tests" --gtest_filter='GpuVariants*:GpuSanitizer*' --gtest_brief=1 >"$OUT/t.log" 2>&1; echo "tests rc $?"; grep -E "FAILED|Failure|Expected|Which" "$OUT/t.log" | head; tail -2 "$OUT/t.log"
  timeout 120 "$SANITIZER" --tool memcheck --error-exitcode 9 "$B/tonekit_gpu_tests" --gtest_filter='GpuSanitizer*' --gtest_brief=1 >"$OUT/mc.log" 2>&1; echo "memcheck rc $?"; tail -1 "$OUT/mc.log"
  timeout 120 "$SANITIZER" --tool racecheck --error-exitcode 9 "$B/tonekit_gpu_tests" --gtest_filter='GpuSanitizer*' --gtest_brief=1 >"$OUT/rc.log" 2>&1; echo "racecheck rc $?"; tail -1 "$OUT/rc.log"
  timeout 200 "$B/tonekit_bench" >"$OUT/bench.log" 2>&1; grep -E "^(3840x2160|7680x4320|1920x1080) +reinhard +(f16rgba|f32rgb).*(stats|frame)" "$OUT/bench.log" | head -30
}
mode_refactor_check() {
  local tool v
  setup .carry-s /tmp/tonekit_out
  carry_libs cuda
  timeout 300 "$B/tonekit_gpu_tests" --gtest_brief=1 >"$OUT/gtest.log" 2>&1; echo "gpu tests rc $?"
  grep -E "Failure|FAILED" "$OUT/gtest.log" | head; tail -1 "$OUT/gtest.log"
  export TK_BLUR_SMALL=1
  for tool in memcheck racecheck; do
    timeout 200 "$SANITIZER" --tool $tool --error-exitcode 9 "$B/tonekit_gpu_tests" \
      --gtest_filter='GpuSanitizer.*:GpuBlur.StripSeparable*:GpuBlur.FusedSeparable*' --gtest_brief=1 >"$OUT/$tool.log" 2>&1
    echo "$tool rc $?"; grep -E "SUMMARY" "$OUT/$tool.log"
  done
  for v in separable gaussian separable-2pass separable-fused spreading; do
    "$B/tonekit_blur_bench" --only $v --iters 30 --at 3840x2160 --sigmas 6 | grep -E "sigma 6"
  done
  "$B/tonekit_bench" --res 3840x2160 --op reinhard | grep -E "stats +(fused|harris)|frame +default"
}

# ---- verify: the final check (GPU suites, sanitizers, the CLI end to end) ------------------------
mode_verify() {
  local T op m
  setup .carry /tmp/tonekit_out
  carry_libs
  carry_images
  status=0
  ( mode_global tests ) || status=1
  echo "== GPU local tests"
  timeout 200 "$B/tonekit_gpu_local_tests" --gtest_brief=1 >"$OUT/gtest_local.log" 2>&1 || status=1
  grep -E "^\[  FAILED|Failure" "$OUT/gtest_local.log" | head -20
  tail -3 "$OUT/gtest_local.log"
  echo "== CLI end to end"
  T=$(mktemp -d)
  "$B/tonekit" synth night-drive "$T/in.exr" --size 1921x1083 --bits 32 || status=1
  for op in $("$B/tonekit" ops --ids); do
    "$B/tonekit" map "$T/in.exr" "$T/cpu_$op.pfm" --op "$op" --backend cpu || status=1
    "$B/tonekit" map "$T/in.exr" "$T/cuda_$op.pfm" --op "$op" --backend cuda || status=1
    "$B/tonekit" map "$T/in.exr" "$T/auto_$op.png" --op "$op" || status=1
  done
  # Glare/bloom on each backend (GlareEngine on the device), then the same mapping.
  for op in reinhard reinhard-sat; do
    "$B/tonekit" map "$T/in.exr" "$T/cpu_glare-$op.pfm" --op "$op" --glare 0.08 --backend cpu || status=1
    "$B/tonekit" map "$T/in.exr" "$T/cuda_glare-$op.pfm" --op "$op" --glare 0.08 --backend cuda || status=1
  done
  # tonekit blur on each backend (the CUDA BlurEngine; RGB travels as RGBA).
  for m in separable pyramid-quasi gaussian; do
    "$B/tonekit" blur "$T/in.exr" "$T/blurcpu_$m.pfm" --method $m --sigma 6 --backend cpu || status=1
    "$B/tonekit" blur "$T/in.exr" "$T/blurcuda_$m.pfm" --method $m --sigma 6 --backend cuda || status=1
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
  return $status
}

# ---- cli-bundle, cli, cli-multi: the CLI end to end ----------------------------------------------
mode_cli_bundle() {  # (here) from the default build (CUDA + image I/O)
  set -e
  local BLD=${BUILD:-build} b l
  setup .carry-c /tmp/tonekit_out
  ninja -C "$BLD" tonekit_cli tonekit_tests tonekit_gpu_tests
  rm -rf "${C:?}/bin" "${C:?}/lib" && mkdir -p "$C/bin" "$C/lib"
  for b in tonekit tonekit_tests tonekit_gpu_tests; do strip -o "$C/bin/$b" "$BLD/bin/$b" && gzip -9f "$C/bin/$b"; done
  for l in $(ldd "$BLD/bin/tonekit" "$BLD/bin/tonekit_tests" | awk '/=> \//{print $3}' | sort -u); do
    case $(basename "$l") in libc.so*|libm.so*|libstdc++*|libgcc_s*|libmvec*|libpthread*|libdl*|librt*) ;; *) cp -L "$l" "$C/lib/" ;; esac
  done
  gzip -9f "$C"/lib/*  # the device tool carries 64 MiB at most
  du -sh "$C"
}
mode_cli_multi() {  # several GPUs (issue 19)
  local T=$1 W=$2 ALL i f d s e
  export NCCL_NVLS_ENABLE=0
  N=${N:-48}
  ALL=$(nvidia-smi --query-gpu=index --format=csv,noheader | paste -sd, -)
  echo "GPUs: $ALL"
  link_cli "$T"
  echo "== tonekit_tests (several GPUs)"
  timeout 200 "$C/bin/tonekit_tests" --gtest_brief=1 --gtest_filter='Cli.MapDevices:StreamCli.DevicesSplit*:StreamCli.CudaBackend*:Cli.CudaBackend*' 2>&1 | grep -E "FAILED|Failure|PASSED|tests from|Skipped|skipped|Expected|Which|Value" | head -30
  cd "$W" || return 1
  "$T" synth night-drive in.exr --size 3840x2160 >/dev/null || echo "synth failed"
  mkdir -p batch && for i in $(seq -w 1 "$N"); do cp in.exr "batch/f$i.exr"; done
  echo "== batch of $N 4K EXRs -> PNG (reinhard-sat), images/s"
  # shellcheck disable=SC2086  # $d: no word or two
  for d in "" "--devices $ALL" "" "--devices $ALL"; do
    rm -rf out && mkdir out
    s=$(date +%s.%N); "$T" map batch -o "out/{name}.png" --backend cuda --op reinhard-sat $d 2>&1 | tail -1; e=$(date +%s.%N)
    echo "cuda ${d:-(one GPU)}: $(calc "$N / ($e - $s)" 3) images/s"
  done
  echo "== stream: 12 frames 8K EXR sequence -> raw rgba, seconds"
  for i in $(seq 1 12); do f=$(printf "s.%04d.exr" "$i"); "$T" synth night-drive "$f" --size 7680x4320 >/dev/null; done
  # shellcheck disable=SC2086
  for d in "" "--devices $ALL" "" "--devices $ALL"; do
    s=$(date +%s.%N); "$T" stream s.%04d.exr - --output-format rgba --backend cuda --op reinhard-sat --temporal $d > /dev/null; e=$(date +%s.%N)
    echo "stream ${d:-(one GPU)}: $(calc "$e - $s" 3) s"
  done
  rm -rf "$W"
}
mode_cli() {  # [multi]
  local T W bin b i ts extra s e F HB r a z
  local -a extras
  setup .carry-c /tmp/tonekit_out
  carry_unpack
  carry_libs
  T=$PWD/$C/bin/tonekit
  W=$(mktemp -d)
  if [[ ${1:-} == multi ]]; then
    mode_cli_multi "$T" "$W"
    return 0
  fi
  N=${N:-100}
  # BASE (optional): a baseline CLI timed beside $T in the same run (e.g. the landed build).
  BASE=${BASE:-}
  [[ -n $BASE && -f $BASE.gz ]] && gunzip -kf "$BASE.gz" && chmod +x "$BASE"
  link_cli "$T"
  if [[ ${SKIP_TESTS:-0} != 1 ]]; then
    echo "== tonekit_tests (CUDA present)"
    timeout "${TEST_S:-250}" "$C/bin/tonekit_tests" --gtest_brief=1 ${FILTER:+--gtest_filter=$FILTER} 2>&1 | grep -E "FAILED|Failure|PASSED|tests from|Skipped|skipped" | head -30
  fi
  cd "$W" || return 1
  "$T" synth night-drive in.exr --size 3840x2160 >/dev/null || echo "synth failed"
  echo "== one 4K half EXR -> PNG, whole process (median of ${RUNS:-7} runs, seconds)"
  # shellcheck disable=SC2086  # $BASE: empty or one path
  for bin in "$T" $BASE; do
    for b in cpu cuda auto; do
      ts=(); for i in $(seq "${RUNS:-7}"); do ts+=("$(wall "$bin" map in.exr "out_$b.png" --backend $b)"); done
      echo "$(basename "$bin") $b: $(median "${ts[@]}") s (${ts[*]})"
    done
  done
  echo "== batch of $N 4K EXRs -> PNG"
  mkdir -p batch && for i in $(seq -w 1 "$N"); do cp in.exr "batch/f$i.exr"; done
  # BATCH_ARGS: extra map option sets to compare, separated by ';' (e.g. "--encoders 1;--encoders 3"),
  # one run each after the defaults.
  IFS=';' read -ra extras <<< "${BATCH_ARGS:-}"
  # BATCH_RUNS rounds; each times $T (cuda, then cpu in the first round) and $BASE (cuda) in turn.
  # shellcheck disable=SC2086  # $extra: several options; $BASE: empty or one path
  for r in $(seq "${BATCH_RUNS:-1}"); do
    for bin in "$T" $BASE; do
      for b in cuda cpu; do
        [[ $b == cpu && ( $r != 1 || $bin != "$T" ) ]] && continue
        for extra in "" "${extras[@]}"; do
          rm -rf out && mkdir out
          s=$(date +%s.%N); "$bin" map batch -o "out/{name}.png" --backend $b --summary $extra 2>&1 | tail -1; e=$(date +%s.%N)
          echo "$(basename "$bin") $b ${extra:-(defaults)}: $(calc "$N / ($e - $s)") images/s whole process, $(du -sm out | cut -f1) MB"
        done
      done
    done
  done
  if [[ ${SKIP_STREAM:-0} == 1 ]]; then rm -rf "$W"; return 0; fi
  echo "== stream 4K PQ y4m (10-bit 4:2:0) -> yuv420p, file through a pipe to /dev/null"
  F=${FRAMES:-240}
  # 20 synthesised frames repeated (the synthesis takes ~1.5 s a 4K frame here); the temporal
  # state sees a scene cut at each repeat.
  "$T" synth night-drive seq20.y4m --frames 20 --size 3840x2160 --transfer pq >/dev/null || echo "synth seq failed"
  HB=$(head -1 seq20.y4m | wc -c)
  head -c "$HB" seq20.y4m > seq.y4m && head -c "$HB" seq20.y4m > seq60.y4m
  for i in $(seq $((F / 20))); do tail -c +$((HB + 1)) seq20.y4m >> seq.y4m; done
  for i in 1 2 3; do tail -c +$((HB + 1)) seq20.y4m >> seq60.y4m; done
  # shellcheck disable=SC2012
  ls -la seq.y4m | awk '{print $5, "bytes"}'
  # Whole process for 60 and $F frames; the steady rate from the difference (start-up cancels).
  for r in $(seq "${STREAM_RUNS:-2}"); do
    # shellcheck disable=SC2086,SC2002  # $BASE: empty or one path; the summary run reads a pipe, as timed
    for bin in cat "$T" $BASE; do
      if [[ $bin == cat ]]; then
        a=$(wall sh -c "cat seq60.y4m | cat > /dev/null"); z=$(wall sh -c "cat seq.y4m | cat > /dev/null")
      else
        a=$(wall sh -c "cat seq60.y4m | $bin stream - - --backend cuda --temporal --output-format yuv420p > /dev/null")
        z=$(wall sh -c "cat seq.y4m | $bin stream - - --backend cuda --temporal --output-format yuv420p > /dev/null")
        [[ $bin == "$T" ]] && cat seq60.y4m | $bin stream - - --backend cuda --temporal --output-format yuv420p --summary 2>&1 >/dev/null | tail -1
      fi
      echo "$(basename "$bin"): 60 frames $a s, $F frames $z s, steady $(calc "($F - 60) / ($z - $a)") fps"
    done
  done
  a=$(wall sh -c "cat seq60.y4m | $T stream - - --backend cpu --temporal --output-format yuv420p > /dev/null")
  echo "$(basename "$T") --backend cpu: 60 frames $a s"
  rm -rf "$W"
}

# ---- quality-bundle, quality: TMQI, FSITM and colour fidelity on the GPU (issue 17) -------------
mode_quality_bundle() {  # (here)
  set -e
  local BLD=${BUILD:-build-q} bins="tonekit_gpu_tests tonekit_quality_bench" b l
  [[ ${UNIT:-0} == 1 ]] && bins="$bins tonekit_tests"
  # shellcheck disable=SC2086  # several targets; the CLI's is tonekit_cli (bin/tonekit)
  ninja -C "$BLD" $bins tonekit_cli
  bins="$bins tonekit"
  rm -rf .carry-q && mkdir -p .carry-q/bin .carry-q/lib
  for b in $bins; do strip -o ".carry-q/bin/$b" "$BLD/bin/$b" && gzip -9 ".carry-q/bin/$b"; done
  # FFTW for the CPU reference (FSITM double, its threads; the blur's float) the tests compare with,
  # and the CLI's own libraries (OpenEXR, Imath, libpng, libjpeg, httplib, ...) as cli-bundle gathers them.
  for l in libfftw3.so.3 libfftw3_threads.so.3 libfftw3f.so.3; do cp -L "/lib/x86_64-linux-gnu/$l" .carry-q/lib/; done
  for l in $(ldd "$BLD/bin/tonekit" | awk '/=> \//{print $3}' | sort -u); do
    case $(basename "$l") in libc.so*|libm.so*|libstdc++*|libgcc_s*|libmvec*|libpthread*|libdl*|librt*) ;; *) cp -L "$l" .carry-q/lib/ ;; esac
  done
  gzip -9f .carry-q/lib/*  # the device tool carries 64 MiB at most
  du -sh .carry-q
}
# `tonekit map IN OUT --auto` at 4K, whole command, per backend: a synthetic scene, AUTO_RUNS runs
# each, the medians beside a plain map (read + map + write: what the search adds to), and what the
# search reported (its own seconds, evaluations, J; the colour penalty's CPU time where the line
# still reports one: the device scores colour since issue 17's GPU colour fidelity).
quality_auto_bench() {
  local T=$PWD/$C/bin/tonekit W op b i s e ts plain line runs=${AUTO_RUNS:-3}
  [[ -x $T ]] || { echo "no $C/bin/tonekit: rebuild the carry (bash scripts/gpu.sh quality-bundle)"; return 1; }
  W=$(mktemp -d)
  "$T" synth "${AUTO_SCENE:-sunset}" "$W/in.exr" --size 3840x2160 >/dev/null || { echo "synth failed"; return 1; }
  echo "== tonekit map --auto, ${AUTO_SCENE:-sunset} 3840x2160 EXR -> PNG, whole command (median of $runs runs, seconds)"
  # The CLI check: the cuda search runs and says so.
  if "$T" map "$W/in.exr" "$W/check.png" --auto --backend cuda 2>"$W/check.txt" >/dev/null && grep -q " on cuda (" "$W/check.txt"; then
    echo "cli check: map --auto --backend cuda ok: $(cat "$W/check.txt")"
  else
    echo "cli check FAILED: map --auto --backend cuda: $(cat "$W/check.txt")"; status=1
  fi
  printf "%-15s %-5s %9s %9s %8s %6s %8s %11s  %s\n" op backend "auto s" "plain s" "search s" evals J "scored on" chosen
  for op in ${AUTO_OPS:-reinhard drago reinhard-local}; do
    for b in cuda cpu; do
      ts=(); plain=()
      for i in $(seq "$runs"); do
        s=$(date +%s.%N)
        "$T" map "$W/in.exr" "$W/auto_$b.png" --op "$op" --auto --backend "$b" 2>"$W/auto_$b.txt" >/dev/null || {
          echo "FAILED: map --op $op --auto --backend $b: $(cat "$W/auto_$b.txt")"; status=1; }
        e=$(date +%s.%N); ts+=("$(calc "$e - $s" 3)")
        plain+=("$(wall "$T" map "$W/in.exr" "$W/plain_$b.png" --op "$op" --backend "$b")")
      done
      line=$(grep -m1 "tonekit: auto:" "$W/auto_$b.txt")
      python3 - "$op" "$b" "$(median "${ts[@]}")" "$(median "${plain[@]}")" "$line" <<'PY'
import re, sys
op, backend, auto_s, plain_s, line = sys.argv[1:6]
m = re.search(r'^tonekit: auto: .*: \S+ (.*); J ([\d.]+) .*; (\d+) evaluations in ([\d.]+) s', line)
chosen, j, evals, search = (m.groups() if m else ('?', '?', '?', '?'))
colour = 'device' if backend == 'cuda' else 'cpu'
print(f"{op:15s} {backend:5s} {auto_s:>9s} {plain_s:>9s} {search:>8s} {evals:>6s} {j:>8s} {colour:>11s}  {chosen}")
PY
    done
  done
  echo "(scored on: where TMQI, FSITM and the colour penalty ran; auto s - plain s: what --auto costs)"
  rm -rf "$W"
}
mode_quality() {  # [all|auto]
  local rc what=${1:-all} filter
  setup .carry-q /tmp/tonekit_quality_out
  carry_unpack
  carry_libs cuda  # cuFFT from the machine's toolkit (dlopen'ed)
  status=0
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader
  filter="GpuQuality*:GpuAutoParams*:GpuBlurAll/GpuBlurMethod.*/fft"
  [[ $what == auto ]] && filter="GpuAutoParams*"
  echo "== GPU quality tests (and the blur's fft: the cuFFT loader is shared): ${QUALITY_FILTER:-$filter}"
  timeout 500 "$B/tonekit_gpu_tests" --gtest_filter="${QUALITY_FILTER:-$filter}" >"$OUT/quality_tests.log" 2>&1
  rc=$?; echo "gtest exit $rc"; [[ $rc == 0 ]] || status=1
  grep -E "^\[  FAILED|Failure|Expected|actual|Which is|relative|SKIPPED \]" "$OUT/quality_tests.log" | head -40
  grep -E "^\[ (quality|auto) \]" "$OUT/quality_tests.log"
  grep -E "^\[  (PASSED|FAILED) " "$OUT/quality_tests.log"
  if [[ -x $B/tonekit_tests ]]; then
    echo "== the CLI's --auto tests (tonekit_tests, CUDA present)"
    link_cli "$B/tonekit"
    timeout 300 "$B/tonekit_tests" --gtest_brief=1 --gtest_filter='QualityCli.*:QualityAuto.*' >"$OUT/cli_tests.log" 2>&1
    rc=$?; echo "tonekit_tests exit $rc"; [[ $rc == 0 ]] || status=1
    grep -E "FAILED|Failure|Skipped|PASSED" "$OUT/cli_tests.log" | head -20
  fi
  local tool
  for tool in memcheck racecheck; do
    filter='GpuQuality.ValidationVector:GpuQuality.RejectsBadInputs:GpuQuality.DeviceViews*:GpuQuality.Ciede2000*:GpuQuality.ColourMatchesCpuOnItsFixtures:GpuAutoParams.RejectsBadInputsAsTheCpuSearchDoes'
    [[ $what == auto ]] && filter='GpuAutoParams.RejectsBadInputsAsTheCpuSearchDoes'
    timeout 200 "$SANITIZER" --tool $tool --error-exitcode 9 "$B/tonekit_gpu_tests" --gtest_brief=1 \
      --gtest_filter="$filter" >"$OUT/$tool.log" 2>&1
    rc=$?; echo "$tool exit $rc"; [[ $rc == 0 ]] || status=1
    grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$OUT/$tool.log" | head -2
  done
  if [[ $what == all ]]; then
    echo "== tonekit_quality_bench (ms)"
    timeout 400 "$B/tonekit_quality_bench" --res "${RES:-3840x2160,1920x1080,384x216}" --iters "${ITERS:-30}" \
      >"$OUT/quality_bench.txt" 2>&1 || status=1
    grep -vE "^row," "$OUT/quality_bench.txt"
  fi
  quality_auto_bench || status=1
  echo "gpu.sh quality $what exit $status"
  return $status
}

# ---- interop: issue 18's GL/Vulkan passes and the night_drive renderer ---------------------------
mode_interop() {
  local s ND
  export OUT=${OUT:-/tmp/interop-out}; mkdir -p "$OUT"
  interop_setup
  { pwd; git log -1 --oneline 2>/dev/null; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; } | tee "$OUT/run.log"
  cd $B/bin || return 1
  timeout 200 ./tonekit_interop_gl_tests --gtest_also_run_disabled_tests 2>&1 | grep -v "^\[ RUN" | tail -60 > "$OUT/gl_tests.log"
  timeout 120 ./tonekit_interop_vulkan_tests 2>&1 | grep -v "^\[ RUN" | tail -40 > "$OUT/vk_tests.log"
  [ -x ./tonekit_interop_handover_tests ] && timeout 200 ./tonekit_interop_handover_tests 2>&1 | grep -v "^\[ RUN" | tail -40 >> "$OUT/vk_tests.log"
  [ -x ./tonekit_gpu_local_tests ] && timeout 300 ./tonekit_gpu_local_tests 2>&1 | grep -E "^\[  (PASSED|FAILED|SKIPPED) |Failure|tests ran" | head -30 > "$OUT/local_tests.log"
  ND="./night_drive --quiet --frames 200 --warmup 30 --throughput 300"
  # shellcheck disable=SC2086,SC2012  # $ND: the command and its options
  {
  for s in 1920x1200 3840x2160; do
    $ND --size $s --backend none 2>&1 | grep -E "summary|error|night_drive:"
    $ND --size $s 2>&1 | grep -E "summary|error|night_drive:"
    $ND --size $s --vulkan 2>&1 | grep -E "summary|error|night_drive:"
    $ND --size $s --vulkan --handover copy 2>&1 | grep -E "summary|error"
  done
  $ND --size 3840x2160 --no-glare 2>&1 | grep -E "summary|error"
  $ND --size 3840x2160 --op reinhard 2>&1 | grep -E "summary|error"
  ./night_drive --size 1920x1080 --frames 6 --warmup 0 --start 4.0 --every 1 --png /tmp/nd.%02d.png --quiet 2>&1 | grep -E "summary|error"
  ./night_drive --size 960x540 --frames 60 --warmup 0 --y4m /tmp/nd.y4m --quiet 2>&1 | grep -E "summary|error"; ls -l /tmp/nd.y4m | awk '{print "y4m bytes", $5}'; head -c 80 /tmp/nd.y4m | head -1
  ./night_drive --size 960x540 --frames 4 --warmup 0 --start 4.5 --vulkan --png /tmp/ndv.%02d.png --quiet 2>&1 | grep -E "summary|error"
  } > "$OUT/night_drive.log" 2>&1
  python3 - <<'PY' >> "$OUT/night_drive.log" 2>&1
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
  cat "$OUT/gl_tests.log" "$OUT/vk_tests.log" "$OUT/local_tests.log" "$OUT/night_drive.log" 2>/dev/null | grep -E "OK|FAILED|PASSED|SKIPPED|overhead4k|summary|error|y4m|montage|Failure|Expected|Which|differ" | head -80
}

# The loader debs and the bundle unpacked, the GL/Vulkan vendor files found (interop, interop-host).
interop_setup() {
  local f
  # shellcheck disable=SC2031
  C=${CARRY:-.carry-i}
  for f in "$C"/gl/*.deb; do dpkg -x "$f" /; done; ldconfig
  B=/tmp/interop; rm -rf $B; mkdir -p $B; tar xJf "$C/bundle.tar.xz" -C $B
  export LD_LIBRARY_PATH=$B/lib
  [ -e /usr/share/glvnd/egl_vendor.d/10_nvidia.json ] || export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
  ls /usr/share/vulkan/icd.d/nvidia_icd.json /etc/vulkan/icd.d/nvidia_icd.json >/dev/null 2>&1 || export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
}

# One night_drive run as one line: LABEL then the command (env assignments allowed in front).
interop_host_run() {
  local label=$1 out s i; shift
  out=$(env "$@" 2>&1 | grep -E "^summary|error")
  s=$(echo "$out" | grep "^summary " | sed -E 's/.*submit ([0-9.]+) map ([0-9.]+) unmap ([0-9.]+).*fps ([0-9.]+) \(timed loop\) ([0-9.]+).*median ([0-9.]+), 90th percentile ([0-9.]+)\)/submit \1 map \2 unmap \3 fps \4 \5 | free \6 p90 \7/')
  i=$(echo "$out" | grep "^summary-interop" | sed -E 's/.*pass calls host ms: median ([0-9.]+) \(timed loop\), median ([0-9.]+), 90th percentile ([0-9.]+) .*hand-over host ms: median ([0-9.]+) .*probe us: ([0-9]+) before, ([0-9]+) after.*/pass \1 free \2 p90 \3 | handover \4 | probe \5 \6/')
  printf "%-14s | %s | %s\n" "$label" "$s" "$i"
  echo "$out" | grep -i error
}

mode_interop_host() {
  local runs=${1:-5} r ND
  interop_setup
  { nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; grep -m1 "model name" /proc/cpuinfo; }
  cd $B/bin || return 1
  ND="./night_drive --quiet --frames 150 --warmup 30 --throughput 200 --size 3840x2160"
  echo "host ms, medians: submit = the frame's glFlush; map/unmap = all calls around the pass; pass = the pass's own; free = throughput loop"
  # shellcheck disable=SC2086  # $ND: the command and its options
  for r in $(seq "$runs"); do
    interop_host_run gl $ND
    interop_host_run vulkan $ND --vulkan
  done
  # shellcheck disable=SC2086
  {
  interop_host_run gl-thr0 __GL_THREADED_OPTIMIZATIONS=0 $ND
  interop_host_run gl-spin $ND --cuda-schedule spin
  interop_host_run gl-yield $ND --cuda-schedule yield
  interop_host_run gl-blocking $ND --cuda-schedule blocking
  }
}

# ---- studio-bundle, studio-part1/2, studio: the studio in a real browser on the GPU host ----------
mode_studio_bundle() {  # (here)
  set -e
  local BLD=${BUILD:-build} w=/tmp/tonekit-chromium l b
  rm -rf "$w" && mkdir -p "$w/chr/lib" "$w/chr/app/locales" "$w/chr/fonts"
  for l in $(ldd /usr/lib/chromium/chromium | awk '/=> \//{print $3}' | sort -u); do
    case $(basename "$l") in libc.so*|libm.so*|libstdc++*|libgcc_s*|libpthread*|libdl*|librt*|ld-linux*) ;; *) cp -L "$l" "$w/chr/lib/" ;; esac
  done
  (cd /usr/lib/chromium && cp chromium chrome_crashpad_handler icudtl.dat resources.pak chrome_100_percent.pak snapshot_blob.bin \
     v8_context_snapshot.bin libEGL.so libGLESv2.so libvk_swiftshader.so vk_swiftshader_icd.json "$w/chr/app/" && cp locales/en-US.pak "$w/chr/app/locales/")
  cp /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf /usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf "$w/chr/fonts/"
  printf '%s\n' '<?xml version="1.0"?>' '<!DOCTYPE fontconfig SYSTEM "fonts.dtd">' \
    '<fontconfig><dir prefix="relative">fonts</dir><cachedir>/tmp/chr-fontcache</cachedir></fontconfig>' >"$w/chr/fonts.conf"
  tar -C "$w" -cf - chr | xz -9 -T2 >"$w/chr.tar.xz"
  rm -rf .carry-b1 .carry-b2 && mkdir -p .carry-b1 .carry-b2
  split -b 58m "$w/chr.tar.xz" "$w/part."
  mv "$w/part.aa" .carry-b1/ && mv "$w/part.ab" .carry-b2/
  [[ ! -e $w/part.ac ]] || { echo "chromium needs a third part" >&2; exit 1; }
  ninja -C "$BLD" tonekit_cli tonekit_gpu_tests
  rm -rf .carry-st && mkdir -p .carry-st/bin .carry-st/lib
  for b in tonekit tonekit_gpu_tests; do strip -o ".carry-st/bin/$b" "$BLD/bin/$b" && gzip -9f ".carry-st/bin/$b"; done
  for l in $(ldd "$BLD/bin/tonekit" | awk '/=> \//{print $3}' | sort -u); do
    case $(basename "$l") in libc.so*|libm.so*|libstdc++*|libgcc_s*|libmvec*|libpthread*|libdl*|librt*) ;; *) cp -L "$l" .carry-st/lib/ ;; esac
  done
  gzip -9f .carry-st/lib/*
  rm -rf "$w"
  du -sh .carry-b1 .carry-b2 .carry-st
}
mode_studio_part() {  # 1: keep the first part; 2: join, unpack to /tmp/chr
  set -e
  if [[ $1 == 1 ]]; then rm -rf /tmp/chr-parts && mkdir -p /tmp/chr-parts && cp .carry-b1/part.aa /tmp/chr-parts/
  else cat /tmp/chr-parts/part.aa .carry-b2/part.ab | xz -d | tar -x -C /tmp && rm -rf /tmp/chr-parts && ls /tmp/chr/app; fi
}
mode_studio() {
  setup .carry-st /tmp/tonekit_out
  carry_unpack
  carry_libs cuda
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  [[ -z ${TESTS:-} ]] || "$B/tonekit_gpu_tests" --gtest_filter="$TESTS" 2>&1 | grep -E "^\[  (PASSED|FAILED) |^\[==========\]|Failure" | head -20
  [[ -x /tmp/chr/app/chromium ]] || { echo "no /tmp/chr/app/chromium: run studio-part1 and studio-part2 first" >&2; return 1; }
  FONTCONFIG_FILE=/tmp/chr/fonts.conf CHROMIUM=/tmp/chr/app/chromium CHROMIUM_LIBRARY_PATH=/tmp/chr/lib \
    python3 scripts/studio_browser_bench.py "$B/tonekit" --backends "${BACKENDS:-cuda,cpu}" --steps "${STEPS:-12}" \
    --play-s "${PLAY:-6}" --frames 48 ${VARIANTS:+--variants "$VARIANTS"} --out "$OUT" 2>&1
}

MODE=${1:-}
[[ $# -gt 0 ]] && shift
case $MODE in
  tests|bench|all|multi) mode_suite "$MODE" ;;
  multi-bundle) mode_multi_bundle ;;
  global|local)
    case ${1:-all} in tests|bench|all) ;; *) usage >&2; exit 2 ;; esac
    "mode_$MODE" "$@" ;;
  local-ab) mode_local_ab ;;
  ncu-local) mode_ncu_local ;;
  profile) mode_profile ;;
  blur) mode_blur "$@" ;;
  blur-banded) mode_blur_banded ;;
  blur-strips)
    case ${1:-} in ''|quick) ;; *) usage >&2; exit 2 ;; esac
    mode_blur_strips "$@" ;;
  ncu-blur) mode_ncu_blur ;;
  ncu-blur-strips) mode_ncu_blur_strips ;;
  map-probe) mode_map_probe ;;
  stats-probe) mode_stats_probe ;;
  stats-bulk) mode_stats_bulk ;;
  refactor-check) mode_refactor_check ;;
  verify) mode_verify ;;
  cli-bundle) mode_cli_bundle ;;
  cli) mode_cli ;;
  cli-multi) mode_cli multi ;;
  interop) mode_interop ;;
  interop-host)
    case ${1:-5} in *[!0-9]*|0) usage >&2; exit 2 ;; esac
    mode_interop_host "$@" ;;
  quality-bundle) mode_quality_bundle ;;
  quality)
    case ${1:-all} in all|auto) ;; *) usage >&2; exit 2 ;; esac
    mode_quality "$@" ;;
  studio-bundle) mode_studio_bundle ;;
  studio-part1) mode_studio_part 1 ;;
  studio-part2) mode_studio_part 2 ;;
  studio) mode_studio ;;
  help|-h|--help) usage; exit 0 ;;
  *) usage >&2; exit 2 ;;
esac
