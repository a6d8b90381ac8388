# gemm-libs: the measurement behind the choice of GEMM library (issue 14):
# OpenBLAS (dlopen'd), BLIS and libxsmm on the executor's shapes. Built when the
# three Debian packages are installed (scripts/setup-deps.sh); see
# docs/performance.md, "GEMM library choice".
include(${PROJECT_SOURCE_DIR}/cmake/airrt-gemm.cmake)
if(TARGET airrt::blis AND TARGET airrt::libxsmm AND AIRRT_OPENBLAS_SONAME)
  add_library(air_bench_gemm_libs STATIC ${CMAKE_CURRENT_LIST_DIR}/gemm_libs.c)
  target_link_libraries(air_bench_gemm_libs PUBLIC air_bench_util air_bench_prog airrt::libxsmm airrt::blis
    ${CMAKE_DL_LIBS} m)
  target_compile_definitions(air_bench_gemm_libs PRIVATE
    AIR_OPENBLAS_SONAME="${AIRRT_OPENBLAS_SONAME}")
  add_executable(air-bench-gemm-libs ${CMAKE_CURRENT_LIST_DIR}/air_bench_one.c)
  target_compile_definitions(air-bench-gemm-libs PRIVATE AIR_BENCH_ENTRY=air_bench_gemm_libs)
  target_link_libraries(air-bench-gemm-libs PRIVATE air_bench_gemm_libs)
  if(BUILD_TESTING)
    add_test(NAME bench_quick_gemm_libs COMMAND air-bench-gemm-libs --quick)
    set_tests_properties(bench_quick_gemm_libs PROPERTIES TIMEOUT 300 LABELS "bench")
  endif()
endif()
