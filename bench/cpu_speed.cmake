# The issue-14 benchmarks (docs/performance.md, "CPU driver at native speed"):
# cpu-matmul (whole matmuls as AIR programs vs OpenBLAS), channel-transfer
# (put/get between two herds vs a spin ping-pong) and elementwise (herd code vs
# a C loop). Each prints ratios measured in the same run and checks every output;
# ctest runs each once with --quick (label "bench", exit status only).
include(${PROJECT_SOURCE_DIR}/cmake/airrt-gemm.cmake)
add_library(air_bench_prog STATIC ${CMAKE_CURRENT_LIST_DIR}/air_bench_prog.c
  ${CMAKE_CURRENT_LIST_DIR}/air_bench_blas.c)
target_link_libraries(air_bench_prog PUBLIC air_bench_util airrt_internal ${CMAKE_DL_LIBS})
if(AIRRT_OPENBLAS_SONAME)
  target_compile_definitions(air_bench_prog PRIVATE AIR_OPENBLAS_SONAME="${AIRRT_OPENBLAS_SONAME}")
endif()

# A build with the code generator: abp_code_probe refuses to time the
# interpreter when libairrt_codegen.so cannot be loaded (bench/CMakeLists.txt
# makes every bench binary depend on it).
if(TARGET airrt_codegen_shared)
  target_compile_definitions(air_bench_prog PRIVATE
    AIR_BENCH_CODEGEN_LIB="$<TARGET_SONAME_FILE_NAME:airrt_codegen_shared>")
endif()

set(AIR_BENCH_CPU_SPEED cpu_matmul channel_transfer elementwise)
foreach(b ${AIR_BENCH_CPU_SPEED})
  add_library(air_bench_${b} STATIC ${CMAKE_CURRENT_LIST_DIR}/${b}.c)
  target_link_libraries(air_bench_${b} PUBLIC air_bench_prog m)
  target_compile_definitions(air_bench_${b} PRIVATE
    AIR_SAMPLES_DIR="${PROJECT_SOURCE_DIR}/samples")
  string(REPLACE "_" "-" dashed ${b})
  add_executable(air-bench-${dashed} ${CMAKE_CURRENT_LIST_DIR}/air_bench_one.c)
  target_compile_definitions(air-bench-${dashed} PRIVATE AIR_BENCH_ENTRY=air_bench_${b})
  target_link_libraries(air-bench-${dashed} PRIVATE air_bench_${b})
  target_link_libraries(air-bench PRIVATE air_bench_${b})
  if(BUILD_TESTING)
    add_test(NAME bench_quick_${b} COMMAND air-bench ${dashed} --quick)
    add_test(NAME bench_quick_${b}_json COMMAND air-bench ${dashed} --quick --json)
    set_tests_properties(bench_quick_${b} bench_quick_${b}_json PROPERTIES TIMEOUT 300
      LABELS "bench")
  endif()
endforeach()
if(NOT AIRRT_OPENBLAS_SONAME AND BUILD_TESTING)
  # Without OpenBLAS cpu-matmul has no anchor: it says so and fails.
  set_tests_properties(bench_quick_cpu_matmul bench_quick_cpu_matmul_json PROPERTIES DISABLED TRUE)
endif()
