# The core library's optional third-party libraries, found the same way by the build (top-level
# CMakeLists.txt) and by the installed package (tonekitConfig.cmake, for the static library's link
# interface): FFTW through pkg-config (Debian libfftw3-dev).
#   PkgConfig::TONEKIT_FFTW3F        single precision: the CPU FFT blur (src/cpu/blur/fft.cpp)
#   PkgConfig::TONEKIT_FFTW3         double precision: FSITM's log-Gabor phase (src/cpu/quality)
#   tonekit_deps::fftw3_threads      FFTW's threads library (same Debian package)
# Nothing here is required: without FFTW the blur's fft method runs as direct convolution and
# FSITM reports 'unsupported'.
find_package(PkgConfig QUIET)
if(PKG_CONFIG_FOUND)
  if(NOT TARGET PkgConfig::TONEKIT_FFTW3F)
    pkg_check_modules(TONEKIT_FFTW3F QUIET IMPORTED_TARGET fftw3f)
  endif()
  if(NOT TARGET PkgConfig::TONEKIT_FFTW3)
    pkg_check_modules(TONEKIT_FFTW3 QUIET IMPORTED_TARGET fftw3)
  endif()
endif()
if(TARGET PkgConfig::TONEKIT_FFTW3 AND NOT TARGET tonekit_deps::fftw3_threads)
  find_library(TONEKIT_FFTW3_THREADS_LIBRARY fftw3_threads HINTS ${TONEKIT_FFTW3_LIBRARY_DIRS})
  if(TONEKIT_FFTW3_THREADS_LIBRARY)
    add_library(tonekit_deps::fftw3_threads UNKNOWN IMPORTED)
    set_target_properties(tonekit_deps::fftw3_threads PROPERTIES IMPORTED_LOCATION "${TONEKIT_FFTW3_THREADS_LIBRARY}"
      INTERFACE_LINK_LIBRARIES PkgConfig::TONEKIT_FFTW3)
  endif()
endif()
