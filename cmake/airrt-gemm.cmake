# The GEMM libraries of the CPU driver's linalg kernels and of the benchmarks
# (issue 14; choice measured by bench/gemm_libs.c): imported targets
# airrt::blis (BLIS, the pthread build: general strides, a per-call thread count)
# and airrt::libxsmm (JIT small GEMMs), and AIRRT_OPENBLAS_SONAME, the OpenBLAS the
# benchmarks load as their anchor. Each is optional: what is missing is left
# undefined and the code using it is not built.
if(NOT TARGET airrt::blis)
  find_path(AIRRT_BLIS_INCLUDE_DIR blis.h
    PATHS /usr/include/${CMAKE_LIBRARY_ARCHITECTURE}/blis-pthread NO_DEFAULT_PATH)
  find_library(AIRRT_BLIS_LIBRARY blis
    PATHS /usr/lib/${CMAKE_LIBRARY_ARCHITECTURE}/blis-pthread NO_DEFAULT_PATH)
  if(AIRRT_BLIS_INCLUDE_DIR AND AIRRT_BLIS_LIBRARY)
    add_library(airrt::blis INTERFACE IMPORTED)
    target_include_directories(airrt::blis INTERFACE ${AIRRT_BLIS_INCLUDE_DIR})
    target_link_libraries(airrt::blis INTERFACE ${AIRRT_BLIS_LIBRARY})
  endif()
endif()
if(NOT TARGET airrt::libxsmm)
  find_path(AIRRT_LIBXSMM_INCLUDE_DIR libxsmm.h)
  # libxsmmnoblas: libxsmm's fallback path must not pull a BLAS of its own.
  find_library(AIRRT_LIBXSMM_LIBRARY NAMES libxsmm.a xsmm)
  find_library(AIRRT_LIBXSMM_NOBLAS NAMES libxsmmnoblas.a xsmmnoblas)
  if(AIRRT_LIBXSMM_INCLUDE_DIR AND AIRRT_LIBXSMM_LIBRARY AND AIRRT_LIBXSMM_NOBLAS)
    find_package(Threads REQUIRED)
    add_library(airrt::libxsmm INTERFACE IMPORTED)
    target_include_directories(airrt::libxsmm INTERFACE ${AIRRT_LIBXSMM_INCLUDE_DIR})
    target_link_libraries(airrt::libxsmm INTERFACE ${AIRRT_LIBXSMM_LIBRARY}
      ${AIRRT_LIBXSMM_NOBLAS} Threads::Threads ${CMAKE_DL_LIBS} rt m)
  endif()
endif()
if(NOT AIRRT_OPENBLAS_SONAME)
  find_file(AIRRT_OPENBLAS_SO libopenblas.so.0
    PATHS /usr/lib/${CMAKE_LIBRARY_ARCHITECTURE}/openblas-pthread
          /usr/lib/${CMAKE_LIBRARY_ARCHITECTURE} NO_DEFAULT_PATH)
  if(AIRRT_OPENBLAS_SO)
    set(AIRRT_OPENBLAS_SONAME ${AIRRT_OPENBLAS_SO})
  endif()
endif()
