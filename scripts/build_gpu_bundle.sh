#!/usr/bin/env bash
# Builds the GPU test and benchmark binaries for sm_90 on this (GPU-less) machine and gathers
# what `scripts/gpu.sh global` needs into the git-ignored .carry/: bin/ (statically linked cudart and
# gtest) and images/ (a few real Radiance images as PFM, downsampled to <= 2048 wide).
set -eu
cd "$(dirname "$0")/.."
# 90-real: SASS only, no PTX (about 4 MB less per binary): the bundle of `scripts/gpu.sh verify`
# (CLI, both GPU test binaries, images, libraries) then fits the device tool's 64 MiB carry.
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90-real -DTONEKIT_IO=OFF >/dev/null
ninja -C build-gpu tonekit_gpu_tests tonekit_bench tonekit_rgbe_to_pfm
mkdir -p .carry/bin .carry/images
cp build-gpu/bin/tonekit_gpu_tests build-gpu/bin/tonekit_bench .carry/bin/
# Shared libraries the binaries need beyond the C/C++ runtime (e.g. FFTW for the CPU local
# operators): carried in .carry/lib, found through LD_LIBRARY_PATH in gpu.sh.
mkdir -p .carry/lib
for lib in $(ldd .carry/bin/tonekit_gpu_tests .carry/bin/tonekit_bench | awk '/=> \//{print $3}' | sort -u); do
  case $(basename "$lib") in
    libc.so*|libm.so*|libstdc++.so*|libgcc_s.so*|libpthread.so*|libdl.so*|librt.so*|ld-linux*|libmvec.so*) ;;
    *) cp -L "$lib" .carry/lib/ ;;
  esac
done
HDR=${TONEKIT_SHARED_HDR:-../shared/hdr}
for f in lobby city mpi_atrium_3 moonless_golf_1k; do
  [[ -f $HDR/$f.hdr && ! -f .carry/images/$f.pfm ]] && build-gpu/bin/tonekit_rgbe_to_pfm "$HDR/$f.hdr" ".carry/images/$f.pfm" 1024 || true
done
du -sh .carry
