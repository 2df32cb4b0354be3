#!/usr/bin/env bash
# The Python package on a GPU host (issue 35): builds the CUDA build with the Python module for
# this host's python3 (pybind11's CMake files from `python3 -m pybind11 --cmakedir`), runs the
# Python GPU tests (PyTorch / CuPy zero-copy, stream ordering; pytest when installed, else
# unittest) and the benchmark (bench/python_bench.py: host, GPU, Dask with 1, 2, 4, 8 workers on
# 200 4K EXRs), printing every result with the CPU model and GPU name.
#
# Run from the repository root:  bash scripts/python_gpu_check.sh [STAGE...]
#   STAGE: build | test | bench | dask | all (default: all, in that order). Each stage fits in
#   well under 10 minutes on a 16-core H100 host, so they can also run as separate commands.
# Environment: BUILD (default build-pygpu), PYTHON (default python3), JOBS (default 16),
#   FILES (Dask inputs, default 200), DASK_SIZE (default 3840x2160), WORKERS (default 1,2,4,8),
#   DASK_DIR (where the Dask inputs are made and kept between runs, default $BUILD/dask-inputs).
# Without OpenEXR/libpng/... on the host the build falls back to TONEKIT_IO=OFF: the module maps
# arrays (tests and GPU benchmark run), tonekit.read/write and the Dask stage say they are absent.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build-pygpu}
PYTHON=$(command -v "${PYTHON:-python3}")
JOBS=${JOBS:-16}
stages=("$@")
[[ ${#stages[@]} -eq 0 || ${stages[0]} == all ]] && stages=(build test bench dask)

say() { echo "python_gpu_check: $*"; }
machine() {
  say "CPU: $(lscpu | sed -n 's/^Model name: *//p') ($(nproc) CPUs)"
  say "GPU: $(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null || echo none)"
  say "Python: $("$PYTHON" -c 'import sys; print(sys.version.split()[0])'); $("$PYTHON" -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda)' 2>/dev/null || echo 'no torch'); $("$PYTHON" -c 'import cupy; print("cupy", cupy.__version__)' 2>/dev/null || echo 'no cupy')"
}

configure() {
  local io=$1
  cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DTONEKIT_CUDA=ON -DTONEKIT_TESTS=OFF \
    -DTONEKIT_BENCH=OFF -DTONEKIT_IO="$io" -DTONEKIT_PYTHON_EXECUTABLE="$PYTHON" \
    -Dpybind11_DIR="$("$PYTHON" -m pybind11 --cmakedir)"
}

build() {
  machine
  if ! configure ON; then
    say "configuring with the image codecs failed (OpenEXR, libpng, libjpeg, ISA-L, CLI11, ... missing?): TONEKIT_IO=OFF"
    rm -rf "$BUILD"
    configure OFF
  fi
  local targets=(tonekit_python)
  grep -q '^TONEKIT_IO:BOOL=ON' "$BUILD/CMakeCache.txt" && targets+=(tonekit_cli)
  cmake --build "$BUILD" -j "$JOBS" --target "${targets[@]}"
  PYTHONPATH=$BUILD/python "$PYTHON" -c 'import tonekit; print("python_gpu_check: tonekit", tonekit.__version__, "cuda_available:", tonekit.cuda_available())'
}

run_tests() {
  machine
  export PYTHONPATH=$PWD/$BUILD/python TONEKIT_BUILD_DIR=$PWD/$BUILD TONEKIT_CLI=$PWD/$BUILD/bin/tonekit
  local files=(test_python_gpu)
  # With the CLI built, the CPU suites run too (they compare against it); the Dask one is the bench's job here.
  [[ -x $BUILD/bin/tonekit ]] && files+=(test_python_api test_python_sequence)
  cd tests/python
  if "$PYTHON" -c 'import pytest' 2>/dev/null; then
    "$PYTHON" -m pytest -v -rs -p no:cacheprovider "${files[@]/%/.py}"
  else
    say "pytest is not installed: python3 -m unittest"
    "$PYTHON" -m unittest -v "${files[@]}"
  fi
}

bench() {
  machine
  PYTHONPATH=$BUILD/python "$PYTHON" bench/python_bench.py host gpu
}

dask_bench() {
  machine
  PYTHONPATH=$BUILD/python "$PYTHON" -c 'import distributed' 2>/dev/null ||
    say "dask.distributed is not installed for $PYTHON: the benchmark runs the same tasks on a process pool"
  if ! grep -q '^TONEKIT_IO:BOOL=ON' "$BUILD/CMakeCache.txt"; then
    say "this build has no image codecs (TONEKIT_IO=OFF): the Dask benchmark (EXR files) is skipped"; return 0
  fi
  local dir=${DASK_DIR:-$BUILD/dask-inputs}
  mkdir -p "$dir"
  PYTHONPATH=$BUILD/python "$PYTHON" bench/python_bench.py dask --files "${FILES:-200}" \
    --dask-size "${DASK_SIZE:-3840x2160}" --workers "${WORKERS:-1,2,4,8}" --dir "$dir"
}

for s in "${stages[@]}"; do
  case $s in
    build) build ;;
    test) (run_tests) ;;
    bench) bench ;;
    dask) dask_bench ;;
    *) echo "usage: $0 [build|test|bench|dask|all]..." >&2; exit 2 ;;
  esac
done
