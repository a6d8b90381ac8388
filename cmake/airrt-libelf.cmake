# libelf, which reads and writes .airbin artifacts (src/scheduler/artifact/), as
# the imported target airrt::libelf: through pkg-config when it knows libelf,
# else find_path/find_library. The build includes this file, and so does the
# installed airrtConfig.cmake, so a consumer of the static library links the same
# libelf. Sets AIRRT_LIBELF_VIA_PKGCONFIG for the pkg-config file.
if(NOT TARGET airrt::libelf)
  find_package(PkgConfig QUIET)
  if(PKG_CONFIG_FOUND)
    pkg_check_modules(AIRRT_LIBELF QUIET IMPORTED_TARGET libelf)
  endif()
  if(AIRRT_LIBELF_FOUND)
    add_library(airrt::libelf INTERFACE IMPORTED)
    target_link_libraries(airrt::libelf INTERFACE PkgConfig::AIRRT_LIBELF)
    set(AIRRT_LIBELF_VIA_PKGCONFIG TRUE)
  else()
    find_path(AIRRT_LIBELF_INCLUDE_DIR libelf.h)
    find_library(AIRRT_LIBELF_LIBRARY elf)
    if(AIRRT_LIBELF_INCLUDE_DIR AND AIRRT_LIBELF_LIBRARY)
      add_library(airrt::libelf INTERFACE IMPORTED)
      target_include_directories(airrt::libelf INTERFACE ${AIRRT_LIBELF_INCLUDE_DIR})
      target_link_libraries(airrt::libelf INTERFACE ${AIRRT_LIBELF_LIBRARY})
    endif()
    set(AIRRT_LIBELF_VIA_PKGCONFIG FALSE)
  endif()
endif()
