#!/usr/bin/env bash
# ctest install_consumer (label unit): installs the build tree into a temporary prefix
# (cmake --install: nothing is rebuilt), then builds tests/install_consumer out of tree twice,
# through find_package(tonekit CONFIG) (shared and static library) and through pkg-config
# (tonekit.pc: shared, then --static), runs each program and the installed CLI's --version.
# Usage: check_install.sh BUILD_DIR WORK_DIR CXX_COMPILER [CXX_FLAGS]
# CXX_FLAGS: the build's CMAKE_CXX_FLAGS (a sanitizer build's libraries need its flags to link).
set -euo pipefail
build=$1 work=$2 cxx=$3 flags=${4:-}
src=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work" && mkdir -p "$work"
prefix=$work/prefix
step() { echo "== $*"; }

step "cmake --install $build --prefix $prefix"
cmake --install "$build" --prefix "$prefix" >"$work/install.log"
version=$(sed -n 's/^#define TONEKIT_VERSION_STRING "\(.*\)"/\1/p' "$prefix/include/tonekit/version.hpp")
[[ -n $version ]] || { echo "no version in the installed version.hpp"; exit 1; }
libdir=$(dirname "$(find "$prefix" -name libtonekit.a | head -1)")
soname=$(readelf -d "$libdir/libtonekit.so" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
echo "version $version, soname $soname, $(find "$prefix" -type f | wc -l) files"
[[ $soname == libtonekit.so.* && -f $libdir/$soname ]] || { echo "libtonekit.so has no versioned soname"; exit 1; }
if [[ -x $prefix/bin/tonekit ]]; then  # the CLI (built with image I/O)
  "$prefix/bin/tonekit" --version | tee "$work/version.txt"
  grep -q "^tonekit $version " "$work/version.txt" || { echo "tonekit --version does not say $version"; exit 1; }
fi

step "find_package(tonekit CONFIG)"
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
cmake -S "$src" -B "$work/cmake" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER="$cxx" \
  -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_CXX_FLAGS="$flags" >"$work/configure.log" || { cat "$work/configure.log"; exit 1; }
grep "tonekit $version from" "$work/configure.log"
cmake --build "$work/cmake" >"$work/build.log" 2>&1 || { cat "$work/build.log"; exit 1; }
[[ $(ldd "$work/cmake/consumer_shared") == *"=> $prefix/"*libtonekit.so* ]] ||
  { echo "consumer_shared does not load the installed libtonekit.so"; exit 1; }
"$work/cmake/consumer_shared"
"$work/cmake/consumer_static" "$work"

step "pkg-config tonekit"
export PKG_CONFIG_PATH=$libdir/pkgconfig
echo "cflags: $(pkg-config --cflags tonekit)  libs: $(pkg-config --libs tonekit)  static: $(pkg-config --static --libs tonekit)"
[[ $(pkg-config --modversion tonekit) == "$version" ]] || { echo "tonekit.pc's version is not $version"; exit 1; }
# shellcheck disable=SC2046,SC2086  # pkg-config's flags and $flags: several words
"$cxx" $flags -std=c++20 -O1 "$src/main.cpp" -o "$work/pc_shared" $(pkg-config --cflags --libs tonekit) \
  -Wl,-rpath,"$(pkg-config --variable=libdir tonekit)"
"$work/pc_shared"
# shellcheck disable=SC2046,SC2086
"$cxx" $flags -std=c++20 -O1 "$src/main.cpp" -o "$work/pc_static" $(pkg-config --cflags tonekit) \
  $(pkg-config --static --libs tonekit | sed 's/-ltonekit\b/-l:libtonekit.a/')
"$work/pc_static"
if [[ $(ldd "$work/pc_static") == *libtonekit* ]]; then echo "pc_static loads libtonekit.so"; exit 1; fi
echo "install_consumer: ok"
