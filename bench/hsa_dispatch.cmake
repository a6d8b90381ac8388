# hsa-dispatch (PERFORMANCE.md): host cost per dispatch and per dependency edge of
# the hsa driver's queue on the software HSA queue. Needs the HSA headers.
if(TARGET air_soft_hsa)
  add_library(air_bench_hsa_dispatch STATIC ${CMAKE_CURRENT_LIST_DIR}/hsa_dispatch.c)
  target_link_libraries(air_bench_hsa_dispatch PUBLIC air_bench_util air_soft_hsa)
  add_executable(air-bench-hsa-dispatch ${CMAKE_CURRENT_LIST_DIR}/air_bench_one.c)
  target_compile_definitions(air-bench-hsa-dispatch PRIVATE AIR_BENCH_ENTRY=air_bench_hsa_dispatch)
  target_link_libraries(air-bench-hsa-dispatch PRIVATE air_bench_hsa_dispatch)
  if(BUILD_TESTING)
    add_test(NAME bench_quick_hsa_dispatch COMMAND air-bench-hsa-dispatch --quick)
    set_tests_properties(bench_quick_hsa_dispatch PROPERTIES TIMEOUT 300 LABELS "bench")
  endif()
endif()
