#!/usr/bin/env bash
# Bundles a CUDA build for a run on a remote GPU host that has the NVIDIA driver but no compiler:
# every binary of build/bin (stripped), the shared libraries they need beyond the C/C++ runtime
# and the host's GL/Vulkan loaders (lib/, found through the binaries' RUNPATH $ORIGIN/../lib),
# a few real images as PFM for the GPU tests (gpu-images/), and the build's ctest files made
# relative to the bundle, with the source-tree scripts they run (src/).
#   scripts/gpu_bundle.sh [OUT]     OUT: the bundle folder (default .carry, git-ignored)
#   BUILD=DIR  bundle that CUDA build as it is (default: configure and build the gpu-bundle
#              preset in build-gpu: sm_90 SASS only, RUNPATH $ORIGIN/../lib and the CUDA toolkit's
#              lib64 for cuFFT and NCCL, which are opened at run time)
#   HDR=DIR    Radiance .hdr images to carry (default ../shared/hdr); XZ=0/1 forces the archive
# Over 60 MiB (a carry's limit is 64) the bundle is OUT/bundle.tar.xz instead of a folder.
# On the GPU host, in the bundle folder (after `tar xJf bundle.tar.xz` where it was packed):
#   ctest -L gpu                   the GPU suites against the CPU reference, compute-sanitizer runs
#                                  (and gpu-multi: -L is a regular expression; -L '^gpu$' alone)
#   ctest -L gpu-multi             several GPUs;  ctest -L interop: GL/Vulkan passes, the renderer
#   ctest -L bench                 quick passes of the benchmarks
#   bin/tonekit_bench --res 3840x2160 --op reinhard    any binary directly (docs/performance.md)
# EGL, OpenGL and the Vulkan loader come from the host (libegl1 libgl1 libopengl0 libvulkan1).
set -euo pipefail
cd "$(dirname "$0")/.."
src=$PWD
out=${1:-.carry}
if [[ -z ${BUILD:-} ]]; then
  BUILD="build-gpu"
  cmake --preset gpu-bundle >/dev/null
  cmake --build --preset gpu-bundle
fi
build=$(cd "$BUILD" && pwd)
[[ -f $build/CMakeCache.txt ]] || { echo "gpu_bundle.sh: $build is not a CMake build" >&2; exit 2; }

# Real images for GpuRealImages / GpuLocalRealImages, when the build names a folder for them.
images=$(sed -n 's/^TONEKIT_GPU_IMAGES:PATH=//p' "$build/CMakeCache.txt")
if [[ -n $images && -x $build/bin/tonekit_rgbe_to_pfm ]]; then
  mkdir -p "$images"
  for f in lobby city mpi_atrium_3 moonless_golf_1k; do
    hdr=${HDR:-../shared/hdr}/$f.hdr
    if [[ -f $hdr && ! -f $images/$f.pfm ]]; then "$build/bin/tonekit_rgbe_to_pfm" "$hdr" "$images/$f.pfm" 1024; fi
  done
fi

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/bin" "$stage/lib"
for f in "$build"/bin/*; do
  if [[ -f $f && -x $f ]]; then strip -o "$stage/bin/$(basename "$f")" "$f"; fi
done
for lib in $(ldd "$stage"/bin/* 2>/dev/null | awk '/=> \//{print $3}' | sort -u); do
  case $(basename "$lib") in
    libc.so*|libm.so*|libmvec*|libstdc++*|libgcc_s*|libpthread*|libdl.so*|librt.so*|ld-linux*) ;;
    libEGL*|libGL*|libOpenGL*|libvulkan*|libX11*|libxcb*|libXau*|libXdmcp*|libbsd*|libmd.so*) ;;
    *) cp -L "$lib" "$stage/lib/" ;;
  esac
done
if [[ -n $images && -d $images ]]; then cp -r "$images" "$stage/gpu-images"; fi

# ctest files: each absolute path into the build becomes ${CMAKE_CURRENT_LIST_DIR}/.. up to the
# bundle's root (bracket arguments, which CMake does not expand, become quoted ones), and paths
# into the source tree point at copies under src/.
(cd "$build" && find . \( -name CTestTestfile.cmake -o -name '*_include.cmake' -o -name '*_tests.cmake' \) \
  -not -path './CMakeFiles/*') | while read -r f; do
  f=${f#./}
  d=$(dirname "$f")
  # ctest reads the top file by a relative name (no CMAKE_CURRENT_LIST_DIR there, and it holds
  # no test) and runs from the bundle's root.
  # shellcheck disable=SC2016  # for ctest to expand
  if [[ $d == . ]]; then root=.
  else root='${CMAKE_CURRENT_LIST_DIR}'$(echo "$d" | sed -E 's#[^/]+#..#g; s#^#/#'); fi
  mkdir -p "$stage/$d"
  # The first file read puts lib/ and the CUDA toolkit's lib64 on the tests' library path (for
  # builds without the gpu-bundle preset's RUNPATH).
  # shellcheck disable=SC2016
  [[ $d == . ]] || printf '%s\n' 'if(NOT DEFINED ENV{TONEKIT_BUNDLE})' "  set(ENV{TONEKIT_BUNDLE} \"$root\")" \
    '  set(ENV{LD_LIBRARY_PATH} "$ENV{TONEKIT_BUNDLE}/lib:/usr/local/cuda/lib64:$ENV{LD_LIBRARY_PATH}")' 'endif()' >"$stage/$f"
  sed -E -e 's/ _BACKTRACE_TRIPLES "[^"]*"//' \
      -e "s#\[(=*)\[([^]\"]*)($build|$src/)([^]\"]*)\]\1\]#\"\2\3\4\"#g" \
      -e "s#$build#$root#g" "$build/$f" >>"$stage/$f"
  { grep -o "$src/[^\" ]*" "$stage/$f" || true; } | sort -u | while read -r p; do
    if [[ -f $p ]]; then mkdir -p "$stage/src/$(dirname "${p#"$src"/}")" && cp "$p" "$stage/src/${p#"$src"/}"; fi
  done
  sed -i "s#$src/#$root/src/#g" "$stage/$f"
done

rm -rf "$out" && mkdir -p "$out"
size=$(du -sm "$stage" | cut -f1)
if [[ ${XZ:-} == 1 || ( -z ${XZ:-} && $size -gt 60 ) ]]; then
  tar -C "$stage" -cf - . | xz -6 -T0 >"$out/bundle.tar.xz"
  echo "gpu_bundle.sh: $out/bundle.tar.xz ($(du -sm "$out/bundle.tar.xz" | cut -f1) MiB; $size MiB unpacked)"
else
  cp -r "$stage"/. "$out/"
  echo "gpu_bundle.sh: $out ($size MiB)"
fi
