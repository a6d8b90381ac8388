# msgpack-c (Debian: libmsgpack-dev), which decodes the MessagePack metadata of
# AMDGPU code objects (src/amdgpu/metadata.c), as the imported target airrt::msgpack:
# through pkg-config's `msgpack` when it is known, else find_path/find_library.
# Included by the build and by the installed airrtConfig.cmake (a static consumer
# links it too). Sets AIRRT_MSGPACK_VIA_PKGCONFIG for the pkg-config file.
if(NOT TARGET airrt::msgpack)
  find_package(PkgConfig QUIET)
  if(PKG_CONFIG_FOUND)
    pkg_check_modules(AIRRT_MSGPACK QUIET IMPORTED_TARGET msgpack)
  endif()
  # Debian's msgpack.pc says libdir=/usr/lib: the library itself is multiarch, so
  # only its include directory and name are taken from pkg-config.
  find_path(AIRRT_MSGPACK_INCLUDE_DIR msgpack.h HINTS ${AIRRT_MSGPACK_INCLUDE_DIRS})
  find_library(AIRRT_MSGPACK_LIBRARY NAMES msgpackc msgpack-c)
  if(AIRRT_MSGPACK_INCLUDE_DIR AND AIRRT_MSGPACK_LIBRARY)
    add_library(airrt::msgpack INTERFACE IMPORTED)
    target_include_directories(airrt::msgpack INTERFACE ${AIRRT_MSGPACK_INCLUDE_DIR})
    target_link_libraries(airrt::msgpack INTERFACE ${AIRRT_MSGPACK_LIBRARY})
  endif()
  set(AIRRT_MSGPACK_VIA_PKGCONFIG ${AIRRT_MSGPACK_FOUND})
endif()
