# The air-bench front end (TOOLS.md) and the benchmarks written with it: dma-copy,
# signal-latency, submit-sweep, matmul. Each is a library with the entry
# air_bench_<name>(argc, argv), a stand-alone air-bench-<name> binary, and a ctest
# smoke run (`air-bench <name> --quick`, label "bench") that checks exit 0 only:
# no timing is asserted anywhere.
add_library(air_bench_util STATIC ${CMAKE_CURRENT_LIST_DIR}/air_bench_util.c)
target_link_libraries(air_bench_util PUBLIC air_tool_util Threads::Threads m)
target_include_directories(air_bench_util PUBLIC ${CMAKE_CURRENT_LIST_DIR})

set(AIR_BENCH_MINE dma_copy signal_latency submit_sweep matmul npu_insts)
foreach(b ${AIR_BENCH_MINE})
  add_library(air_bench_${b} STATIC ${CMAKE_CURRENT_LIST_DIR}/${b}.c)
  target_link_libraries(air_bench_${b} PUBLIC air_bench_util airrt_internal)
  string(REPLACE "_" "-" dashed ${b})
  add_executable(air-bench-${dashed} ${CMAKE_CURRENT_LIST_DIR}/air_bench_one.c)
  target_compile_definitions(air-bench-${dashed} PRIVATE AIR_BENCH_ENTRY=air_bench_${b})
  target_link_libraries(air-bench-${dashed} PRIVATE air_bench_${b})
endforeach()

# matmul runs its program through air_bench_prog (cpu_speed.cmake): abp_open, and
# abp_code_probe for the "herd code compiled/INTERPRETED" header line.
target_link_libraries(air_bench_matmul PUBLIC air_bench_prog)

add_executable(air-bench ${CMAKE_CURRENT_LIST_DIR}/air_bench_main.c)
target_link_libraries(air-bench PRIVATE air_bench_dag_overhead air_bench_arena_pack
  air_bench_dma_copy air_bench_signal_latency air_bench_submit_sweep air_bench_matmul
  air_bench_npu_insts)
# The npu bench's submit case runs the driver over the tests' fake XRT.
if(BUILD_TESTING)
  target_compile_definitions(air_bench_npu_insts PRIVATE AIR_FAKE_XRT="$<TARGET_FILE:air_fake_xrt>")
endif()
# hsa-dispatch (bench/hsa_dispatch.cmake) when the software HSA queue is built.
if(TARGET air_soft_hsa)
  target_link_libraries(air-bench PRIVATE air_bench_hsa_dispatch)
  target_compile_definitions(air-bench PRIVATE AIR_BENCH_HSA=1)
endif()
if(TARGET air_bench_dag_libomp_helper)
  add_dependencies(air-bench air_bench_dag_libomp_helper)
endif()

if(BUILD_TESTING)
  add_test(NAME bench_cli_list COMMAND air-bench list)
  # Bad usage exits 2 exactly.
  add_test(NAME bench_cli_bad_name COMMAND sh -c "\"$1\" no-such-bench; test $? -eq 2"
    sh $<TARGET_FILE:air-bench>)
  add_test(NAME bench_cli_bad_option COMMAND sh -c "\"$1\" dma-copy --bogus; test $? -eq 2"
    sh $<TARGET_FILE:air-bench>)
  foreach(b ${AIR_BENCH_MINE})
    string(REPLACE "_" "-" dashed ${b})
    add_test(NAME bench_quick_${b} COMMAND air-bench ${dashed} --quick)
    add_test(NAME bench_quick_${b}_json COMMAND air-bench ${dashed} --quick --json)
    set_tests_properties(bench_quick_${b} bench_quick_${b}_json PROPERTIES TIMEOUT 300)
  endforeach()
  set_tests_properties(bench_cli_list bench_cli_bad_name bench_cli_bad_option PROPERTIES TIMEOUT 30)
  get_property(_air_bench_tests DIRECTORY PROPERTY TESTS)
  set_tests_properties(${_air_bench_tests} PROPERTIES LABELS "bench")
endif()
