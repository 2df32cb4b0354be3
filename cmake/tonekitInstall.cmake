# `cmake --install`: the public headers (with the generated version.hpp), libtonekit.so (versioned,
# with its soname) and libtonekit.a, libtonekit_io.a, the tonekit CLI, a CMake package
# (find_package(tonekit CONFIG): cmake/tonekitConfig.cmake.in lists its targets) and a pkg-config
# file (tonekit.pc). tests/install_consumer builds a program against the installed result.
include(CMakePackageConfigHelpers)
set(TONEKIT_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/tonekit)

# gl.hpp and vulkan.hpp stay out: the renderer passes (src/cuda/interop: tonekit_gl, tonekit_vulkan)
# are not in the package yet (each would bring a second static CUDA runtime next to the one in
# libtonekit.so).
install(DIRECTORY include/tonekit DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT devel
  FILES_MATCHING PATTERN "*.hpp" PATTERN "gl.hpp" EXCLUDE PATTERN "vulkan.hpp" EXCLUDE)
install(FILES ${TONEKIT_GENERATED_INCLUDE}/tonekit/version.hpp DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/tonekit
  COMPONENT devel)

set(TONEKIT_EXPORTED tonekit tonekit_shared)
if(TARGET tonekit_cuda_backend)
  list(APPEND TONEKIT_EXPORTED tonekit_cuda_backend)
endif()
install(TARGETS ${TONEKIT_EXPORTED} EXPORT tonekitTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT runtime NAMELINK_COMPONENT devel
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT devel)
install(EXPORT tonekitTargets NAMESPACE tonekit:: DESTINATION ${TONEKIT_CMAKE_DIR} COMPONENT devel)

if(TARGET tonekit_io)
  set_target_properties(tonekit_io PROPERTIES EXPORT_NAME io)
  install(TARGETS tonekit_io EXPORT tonekitIoTargets ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT devel)
  install(EXPORT tonekitIoTargets NAMESPACE tonekit:: DESTINATION ${TONEKIT_CMAKE_DIR} COMPONENT devel)
endif()
if(TARGET tonekit_cli)
  install(TARGETS tonekit_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT runtime)
  install(TARGETS tonekit_studio_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT runtime)
  if(TARGET tonekit_video_cli)
    install(TARGETS tonekit_video_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT runtime)
  endif()
endif()

configure_package_config_file(cmake/tonekitConfig.cmake.in ${PROJECT_BINARY_DIR}/tonekitConfig.cmake
  INSTALL_DESTINATION ${TONEKIT_CMAKE_DIR})
# 0.x: a minor version may change the API.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/tonekitConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/tonekitConfig.cmake ${PROJECT_BINARY_DIR}/tonekitConfigVersion.cmake
  cmake/tonekitDependencies.cmake DESTINATION ${TONEKIT_CMAKE_DIR} COMPONENT devel)

# pkg-config: relocatable (prefix from the .pc file's own folder); --static adds what libtonekit.a needs.
file(RELATIVE_PATH TONEKIT_PC_PREFIX_FROM_PCDIR /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)
set(TONEKIT_PC_REQUIRES_PRIVATE)
set(TONEKIT_PC_LIBS_PRIVATE)
set(TONEKIT_PC_CFLAGS)
if(TARGET PkgConfig::TONEKIT_FFTW3F)
  list(APPEND TONEKIT_PC_REQUIRES_PRIVATE fftw3f)
endif()
if(TARGET PkgConfig::TONEKIT_FFTW3)
  list(APPEND TONEKIT_PC_REQUIRES_PRIVATE fftw3)
  if(TARGET tonekit_deps::fftw3_threads)
    list(APPEND TONEKIT_PC_LIBS_PRIVATE -lfftw3_threads)
  endif()
endif()
if(TONEKIT_HAS_CUDA)
  list(APPEND TONEKIT_PC_LIBS_PRIVATE -L${CUDAToolkit_LIBRARY_DIR} -lcudart_static -lrt)
  set(TONEKIT_PC_CFLAGS " -DTONEKIT_HAS_CUDA=1")
endif()
list(APPEND TONEKIT_PC_LIBS_PRIVATE ${CMAKE_DL_LIBS} -lpthread)
list(TRANSFORM TONEKIT_PC_LIBS_PRIVATE REPLACE "^([^-].*)$" "-l\\1")
list(JOIN TONEKIT_PC_REQUIRES_PRIVATE " " TONEKIT_PC_REQUIRES_PRIVATE)
list(JOIN TONEKIT_PC_LIBS_PRIVATE " " TONEKIT_PC_LIBS_PRIVATE)
configure_file(cmake/tonekit.pc.in ${PROJECT_BINARY_DIR}/tonekit.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/tonekit.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig COMPONENT devel)
