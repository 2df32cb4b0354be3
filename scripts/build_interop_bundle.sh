#!/bin/bash
# Packs the issue-18 binaries (build-gpu, CMAKE_CUDA_ARCHITECTURES=90-real) and their non-system
# libraries into .carry-i/bundle.tar.xz for `scripts/gpu.sh interop` on the GPU host. The GL/Vulkan
# loader debs go in .carry-i/gl (device README: headless rendering).
set -eu
BUILD=${1:-build-gpu}
S=$(mktemp -d); mkdir -p $S/bin $S/lib .carry-i
for b in night_drive tonekit_interop_gl_tests tonekit_interop_vulkan_tests tonekit_interop_handover_tests tonekit_gpu_local_tests; do
  [ -x $BUILD/bin/$b ] && strip -o $S/bin/$b $BUILD/bin/$b
done
for l in $(ldd $S/bin/* | awk '/=>/ {print $3}' | sort -u); do
  case $(basename $l) in
    libc.so*|libm.so*|libgcc_s*|libstdc++*|libmvec*|libEGL*|libGL*|libOpenGL*|libvulkan*|libz.so*|libpthread*|libdl*|librt*) ;;
    *) cp -L $l $S/lib/ ;;
  esac
done
tar cJf .carry-i/bundle.tar.xz -C $S bin lib
rm -rf $S
ls -l .carry-i/bundle.tar.xz
