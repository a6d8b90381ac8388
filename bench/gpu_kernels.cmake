# gpu-kernels (docs/gpu.md, docs/performance.md): host compile time and code-object
# size of the GPU kernels generated from launches, against the host workgroup
# simulator's build of the same launches and a bare spawn of the linker. Needs the
# code generator (LLVM 16) and an ld.lld of release 16 or later at run time.
if(TARGET airrt_codegen)
  add_library(air_bench_gpu_kernels STATIC ${CMAKE_CURRENT_LIST_DIR}/gpu_kernels.c)
  target_include_directories(air_bench_gpu_kernels PRIVATE ${PROJECT_SOURCE_DIR}/src)
  target_link_libraries(air_bench_gpu_kernels PUBLIC air_bench_util airrt_codegen)
  target_compile_definitions(air_bench_gpu_kernels PRIVATE
    AIR_GPU_DATA_DIR="${PROJECT_SOURCE_DIR}/tests/data/gpu"
    AIR_SAMPLES_DIR="${PROJECT_SOURCE_DIR}/samples")
  add_executable(air-bench-gpu-kernels ${CMAKE_CURRENT_LIST_DIR}/air_bench_one.c)
  target_compile_definitions(air-bench-gpu-kernels PRIVATE AIR_BENCH_ENTRY=air_bench_gpu_kernels)
  target_link_libraries(air-bench-gpu-kernels PRIVATE air_bench_gpu_kernels)
  if(BUILD_TESTING)
    add_test(NAME bench_quick_gpu_kernels COMMAND air-bench-gpu-kernels --quick --case vadd/gfx90a)
    set_tests_properties(bench_quick_gpu_kernels PROPERTIES TIMEOUT 300 LABELS "bench")
  endif()
endif()
