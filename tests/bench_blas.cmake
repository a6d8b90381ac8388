# The benchmarks' OpenBLAS anchor (bench/air_bench_blas.c): the kernel set it
# forces when OpenBLAS does not know the CPU, and that the loaded library uses
# the CPU's vector width. Built where OpenBLAS is found (cmake/airrt-gemm.cmake).
include(${PROJECT_SOURCE_DIR}/cmake/airrt-gemm.cmake)
if(AIRRT_OPENBLAS_SONAME)
  air_add_test(test_bench_blas ${CMAKE_CURRENT_SOURCE_DIR}/test_bench_blas.c
    ${PROJECT_SOURCE_DIR}/bench/air_bench_blas.c)
  target_include_directories(test_bench_blas PRIVATE ${PROJECT_SOURCE_DIR}/bench)
  target_compile_definitions(test_bench_blas PRIVATE
    AIR_OPENBLAS_SONAME="${AIRRT_OPENBLAS_SONAME}")
  target_link_libraries(test_bench_blas PRIVATE ${CMAKE_DL_LIBS})
endif()
